//! Chunk outputs, taken in file order, written as the output of one search
//! of the whole file: lines concatenated, counts summed, `-l` decided by the
//! first match, one JSON begin/end per file with summed stats.

use std::io::{self, Write};

use grep_printer::Stats;

use super::nulguard::Shape;
use crate::options::OutputMode;
use crate::worker::SearchResult;

/// One chunk's outcome, as sent from a worker to the printing thread.
pub(super) struct ChunkOut {
    /// What the chunk's search printed.
    pub(super) bytes: Vec<u8>,
    /// How the chunk's search ended.
    pub(super) result: io::Result<SearchResult>,
    /// Bytes read from the file for this chunk.
    pub(super) bytes_read: u64,
    /// Quit mode: what the chunk holds (see [`super::nulguard::Hold`]).
    pub(super) shape: Option<Shape>,
}

impl ChunkOut {
    /// A chunk past the file's first NUL (quit mode), never read: it ends
    /// the chunked search, and the file is searched again whole.
    pub(super) fn past_nul() -> ChunkOut {
        let result = Ok(SearchResult::default());
        ChunkOut { bytes: Vec::new(), result, bytes_read: 0, shape: Some(Shape::past_nul()) }
    }
}

/// How chunk outputs become one file's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Combine {
    /// Lines: concatenate in order.
    Concat,
    /// `-c`/`--count-matches`: sum the counts, print once.
    Count,
    /// `-l`, `-q`: the first chunk with a match decides.
    FirstMatch,
    /// `--files-without-match`: printed only if no chunk matched.
    WithoutMatch,
    /// `--json`: one begin and one end per file, stats summed.
    Json,
}

/// Writes chunk outputs, in file order, as the output of one search.
pub(super) struct Combiner {
    kind: Combine,
    /// Every chunk counts, even after `-l` or `--files-without-match` is
    /// decided: rg's summary printer searches on to keep statistics.
    all: bool,
    /// Some chunk had a real match (whatever the printer's `has_match` means).
    has_match: bool,
    stats: Option<Stats>,
    bytes_searched: u64,
    binary_offset: Option<u64>,
    /// Count mode: the bytes before and after the number, from the first chunk that printed.
    count_frame: Option<(Vec<u8>, Vec<u8>)>,
    count: u64,
    /// Files-without-match: the last chunk's output (the path line).
    last: Vec<u8>,
    /// JSON: begin lines seen (only the first is printed), their bytes, the last end line.
    begins: u64,
    extra_begin_bytes: u64,
    end_line: Option<Vec<u8>>,
}

impl Combiner {
    /// A combiner for one file searched in `mode`; `stats`: statistics are
    /// kept (every chunk counts).
    pub(super) fn new(mode: OutputMode, stats: bool) -> Combiner {
        let kind = match mode {
            OutputMode::Standard => Combine::Concat,
            OutputMode::Count | OutputMode::CountMatches => Combine::Count,
            OutputMode::FilesWithMatches => Combine::FirstMatch,
            OutputMode::FilesWithoutMatch => Combine::WithoutMatch,
            OutputMode::Json => Combine::Json,
        };
        Combiner {
            kind,
            all: stats,
            has_match: false,
            stats: None,
            bytes_searched: 0,
            binary_offset: None,
            count_frame: None,
            count: 0,
            last: Vec::new(),
            begins: 0,
            extra_begin_bytes: 0,
            end_line: None,
        }
    }

    /// Takes the next chunk's output; returns whether later chunks still count.
    pub(super) fn take(&mut self, chunk: ChunkOut, out: &mut dyn Write) -> io::Result<bool> {
        let r = chunk.result?;
        let bytes = chunk.bytes;
        if let Some(s) = &r.stats {
            // After binary data, rg counts bytes searched up to its offset only.
            if self.binary_offset.is_none() {
                self.bytes_searched += s.bytes_searched();
            }
            *self.stats.get_or_insert_with(Stats::new) += s;
        }
        if self.binary_offset.is_none() {
            self.binary_offset = r.binary_offset;
        }
        // The summary printer's `has_match` means "no match" for --files-without-match.
        let matched = if self.kind == Combine::WithoutMatch { !r.has_match } else { r.has_match };
        let first = matched && !self.has_match;
        self.has_match |= matched;
        match self.kind {
            Combine::Concat => out.write_all(&bytes)?,
            Combine::Count => {
                if !bytes.is_empty() {
                    let (head, n, tail) = split_count(&bytes);
                    self.count += n;
                    self.count_frame.get_or_insert_with(|| (head.to_vec(), tail.to_vec()));
                }
            }
            Combine::FirstMatch | Combine::WithoutMatch if self.has_match => {
                if first && self.kind == Combine::FirstMatch {
                    out.write_all(&bytes)?;
                }
                if !self.all {
                    return Ok(false);
                }
            }
            Combine::FirstMatch => {}
            Combine::WithoutMatch => self.last = bytes,
            Combine::Json => self.take_json(&bytes, out)?,
        }
        Ok(!r.stopped)
    }

    fn take_json(&mut self, bytes: &[u8], out: &mut dyn Write) -> io::Result<()> {
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            if line.starts_with(br#"{"type":"begin""#) {
                self.begins += 1;
                if self.begins > 1 {
                    self.extra_begin_bytes += line.len() as u64;
                    continue;
                }
            } else if line.starts_with(br#"{"type":"end""#) {
                self.end_line = Some(line.to_vec());
                continue;
            }
            out.write_all(line)?;
        }
        Ok(())
    }

    /// Writes what is printed once per file and returns the file's result.
    pub(super) fn finish(
        self,
        out: &mut dyn Write,
        elapsed: std::time::Duration,
    ) -> io::Result<SearchResult> {
        let stats = self.stats.as_ref().map(|s| {
            let mut t = Stats::new();
            t.add_elapsed(elapsed);
            t.add_searches(1);
            t.add_searches_with_match(u64::from(self.has_match));
            t.add_bytes_searched(self.bytes_searched);
            t.add_bytes_printed(s.bytes_printed().saturating_sub(self.extra_begin_bytes));
            t.add_matched_lines(s.matched_lines());
            t.add_matches(s.matches());
            t
        });
        match self.kind {
            Combine::Count => {
                if let Some((head, tail)) = &self.count_frame {
                    out.write_all(head)?;
                    write!(out, "{}", self.count)?;
                    out.write_all(tail)?;
                }
            }
            Combine::WithoutMatch if !self.has_match => out.write_all(&self.last)?,
            Combine::Json => {
                if let (Some(end), Some(stats)) = (&self.end_line, &stats) {
                    let cut =
                        memchr::memmem::find(end, br#","binary_offset":"#).unwrap_or(end.len());
                    out.write_all(&end[..cut])?;
                    let offset = self.binary_offset.map_or("null".to_string(), |o| o.to_string());
                    let stats = serde_json::to_string(stats).map_err(io::Error::other)?;
                    writeln!(out, r#","binary_offset":{offset},"stats":{stats}}}}}"#)?;
                }
            }
            _ => {}
        }
        // And the caller reads it the same way.
        let has_match =
            if self.kind == Combine::WithoutMatch { !self.has_match } else { self.has_match };
        Ok(SearchResult { has_match, stats, stopped: false, binary_offset: self.binary_offset })
    }
}

/// Splits a summary printer's count line into (before, number, after).
fn split_count(line: &[u8]) -> (&[u8], u64, &[u8]) {
    let end = line.iter().rposition(|b| b.is_ascii_digit()).map_or(0, |i| i + 1);
    let start = line[..end].iter().rposition(|b| !b.is_ascii_digit()).map_or(0, |i| i + 1);
    let n = std::str::from_utf8(&line[start..end]).ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    (&line[..start], n, &line[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_lines_split() {
        assert_eq!(split_count(b"a/b1.log:42\n"), (&b"a/b1.log:"[..], 42, &b"\n"[..]));
        assert_eq!(split_count(b"7\r\n"), (&b""[..], 7, &b"\r\n"[..]));
    }
}
