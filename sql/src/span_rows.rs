//! The lines of a span of text into rows ([`RowSink`]): cut at `\n`,
//! tested before they become rows when conditions were pushed down
//! ([`LineFilter`]), given their time, level and host when those columns
//! are projected ([`crate::stamps`]), and sent in full batches.

use datafusion::arrow::array::RecordBatch;
use datafusion::error::{DataFusionError, Result};
use trigrep::logline::time::Format;
use trigrep::text::Block;

use crate::line_filter::LineFilter;
use crate::rows::{Facts, FileInfo, RowBuilder};
use crate::stamps::{Before, SpanTimes, host_of, level_of};

/// Where full batches go; `false` when nobody reads them any more.
pub type Emit<'a> = Box<dyn FnMut(RecordBatch) -> bool + 'a>;

/// Rows being gathered and sent.
pub struct RowSink<'a> {
    /// The rows being gathered.
    pub rows: RowBuilder,
    /// Where full batches go.
    pub emit: Emit<'a>,
    /// The lines that may satisfy the pushed-down conditions (`None`:
    /// every line is a row).
    pub test: Option<LineFilter>,
    /// The reader of batches went away: stop.
    pub gone: bool,
}

/// A span of a text to be made rows.
pub struct Span<'s> {
    /// Where it is: its text offset and its first line's number.
    pub block: Block,
    /// Its bytes.
    pub bytes: &'s [u8],
    /// How many bytes of the text's start rg drops (a byte-order mark).
    pub dropped: u64,
    /// The text's timestamp format (`None`: it has none, or neither the
    /// `time` nor the `host` column is projected).
    pub format: Option<Format>,
}

/// A span being read: its file, where its first line is (number,
/// offset), its bytes (after a dropped mark) and its text's format.
struct SpanAt<'f, 'b> {
    file: &'f FileInfo,
    at: (u64, u64),
    bytes: &'b [u8],
    format: Option<Format>,
}

impl<'a> RowSink<'a> {
    /// Sends the last rows.
    pub fn finish(&mut self) -> Result<()> {
        if let Some(batch) = self.rows.take()? {
            self.gone |= !(self.emit)(batch);
        }
        Ok(())
    }

    /// Emits a batch when one is full.
    pub fn flush_full(&mut self) -> Result<()> {
        if self.rows.is_full() {
            self.finish()?;
        }
        Ok(())
    }

    /// The level of `line`, when its column is projected.
    pub fn level(&self, line: &[u8]) -> Option<&'static str> {
        if self.rows.wants_level() { level_of(line) } else { None }
    }

    /// The host `line` names in `format`, when its column is projected.
    pub fn host<'l>(&self, format: Option<Format>, line: &'l [u8]) -> Option<&'l [u8]> {
        match format {
            Some(f) if self.rows.wants_host() => host_of(f, line),
            _ => None,
        }
    }

    /// Adds the lines of `span` of `file` that may satisfy the predicate;
    /// its first `dropped` bytes (a byte-order mark) rg does not read:
    /// they are no part of the first line, and every line's offset counts
    /// from after them. `before` gives the time carried into the span.
    pub fn push_span(
        &mut self,
        file: &FileInfo,
        span: &Span<'_>,
        before: Before<'_>,
    ) -> Result<()> {
        let skip =
            if span.block.offset == 0 { (span.dropped as usize).min(span.bytes.len()) } else { 0 };
        let bytes = &span.bytes[skip..];
        let at = (span.block.offset + skip as u64).saturating_sub(span.dropped);
        let timed = span.format.filter(|_| self.rows.wants_time());
        let mut times = timed.map(|f| SpanTimes::new(f, bytes, before));
        let test = self.test.take();
        let number = span.block.first_line;
        let read = SpanAt { file, at: (number, at), bytes, format: span.format };
        let done = match &test {
            Some(test) => self.push_tested(test, &read, &mut times),
            None => self.push_every(&read, &mut times),
        };
        self.test = test;
        done
    }

    /// The facts of the line at `start` of `bytes` (the span `read`'s).
    fn facts<'l>(
        &self,
        read: &SpanAt<'_, 'l>,
        start: usize,
        times: &mut Option<SpanTimes<'_>>,
    ) -> Result<Facts<'l>> {
        let time = match times {
            Some(t) => t.time_at(start).map_err(|e| DataFusionError::External(Box::new(e)))?,
            None => None,
        };
        let line = || {
            let rest = &read.bytes[start..];
            &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())]
        };
        let level = if self.rows.wants_level() { level_of(line()) } else { None };
        let host = if self.rows.wants_host() { self.host(read.format, line()) } else { None };
        Ok(Facts { time, level, host })
    }

    /// Adds every line of the span `read`.
    fn push_every(
        &mut self,
        read: &SpanAt<'_, '_>,
        times: &mut Option<SpanTimes<'_>>,
    ) -> Result<()> {
        let SpanAt { file, at: (number, at), bytes, .. } = *read;
        if !self.rows.wants_lines() {
            let lines = memchr::memchr_iter(b'\n', bytes).count();
            let partial = usize::from(bytes.last().is_some_and(|&b| b != b'\n'));
            self.rows.push_count(lines + partial);
            return self.flush_full();
        }
        let (mut start, mut number) = (0, number);
        while start < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            let facts = self.facts(read, start, times)?;
            self.rows.push(file, (number, at + start as u64), &bytes[start..end], facts);
            self.flush_full()?;
            if self.gone {
                return Ok(());
            }
            (start, number) = (end + 1, number + 1);
        }
        Ok(())
    }

    /// Adds the lines of the span `read` that `test` keeps (as
    /// [`Self::push_every`] does).
    fn push_tested(
        &mut self,
        test: &LineFilter,
        read: &SpanAt<'_, '_>,
        times: &mut Option<SpanTimes<'_>>,
    ) -> Result<()> {
        let SpanAt { file, at: (number, at), bytes, .. } = *read;
        let (mut counted, mut number) = (0, number);
        let numbered = self.rows.wants_line_numbers();
        let mut failed = None;
        test.lines(bytes, &mut |start, line| {
            if numbered {
                number += memchr::memchr_iter(b'\n', &bytes[counted..start]).count() as u64;
                counted = start;
            }
            if self.rows.wants_lines() {
                match self.facts(read, start, times) {
                    Ok(facts) => {
                        self.rows.push_decoded(file, (number, at + start as u64), line, facts)
                    }
                    Err(e) => failed = Some(e),
                }
            } else {
                self.rows.push_count(1);
            }
            if failed.is_none()
                && let Err(e) = self.flush_full()
            {
                failed = Some(e);
            }
            failed.is_none() && !self.gone
        });
        failed.map_or(Ok(()), Err)
    }
}
