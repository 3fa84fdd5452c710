//! The lines of a span of text into rows ([`RowSink`]): cut at `\n`,
//! tested before they become rows when conditions were pushed down
//! ([`LineFilter`]), given their time and level when those columns are
//! projected ([`crate::stamps`]), and sent in full batches.

use datafusion::arrow::array::RecordBatch;
use datafusion::error::{DataFusionError, Result};
use trigrep::logline::time::Format;
use trigrep::text::Block;

use crate::line_filter::LineFilter;
use crate::rows::{Facts, FileInfo, RowBuilder};
use crate::stamps::{Before, SpanTimes, level_of};

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
    /// The text's timestamp format (`None`: it has none, or the `time`
    /// column is not projected).
    pub format: Option<Format>,
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
        let mut times = span.format.map(|f| SpanTimes::new(f, bytes, before));
        let test = self.test.take();
        let number = span.block.first_line;
        let done = match &test {
            Some(test) => self.push_tested(test, file, (number, at), bytes, &mut times),
            None => self.push_every(file, (number, at), bytes, &mut times),
        };
        self.test = test;
        done
    }

    /// The facts of the line at `start` of `bytes`.
    fn facts(
        &self,
        bytes: &[u8],
        start: usize,
        times: &mut Option<SpanTimes<'_>>,
    ) -> Result<Facts> {
        let time = match times {
            Some(t) => t.time_at(start).map_err(|e| DataFusionError::External(Box::new(e)))?,
            None => None,
        };
        let level = if self.rows.wants_level() {
            let rest = &bytes[start..];
            level_of(&rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())])
        } else {
            None
        };
        Ok(Facts { time, level })
    }

    /// Adds every line of `bytes`, whose first line is line `number` at
    /// byte offset `at`.
    fn push_every(
        &mut self,
        file: &FileInfo,
        (number, at): (u64, u64),
        bytes: &[u8],
        times: &mut Option<SpanTimes<'_>>,
    ) -> Result<()> {
        if !self.rows.wants_lines() {
            let lines = memchr::memchr_iter(b'\n', bytes).count();
            let partial = usize::from(bytes.last().is_some_and(|&b| b != b'\n'));
            self.rows.push_count(lines + partial);
            return self.flush_full();
        }
        let (mut start, mut number) = (0, number);
        while start < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            let facts = self.facts(bytes, start, times)?;
            self.rows.push(file, (number, at + start as u64), &bytes[start..end], facts);
            self.flush_full()?;
            if self.gone {
                return Ok(());
            }
            (start, number) = (end + 1, number + 1);
        }
        Ok(())
    }

    /// Adds the lines of `bytes` that `test` keeps (as [`Self::push_every`] does).
    fn push_tested(
        &mut self,
        test: &LineFilter,
        file: &FileInfo,
        (number, at): (u64, u64),
        bytes: &[u8],
        times: &mut Option<SpanTimes<'_>>,
    ) -> Result<()> {
        let (mut counted, mut number) = (0, number);
        let numbered = self.rows.wants_line_numbers();
        let mut failed = None;
        test.lines(bytes, &mut |start, line| {
            if numbered {
                number += memchr::memchr_iter(b'\n', &bytes[counted..start]).count() as u64;
                counted = start;
            }
            if self.rows.wants_lines() {
                match self.facts(bytes, start, times) {
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
