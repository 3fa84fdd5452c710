//! A huge file's own bytes, read through its block index
//! ([`crate::index::blocks`]).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::{Block, BlockText, Covered, Opened, covered_by};
use crate::index::blocks::{BlockIndex, Freshness};
use crate::index::error::IndexError;
use crate::index::query::Query;

/// A file with a block index that describes it, or its first bytes (the
/// file grew since: [`BlockText::len`] goes past [`Covered::len`]).
pub struct RawText {
    index: BlockIndex,
    file: File,
    len: u64,
}

impl RawText {
    /// The text of `file` (open, at `path`) through its block index under
    /// `base`: trusted when the file is as indexed or only grew
    /// ([`BlockIndex::freshness`]); an error when the index is unusable.
    pub fn open(base: &Path, path: &Path, file: File) -> Result<Opened<RawText>, IndexError> {
        let Some(index) = BlockIndex::open(base, path)? else {
            return Ok(Opened::Missing);
        };
        let len = file.metadata()?.len();
        Ok(match index.freshness(&file)? {
            Freshness::Stale => Opened::Stale,
            Freshness::Fresh | Freshness::Grown => Opened::Trusted(RawText { index, file, len }),
        })
    }

    /// The block index.
    pub fn index(&self) -> &BlockIndex {
        &self.index
    }

    /// The last indexed block (`None`: the file was empty when indexed).
    pub fn last_block(&self) -> Option<Block> {
        self.index.last_block()
    }
}

impl BlockText for RawText {
    fn kind(&self) -> &'static str {
        "block index"
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn covered(&self) -> Covered {
        covered_by(&self.index)
    }

    fn blocks(&self) -> Vec<Block> {
        self.index.blocks().collect()
    }

    fn has_edges(&self) -> bool {
        self.index.has_edges()
    }

    fn candidates(&self, query: &Query, enough: usize) -> Result<Vec<Block>, IndexError> {
        self.index.candidates(query, enough)
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.file.read_exact_at(buf, offset)
    }
}
