//! The times of a text's lines, read with its timestamp format
//! ([`trigrep::logline::time`]): a line's time (a line without one, a
//! continuation, has the time of the last line before it that has one),
//! the first and last, whether they go up, and the first line at or after
//! a time, by bisecting the text's bytes (each probe reads a line or
//! two) or by scanning it.

use trigrep::logline::time::{self, Format};

use super::finder::Progress;
use super::nav;
use super::text::Text;

/// Bytes of a line read to find its time.
const HEAD: usize = time::LINE_HEAD;

/// Below this span, a bisection scans.
const SPAN: u64 = 256 << 10;

/// How far back a continuation line's time is looked for.
const BACK: u64 = 256 << 10;

/// How many places are probed to see whether the times are in order.
const PROBES: u64 = 16;

/// Calls `f` with the start and time of every line in `range` (from a
/// line start) that carries a time, in order, while it and `progress`
/// say go on. Whether it was stopped (by `f` or `progress`).
fn stamped(
    text: &dyn Text,
    format: Format,
    range: std::ops::Range<u64>,
    progress: Progress<'_>,
    f: &mut dyn FnMut(u64, i64) -> bool,
) -> bool {
    lines(text, format, range, progress, &mut |s, t| t.is_none_or(|t| f(s, t)))
}

/// Calls `f` with the start and time (if any) of every line in `range`
/// (from a line start), in order, while it and `progress` say go on.
/// Whether it was stopped (by `f` or `progress`).
fn lines(
    text: &dyn Text,
    format: Format,
    range: std::ops::Range<u64>,
    progress: Progress<'_>,
    f: &mut dyn FnMut(u64, Option<i64>) -> bool,
) -> bool {
    let (mut head, mut start, mut at, mut stopped) = (Vec::new(), range.start, range.start, false);
    let end = range.end.min(text.len());
    nav::each_chunk(text, range.start..end, &mut |bytes| {
        let mut from = 0;
        for i in memchr::memchr_iter(b'\n', bytes) {
            let room = HEAD.saturating_sub(head.len());
            head.extend_from_slice(&bytes[from..i.min(from + room)]);
            if !f(start, time::parse(format, &head)) {
                stopped = true;
                return false;
            }
            head.clear();
            from = i + 1;
            start = at + from as u64;
        }
        let room = HEAD.saturating_sub(head.len());
        head.extend_from_slice(&bytes[from..bytes.len().min(from + room)]);
        at += bytes.len() as u64;
        stopped = !progress(bytes.len() as u64);
        !stopped
    });
    if !stopped && end == text.len() && start < end && !text.arriving() {
        stopped = !f(start, time::parse(format, &head));
    }
    stopped
}

/// Calls `f` with the start and time (if any) of every line in `range`
/// (from a line start), in order, while it says go on.
pub fn each_time(
    text: &dyn Text,
    format: Format,
    range: std::ops::Range<u64>,
    f: &mut dyn FnMut(u64, Option<i64>) -> bool,
) {
    lines(text, format, range, &mut |_| true, f);
}

/// The first line at or after `from` (a line start) with a time, before
/// `end`: its start and time.
pub fn first_stamped(
    text: &dyn Text,
    format: Format,
    from: u64,
    end: u64,
    progress: Progress<'_>,
) -> Option<(u64, i64)> {
    let mut found = None;
    stamped(text, format, from..end, progress, &mut |s, t| {
        found = Some((s, t));
        false
    });
    found
}

/// The time of the line starting at `at`: its own, or that of the last
/// line before it with one (within [`BACK`] bytes), read a line at a
/// time going back (a continuation is most often a few lines below).
pub fn time_at(text: &dyn Text, format: Format, at: u64) -> Option<i64> {
    let (mut head, mut line) = (vec![0; HEAD], at);
    loop {
        let n = nav::read_full(text, line, &mut head);
        let end = memchr::memchr(b'\n', &head[..n]).unwrap_or(n);
        if let Some(t) = time::parse(format, &head[..end]) {
            return Some(t);
        }
        // The line before ends at `line`: within `BACK` if that is past `at - BACK`.
        if line == 0 || line + BACK <= at {
            return None;
        }
        line = nav::line_start(text, line - 1);
    }
}

/// Bytes read at a time looking back for the line a far continuation
/// carries the time of.
const WINDOW: u64 = 1 << 20;

/// The times lines carry, however far below the line with a time they
/// are (a counting pass must not drop a line [`time_at`] gives up on).
/// Asked of lines in increasing order, it reads each byte between them
/// once: it keeps the last line it answered for.
#[derive(Default)]
pub struct Carried {
    known: Option<(u64, Option<i64>)>,
}

impl Carried {
    /// The time the line starting at `line` carries: its own, or that of
    /// the last line before it with one; `None` before the first.
    pub fn time(&mut self, text: &dyn Text, format: Format, line: u64) -> Option<i64> {
        let t = match time_at(text, format, line) {
            Some(t) => Some(t),
            None => match self.known {
                Some((known, carried)) if known <= line => {
                    let mut last = carried;
                    stamped(text, format, known..line, &mut |_| true, &mut |_, t| {
                        last = Some(t);
                        true
                    });
                    last
                }
                _ => last_stamped_before(text, format, line),
            },
        };
        self.known = Some((line, t));
        t
    }
}

/// The time of the last line with one that starts before `line` (a line
/// start), read back [`WINDOW`] bytes at a time.
fn last_stamped_before(text: &dyn Text, format: Format, line: u64) -> Option<i64> {
    let mut end = line;
    while end > 0 {
        let start = nav::line_start(text, end.saturating_sub(WINDOW));
        let mut last = None;
        stamped(text, format, start..end, &mut |_| true, &mut |_, t| {
            last = Some(t);
            true
        });
        if last.is_some() {
            return last;
        }
        end = start;
    }
    None
}

/// The time of the text's first line with one.
pub fn first_time(text: &dyn Text, format: Format, progress: Progress<'_>) -> Option<i64> {
    first_stamped(text, format, 0, text.len(), progress).map(|f| f.1)
}

/// Calls `add` with the time of every line of `text` from the first
/// with a time on (a line without one has the time of the last before it).
pub fn each_line_time(
    text: &dyn Text,
    format: Format,
    progress: Progress<'_>,
    add: &mut dyn FnMut(i64),
) {
    let mut last = None;
    lines(text, format, 0..text.len(), progress, &mut |_, t| {
        last = t.or(last);
        if let Some(t) = last {
            add(t);
        }
        true
    });
}

/// The time of the text's last line with one (looked for in its last
/// 16 MiB at most).
pub fn last_time(text: &dyn Text, format: Format, progress: Progress<'_>) -> Option<i64> {
    let len = text.len();
    let mut span = 64 << 10;
    loop {
        let from = nav::line_start(text, len.saturating_sub(span));
        let mut last = None;
        stamped(text, format, from..len, progress, &mut |_, t| {
            last = Some(t);
            true
        });
        if last.is_some() || from == 0 || span >= 16 << 20 {
            return last;
        }
        span *= 4;
    }
}

/// Whether the times at [`PROBES`] places spread over the text go up.
pub fn in_order(text: &dyn Text, format: Format, progress: Progress<'_>) -> bool {
    let len = text.len();
    let mut last = i64::MIN;
    for k in 0..=PROBES {
        let at = nav::line_start(text, len * k / PROBES);
        if let Some((_, t)) = first_stamped(text, format, at, len.min(at + SPAN), progress) {
            if t < last {
                return false;
            }
            last = t;
        }
    }
    true
}

/// The first line from `lo` with a time at or after `target`, the times
/// being in order: bisected down to [`SPAN`] bytes, then scanned.
pub fn bisect(text: &dyn Text, format: Format, target: i64, progress: Progress<'_>) -> Option<u64> {
    let (mut lo, mut hi) = (0, text.len());
    while hi - lo > SPAN {
        let mid = lo + (hi - lo) / 2;
        let Some(s) = nav::skip_lines(text, mid, 1).filter(|&s| s < hi) else {
            hi = mid;
            continue;
        };
        match first_stamped(text, format, s, hi, progress) {
            Some((p, t)) if t < target => lo = p,
            _ => hi = mid,
        }
    }
    scan(text, format, lo, target, progress)
}

/// The first line from `from` with a time at or after `target`, read in order.
pub fn scan(
    text: &dyn Text,
    format: Format,
    from: u64,
    target: i64,
    progress: Progress<'_>,
) -> Option<u64> {
    let mut found = None;
    stamped(text, format, from..text.len(), progress, &mut |s, t| {
        found = (t >= target).then_some(s);
        found.is_none()
    });
    found
}
