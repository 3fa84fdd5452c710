//! How a text with a block index is read: one trait, [`BlockText`], over
//! the three kinds of text trigrep indexes in blocks —
//!
//! | kind | the text | opened by |
//! |---|---|---|
//! | [`raw::RawText`] | a huge file's own bytes | its block index (`tg index FILE`) |
//! | [`gz::GzipText`] | the text inside a `.gz` file | the index of its text (`tg index FILE.gz`) |
//! | [`packed::PackedText`] | the text inside a packed `.zst` file | the block index it carries (`tg pack`) |
//!
//! Each opens only when its index may be trusted for the file as it is
//! now, by the rule of [`crate::index::trust`] ([`Opened`]); then every
//! client asks the same questions: how long the text is and how much of
//! it the index covers, where each block starts and which line it starts
//! with (the line map at block granularity), which blocks can hold a
//! match of a planned query, and the bytes of any range. The search reads
//! candidate blocks through it (`crate::search::select`), `tg view` jumps
//! and steps through matches with it.
//!
//! Which of them a file's text is read through, if any, is [`opening`]'s
//! one answer for the front doors that read whole texts (`tg view`, `tg
//! sql`); it also keeps the one list of compressed formats whose text
//! is indexed (gzip today: [`indexed_format::IndexedFormat::of`]), which
//! search, the viewer, SQL and `tg index` all read.
//!
//! What a text is *not* asked here: how to search it (the chunk engine
//! and the worker do that), nor how a file without an index is read.

pub mod gz;
pub mod indexed_format;
pub mod opening;
pub mod packed;
pub mod raw;

use std::io;

use crate::index::TextShape;
pub use crate::index::blocks::Block;
use crate::index::blocks::BlockIndex;
use crate::index::blocks::time_ranges::BlockTimes;
use crate::index::error::IndexError;
use crate::query::Query;

/// What the index of a text covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Covered {
    /// Bytes of text the blocks cover (a grown file's text goes on past
    /// them: its tail is read directly).
    pub len: u64,
    /// Newlines in those bytes (the tail's lines are numbered after them).
    pub lines: u64,
    /// Whether those bytes hold a NUL.
    pub has_nul: bool,
    /// How many blocks there are.
    pub blocks: u32,
}

/// The block index of a text: what it covers, the blocks it cut the text
/// into, and which of them can match a query. A huge file's and a packed
/// file's ([`BlockIndex`]) and a compressed file's (`.gz`: [`crate::index::gz::GzIndex`]).
pub trait TextIndex: Send + Sync {
    /// What the index covers.
    fn covered(&self) -> Covered;

    /// Every block, in text order: where it starts, its length and the
    /// number of its first line.
    fn blocks(&self) -> Vec<Block>;

    /// Whether the blocks hold the trigrams of their edges (a query is
    /// planned for that: `crate::query::search_plan::query_for`).
    fn has_edges(&self) -> bool;

    /// The blocks that can hold a match of `query`, in text order: exactly
    /// those holding its trigrams, or, with `enough` above 0, a superset
    /// once at most that many are left.
    fn candidates(&self, query: &Query, enough: usize) -> Result<Vec<Block>, IndexError>;

    /// The earliest and latest time the lines of each block carry, as the
    /// build recorded them ([`crate::index::blocks::time_ranges`]); `None`
    /// for an index built without them (by an older tg, or of a text
    /// without times).
    fn times(&self) -> Option<BlockTimes> {
        None
    }
}

impl TextIndex for BlockIndex {
    fn covered(&self) -> Covered {
        Covered::of(&self.source.text, self.block_count())
    }

    fn blocks(&self) -> Vec<Block> {
        BlockIndex::blocks(self).collect()
    }

    fn has_edges(&self) -> bool {
        BlockIndex::has_edges(self)
    }

    fn candidates(&self, query: &Query, enough: usize) -> Result<Vec<Block>, IndexError> {
        BlockIndex::candidates(self, query, enough)
    }

    fn times(&self) -> Option<BlockTimes> {
        BlockIndex::times(self)
    }
}

/// A text read through its block index ([`BlockText::index`]).
pub trait BlockText: Send + Sync {
    /// What kind of text it is, for messages: "block index", ...
    fn kind(&self) -> &'static str;

    /// The length of the whole text now (past [`Covered::len`] when a
    /// file grew since its index was built).
    fn len(&self) -> u64;

    /// Whether the text is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text's block index.
    fn index(&self) -> &dyn TextIndex;

    /// What the index covers ([`TextIndex::covered`]).
    fn covered(&self) -> Covered {
        self.index().covered()
    }

    /// Every block, in text order ([`TextIndex::blocks`]).
    fn blocks(&self) -> Vec<Block> {
        self.index().blocks()
    }

    /// Whether the blocks hold the trigrams of their edges
    /// ([`TextIndex::has_edges`]).
    fn has_edges(&self) -> bool {
        self.index().has_edges()
    }

    /// The blocks that can hold a match of `query`, in text order
    /// ([`TextIndex::candidates`]).
    fn candidates(&self, query: &Query, enough: usize) -> Result<Vec<Block>, IndexError> {
        self.index().candidates(query, enough)
    }

    /// Fills `buf` with the text from `offset` on (an error past the end).
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;

    /// Whether the file still holds the text the index describes, asked
    /// again while the text is shown (a `.gz` file appended to is another
    /// text); by default, yes.
    fn is_current(&self) -> bool {
        true
    }

    /// The text's first `len` bytes (all of it when shorter), reading no
    /// more than a text of its kind must: a byte-order mark's sniff.
    fn head(&self, len: usize) -> io::Result<Vec<u8>> {
        let mut head = vec![0; self.len().min(len as u64) as usize];
        self.read_at(0, &mut head)?;
        Ok(head)
    }
}

/// What opening a text through its index found.
pub enum Opened<T> {
    /// The index may be trusted for the file as it is.
    Trusted(T),
    /// There is an index, but the file changed in a way it cannot
    /// describe: the file must be read without it (and indexed again).
    Stale,
    /// There is no index.
    Missing,
}

impl<T> Opened<T> {
    /// The trusted text (`None`: stale or missing).
    pub fn trusted(self) -> Option<T> {
        match self {
            Opened::Trusted(t) => Some(t),
            _ => None,
        }
    }
}

impl Covered {
    /// What `blocks` blocks of a text of `shape` cover.
    pub fn of(shape: &TextShape, blocks: u32) -> Covered {
        let TextShape { len, lines, has_nul, .. } = *shape;
        Covered { len, lines, has_nul, blocks }
    }
}

/// The block of `blocks` (in text order) that holds byte `offset`.
#[cfg(test)]
pub(crate) fn block_at(blocks: &[Block], offset: u64) -> Option<&Block> {
    let i = blocks.partition_point(|b| b.offset + b.len <= offset);
    blocks.get(i).filter(|b| b.offset <= offset)
}

#[cfg(test)]
mod tests;
