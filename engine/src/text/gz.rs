//! The text inside a `.gz` file, read through the index of its text
//! ([`crate::index::gz`]): any range is decompressed from the access
//! point before it.

use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{BlockText, Opened, TextIndex};
use crate::index::error::IndexError;
use crate::index::gz::{GzIndex, TextReader};

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
