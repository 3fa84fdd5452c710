//! What the viewer needs from a text, and adapters over what the engine
//! offers today: a plain file (with or without a block index), an indexed
//! `.gz` file, a packed `.zst` file, and a spool (stdin, or a compressed
//! file without an index, decompressed in the background into a temporary
//! file).
//!
//! [`Text`] is the viewer's whole view of a text: its length, any byte
//! range, its block map (where lines are known to start) and the byte
//! ranges that can hold a match of a pattern. Where a file's text comes
//! from is the engine's one answer ([`trigrep::text::opening`]: through a
//! trusted block index, a seekable file's frames, a decompressor's
//! stream, or the file's own bytes); this file adds what a viewer needs
//! beyond it: a live length, a cache for small reads (a few pieces kept,
//! read ahead for a text fetched from a store: [`super::ahead`]), and
//! texts without an index (a spool).

use std::fs::File;
use std::io::{Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use trigrep::kind::{Door, Format};
use trigrep::logline::time::Format as TimeFormat;
use trigrep::options::MatchOptions;
use trigrep::pack::read::PackedFile;
use trigrep::query::Query;
use trigrep::query::search_plan::query_for;
use trigrep::search::decode::Transform;
use trigrep::text::BlockText;
use trigrep::text::opening::{self, Source};
use trigrep::text::raw::RawText;

use super::ahead::{PIECE, Pieces, ReadAt};

/// A text the viewer shows: read by byte ranges, never loaded whole.
pub trait Text: Send + Sync {
    /// Its length now (a growing file or spool: what is there so far).
    fn len(&self) -> u64;
    /// Reads into `buf` from `offset`; the count read (0: at the end).
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize>;
    /// Where lines are known to start: `(offset, 1-based line number)` in
    /// offset order, up to [`Text::mapped_len`] (empty: nothing known).
    fn block_map(&self) -> Vec<(u64, u64)> {
        Vec::new()
    }
    /// How many leading bytes the block map describes (lines past it are counted).
    fn mapped_len(&self) -> u64 {
        0
    }
    /// The byte ranges, in order, that can hold a match of `m` (`None`:
    /// any byte can; read everything).
    fn candidates(&self, _m: &MatchOptions) -> Option<Vec<Range<u64>>> {
        None
    }
    /// A merge of texts: each text's own candidate ranges for `m`, in its
    /// offsets, to be placed as needed ([`Text::place`]; `None`: not a
    /// merge, or a text without them).
    fn candidates_each(&self, _m: &MatchOptions) -> Option<Vec<Vec<Range<u64>>>> {
        None
    }
    /// A merge of texts: the range of the merge holding the lines of text
    /// `j` in `r` (line starts, its offsets; `None`: none).
    fn place(&self, _j: usize, _r: Range<u64>) -> Option<Range<u64>> {
        None
    }
    /// A merge of texts: how many bytes of each text come before the
    /// line holding `at` (`None`: not a merge).
    fn cursors(&self, _at: u64) -> Option<Vec<u64>> {
        None
    }
    /// The file to map for counting lines (a plain file or a spool).
    fn file(&self) -> Option<&File> {
        None
    }
    /// A line start before which no line has a time (in `format`) at or
    /// after `target`, by the times its block index recorded (0: none
    /// recorded, in that format).
    fn time_floor(&self, _format: TimeFormat, _target: i64) -> u64 {
        0
    }
    /// What the text is, for the status line.
    fn kind(&self) -> &str;
    /// What happened to the file on disk since it was opened.
    fn check(&self) -> Change {
        Change::None
    }
    /// Whether more text is still arriving (a spool being written).
    fn arriving(&self) -> bool {
        false
    }
}

/// What happened to a viewed file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing the viewer must say.
    None,
    /// Its path now names another file (rotated or replaced).
    Replaced,
    /// Its path names nothing.
    Deleted,
}

/// Opens what `path` names (`None`: stdin), with indexes under `base`, as
/// the engine opens a text for the viewer ([`Door::Viewer`]: a packed file
/// is sniffed whatever its name, a compressed one told by its name).
pub fn open(path: Option<&Path>, base: &Path) -> anyhow::Result<Arc<dyn Text>> {
    let Some(path) = path else {
        let stdin = std::io::stdin();
        return Ok(Arc::new(Spool::start(Box::new(stdin), "stdin")?));
    };
    let failed = |e: &dyn std::fmt::Display| anyhow::anyhow!("{}: {e}", path.display());
    let file = File::open(path).map_err(|e| failed(&e))?;
    anyhow::ensure!(!file.metadata()?.is_dir(), "{}: is a directory", path.display());
    let opened = opening::open(Door::Viewer, path, &file, base).map_err(|e| failed(&e))?;
    Ok(match opened.source {
        Source::Indexed(text) => {
            let kind = text.kind();
            Arc::new(Indexed::new(text, kind, false))
        }
        Source::Frames(packed) => frames(packed),
        Source::Stream(format) => spool_of(path, format)?,
        Source::Bytes(index) => {
            let index = index.map(|text| *text);
            Arc::new(Plain { file, path: path.to_path_buf(), index })
        }
    })
}

/// `text`, fetched from a store and read through its block index, as
/// the viewer reads it (`kind`: what the status line says; nothing tells
/// when it changed): the piece after the one read is read ahead.
#[cfg(feature = "remote")]
pub(super) fn indexed<T: BlockText + 'static>(text: T, kind: &'static str) -> Arc<dyn Text> {
    Arc::new(Indexed::new(Box::new(text), kind, true))
}

/// Another tool's seekable zstd file (or a packed one whose index cannot
/// be used), read frame by frame.
pub(super) fn frames(packed: PackedFile) -> Arc<dyn Text> {
    Arc::new(Frames { packed, frame: Mutex::new(None) })
}

/// The text `from` reads, copied into a spool as it arrives (`what`: the
/// status line's word meanwhile).
#[cfg(feature = "remote")]
pub(super) fn spool(from: Box<dyn Read + Send>, what: &str) -> anyhow::Result<Arc<dyn Text>> {
    Ok(Arc::new(Spool::start(from, what)?))
}

/// A compressed file without an index: its text decompressed into a spool.
fn spool_of(path: &Path, format: Format) -> anyhow::Result<Arc<dyn Text>> {
    let reader = Transform::Decompress(format)
        .open(path)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(Arc::new(Spool::start(reader, "decompressing")?))
}

/// The byte ranges of `text` that can hold a match of `m` (`None`: the
/// query admits everything, or the index failed).
fn candidate_ranges(text: &dyn BlockText, m: &MatchOptions) -> Option<Vec<Range<u64>>> {
    let query = query_for(m, text.has_edges());
    if query == Query::All {
        return None;
    }
    let found = text.candidates(&query, 0).ok()?;
    Some(found.iter().map(|b| b.offset..b.offset + b.len).collect())
}

/// [`Text::time_floor`] of `text`: the start of its first block whose
/// latest line time is at or after `target` (else of its last block,
/// before which a grown file's new lines are not).
fn time_floor(text: &dyn BlockText, format: TimeFormat, target: i64) -> u64 {
    let Some(times) = text.index().times().filter(|t| t.format == format) else { return 0 };
    let blocks = text.blocks();
    let reaches = times.ranges.iter().position(|r| r.is_some_and(|(_, hi)| hi >= target));
    let at = reaches.or(blocks.len().checked_sub(1));
    at.and_then(|i| blocks.get(i)).map_or(0, |b| b.offset)
}

/// The block map of `text`: `(offset, first line)` of every block.
fn block_map(text: &dyn BlockText) -> Vec<(u64, u64)> {
    text.blocks().iter().map(|b| (b.offset, b.first_line)).collect()
}

/// A plain file, with its block index when one still describes it
/// (unchanged, or grown with every indexed byte as it was).
struct Plain {
    file: File,
    path: PathBuf,
    index: Option<RawText>,
}

impl Text for Plain {
    fn len(&self) -> u64 {
        self.file.metadata().map_or(0, |m| m.len())
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        trigrep::sys::read_at(&self.file, buf, offset)
    }

    fn block_map(&self) -> Vec<(u64, u64)> {
        // Straight from the index's table: no `Vec<Block>` on the way
        // (131 K blocks for 8 GiB: 3 MiB allocated and copied for nothing).
        let Some(t) = &self.index else { return Vec::new() };
        let mut map = Vec::with_capacity(t.index().block_count() as usize);
        map.extend(t.index().blocks().map(|b| (b.offset, b.first_line)));
        map
    }

    fn mapped_len(&self) -> u64 {
        self.index.as_ref().map_or(0, |t| t.covered().len)
    }

    fn candidates(&self, m: &MatchOptions) -> Option<Vec<Range<u64>>> {
        let index = self.index.as_ref()?;
        let mut ranges = candidate_ranges(index, m)?;
        let (indexed, len) = (index.covered().len, self.len());
        if len > indexed {
            ranges.push(indexed..len);
        }
        Some(ranges)
    }

    fn file(&self) -> Option<&File> {
        Some(&self.file)
    }

    fn time_floor(&self, format: TimeFormat, target: i64) -> u64 {
        self.index.as_ref().map_or(0, |t| time_floor(t, format, target))
    }

    fn kind(&self) -> &str {
        if self.index.is_some() { "block index" } else { "no index" }
    }

    fn check(&self) -> Change {
        match (std::fs::metadata(&self.path), self.file.metadata()) {
            (Err(_), _) => Change::Deleted,
            (Ok(now), Ok(_))
                if trigrep::sys::file_id(&self.path, &now)
                    != trigrep::sys::open_file_id(&self.file) =>
            {
                Change::Replaced
            }
            _ => Change::None,
        }
    }
}

/// A compressed text read through its block index (an indexed `.gz`
/// file's, a packed file's, a remote object's): small reads are served
/// from the pieces kept.
struct Indexed {
    text: Arc<dyn BlockText>,
    kind: &'static str,
    pieces: Pieces,
}

impl Indexed {
    /// `text`, its pieces read ahead when `ahead`.
    fn new(text: Box<dyn BlockText>, kind: &'static str, ahead: bool) -> Indexed {
        let text: Arc<dyn BlockText> = Arc::from(text);
        let reader = Arc::clone(&text);
        let read: ReadAt = Arc::new(move |offset, buf: &mut [u8]| reader.read_at(offset, buf));
        let pieces = Pieces::new(text.len(), read, ahead);
        Indexed { text, kind, pieces }
    }
}

impl Text for Indexed {
    fn len(&self) -> u64 {
        self.text.len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.len().saturating_sub(offset) as usize);
        if n == 0 {
            return Ok(0);
        }
        if n as u64 >= PIECE {
            self.text.read_at(offset, &mut buf[..n])?;
            self.pieces.read_ahead(offset, n);
            return Ok(n);
        }
        self.pieces.read_at(offset, n, buf)
    }

    fn block_map(&self) -> Vec<(u64, u64)> {
        block_map(self.text.as_ref())
    }

    fn mapped_len(&self) -> u64 {
        self.len()
    }

    fn candidates(&self, m: &MatchOptions) -> Option<Vec<Range<u64>>> {
        candidate_ranges(self.text.as_ref(), m)
    }

    fn time_floor(&self, format: TimeFormat, target: i64) -> u64 {
        time_floor(self.text.as_ref(), format, target)
    }

    fn kind(&self) -> &str {
        self.kind
    }

    fn check(&self) -> Change {
        match self.text.is_current() {
            true => Change::None,
            false => Change::Replaced,
        }
    }
}

/// Another tool's seekable zstd file: frames without an index.
struct Frames {
    packed: PackedFile,
    /// The last frame decompressed: its number and text.
    frame: Mutex<Option<(usize, Vec<u8>)>>,
}

impl Text for Frames {
    fn len(&self) -> u64 {
        self.packed.text_len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let frames = self.packed.frames();
        let i = frames.partition_point(|f| f.text_offset + f.text_len <= offset);
        let Some(f) = frames.get(i) else { return Ok(0) };
        let mut cached = self.frame.lock().unwrap_or_else(|e| e.into_inner());
        if cached.as_ref().is_none_or(|(j, _)| *j != i) {
            let mut dctx = zstd::bulk::Decompressor::new()?;
            let mut text = Vec::new();
            self.packed.frame(i, &mut dctx, &mut text).map_err(std::io::Error::other)?;
            *cached = Some((i, text));
        }
        let text = cached.as_ref().map_or(&[][..], |(_, t)| t);
        let from = (offset - f.text_offset) as usize;
        let n = buf.len().min(text.len().saturating_sub(from));
        buf[..n].copy_from_slice(&text[from..from + n]);
        Ok(n)
    }

    fn kind(&self) -> &str {
        "seekable zstd"
    }
}

/// A text that arrives through a stream (stdin, a decompressor), written
/// by a thread into an unlinked temporary file and read from there.
struct Spool {
    file: File,
    what: String,
    done: Arc<AtomicBool>,
}

impl Spool {
    /// Starts copying `from` into a new spool.
    fn start(mut from: Box<dyn Read + Send>, what: &str) -> anyhow::Result<Spool> {
        let mut out = tempfile::tempfile()?;
        let file = out.try_clone()?;
        let done = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&done);
        std::thread::spawn(move || {
            let mut buf = vec![0; 1 << 20];
            while let Ok(n) = from.read(&mut buf) {
                if n == 0 || out.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
            flag.store(true, Ordering::Release);
        });
        Ok(Spool { file, what: what.to_string(), done })
    }
}

impl Text for Spool {
    fn len(&self) -> u64 {
        self.file.metadata().map_or(0, |m| m.len())
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        trigrep::sys::read_at(&self.file, buf, offset)
    }

    fn file(&self) -> Option<&File> {
        Some(&self.file)
    }

    fn kind(&self) -> &str {
        if self.arriving() { &self.what } else { "spooled" }
    }

    fn arriving(&self) -> bool {
        !self.done.load(Ordering::Acquire)
    }
}

/// An in-memory text, for the viewer's unit tests.
#[cfg(test)]
pub struct Memory(pub Vec<u8>);

#[cfg(test)]
impl Text for Memory {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let from = (offset as usize).min(self.0.len());
        let n = buf.len().min(self.0.len() - from);
        buf[..n].copy_from_slice(&self.0[from..from + n]);
        Ok(n)
    }

    fn kind(&self) -> &str {
        "memory"
    }
}
