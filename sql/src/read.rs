//! Reading one [`Unit`] of a scan into rows, as `rg` reads it.
//!
//! A walked file is read by ripgrep's own searcher (`grep-searcher`) with
//! rg's defaults for a walked file: a byte-order mark sniffed, reading
//! stopped at a NUL (with the lines of the buffer that held it, as rg
//! does). The spans of a block-indexed text are cut at `\n` here: a
//! block starts a line and carries its first line number; a UTF-8
//! byte-order mark at the text's start is dropped, as rg drops it; a text
//! holding a NUL, or starting with a UTF-16 byte-order mark, is read whole
//! through the searcher instead, from its start. A compressed file is
//! read as its text ([`text::kind`]); a file whose lines stop at a NUL is
//! named in the query's [`Notes`].

use std::path::{Path, PathBuf};

use datafusion::arrow::array::RecordBatch;
use datafusion::error::{DataFusionError, Result};
use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use serde::{Deserialize, Serialize};
use trigrep::text::Block;

use crate::filter::Pred;
use crate::line_filter::LineFilter;
use crate::notes::Notes;
use crate::opened::OpenTexts;
use crate::remote::{self, Object};
use crate::rows::{FileInfo, RowBuilder};
use crate::text::{self, Bom, Compression, Kind, Opened};

/// The largest walked file read whole into memory as one span.
const PLAIN_MAX: u64 = 16 << 20;

/// What one partition of a scan reads, in turn: a file, or a part of
/// a block-indexed text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    /// Where the file is read: absolute when the table's path was
    /// relative (resolved where the table was made, so that an executor
    /// elsewhere reads the same file).
    pub path: PathBuf,
    /// How its rows name it when that is not `path`: as the walk of the
    /// path the user gave would name it (as `rg` prints it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<PathBuf>,
    /// Whether a compressed file is read as its text ([`text::kind`]).
    #[serde(default)]
    pub compression: Compression,
    /// `None`: the file read whole, as a walk reads it; else the part of
    /// a block-indexed text.
    pub part: Option<Part>,
    /// The remote object read instead of a file, as it was listed
    /// (`path` is then its address).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Object>,
}

/// Part `part` of `parts` of a block-indexed text: of its candidate
/// spans in text order, the `part`-th and every `parts`-th after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// Which part.
    pub part: u32,
    /// Of how many.
    pub parts: u32,
}

impl Unit {
    /// The path its rows show.
    pub fn shown(&self) -> &Path {
        self.shown.as_deref().unwrap_or(&self.path)
    }

    /// What its rows say of its file: its path as shown, its time (a
    /// file's as it is now, an object's as listed).
    fn info(&self) -> FileInfo {
        match &self.object {
            Some(object) => FileInfo {
                path: self.shown().to_string_lossy().into_owned(),
                modified: object.modified,
            },
            None => FileInfo::of(self.shown(), std::fs::metadata(&self.path).ok().as_ref()),
        }
    }

    /// Its text, opened as a table reading it opens it.
    fn open(&self, base: &Path) -> Result<Opened> {
        remote::open(self.object.as_ref(), &self.path, base, self.compression)
    }
}

/// Where full batches go; `false` when nobody reads them any more.
pub type Emit<'a> = Box<dyn FnMut(RecordBatch) -> bool + 'a>;

/// Reads units into batches.
pub struct UnitReader<'a> {
    /// The rows being gathered.
    pub rows: RowBuilder,
    /// What lines must satisfy, as far as an index can tell.
    pub pred: Option<&'a Pred>,
    /// The base directory of indexes.
    pub base: &'a Path,
    /// The texts of the scan, shared with its other partitions.
    pub texts: &'a OpenTexts,
    /// What the query says once it is done (`None`: no client hears it,
    /// on a Ballista executor; its log does).
    pub notes: Option<&'a Notes>,
    /// Where full batches go.
    pub emit: Emit<'a>,
    /// The lines that may satisfy `pred` (`None`: every line is a row).
    test: Option<LineFilter>,
    matcher: RegexMatcher,
    buf: Vec<u8>,
    /// The reader of batches went away: stop.
    gone: bool,
}

impl<'a> UnitReader<'a> {
    /// A reader gathering `rows`.
    pub fn new(
        rows: RowBuilder,
        pred: Option<&'a Pred>,
        base: &'a Path,
        texts: &'a OpenTexts,
        notes: Option<&'a Notes>,
        emit: Emit<'a>,
    ) -> UnitReader<'a> {
        // The empty regex matches every line exactly as `rg ''` does.
        let matcher = RegexMatcher::new("").expect("the empty regex compiles");
        let test = pred.and_then(LineFilter::of);
        let buf = Vec::new();
        UnitReader { rows, pred, base, texts, notes, emit, test, matcher, buf, gone: false }
    }

    /// Reads `unit`; `false` once the batches' reader went away.
    pub fn read(&mut self, unit: &Unit) -> Result<bool> {
        match unit.part {
            Some(part) => self.read_text(unit, part)?,
            // A compressed file's text is decompressed first; an object's
            // body is fetched.
            None if unit.object.is_some()
                || text::kind(&unit.path, unit.compression) != Kind::Plain =>
            {
                self.read_whole(unit)?;
            }
            None => {
                if !self.read_plain(unit)? {
                    self.read_walked(unit, Walked::Path)?;
                }
            }
        }
        Ok(!self.gone)
    }

    /// Sends the last rows.
    pub fn finish(&mut self) -> Result<()> {
        if let Some(batch) = self.rows.take()? {
            self.gone |= !(self.emit)(batch);
        }
        Ok(())
    }

    /// Emits a batch when one is full.
    fn flush_full(&mut self) -> Result<()> {
        if self.rows.is_full() {
            self.finish()?;
        }
        Ok(())
    }

    /// Reads the walked file at `path` as one span when lines are
    /// filtered and it is plain text: at most [`PLAIN_MAX`] bytes, no NUL
    /// (rg's binary rules) and no UTF-16 mark (rg transcodes those) — then
    /// its lines are rg's lines, cut at `\n` — so that the filter's search
    /// runs over the whole file, not line by line through the searcher;
    /// `false` when it is read otherwise.
    fn read_plain(&mut self, unit: &Unit) -> Result<bool> {
        let path = &unit.path;
        if self.test.is_none() {
            return Ok(false);
        }
        let Ok(md) = std::fs::metadata(path) else { return Ok(false) };
        if md.len() > PLAIN_MAX {
            return Ok(false);
        }
        let Ok(bytes) = std::fs::read(path) else { return Ok(false) };
        let bom = Bom::in_head(&bytes);
        if bom == Bom::Utf16 || memchr::memchr(0, &bytes).is_some() {
            return Ok(false);
        }
        let file = FileInfo::of(unit.shown(), Some(&md));
        let whole = Block { offset: 0, len: bytes.len() as u64, first_line: 1 };
        self.push_span(&file, &whole, &bytes, bom.dropped())?;
        Ok(true)
    }

    /// Reads the file of `unit` (or the stream made of it) whole, as rg
    /// reads a walked file: up to the buffer holding its first NUL, which
    /// the query's notes then name.
    fn read_walked(&mut self, unit: &Unit, how: Walked) -> Result<()> {
        let path = &unit.path;
        let file = unit.info();
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(b'\0'))
            .line_number(true)
            .build();
        let matcher = self.matcher.clone();
        let mut sink = LineSink { reader: self, file: &file, failed: None, binary: None };
        let done = match how {
            Walked::Path => searcher.search_path(&matcher, path, &mut sink),
            Walked::Stream(r) => searcher.search_reader(&matcher, r, &mut sink),
        };
        if let Some(e) = sink.failed {
            return Err(e);
        }
        if let Some(at) = sink.binary {
            match self.notes {
                Some(notes) => notes.binary(&file.path, at),
                None => log::warn!("{}", Notes::binary_line(&file.path, at)),
            }
        }
        done.map_err(|e| text::error(path, e))
    }

    /// Reads part `part` of the block-indexed text of `unit`: its share
    /// of the candidate spans, or (part 0) the whole text when it is not
    /// read by spans.
    fn read_text(&mut self, unit: &Unit, Part { part, parts }: Part) -> Result<()> {
        let path = &unit.path;
        let at = (path.as_path(), unit.object.as_ref());
        let Some(prepared) = self.texts.get(at, self.base, unit.compression, self.pred)? else {
            return match part {
                0 => self.read_whole(unit),
                _ => Ok(()),
            };
        };
        let text = &*prepared.text;
        // Dealt in turn, so that the parts share the candidates evenly
        // however they cluster in the text.
        let spans: Vec<&Block> = prepared
            .spans
            .iter()
            .enumerate()
            .filter(|(i, _)| *i as u64 % u64::from(parts) == u64::from(part))
            .map(|(_, s)| s)
            .collect();
        log::info!(
            "{}: part {part}/{parts}: reading {} of {} blocks ({}) at text offsets {:?}",
            path.display(),
            spans.len(),
            text.covered().blocks,
            text.kind(),
            spans.iter().map(|s| s.offset).collect::<Vec<_>>(),
        );
        let file = unit.info();
        let mut buf = std::mem::take(&mut self.buf);
        for span in spans {
            text::read(text, span, &mut buf).map_err(|e| text::error(path, e))?;
            self.push_span(&file, span, &buf, prepared.bom.dropped())?;
            if self.gone {
                break;
            }
        }
        self.buf = buf;
        Ok(())
    }

    /// Reads the text of `unit` whole, as rg reads the file (or `tg -z`
    /// its text): a text without a trusted index, or holding a NUL, or
    /// marked UTF-16.
    fn read_whole(&mut self, unit: &Unit) -> Result<()> {
        match unit.open(self.base)? {
            Opened::Text(t) => self.read_walked(unit, Walked::Stream(text::stream(t))),
            Opened::Whole => self.read_walked(unit, Walked::Path),
            Opened::Stream(r) => self.read_walked(unit, Walked::Stream(r)),
        }
    }

    /// Adds the lines of `bytes`, the text of `span`, that may satisfy the
    /// predicate; its first `dropped` bytes (a byte-order mark) rg does not
    /// read: they are no part of the first line, and every line's offset
    /// counts from after them.
    fn push_span(
        &mut self,
        file: &FileInfo,
        span: &Block,
        bytes: &[u8],
        dropped: u64,
    ) -> Result<()> {
        let skip = if span.offset == 0 { (dropped as usize).min(bytes.len()) } else { 0 };
        let bytes = &bytes[skip..];
        let at = (span.offset + skip as u64).saturating_sub(dropped);
        let test = self.test.take();
        let done = match &test {
            Some(test) => self.push_tested(test, file, span.first_line, at, bytes),
            None => self.push_every(file, span.first_line, at, bytes),
        };
        self.test = test;
        done
    }

    /// Adds every line of `bytes`, whose first line is line `number` at
    /// byte offset `at`.
    fn push_every(&mut self, file: &FileInfo, number: u64, at: u64, bytes: &[u8]) -> Result<()> {
        if !self.rows.wants_lines() {
            let lines = memchr::memchr_iter(b'\n', bytes).count();
            let partial = usize::from(bytes.last().is_some_and(|&b| b != b'\n'));
            self.rows.push_count(lines + partial);
            return self.flush_full();
        }
        let (mut start, mut number) = (0, number);
        while start < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            self.rows.push(file, number, at + start as u64, &bytes[start..end]);
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
        number: u64,
        at: u64,
        bytes: &[u8],
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
                self.rows.push_decoded(file, number, at + start as u64, line);
            } else {
                self.rows.push_count(1);
            }
            if let Err(e) = self.flush_full() {
                failed = Some(e);
            }
            failed.is_none() && !self.gone
        });
        failed.map_or(Ok(()), Err)
    }
}

/// What a walked read reads.
enum Walked {
    /// The file itself.
    Path,
    /// A stream decoded from it.
    Stream(Box<dyn std::io::Read>),
}

/// The searcher's lines into rows.
struct LineSink<'r, 'a> {
    reader: &'r mut UnitReader<'a>,
    file: &'r FileInfo,
    failed: Option<DataFusionError>,
    /// Where the searcher found binary data (a NUL) and stopped.
    binary: Option<u64>,
}

impl Sink for LineSink<'_, '_> {
    type Error = std::io::Error;

    fn binary_data(&mut self, _: &Searcher, offset: u64) -> std::io::Result<bool> {
        self.binary.get_or_insert(offset);
        Ok(false)
    }

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> std::io::Result<bool> {
        let line = mat.bytes();
        let line = String::from_utf8_lossy(line.strip_suffix(b"\n").unwrap_or(line));
        let r = &mut *self.reader;
        if r.test.as_ref().is_some_and(|t| !t.matches(&line)) {
            return Ok(true);
        }
        if r.rows.wants_lines() {
            let number = mat.line_number().unwrap_or(0);
            r.rows.push_decoded(self.file, number, mat.absolute_byte_offset(), &line);
        } else {
            r.rows.push_count(1);
        }
        if let Err(e) = r.flush_full() {
            self.failed = Some(e);
            return Ok(false);
        }
        Ok(!r.gone)
    }
}
