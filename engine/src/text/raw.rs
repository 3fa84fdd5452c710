//! A huge file's own bytes, read through its block index
//! ([`crate::index::blocks`]).

use std::fs::File;
use std::io;
use std::path::Path;

use super::{Block, BlockText, Opened, TextIndex};
use crate::index::blocks::{BlockIndex, Freshness};
use crate::index::error::IndexError;

/// A file with a block index that describes it, or its first bytes (the
/// file grew since: [`BlockText::len`] goes past [`super::Covered::len`]).
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
        Ok(match RawText::open_unverified(base, path, file)? {
            Opened::Trusted(text) => text.verify()?,
            Opened::Stale => Opened::Stale,
            Opened::Missing => Opened::Missing,
        })
    }

    /// [`RawText::open`] without the costly part of the rule: a grown
    /// file's indexed bytes are verified only by [`Unverified::verify`], so
    /// that a search that turns out to scan the file anyway (a dense
    /// query, say) never reads them twice.
    pub fn open_unverified(
        base: &Path,
        path: &Path,
        file: File,
    ) -> Result<Opened<Unverified>, IndexError> {
        let Some(index) = BlockIndex::open(base, path)? else {
            return Ok(Opened::Missing);
        };
        let len = file.metadata()?.len();
        let grown = match index.look(&file)? {
            Freshness::Stale => return Ok(Opened::Stale),
            Freshness::Fresh => false,
            Freshness::Grown => true,
        };
        Ok(Opened::Trusted(Unverified { text: RawText { index, file, len }, grown }))
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

/// A file's text through its block index before a grown file's indexed
/// bytes are verified: its index may be asked which blocks can match,
/// but its text is read only once [`Unverified::verify`] trusts it.
pub struct Unverified {
    text: RawText,
    grown: bool,
}

impl Unverified {
    /// The text, to ask its index (not to read).
    pub fn index_of(&self) -> &RawText {
        &self.text
    }

    /// Whether the file grew since the build (verifying reads every
    /// indexed byte).
    pub fn is_grown(&self) -> bool {
        self.grown
    }

    /// The text, trusted: at once for an unchanged file, after its indexed
    /// bytes are verified for a grown one (else stale).
    pub fn verify(self) -> std::io::Result<Opened<RawText>> {
        let Unverified { text, grown } = self;
        if grown && !text.index.indexed_bytes_unchanged(&text.file)? {
            return Ok(Opened::Stale);
        }
        Ok(Opened::Trusted(text))
    }
}

impl BlockText for RawText {
    fn kind(&self) -> &'static str {
        "block index"
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn index(&self) -> &dyn TextIndex {
        &self.index
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        crate::sys::read_exact_at(&self.file, buf, offset)
    }
}
