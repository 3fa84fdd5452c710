//! Long lines wrapped (less without `-S`): where a line's rows start.
//!
//! The rule: a line is cut into rows as `fold -w W` cuts it, W being the
//! columns left for text (the app's `wrap_columns`), each character
//! counting the columns the screen shows it in ([`columns`]: a tab to
//! the next multiple of 8 from the row's start, a control character 2,
//! an invalid byte 4, a wide character 2, any other 1). A character that
//! does not fit starts the next row; a row holds one at least; an empty
//! line is one empty row. For printable ASCII and tabs this is what
//! `fold -w W` prints, byte for byte (fold counts bytes, the screen
//! columns).
//!
//! So that no line is read whole for a row, a line is folded afresh at
//! each [`PIECE`] of its bytes: no row crosses a multiple of 256 KiB from
//! the line's start (a character cut there shows as escaped bytes). The
//! row before any row is then found by reading at most 256 KiB back,
//! whatever the line's length; the rows after it, by reading at most
//! 4 bytes a column forward.

use super::escape::{INVALID, columns};
use super::nav;
use super::text::Text;

/// A line is folded afresh from each multiple of this many of its bytes.
pub const PIECE: u64 = 256 << 10;

/// The most bytes one row of `width` columns holds, and a character more.
pub fn row_bytes(width: usize) -> usize {
    4 * width.max(1) + 4
}

/// The length of the first row of `bytes` (from a row's start, within
/// one piece of a line, without its newline) in `width` columns; `None`
/// when `bytes` ends before the row does and is not `complete` (more of
/// the piece follows them).
pub fn row_len(bytes: &[u8], width: usize, complete: bool) -> Option<usize> {
    let width = width.max(1);
    let (mut col, mut at) = (0, 0);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            let w = columns(c, col);
            if col + w > width && at > 0 {
                return Some(at);
            }
            (col, at) = (col + w, at + c.len_utf8());
        }
        for _ in chunk.invalid() {
            // A character cut by the end of what was read looks invalid.
            if !complete && bytes.len() - at < 4 {
                return None;
            }
            if col + INVALID > width && at > 0 {
                return Some(at);
            }
            (col, at) = (col + INVALID, at + 1);
        }
    }
    complete.then_some(at)
}

/// The start of the piece holding the byte `part` bytes into a line.
fn piece_of(part: u64) -> u64 {
    part / PIECE * PIECE
}

/// Rows of one line, read forward from one of them.
#[derive(Debug, PartialEq, Eq)]
pub struct Rows {
    /// Each row: where it starts (bytes into the line) and its length.
    pub rows: Vec<(u64, usize)>,
    /// Reached the line's end: where the next line starts (`None`: the
    /// text ends). Not reached (`None`): the line goes on after the rows.
    pub end: Option<Option<u64>>,
}

/// A text's lines folded into rows of `width` columns.
pub struct Folder<'a> {
    /// The text.
    pub text: &'a dyn Text,
    /// Columns a row holds.
    pub width: usize,
}

impl Folder<'_> {
    /// At most `n` rows of the line starting at `line`, from the row
    /// `part` bytes into it; reads at most [`row_bytes`] a row, and
    /// little more when the line ends before.
    pub fn forward(&self, line: u64, mut part: u64, n: usize) -> Rows {
        let mut out = Rows { rows: Vec::new(), end: None };
        let width = self.width.max(1);
        let mut chunk = 4 << 10;
        let mut buf = Vec::new();
        while out.rows.len() < n {
            let at = line + part;
            let room = piece_of(part) + PIECE - part;
            let need = (n - out.rows.len()).saturating_mul(row_bytes(width)) as u64;
            // A byte past the piece: whether the line ends right there.
            let ask = (room + 1).min(need).min(chunk) as usize;
            chunk = chunk.saturating_mul(4);
            buf.resize(ask, 0);
            let got = nav::read_full(self.text, at, &mut buf);
            let newline = memchr::memchr(b'\n', &buf[..got]);
            let content = newline.unwrap_or(got).min(room as usize);
            let text_end = newline.is_none() && got < ask;
            let complete = newline.is_some() || text_end || content as u64 == room;
            if content == 0 && part == 0 {
                out.rows.push((0, 0));
            }
            let mut off = 0;
            while out.rows.len() < n && off < content {
                match row_len(&buf[off..content], width, complete) {
                    Some(r) => {
                        out.rows.push((part + off as u64, r));
                        off += r;
                    }
                    None => break,
                }
            }
            part += off as u64;
            if !complete || off < content {
                continue;
            }
            if let Some(i) = newline {
                let next = at + i as u64 + 1;
                out.end = Some((next < self.text.len()).then_some(next));
                break;
            }
            if text_end {
                out.end = Some(None);
                break;
            }
        }
        out
    }

    /// Where the rows of the line at `line` start in `from..to` (bytes
    /// into it; `from` a piece's start): `[from]` when it is empty.
    fn starts(&self, line: u64, from: u64, to: u64) -> Vec<u64> {
        let mut buf = vec![0; (to - from) as usize];
        let got = nav::read_full(self.text, line + from, &mut buf);
        buf.truncate(got);
        let mut starts = vec![from];
        let mut off = 0;
        while let Some(r) = row_len(&buf[off..], self.width, true).filter(|&r| r > 0) {
            off += r;
            if off >= buf.len() {
                break;
            }
            starts.push(from + off as u64);
        }
        starts
    }

    /// Where the row holding the byte `part` bytes into the line at
    /// `line` starts (bytes into the line).
    pub fn row_of(&self, line: u64, part: u64) -> u64 {
        let from = piece_of(part);
        // The byte's character whole: a row ends before a character.
        let want = (part + 4).min(from + PIECE) - from;
        let mut buf = vec![0; want as usize];
        let got = nav::read_full(self.text, line + from, &mut buf);
        buf.truncate(memchr::memchr(b'\n', &buf[..got]).unwrap_or(got));
        let complete = (buf.len() as u64) < want;
        let target = (part - from) as usize;
        let (mut off, mut start) = (0, 0);
        while off <= target {
            start = off;
            match row_len(&buf[off..], self.width, complete) {
                Some(r) if r > 0 => off += r,
                _ => break,
            }
        }
        from + start as u64
    }

    /// The row `n` rows before a place in the text, as `(line, part)`:
    /// the row `part` bytes into the line at `line`, or, `after`, the
    /// end of that line, `part` bytes long. `prev` gives the line before
    /// a line and its length (`None`: the first); the first row when there
    /// are fewer.
    pub fn back(
        &self,
        (mut line, mut part): (u64, u64),
        mut after: bool,
        mut n: u64,
        prev: &mut dyn FnMut(u64) -> Option<(u64, u64)>,
    ) -> (u64, u64) {
        while n > 0 {
            if part == 0 && !after {
                match prev(line) {
                    Some((l, len)) => (line, part, after) = (l, len, true),
                    None => return (line, 0),
                }
                continue;
            }
            let from = piece_of(part.saturating_sub(1));
            let starts = self.starts(line, from, part);
            let k = starts.len() as u64;
            if k >= n {
                return (line, starts[(k - n) as usize]);
            }
            (part, after, n) = (from, false, n - k);
        }
        (line, part)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::text::Memory;

    /// GNU fold's algorithm (coreutils' fold.c, without -b or -s), for
    /// ASCII: a tab to the next multiple of 8, a character that passes
    /// the width starts the next row.
    fn fold(line: &[u8], width: usize) -> Vec<Vec<u8>> {
        let (mut rows, mut row, mut col) = (Vec::new(), Vec::new(), 0);
        for &b in line {
            let next = if b == b'\t' { col + 8 - col % 8 } else { col + 1 };
            if next > width && !row.is_empty() {
                rows.push(std::mem::take(&mut row));
                col = if b == b'\t' { 8 } else { 1 };
            } else {
                col = next;
            }
            row.push(b);
        }
        rows.push(row);
        rows
    }

    /// Every line's rows, read forward, as `(line start, part, bytes)`.
    fn all_rows(t: &Memory, width: usize) -> Vec<(u64, u64, Vec<u8>)> {
        let folder = Folder { text: t, width };
        let mut out = Vec::new();
        let mut line = Some(0);
        while let Some(l) = line {
            let got = folder.forward(l, 0, usize::MAX >> 8);
            for (p, n) in got.rows {
                let at = (l + p) as usize;
                out.push((l, p, t.0[at..at + n].to_vec()));
            }
            line = got.end.unwrap();
        }
        out
    }

    #[test]
    fn rows_are_folds_of_each_line() {
        let mut data = Vec::new();
        for i in 0..200u32 {
            let len = (i * 37 % 300) as usize;
            let line: Vec<u8> =
                (0..len)
                    .map(|k| {
                        if (k as u32 + i).is_multiple_of(23) {
                            b'\t'
                        } else {
                            b'a' + (k % 26) as u8
                        }
                    })
                    .collect();
            data.extend_from_slice(&line);
            data.push(b'\n');
        }
        let t = Memory(data.clone());
        for width in [1, 7, 8, 9, 80, 119] {
            let want: Vec<Vec<u8>> =
                data.split(|&b| b == b'\n').take(200).flat_map(|l| fold(l, width)).collect();
            let got = all_rows(&t, width);
            let bytes: Vec<Vec<u8>> = got.iter().map(|r| r.2.clone()).collect();
            assert_eq!(bytes, want, "width {width}");
            // Back from each row one, and from the end every row.
            let folder = Folder { text: &t, width };
            let mut prev = |l: u64| {
                (l > 0).then(|| {
                    let s = crate::view::nav::line_start(&t, l - 1);
                    (s, l - 1 - s)
                })
            };
            for pair in got.windows(2) {
                let back = folder.back((pair[1].0, pair[1].1), false, 1, &mut prev);
                assert_eq!(back, (pair[0].0, pair[0].1), "width {width}");
                // Each byte of a row is in that row.
                let (line, part, bytes) = &pair[0];
                for k in 0..bytes.len() as u64 {
                    assert_eq!(folder.row_of(*line, part + k), *part, "width {width}");
                }
            }
            let last = got.last().unwrap();
            let end = (last.0, last.1 + last.2.len() as u64);
            let n = got.len() as u64;
            assert_eq!(folder.back(end, true, n, &mut prev), (0, 0));
            assert_eq!(
                folder.back(end, true, 3, &mut prev),
                (got[got.len() - 3].0, got[got.len() - 3].1)
            );
        }
    }

    /// A line longer than a piece is folded afresh at each piece: rows
    /// found forward and backward agree, none crosses a piece's edge.
    #[test]
    fn long_lines_fold_by_pieces() {
        let mut data = b"head\n".to_vec();
        data.extend((0..(PIECE * 2 + 1000)).map(|k| b'a' + (k % 26) as u8));
        data.extend_from_slice(b"\ntail\n");
        let t = Memory(data);
        let width = 100;
        let got = all_rows(&t, width);
        let line: Vec<_> = got.iter().filter(|r| r.0 == 5).collect();
        let per = (PIECE as usize).div_ceil(width);
        assert_eq!(line.len(), 2 * per + 10);
        assert_eq!(line[per].1, PIECE, "the second piece starts a row");
        assert_eq!(line[per - 1].2.len(), PIECE as usize % width);
        let folder = Folder { text: &t, width };
        let mut prev = |l: u64| {
            (l > 0).then(|| {
                let s = crate::view::nav::line_start(&t, l - 1);
                (s, l - 1 - s)
            })
        };
        for i in [1, per, per + 1, line.len() - 1] {
            assert_eq!(folder.back((5, line[i].1), false, 1, &mut prev), (5, line[i - 1].1));
        }
        let tail = got.iter().position(|r| r.2 == b"tail").unwrap();
        assert_eq!(folder.back((got[tail].0, 0), false, 1, &mut prev), (5, line[line.len() - 1].1));
    }

    #[test]
    fn wide_and_escaped_characters_count_their_columns() {
        assert_eq!(row_len("ab日本".as_bytes(), 4, true), Some(5));
        assert_eq!(row_len(b"a\x1bbc", 3, true), Some(2));
        assert_eq!(row_len(b"\xff\xfeab", 5, true), Some(1));
        assert_eq!(row_len("aé".as_bytes(), 2, true), Some(3));
        // A character cut by the end of what was read: not known yet.
        assert_eq!(row_len(&"aé".as_bytes()[..2], 2, false), None);
        assert_eq!(row_len(b"", 5, true), Some(0));
    }
}
