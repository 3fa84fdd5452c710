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

use std::cell::RefCell;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use datafusion::error::{DataFusionError, Result};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use serde::{Deserialize, Serialize};
use trigrep::logline::time::Format;
use trigrep::text::{Block, BlockText};

use crate::line_filter::LineFilter;
use crate::look_back;
use crate::notes::Notes;
use crate::opened::OpenTexts;
use crate::plain_parts;
use crate::pushdown::Pred;
use crate::remote::{self, Object};
use crate::rows::{Facts, FileInfo, RowBuilder};
use crate::span_rows::{Emit, RowSink, Span};
use crate::stamps;
use crate::text::{self, Bom, Compression, Kind, Nothing, Opened, Prefixed};
use crate::time_filter::TimeCut;
use trigrep::logline::time::SAMPLE;

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

/// Reads units into batches.
pub struct UnitReader<'a> {
    /// What lines must satisfy, as far as an index can tell.
    pred: Option<&'a Pred>,
    /// The times lines must have.
    times: Option<TimeCut>,
    /// The base directory of indexes.
    base: &'a Path,
    /// The texts of the scan, shared with its other partitions.
    texts: &'a OpenTexts,
    /// What the query says once it is done (`None`: no client hears it,
    /// on a Ballista executor; its log does).
    notes: Option<&'a Notes>,
    /// Where the rows go.
    out: RowSink<'a>,
    buf: Vec<u8>,
}

impl<'a> UnitReader<'a> {
    /// A reader gathering `rows`, sent to `emit`, of the lines that may
    /// satisfy `pred` and have `times`.
    pub fn new(
        rows: RowBuilder,
        (pred, times): (Option<&'a Pred>, Option<TimeCut>),
        base: &'a Path,
        texts: &'a OpenTexts,
        notes: Option<&'a Notes>,
        emit: Emit<'a>,
    ) -> UnitReader<'a> {
        let test = pred.and_then(LineFilter::of);
        let out = RowSink { rows, emit, test, gone: false };
        UnitReader { pred, times, base, texts, notes, out, buf: Vec::new() }
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
        Ok(!self.out.gone)
    }

    /// Sends the last rows.
    pub fn finish(&mut self) -> Result<()> {
        self.out.finish()
    }

    /// The timestamp format of a text whose first bytes `sample` gives,
    /// of `file`, when the `time` or the `host` column is projected.
    fn format(
        &self,
        file: &FileInfo,
        sample: impl FnOnce() -> std::io::Result<Vec<u8>>,
    ) -> std::io::Result<Option<Format>> {
        if !self.out.rows.wants_time() && !self.out.rows.wants_host() {
            return Ok(None);
        }
        Ok(stamps::format_of(&sample()?, file.modified_ms()))
    }

    /// Reads the walked file at `path` as one span when lines are
    /// filtered and it is plain text: at most [`PLAIN_MAX`] bytes, no NUL
    /// (rg's binary rules) and no UTF-16 mark (rg transcodes those) — then
    /// its lines are rg's lines, cut at `\n` — so that the filter's search
    /// runs over the whole file, not line by line through the searcher;
    /// `false` when it is read otherwise.
    fn read_plain(&mut self, unit: &Unit) -> Result<bool> {
        let path = &unit.path;
        if self.out.test.is_none() {
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
        let format = self.format(&file, || Ok(bytes[..bytes.len().min(SAMPLE)].to_vec()));
        let format = format.map_err(|e| text::error(path, e))?;
        let block = Block { offset: 0, len: bytes.len() as u64, first_line: 1 };
        let span = Span { block, bytes: &bytes, dropped: bom.dropped(), format };
        self.out.push_span(&file, &span, Box::new(|| Ok(None)))?;
        Ok(true)
    }

    /// Reads the file of `unit` (or the stream made of it) whole, as rg
    /// reads a walked file: up to the buffer holding its first NUL, which
    /// the query's notes then name.
    fn read_walked(&mut self, unit: &Unit, how: Walked) -> Result<()> {
        let path = &unit.path;
        let file = unit.info();
        // Every line is a row, as `rg ''` gives it: the lines not matching
        // [`Nothing`], which the searcher sends without a search of each
        // line (as it must make for a regex matching every line).
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(b'\0'))
            .line_number(self.out.rows.wants_line_numbers())
            .invert_match(true)
            .build();
        let (reader, format): (Option<Box<dyn Read>>, _) = match how {
            Walked::Path => (None, self.format(&file, || head_of(&mut File::open(path)?))),
            Walked::Text(t) => {
                let format = self.format(&file, || t.head(SAMPLE));
                (Some(text::stream(t)), format)
            }
            Walked::Stream(mut r) => {
                let mut head = Vec::new();
                let format = self.format(&file, || {
                    head = head_of(&mut r)?;
                    Ok(head.clone())
                });
                let r = Prefixed::new(head, r);
                (Some(Box::new(r)), format)
            }
        };
        let format = format.map_err(|e| text::error(path, e))?;
        let out = &mut self.out;
        let mut sink =
            LineSink { out, file: &file, format, last: None, failed: None, binary: None };
        let done = match reader {
            None => searcher.search_path(Nothing, path, &mut sink),
            Some(r) => searcher.search_reader(Nothing, r, &mut sink),
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
        let Some(prepared) =
            self.texts.get(at, self.base, unit.compression, (self.pred, self.times))?
        else {
            return self.read_cut(unit, Part { part, parts });
        };
        let text = &*prepared.text;
        let spans = dealt(&prepared.spans, Part { part, parts });
        log::info!(
            "{}: part {part}/{parts}: reading {} of {} blocks ({}) at text offsets {:?}",
            path.display(),
            spans.len(),
            text.covered().blocks,
            text.kind(),
            spans.iter().map(|s| s.offset).collect::<Vec<_>>(),
        );
        let read_at = |at: u64, buf: &mut [u8]| text.read_at(at, buf);
        self.read_spans(unit, &spans, prepared.bom, (&read_at, &|| text.head(SAMPLE)))
    }

    /// Reads part `part` of a huge plain file without a block index: its
    /// share of the file's spans ([`plain_parts`]), or (part 0) the whole
    /// file when it is not cut (a NUL, a UTF-16 mark; any other text).
    fn read_cut(&mut self, unit: &Unit, part: Part) -> Result<()> {
        let (path, compression) = (&unit.path, unit.compression);
        let plain =
            part.parts > 1 && unit.object.is_none() && text::kind(path, compression) == Kind::Plain;
        let Some(cut) = (if plain { self.texts.plain.get(path)? } else { None }) else {
            return if part.part == 0 { self.read_whole(unit) } else { Ok(()) };
        };
        let file = RefCell::new(File::open(path).map_err(|e| text::error(path, e))?);
        let read_at =
            |at: u64, buf: &mut [u8]| plain_parts::read_at(&mut file.borrow_mut(), at, buf);
        let head = || {
            let mut head = vec![0; cut.len.min(SAMPLE as u64) as usize];
            read_at(0, &mut head).map(|()| head)
        };
        let spans = dealt(&cut.spans, part);
        let (n, all) = (spans.len(), cut.spans.len());
        log::info!(
            "{}: part {}/{}: reading {n} of {all} spans",
            path.display(),
            part.part,
            part.parts
        );
        self.read_spans(unit, &spans, cut.bom, (&read_at, &head))
    }

    /// Reads `spans` of the text of `unit` that `read_at` reads (`head`:
    /// its first [`SAMPLE`] bytes), which starts with `bom`.
    fn read_spans(
        &mut self,
        unit: &Unit,
        spans: &[&Block],
        bom: Bom,
        (read_at, head): (ReadAt<'_>, &dyn Fn() -> std::io::Result<Vec<u8>>),
    ) -> Result<()> {
        let path = &unit.path;
        let file = unit.info();
        let dropped = bom.dropped();
        let format = self.format(&file, head).map_err(|e| text::error(path, e))?;
        let mut buf = std::mem::take(&mut self.buf);
        for &&block in spans {
            buf.resize(block.len as usize, 0);
            read_at(block.offset, &mut buf).map_err(|e| text::error(path, e))?;
            let span = Span { block, bytes: &buf, dropped, format };
            let at = (block.offset).max(dropped);
            let before = Box::new(move || match format {
                Some(f) => look_back::time_before(read_at, f, dropped, at),
                None => Ok(None),
            });
            self.out.push_span(&file, &span, before)?;
            if self.out.gone {
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
            Opened::Text(t) => self.read_walked(unit, Walked::Text(t)),
            Opened::Whole => self.read_walked(unit, Walked::Path),
            Opened::Stream(r) => self.read_walked(unit, Walked::Stream(r)),
        }
    }
}

/// The first [`SAMPLE`] bytes `r` gives (fewer at its end).
fn head_of(r: &mut dyn Read) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(SAMPLE);
    r.take(SAMPLE as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// What reads a text: `read_at(offset, buf)` fills `buf` from `offset`.
type ReadAt<'a> = &'a dyn Fn(u64, &mut [u8]) -> std::io::Result<()>;

/// Of `spans` in text order, those of part `part`: the `part`-th and
/// every `parts`-th after it, so that the parts share them evenly however
/// they cluster in the text.
fn dealt(spans: &[Block], Part { part, parts }: Part) -> Vec<&Block> {
    let mine = |i: usize| i as u64 % u64::from(parts) == u64::from(part);
    spans.iter().enumerate().filter(|&(i, _)| mine(i)).map(|(_, s)| s).collect()
}

/// What a walked read reads.
enum Walked {
    /// The file itself.
    Path,
    /// A block-indexed text, from its start.
    Text(Box<dyn BlockText>),
    /// A stream decoded from it.
    Stream(Box<dyn Read>),
}

/// The searcher's lines into rows, each line's time carried from the
/// last before it with one (the whole text is read in order).
struct LineSink<'r, 'a> {
    out: &'r mut RowSink<'a>,
    file: &'r FileInfo,
    /// The text's timestamp format, when the `time` or `host` column is
    /// projected.
    format: Option<Format>,
    /// The time of the last line with one.
    last: Option<i64>,
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
        let bytes = mat.bytes();
        let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let out = &mut *self.out;
        // Every line's time counts, kept or not: a later line may carry it.
        if let Some(format) = self.format.filter(|_| out.rows.wants_time()) {
            self.last = stamps::own_time(format, bytes).or(self.last);
        }
        let line = out.test.as_ref().map(|t| (t, String::from_utf8_lossy(bytes)));
        if line.as_ref().is_some_and(|(t, line)| !t.matches(line)) {
            return Ok(true);
        }
        if out.rows.wants_lines() {
            let at = (mat.line_number().unwrap_or(0), mat.absolute_byte_offset());
            let host = out.host(self.format, bytes);
            let facts = Facts { time: self.last, level: out.level(bytes), host };
            match line {
                Some((_, line)) => out.rows.push_decoded(self.file, at, &line, facts),
                None => out.rows.push(self.file, at, bytes, facts),
            }
        } else {
            out.rows.push_count(1);
        }
        if let Err(e) = out.flush_full() {
            self.failed = Some(e);
            return Ok(false);
        }
        Ok(!out.gone)
    }
}
