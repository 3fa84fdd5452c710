//! What a line says beyond its text, as `tg view` reads it: its time (the
//! `time` column), its level (the `level` column) and the host it names
//! (the `host` column), through the engine's [`trigrep::logline`].
//!
//! A text's timestamp format is detected once, from its first
//! [`time::SAMPLE`] bytes ([`format_of`]; a syslog line's year from the file's
//! modification time); a line's own time is read from its first
//! [`time::LINE_HEAD`] bytes ([`own_time`]), as the viewer reads them. A line
//! without a time of its own (a stack trace's, a wrapped message's) has
//! the time of the last line before it that has one, as lnav and the
//! viewer give it: [`SpanTimes`] carries it through the lines of one span
//! of a text, looking back before the span (through the text: never
//! through what another partition read) only when a line needs it, so
//! that no answer depends on how a text was cut.
//!
//! ```
//! use trigrep_sql::stamps::{SpanTimes, format_of};
//! let span = b"2026-01-03 10:00:00 ERROR boom\n  at Main.java:3\n";
//! let format = format_of(span, 0).unwrap();
//! let mut times = SpanTimes::new(format, span, Box::new(|| Ok(None)));
//! assert_eq!(times.time_at(0).unwrap(), Some(1_767_434_400_000));
//! assert_eq!(times.time_at(31).unwrap(), Some(1_767_434_400_000), "carried");
//! ```

use trigrep::logline::time::{self, Format};
use trigrep::logline::{host, level};

/// The timestamp format of a text whose first bytes are `sample` (a
/// UTF-8 byte-order mark, which no row holds, left out), of a file last
/// modified at `modified_ms` (ms since the epoch: a syslog line's year);
/// `None` when no line of the sample has a time.
pub fn format_of(sample: &[u8], modified_ms: i64) -> Option<Format> {
    let sample = sample.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(sample);
    time::detect(&sample[..sample.len().min(time::SAMPLE)], modified_ms)
}

/// The time `line` (without its `\n`) writes itself in `format`, read
/// from its first [`time::LINE_HEAD`] bytes: ms since the epoch, UTC.
pub fn own_time(format: Format, line: &[u8]) -> Option<i64> {
    time::parse(format, &line[..line.len().min(time::LINE_HEAD)])
}

/// The host `line` names in `format` (a syslog line's; see
/// [`trigrep::logline::host`]).
pub fn host_of(format: Format, line: &[u8]) -> Option<&[u8]> {
    host::detect(format, line)
}

/// The level `line` says it is, by name (`ERROR`, `WARN`, `INFO`,
/// `DEBUG`, `TRACE`).
pub fn level_of(line: &[u8]) -> Option<&'static str> {
    level::detect(line).map(|l| l.0.name())
}

/// The time of the last line before a span with one (`None`: there is
/// none), asked at most once, only when a line of the span needs it.
pub type Before<'a> = Box<dyn FnMut() -> std::io::Result<Option<i64>> + 'a>;

/// The times of the lines of one span (bytes starting a line), asked in
/// the order of the lines (any of them skipped): each line's own time, or
/// the one it carries.
pub struct SpanTimes<'a> {
    format: Format,
    bytes: &'a [u8],
    /// The time before the span: to be asked, or asked.
    before: Result<Option<i64>, Before<'a>>,
    /// The last line asked about: its start and time.
    known: Option<(usize, Option<i64>)>,
}

impl<'a> SpanTimes<'a> {
    /// The times of `bytes`' lines in `format`; `before` gives the time
    /// carried into the span.
    pub fn new(format: Format, bytes: &'a [u8], before: Before<'a>) -> SpanTimes<'a> {
        SpanTimes { format, bytes, before: Err(before), known: None }
    }

    /// The time of the line starting at `start` (after every line asked
    /// about before): its own, else that of the last line before it with
    /// one, looked for backwards down to the last line asked about.
    pub fn time_at(&mut self, start: usize) -> std::io::Result<Option<i64>> {
        let t = self.find(start)?;
        self.known = Some((start, t));
        Ok(t)
    }

    /// See [`Self::time_at`].
    fn find(&mut self, start: usize) -> std::io::Result<Option<i64>> {
        let line = |s: usize| {
            let rest = &self.bytes[s..];
            &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())]
        };
        if let Some(t) = own_time(self.format, line(start)) {
            return Ok(Some(t));
        }
        let mut end = start;
        while end > 0 {
            let prev = memchr::memrchr(b'\n', &self.bytes[..end - 1]).map_or(0, |i| i + 1);
            match self.known {
                Some((k, t)) if k >= prev => return Ok(t),
                _ => {}
            }
            if let Some(t) = own_time(self.format, &self.bytes[prev..end - 1]) {
                return Ok(Some(t));
            }
            end = prev;
        }
        match &mut self.before {
            Ok(t) => Ok(*t),
            Err(ask) => {
                let t = ask()?;
                self.before = Ok(t);
                Ok(t)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 1_767_434_400_000;

    /// The time of every line of `text`, asked in order, skipping the
    /// lines `skip` says to skip.
    fn times(text: &[u8], before: Option<i64>, skip: &dyn Fn(usize) -> bool) -> Vec<Option<i64>> {
        let mut asked = 0;
        let mut times = SpanTimes::new(
            Format::Iso,
            text,
            Box::new(|| {
                asked += 1;
                Ok(before)
            }),
        );
        let mut out = Vec::new();
        let mut start = 0;
        for (i, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
            if !skip(i) {
                out.push(times.time_at(start).unwrap());
            }
            start += line.len();
        }
        drop(times);
        assert!(asked <= 1, "the time before the span is asked once at most");
        out
    }

    #[test]
    fn a_continuation_carries_the_last_time_however_lines_are_skipped() {
        let text = b"  at a\n2026-01-03 10:00:00 x\n  at b\n  at c\n2026-01-03 10:00:01 y\n  at d";
        let want = [Some(T - 5), Some(T), Some(T), Some(T), Some(T + 1000), Some(T + 1000)];
        assert_eq!(times(text, Some(T - 5), &|_| false), want);
        for skip in [[1, 9], [1, 2], [0, 4], [1, 4], [2, 3]] {
            let kept: Vec<_> = (0..6).filter(|i| !skip.contains(i)).map(|i| want[i]).collect();
            assert_eq!(times(text, Some(T - 5), &|i| skip.contains(&i)), kept, "{skip:?}");
        }
        assert_eq!(times(b"  at a\n  at b", None, &|_| false), [None, None]);
    }

    #[test]
    fn the_time_is_read_from_a_lines_head_and_the_sample_skips_a_mark() {
        let mut long = vec![b' '; time::LINE_HEAD];
        long.extend_from_slice(b"2026-01-03 10:00:00");
        assert_eq!(own_time(Format::Json, b"{\"ts\": 1767434400}"), Some(T));
        let json = format!("{{\"msg\": \"{}\", \"ts\": 1767434400}}", "x".repeat(time::LINE_HEAD));
        assert_eq!(own_time(Format::Json, json.as_bytes()), None, "past the head");
        assert_eq!(
            format_of(b"\xEF\xBB\xBFJan  3 10:00:00 h x\n", T),
            time::detect(b"Jan  3 10:00:00 h x", T)
        );
        assert_eq!(level_of(b"2026-01-03 WARN x"), Some("WARN"));
        assert_eq!(level_of(b"  at a"), None);
    }
}
