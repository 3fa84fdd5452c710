//! The texts an index cuts into blocks — a huge file with a block index,
//! a `.gz` file's text with its index, a packed `.zst` — behind one small
//! trait, [`BlockText`]: open with a freshness check, the candidate spans
//! of a predicate (with their first line numbers), and reading a span.
//!
//! The engine is growing one trait for block-indexed texts of its own;
//! until it lands, this file is the only place that knows the three
//! kinds apart, so that swapping it for the engine's trait touches
//! nothing else. A text whose index cannot be trusted is never read
//! through it: a stale block index or `.gz` index means the whole text is
//! read ([`Opened::Whole`], [`Opened::Stream`]); a damaged tg container
//! is an error.

mod gz;
mod packed;
mod plain;

use std::fs::File;
use std::io::Read;
use std::path::Path;

use datafusion::error::{DataFusionError, Result};

use crate::filter::Pred;

/// A range of a text that starts a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Where it starts in the text.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u64,
    /// The 1-based number of its first line.
    pub first_line: u64,
}

/// A text cut into indexed blocks whose index was found fresh.
pub trait BlockText {
    /// What kind of text it is, for logs: `blocks`, `gz` or `packed`.
    fn kind(&self) -> &'static str;
    /// The length of the whole text.
    fn text_len(&self) -> u64;
    /// How many blocks (frames) the index holds.
    fn block_count(&self) -> usize;
    /// Whether the text holds a NUL byte (then it is read from its start,
    /// up to the first NUL, as `rg` reads a walked binary file).
    fn has_nul(&self) -> bool;
    /// The spans that can hold a line satisfying `pred` (every span for
    /// `None`), in text order; together with the spans left out they
    /// cover the text.
    fn spans(&self, pred: Option<&Pred>) -> Result<Vec<Span>>;
    /// Reads `span`'s bytes into `buf` (replacing what it held).
    fn read(&mut self, span: &Span, buf: &mut Vec<u8>) -> Result<()>;
}

/// How a text is read.
pub enum Opened {
    /// Through its index.
    Text(Box<dyn BlockText>),
    /// Read whole, as a walked file (no index, or a stale one).
    Whole,
    /// Decompressed whole and read as a walked file's bytes (a `.gz` whose
    /// index is stale, another tool's seekable zstd file).
    Stream(Box<dyn Read>),
}

/// Opens the text of the file at `path`, with indexes under `base`.
pub fn open(path: &Path, base: &Path) -> Result<Opened> {
    let name = path.as_os_str().as_encoded_bytes();
    let opened = if name.ends_with(b".zst") {
        packed::open(path, base)?
    } else if name.ends_with(b".gz") {
        gz::open(path, base)?
    } else {
        None
    };
    match opened {
        Some(opened) => Ok(opened),
        None => plain::open(path, base),
    }
}

/// Whether the file at `path` (of `size` bytes) is read through an index
/// of its blocks: a cheap test at planning time, confirmed by [`open`].
pub fn is_block_text(path: &Path, size: u64, base: &Path) -> bool {
    let name = path.as_os_str().as_encoded_bytes();
    if name.ends_with(b".zst") {
        return packed::is_packed(path);
    }
    if name.ends_with(b".gz") && trigrep::index::gz::has_index(base, path) {
        return true;
    }
    size >= plain::MIN_SIZE && plain::has_index(path, base)
}

/// Opens `path` for reading, naming it in the error.
fn open_file(path: &Path) -> Result<File> {
    File::open(path).map_err(|e| error(path, e))
}

/// An error about the file at `path`.
pub(crate) fn error(path: &Path, e: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(format!("{}: {e}", path.display()))
}

/// The spans of `blocks` that `pred` makes candidates of, or all of them.
fn spans_of(blocks: Vec<trigrep::index::blocks::Block>) -> Vec<Span> {
    blocks
        .into_iter()
        .map(|b| Span { offset: b.offset, len: b.len, first_line: b.first_line })
        .collect()
}

/// The whole of `text` as one stream, from its start: what `rg` reads of
/// the file. Each `read` fills the buffer it is given as a file's would,
/// so that the searcher's buffers (and where it finds a NUL) are the ones
/// it has reading the file itself.
pub fn stream(text: Box<dyn BlockText>) -> Result<Box<dyn Read>> {
    let spans = text.spans(None)?;
    Ok(Box::new(TextStream { text, spans, next: 0, buf: Vec::new(), pos: 0 }))
}

/// See [`stream`].
struct TextStream {
    text: Box<dyn BlockText>,
    spans: Vec<Span>,
    /// The next span to read.
    next: usize,
    /// The span being read, and how much of it was given out.
    buf: Vec<u8>,
    pos: usize,
}

impl Read for TextStream {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while n < out.len() {
            if self.pos == self.buf.len() {
                let Some(span) = self.spans.get(self.next) else { break };
                self.text.read(span, &mut self.buf).map_err(std::io::Error::other)?;
                (self.next, self.pos) = (self.next + 1, 0);
                continue;
            }
            let k = (out.len() - n).min(self.buf.len() - self.pos);
            out[n..n + k].copy_from_slice(&self.buf[self.pos..self.pos + k]);
            (n, self.pos) = (n + k, self.pos + k);
        }
        Ok(n)
    }
}
