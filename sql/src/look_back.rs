//! The time a span of a text read by spans starts with when its first
//! lines have none of their own: that of the last line before it that
//! has one, found by reading the text backwards from the span, in
//! windows that double, as far as it takes (to the text's start when no
//! line before has a time). A part of a text never trusts what another
//! part read: each looks back for itself, so the answer is the same
//! however the text was cut.

use trigrep::logline::time::Format;

use crate::stamps::own_time;

/// The first window read backwards.
const WINDOW: u64 = 64 << 10;

/// The time of the last line before `at` (a line start) of the text
/// `text` reads (`text(offset, buf)` fills `buf`) that has one in `format`; its lines start at `start` (after a byte-order
/// mark). `None`: no line before `at` has a time.
pub fn time_before(
    text: &dyn Fn(u64, &mut [u8]) -> std::io::Result<()>,
    format: Format,
    start: u64,
    at: u64,
) -> std::io::Result<Option<i64>> {
    let mut end = at;
    let mut window = WINDOW;
    let mut buf = Vec::new();
    while end > start {
        let from = end.saturating_sub(window).max(start);
        buf.resize((end - from) as usize, 0);
        text(from, &mut buf)?;
        // The lines wholly in the window: from after its first line end,
        // or from its start when that is the text's.
        let first = if from == start {
            0
        } else {
            match memchr::memchr(b'\n', &buf[..buf.len() - 1]) {
                Some(i) => i + 1,
                None => {
                    // A line longer than the window: read more at once.
                    window *= 2;
                    continue;
                }
            }
        };
        let lines = &buf[first..buf.len() - 1];
        let last = lines.split(|&b| b == b'\n').rev().find_map(|l| own_time(format, l));
        if last.is_some() {
            return Ok(last);
        }
        end = from + first as u64;
        window = window.saturating_mul(2);
    }
    Ok(None)
}
