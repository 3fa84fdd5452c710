//! Which text a file is and how it is opened: through the engine's seam
//! over block-indexed texts ([`trigrep::text`]: a huge file's bytes with
//! a block index, the text of a `.gz` file with an index of it, the text
//! of a packed `.zst`), or whole.
//!
//! **The one rule for compressed files.** A table reads a file whose name
//! ends as `tg -z` decompresses it (`.gz`, `.zst`, `.bz2`, `.xz`, `.lz4`,
//! …: [`Door::Sql`]) as its text, as `tg view` shows it, whether or not
//! it has an index: the index only decides which parts of that text are
//! read, never what the text is. The table option `'compression=none'`
//! ([`Compression::Ignore`]) reads every file as its own bytes instead, as
//! `rg` reads without `-z`. [`kind`] is where that is decided, by name
//! alone; every other function here follows it.
//!
//! Where a text comes from is the engine's one answer for every front
//! door ([`trigrep::text::opening`]): through its index only when the
//! engine trusts the index for the file as it is now; a stale index
//! means the whole text is read ([`Opened::Whole`], [`Opened::Stream`]),
//! an unusable one (another tg's format) too, with a warning; a damaged
//! tg container is an error. What this module adds to
//! the seam is what a table needs of it: the candidate spans of a
//! predicate with a grown file's tail, a span's bytes, the whole text as
//! one stream (for a text holding a NUL), and the byte-order mark that
//! `rg` drops from a text's start ([`Bom`]).

use std::fs::File;
use std::io::Read;
use std::path::Path;

use grep_matcher::{LineTerminator, Match, Matcher, NoCaptures, NoError};

use datafusion::error::{DataFusionError, Result};
use serde::{Deserialize, Serialize};
use trigrep::index::blocks::BlockIndex;
use trigrep::kind::Door;
use trigrep::pack::read::PackedFile;
use trigrep::query::Query;
use trigrep::search::decode::{Format, Transform};
use trigrep::text::indexed_format::IndexedFormat;
use trigrep::text::opening::{self, Source};
use trigrep::text::{Block, BlockText};

use crate::pushdown::Pred;

/// Files smaller than this are read whole without looking for a block
/// index (what one would spare is less than the look-up).
pub const MIN_SIZE: u64 = 1 << 20;

/// Whether a table decompresses compressed files: its `compression`
/// option (`lines(PATH, 'compression=none')`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Compression {
    /// `'auto'`, the default: a file named as `tg -z` decompresses it is
    /// read as its text.
    #[default]
    Auto,
    /// `'none'`: every file is read as its own bytes, as `rg` reads
    /// without `-z` (a compressed file is then binary: its lines stop at
    /// its first NUL).
    Ignore,
}

impl Compression {
    /// The option's value as SQL gives it (`'auto'` or `'none'`).
    pub fn parse(value: &str) -> Option<Compression> {
        match value {
            "auto" => Some(Compression::Auto),
            "none" => Some(Compression::Ignore),
            _ => None,
        }
    }
}

/// What a file is to a table, by its name alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Its bytes are its text (a huge one may have a block index).
    Plain,
    /// Compressed: its text is what decompressing it gives (a `.gz`
    /// through the index of its text when it has one; a `.zst` may be a
    /// packed log, read through the index it carries).
    Compressed(Format),
}

/// What the file at `path` is to a table reading with `compression`: the
/// engine's door for SQL decides ([`Door::Sql`]).
pub fn kind(path: &Path, compression: Compression) -> Kind {
    let door = Door::Sql { decompress: compression == Compression::Auto };
    door.opening(path).decompress.map_or(Kind::Plain, Kind::Compressed)
}

/// How a file's text is read.
pub enum Opened {
    /// Through its index.
    Text(Box<dyn BlockText>),
    /// Read whole, as a walked file (no index, or one that cannot be trusted).
    Whole,
    /// Decompressed whole and read as a walked file's bytes (a compressed
    /// file without a trusted index of its text).
    Stream(Box<dyn Read>),
}

/// Opens the text of the file at `path`, with indexes under `base`, as
/// a table reading with `compression` reads it: where the text comes from
/// is the engine's answer for the SQL door ([`opening::open`]); an index
/// that cannot be used is warned of, and the text read without it.
pub fn open(path: &Path, base: &Path, compression: Compression) -> Result<Opened> {
    let door = Door::Sql { decompress: compression == Compression::Auto };
    let file = open_file(path)?;
    let opened = opening::open(door, path, &file, base).map_err(|e| error(path, e))?;
    if let Some(why) = &opened.unusable {
        log::warn!("{}: the index is unusable ({why}); reading it whole", path.display());
    }
    match opened.source {
        Source::Indexed(text) => Ok(Opened::Text(text)),
        Source::Bytes(Some(text)) => Ok(Opened::Text(text)),
        Source::Bytes(None) => Ok(Opened::Whole),
        Source::Stream(format) => decompressed(path, format),
        // The SQL door reads no frames (a seekable file is decompressed).
        Source::Frames(_) => decompressed(path, Format::Zstd),
    }
}

/// The length of the text of the file at `path` (of `size` bytes on
/// disk) when it is read through an index of its blocks: a cheap test at
/// planning time, confirmed by [`open`]. A text's parts are cut by this
/// length: a packed log of 1 GiB is 104 MB on disk.
pub fn block_text_len(
    path: &Path,
    size: u64,
    base: &Path,
    compression: Compression,
) -> Option<u64> {
    match kind(path, compression) {
        Kind::Compressed(Format::Zstd) => {
            let file = File::open(path).ok()?;
            match PackedFile::open(&file) {
                Ok(Some(packed)) => Some(packed.text_len()),
                Ok(None) => None,
                // A damaged container is read as a text too: opening it says so.
                Err(_) => Some(size),
            }
        }
        Kind::Compressed(format) => {
            match IndexedFormat::of(format).map(|f| (f.text_len)(base, path)) {
                Some(Ok(len)) => len,
                // An unusable index: opening it again says so, and reads it whole.
                Some(Err(_)) => Some(size),
                None => None,
            }
        }
        Kind::Plain => (size >= MIN_SIZE && matches!(BlockIndex::open(base, path), Ok(Some(_))))
            .then_some(size),
    }
}

/// The text of a compressed file, decompressed whole as `tg -z` does it
/// (its errors worded as rg words a decompressor's).
fn decompressed(path: &Path, format: Format) -> Result<Opened> {
    let stream = Transform::Decompress(format).open(path).map_err(|e| error(path, e))?;
    Ok(Opened::Stream(stream))
}

/// The spans of `text` that can hold a line satisfying `pred` (every
/// block for `None`), in text order, each starting a line; a grown file's
/// last indexed block and new bytes are read as `tail` has them cut
/// ([`crate::tail`]).
pub fn spans(text: &dyn BlockText, pred: Option<&Pred>, tail: Vec<Block>) -> Result<Vec<Block>> {
    let query = pred.map_or(Query::All, |p| p.query(text.has_edges()));
    let mut spans =
        text.candidates(&query, 0).map_err(|e| DataFusionError::External(Box::new(e)))?;
    if let Some(first) = tail.first() {
        spans.retain(|s| s.offset < first.offset);
        spans.extend(tail);
    }
    Ok(spans)
}

/// Reads `span`'s bytes into `buf` (replacing what it held; the bytes it
/// held are overwritten, not cleared first).
pub fn read(text: &dyn BlockText, span: &Block, buf: &mut Vec<u8>) -> std::io::Result<()> {
    buf.resize(span.len as usize, 0);
    text.read_at(span.offset, buf)
}

/// The byte-order mark a text starts with, as `rg` reads it: a UTF-8 one
/// is dropped (each line's byte offset counts from after it); a UTF-16 one
/// makes rg transcode the whole text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bom {
    /// None.
    None,
    /// `EF BB BF`, three bytes dropped.
    Utf8,
    /// `FF FE` or `FE FF`: the text is read as rg transcodes it.
    Utf16,
}

impl Bom {
    /// The mark `text` starts with.
    pub fn of(text: &dyn BlockText) -> std::io::Result<Bom> {
        Ok(Bom::in_head(&text.head(3)?))
    }

    /// The mark `head`, a text's first bytes, starts with.
    pub fn in_head(head: &[u8]) -> Bom {
        if head.starts_with(b"\xEF\xBB\xBF") {
            Bom::Utf8
        } else if head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF") {
            Bom::Utf16
        } else {
            Bom::None
        }
    }

    /// How many bytes of the text's start rg drops.
    pub fn dropped(self) -> u64 {
        match self {
            Bom::Utf8 => 3,
            Bom::None | Bom::Utf16 => 0,
        }
    }
}

/// Opens `path` for reading, naming it in the error.
fn open_file(path: &Path) -> Result<File> {
    File::open(path).map_err(|e| error(path, e))
}

/// An error about the file at `path`.
pub(crate) fn error(path: &Path, e: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(format!("{}: {e}", path.display()))
}

/// The whole of `text` as one stream, from its start: what `rg` reads of
/// the file. Each `read` fills the buffer it is given as a file's would,
/// so that the searcher's buffers (and where it finds a NUL) are the ones
/// it has reading the file itself.
pub fn stream(text: Box<dyn BlockText>) -> Box<dyn Read> {
    Box::new(TextStream { text, at: 0 })
}

/// See [`stream`].
struct TextStream {
    text: Box<dyn BlockText>,
    /// Where the next read starts.
    at: u64,
}

impl Read for TextStream {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = (self.text.len() - self.at).min(out.len() as u64) as usize;
        self.text.read_at(self.at, &mut out[..n])?;
        self.at += n as u64;
        Ok(n)
    }
}

/// A matcher of no line, which the searcher (inverted) answers for a
/// whole buffer at once.
#[derive(Clone, Copy, Debug)]
pub struct Nothing;

impl Matcher for Nothing {
    type Captures = NoCaptures;
    type Error = NoError;

    fn find_at(&self, _: &[u8], _: usize) -> std::result::Result<Option<Match>, NoError> {
        Ok(None)
    }

    fn new_captures(&self) -> std::result::Result<NoCaptures, NoError> {
        Ok(NoCaptures::new())
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        Some(LineTerminator::byte(b'\n'))
    }
}

/// A stream whose first bytes were read already (to detect its timestamp
/// format): they come first. A read fills as much of its buffer as the
/// stream alone would, so that the searcher's buffers are unchanged.
pub struct Prefixed {
    head: Vec<u8>,
    at: usize,
    rest: Box<dyn Read>,
    /// An error of the stream after bytes of the head, for the next read.
    failed: Option<std::io::Error>,
}

impl Prefixed {
    /// `rest` after its first bytes, `head`.
    pub fn new(head: Vec<u8>, rest: Box<dyn Read>) -> Prefixed {
        Prefixed { head, at: 0, rest, failed: None }
    }
}

impl Read for Prefixed {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let n = (self.head.len() - self.at).min(out.len());
        out[..n].copy_from_slice(&self.head[self.at..self.at + n]);
        self.at += n;
        if n == out.len() {
            return Ok(n);
        }
        match self.rest.read(&mut out[n..]) {
            Ok(m) => Ok(n + m),
            Err(e) if n > 0 => {
                self.failed = Some(e);
                Ok(n)
            }
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compressed_name_is_its_text_unless_bytes_are_asked_for() {
        let auto = |p: &str| kind(Path::new(p), Compression::Auto);
        assert_eq!(auto("a.log.gz"), Kind::Compressed(Format::Gzip));
        assert_eq!(auto("a.tgz"), Kind::Compressed(Format::Gzip));
        assert_eq!(auto("d/a.log.zst"), Kind::Compressed(Format::Zstd));
        assert_eq!(auto("a.bz2"), Kind::Compressed(Format::Bzip2));
        assert_eq!(auto("a.xz"), Kind::Compressed(Format::Xz));
        assert_eq!(auto("a.lz4"), Kind::Compressed(Format::Lz4));
        assert_eq!(auto("a.log"), Kind::Plain);
        assert_eq!(auto("a.gz.d/log"), Kind::Plain);
        assert_eq!(kind(Path::new("a.gz"), Compression::Ignore), Kind::Plain);
        assert_eq!(Compression::parse("none"), Some(Compression::Ignore));
        assert_eq!(Compression::parse("auto"), Some(Compression::Auto));
        assert_eq!(Compression::parse("gzip"), None);
    }

    #[test]
    fn byte_order_marks_are_told_apart() {
        assert_eq!(Bom::in_head(b"\xEF\xBB\xBFab"), Bom::Utf8);
        assert_eq!(Bom::in_head(b"\xEF\xBB"), Bom::None);
        assert_eq!(Bom::in_head(b"\xFF\xFEa\0"), Bom::Utf16);
        assert_eq!(Bom::in_head(b"\xFE\xFF\0a"), Bom::Utf16);
        assert_eq!(Bom::in_head(b""), Bom::None);
        assert_eq!(Bom::Utf8.dropped(), 3);
        assert_eq!(Bom::Utf16.dropped(), 0);
    }
}
