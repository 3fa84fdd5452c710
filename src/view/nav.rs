//! Moving through a text by lines without loading it: chunked reads
//! forward and backward from a byte offset.

use std::ops::Range;

use super::text::Text;

/// How much is read at a time.
const STEP: usize = 64 << 10;

/// Fills `buf` from `offset` as far as the text goes (a text may return
/// less than asked: a packed file stops at a frame's end); the count read.
pub fn read_full(text: &dyn Text, offset: u64, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match text.read_at(offset + n as u64, &mut buf[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    n
}

/// Reads `range` of `text` in order, a chunk at a time, while `f` says go on.
pub fn each_chunk(text: &dyn Text, range: Range<u64>, f: &mut dyn FnMut(&[u8]) -> bool) {
    // The first chunks are small: a move often needs a line or two (a
    // text merged by time makes every byte it gives).
    let mut size = STEP / 4;
    let mut buf = vec![0; STEP * 4];
    let mut at = range.start;
    while at < range.end {
        let want = size.min((range.end - at) as usize);
        size = (size * 4).min(buf.len());
        let n = match text.read_at(at, &mut buf[..want]) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if !f(&buf[..n]) {
            return;
        }
        at += n as u64;
    }
}

/// Reads `range` of `text` backward, a chunk at a time (each chunk's
/// bytes in order, the last chunk first), while `f` says go on; `f` gets
/// the chunk's offset too.
pub fn each_chunk_back(text: &dyn Text, range: Range<u64>, f: &mut dyn FnMut(u64, &[u8]) -> bool) {
    let mut buf = vec![0; STEP];
    let mut end = range.end;
    while end > range.start {
        let start = end.saturating_sub(STEP as u64).max(range.start);
        let want = (end - start) as usize;
        let n = read_full(text, start, &mut buf[..want]);
        if n < want || !f(start, &buf[..n]) {
            return;
        }
        end = start;
    }
}

/// The offset just past the `k`-th newline at or after `from` (`None`:
/// there are fewer; `k` = 0: `from`).
pub fn skip_lines(text: &dyn Text, from: u64, k: u64) -> Option<u64> {
    skip_within(text, from..text.len(), k, &mut |_, _| {}).ok()
}

/// The offset just past the `k`-th newline in `range` (which starts a
/// line; `k` = 0: its start), else how many newlines it holds; telling
/// `crossed` of every line longer than a chunk it read over: `(its
/// start, the next line's start)`, both seen.
pub fn skip_within(
    text: &dyn Text,
    range: Range<u64>,
    k: u64,
    crossed: &mut dyn FnMut(u64, u64),
) -> Result<u64, u64> {
    if k == 0 {
        return Ok(range.start);
    }
    // Where the line being read starts: a line longer than a chunk ends
    // at the first newline of a later chunk.
    let (mut left, mut at, mut found, mut line) = (k, range.start, None, range.start);
    each_chunk(text, range, &mut |bytes| {
        let Some(first) = memchr::memchr(b'\n', bytes) else {
            at += bytes.len() as u64;
            return true;
        };
        if at + first as u64 + 1 - line > bytes.len() as u64 {
            crossed(line, at + first as u64 + 1);
        }
        // Count whole chunks fast; find the position only in the last one.
        let n = memchr::memchr_iter(b'\n', bytes).count() as u64;
        if n < left {
            left -= n;
            line = at + memchr::memrchr(b'\n', bytes).unwrap_or(first) as u64 + 1;
            at += bytes.len() as u64;
            return true;
        }
        let i = memchr::memchr_iter(b'\n', bytes).nth((left - 1) as usize).unwrap_or(0);
        found = Some(at + i as u64 + 1);
        false
    });
    found.ok_or(k - left)
}

/// Where the line after the one starting at `at` starts (`None`: that
/// line is the last, with no newline, or `at` is the end).
pub fn next_line_start(text: &dyn Text, at: u64) -> Option<u64> {
    skip_lines(text, at, 1).filter(|&n| n < text.len())
}

/// Where the line holding `at` starts.
pub fn line_start(text: &dyn Text, at: u64) -> u64 {
    let mut start = 0;
    each_chunk_back(text, 0..at, &mut |offset, bytes| match memchr::memrchr(b'\n', bytes) {
        Some(i) => {
            start = offset + i as u64 + 1;
            false
        }
        None => true,
    });
    start
}

/// Where the `k`-th line before the line starting at `at` starts (0 at
/// the top), telling `crossed` of every line it reads over whole: `(its
/// start, the next line's start)`, both seen (the first line, whose start
/// no newline shows, is not told). `crossed` saying no stops the walk at
/// that line's start.
pub fn lines_back(
    text: &dyn Text,
    at: u64,
    k: u64,
    crossed: &mut dyn FnMut(u64, u64) -> bool,
) -> u64 {
    if k == 0 || at == 0 {
        return at;
    }
    // The newline just before `at` ends the line before; skip it.
    let (mut left, mut start, mut next) = (k, 0, at);
    each_chunk_back(text, 0..at - 1, &mut |offset, bytes| {
        for i in memchr::memrchr_iter(b'\n', bytes) {
            let line = offset + i as u64 + 1;
            left -= 1;
            if !crossed(line, next) || left == 0 {
                start = line;
                return false;
            }
            next = line;
        }
        true
    });
    start
}

/// Up to `max` bytes of the line starting at `start`, from `skip` on,
/// without looking for the line's end past them.
pub fn read_window(text: &dyn Text, start: u64, skip: u64, max: usize) -> Vec<u8> {
    let mut buf = vec![0; max];
    let n = read_full(text, start + skip, &mut buf);
    buf.truncate(memchr::memchr(b'\n', &buf[..n]).unwrap_or(n));
    buf
}

/// How far [`read_line`] got along a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// The line ends; the next one starts here.
    Next(u64),
    /// The line is the text's last.
    Last,
    /// No newline before this offset, where the read stopped.
    Beyond(u64),
}

/// The line starting at `start`: up to `max` of its bytes from `skip` on,
/// and where the next line starts, looked for in at most `limit` bytes
/// from `start` (and in whatever was read to show the line).
pub fn read_line(
    text: &dyn Text,
    start: u64,
    skip: u64,
    max: usize,
    limit: u64,
) -> (Vec<u8>, Reach) {
    let mut shown = Vec::new();
    let mut at = start;
    let mut next = None;
    let len = text.len();
    each_chunk(text, start..len, &mut |bytes| {
        let end = memchr::memchr(b'\n', bytes);
        let line = &bytes[..end.unwrap_or(bytes.len())];
        let from = skip.saturating_sub(at - start).min(line.len() as u64) as usize;
        let room = max - shown.len();
        shown.extend_from_slice(&line[from..line.len().min(from + room)]);
        match end {
            Some(i) => {
                next = Some(at + i as u64 + 1);
                false
            }
            None => {
                at += bytes.len() as u64;
                at - start < limit || shown.len() < max && at - start < skip + max as u64
            }
        }
    });
    let reach = match next {
        Some(n) if n < len => Reach::Next(n),
        Some(_) => Reach::Last,
        None if at >= len => Reach::Last,
        None => Reach::Beyond(at),
    };
    (shown, reach)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::text::Memory;

    #[test]
    fn moves_by_lines() {
        let t = Memory(b"a\nbb\n\nccc\nd".to_vec());
        assert_eq!(skip_lines(&t, 0, 1), Some(2));
        assert_eq!(skip_lines(&t, 0, 3), Some(6));
        assert_eq!(skip_lines(&t, 0, 5), None);
        assert_eq!(line_start(&t, 8), 6);
        assert_eq!(line_start(&t, 6), 6);
        assert_eq!(line_start(&t, 1), 0);
        let none = &mut |_, _| true;
        assert_eq!(lines_back(&t, 10, 1, none), 6);
        assert_eq!(lines_back(&t, 10, 2, none), 5);
        assert_eq!(lines_back(&t, 10, 9, none), 0);
        assert_eq!(read_line(&t, 2, 0, 10, 99), (b"bb".to_vec(), Reach::Next(5)));
        assert_eq!(read_line(&t, 6, 1, 1, 99), (b"c".to_vec(), Reach::Next(10)));
        assert_eq!(read_line(&t, 10, 0, 9, 99), (b"d".to_vec(), Reach::Last));
    }

    #[test]
    fn long_lines_cross_chunks() {
        let mut data = vec![b'x'; 700_000];
        data.extend_from_slice(b"\nend\n");
        let t = Memory(data);
        let (shown, next) = read_line(&t, 0, 600_000, 5, u64::MAX);
        assert_eq!((shown, next), (b"xxxxx".to_vec(), Reach::Next(700_001)));
        // Looking no further than 300 KB: the bytes shown, the end not found.
        let (shown, next) = read_line(&t, 0, 10, 5, 300_000);
        assert_eq!(shown, b"xxxxx");
        assert!(matches!(next, Reach::Beyond(n) if (300_000..700_000).contains(&n)), "{next:?}");
        assert_eq!(line_start(&t, 699_000), 0);
        let mut seen = Vec::new();
        assert_eq!(
            lines_back(&t, 700_001, 1, &mut |s, n| {
                seen.push((s, n));
                true
            }),
            0
        );
        assert!(seen.is_empty(), "the first line's start is not seen: {seen:?}");
        assert_eq!(
            lines_back(&t, 700_005, 2, &mut |s, n| {
                seen.push((s, n));
                true
            }),
            0
        );
        assert_eq!(seen, vec![(700_001, 700_005)]);
        let mut long = Vec::new();
        let mut data = b"a\n".to_vec();
        data.extend(vec![b'y'; 600_000]);
        data.extend_from_slice(b"\nb\nc\n");
        let t = Memory(data);
        let end = t.len();
        assert_eq!(skip_within(&t, 2..end, 2, &mut |s, n| long.push((s, n))), Ok(600_005));
        assert_eq!(skip_within(&t, 2..600_004, 3, &mut |_, _| {}), Err(1));
        assert_eq!(long, vec![(2, 600_003)], "the long line crossed");
        long.clear();
        assert_eq!(
            lines_back(&t, 600_005, 2, &mut |s, n| {
                long.push((s, n));
                true
            }),
            2
        );
        assert_eq!(long, vec![(600_003, 600_005), (2, 600_003)]);
        // Told to stop at the long line's end: its start is not looked for.
        assert_eq!(lines_back(&t, 600_005, 2, &mut |s, _| s != 600_003), 600_003);
    }
}
