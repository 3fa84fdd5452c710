//! What a block-indexed file that grew since its index was built holds
//! past it: its last indexed block and the new bytes (which may continue
//! that block's last line), cut at line ends into spans of about
//! [`TAIL_SPAN`], each knowing its first line's number, so that no buffer
//! holds the whole tail and a scan's partitions share it. The tail is read
//! once to cut it, 1 MiB at a time.

use trigrep::text::{Block, BlockText};

/// What a file that grew since its index was built holds past it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tail {
    /// Its last indexed block and the new bytes (which may continue that
    /// block's last line), cut at line ends into spans of about
    /// [`TAIL_SPAN`] each, so that no buffer holds the whole tail and
    /// partitions share it; none when the file did not grow.
    pub spans: Vec<Block>,
    /// Whether the new bytes hold a NUL.
    pub has_nul: bool,
}

/// About how long a span of a grown tail is (one holding a longer line is
/// as long as the line).
pub const TAIL_SPAN: u64 = 16 << 20;

/// How much of a tail is read at a time to cut it.
const TAIL_WINDOW: usize = 1 << 20;

/// What `text` holds past the end of its index: read once, in windows,
/// counting lines so that each span knows its first line's number.
pub fn grown_tail(text: &dyn BlockText) -> std::io::Result<Tail> {
    let covered = text.covered();
    if text.len() <= covered.len {
        return Ok(Tail::default());
    }
    let last = text.blocks().last().copied().unwrap_or(Block { offset: 0, len: 0, first_line: 1 });
    cut_tail(&|at, buf| text.read_at(at, buf), last, covered.len, text.len(), TAIL_SPAN)
}

/// A whole text of `len` bytes, which `read_at` reads, cut as a tail is
/// (from its start, line 1) into spans of about `span_len`: its spans,
/// and whether it holds a NUL.
pub fn whole(
    read_at: &dyn Fn(u64, &mut [u8]) -> std::io::Result<()>,
    len: u64,
    span_len: u64,
) -> std::io::Result<Tail> {
    cut_tail(read_at, Block { offset: 0, len: 0, first_line: 1 }, 0, len, span_len)
}

/// [`grown_tail`] of the bytes `read_at` reads: from the start of `last`
/// (a block starting a line) to `end`, new from `new`; spans of about
/// `span_len`.
fn cut_tail(
    read_at: &dyn Fn(u64, &mut [u8]) -> std::io::Result<()>,
    last: Block,
    new: u64,
    end: u64,
    span_len: u64,
) -> std::io::Result<Tail> {
    let mut tail = Tail::default();
    let mut span = Block { offset: last.offset, len: 0, first_line: last.first_line };
    // Line ends in the span before `at`.
    let mut ends = 0;
    let mut buf = vec![0; TAIL_WINDOW];
    let mut at = last.offset;
    while at < end {
        let window = &mut buf[..(end - at).min(TAIL_WINDOW as u64) as usize];
        read_at(at, window)?;
        let fresh = new.saturating_sub(at).min(window.len() as u64) as usize;
        tail.has_nul |= memchr::memchr(0, &window[fresh..]).is_some();
        let after = at + window.len() as u64;
        match memchr::memrchr(b'\n', window).filter(|_| after - span.offset >= span_len) {
            Some(i) => {
                let cut = at + i as u64 + 1;
                ends += count_lines(&window[..=i]);
                tail.spans.push(Block { len: cut - span.offset, ..span });
                span = Block { offset: cut, len: 0, first_line: span.first_line + ends };
                // `i` is the window's last line end: none after it.
                ends = 0;
            }
            None => ends += count_lines(window),
        }
        at = after;
    }
    if end > span.offset {
        tail.spans.push(Block { len: end - span.offset, ..span });
    }
    Ok(tail)
}

/// The line ends in `bytes`.
fn count_lines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cuts `text` from `last_offset` (line `first_line`), new from
    /// `new`, into spans of about `span_len`, read in whatever windows.
    fn cut(text: &[u8], last_offset: u64, first_line: u64, new: u64, span_len: u64) -> Tail {
        let read = |at: u64, buf: &mut [u8]| {
            buf.copy_from_slice(&text[at as usize..at as usize + buf.len()]);
            Ok(())
        };
        let last = Block { offset: last_offset, len: 0, first_line };
        cut_tail(&read, last, new, text.len() as u64, span_len).unwrap()
    }

    #[test]
    fn a_grown_tail_is_cut_at_line_ends_with_its_line_numbers() {
        // Lines of every length, one of them longer than a window and
        // several spans, the last without a line end.
        let mut text = Vec::new();
        for i in 0..40_000u64 {
            let len = if i == 20_000 { 3 * TAIL_WINDOW } else { (i * 7919 % 300) as usize };
            text.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, len));
            text.push(b'\n');
        }
        text.extend_from_slice(b"no line end");
        let line_of = |at: u64| 1 + count_lines(&text[..at as usize]);
        for (last, span_len) in [(0, 100_000), (12_345, TAIL_WINDOW as u64), (77, TAIL_SPAN)] {
            let last = last + memchr::memchr(b'\n', &text[last as usize..]).unwrap() as u64 + 1;
            let tail = cut(&text, last, line_of(last), last + 10, span_len);
            assert!(!tail.has_nul);
            let mut at = last;
            for span in &tail.spans {
                assert_eq!(span.offset, at, "contiguous");
                assert_eq!(span.first_line, line_of(at), "at {at}");
                assert!(at == last || text[at as usize - 1] == b'\n', "starts a line");
                let long_line = memchr::memmem::find(
                    &text[at as usize..(at + span.len) as usize],
                    &vec![b'a' + (20_000 % 26) as u8; 3 * TAIL_WINDOW],
                )
                .is_some();
                assert!(span.len < span_len + TAIL_WINDOW as u64 || long_line, "{span:?}");
                at += span.len;
            }
            assert_eq!(at, text.len() as u64);
            if span_len < TAIL_SPAN {
                assert!(tail.spans.len() > 3, "{} spans", tail.spans.len());
            }
        }
        // A NUL counts only in the new bytes.
        let text = b"a\0b\nc\nd\0e\n".to_vec();
        assert!(!cut(&text, 0, 1, 9, 4).has_nul);
        assert!(cut(&text, 0, 1, 7, 4).has_nul);
    }
}
