//! The text inside a `.gz` file, read through the index of its text
//! ([`crate::index::gz`]): any range is decompressed from the access
//! point before it.

use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::indexed_format::{BuildRequest, IndexedFormat};
use super::{Block, BlockText, Covered, Opened, TextIndex};
use crate::index::blocks::time_ranges::BlockTimes;
use crate::index::error::IndexError;
use crate::index::gz::{self, GzIndex, TextReader};
use crate::kind::Format;
use crate::query::Query;

/// gzip's entry among the indexed formats.
pub(super) const GZIP: IndexedFormat = IndexedFormat {
    format: Format::Gzip,
    kind: gz::KIND,
    default_spacing: gz::DEFAULT_SPACING,
    auto_index_min: gz::AUTO_INDEX_MIN,
    open: |base, path, file| {
        Ok(match GzipText::open(base, path, file)? {
            Opened::Trusted(text) => Opened::Trusted(Box::new(text)),
            Opened::Stale => Opened::Stale,
            Opened::Missing => Opened::Missing,
        })
    },
    text_len: |base, path| Ok(GzIndex::open(base, path)?.map(|index| index.record.text.len)),
    build: |req, progress| {
        let BuildRequest { path, base, block_size, spacing, budget } = *req;
        gz::build(path, base, block_size, spacing, budget, progress)
    },
};

/// A `.gz` file whose text has an index that describes it.
pub struct GzipText {
    index: GzIndex,
    gz: Arc<File>,
    /// Tells this text's readers from any other's.
    id: u64,
}

thread_local! {
    /// The reader a thread left where its last read of a text ended (with
    /// the text's id): the thread's next read usually lies ahead of it,
    /// often closer than an access point, and then reads on.
    static READER: RefCell<Option<(u64, TextReader)>> = const { RefCell::new(None) };
}

/// Ids of opened texts.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

impl GzipText {
    /// The text of the `.gz` file `gz` (open, at `path`) through its index
    /// under `base`: trusted only when the file is exactly as indexed
    /// ([`GzIndex::is_fresh`]: a `.gz` appended to is another text).
    pub fn open(base: &Path, path: &Path, gz: File) -> Result<Opened<GzipText>, IndexError> {
        let Some(index) = GzIndex::open(base, path)? else {
            return Ok(Opened::Missing);
        };
        if !index.is_fresh(&gz)? {
            return Ok(Opened::Stale);
        }
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        Ok(Opened::Trusted(GzipText { index, gz: Arc::new(gz), id }))
    }

    /// The index.
    pub fn index(&self) -> &GzIndex {
        &self.index
    }

    /// The `.gz` file.
    pub fn file(&self) -> &Arc<File> {
        &self.gz
    }
}

impl BlockText for GzipText {
    fn kind(&self) -> &'static str {
        ".gz index"
    }

    fn len(&self) -> u64 {
        self.index.record.text.len
    }

    fn index(&self) -> &dyn TextIndex {
        &self.index
    }

    fn is_current(&self) -> bool {
        self.index.is_fresh(&self.gz).unwrap_or(false)
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let kept = READER.with_borrow_mut(Option::take);
        let kept = kept.filter(|(id, _)| *id == self.id).map(|(_, r)| r);
        let reader = self.index.read_text(&self.gz, offset, buf, kept)?;
        READER.with_borrow_mut(|r| *r = Some((self.id, reader)));
        Ok(())
    }
}

impl TextIndex for GzIndex {
    fn covered(&self) -> Covered {
        Covered::of(&self.record.text, self.block_count())
    }

    fn blocks(&self) -> Vec<Block> {
        GzIndex::blocks(self).collect()
    }

    fn has_edges(&self) -> bool {
        GzIndex::has_edges(self)
    }

    fn candidates(&self, query: &Query, enough: usize) -> Result<Vec<Block>, IndexError> {
        self.candidates_within(query, enough)
    }

    fn times(&self) -> Option<BlockTimes> {
        GzIndex::times(self)
    }
}
