//! Where a packed file's bytes come from: a [`Store`]. A local file is
//! mapped whole ([`Mapped`]); a remote object fetches the ranges it is
//! asked for (`crate::remote`), so that a reader of a few frames fetches
//! the container's ends (seek table, footer, block index) and those
//! frames only. [`super::read::PackedFile`] reads through this trait and
//! knows nothing of files or networks.

use std::borrow::Cow;
use std::io;
use std::ops::Range;
use std::sync::Arc;

use memmap2::Mmap;

use crate::index::storage::IndexBytes;

/// The bytes of one packed file.
pub trait Store: Send + Sync {
    /// The file's length.
    fn len(&self) -> u64;

    /// Whether the file is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of `range` (within the length: a range past it is an
    /// error).
    fn bytes(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>>;

    /// `range` as the bytes of an index (the block index inside).
    fn index_bytes(&self, range: Range<u64>) -> io::Result<IndexBytes> {
        Ok(IndexBytes::Shared(Arc::new(self.bytes(range)?.into_owned())))
    }

    /// Says that `ranges` (in file order) are about to be read: a store
    /// that fetches bytes fetches them now, together.
    fn want(&self, ranges: &[Range<u64>]) -> io::Result<()>;

    /// Whether the bytes of `range` are at hand (read without a fetch).
    fn holds(&self, _range: Range<u64>) -> bool {
        true
    }

    /// Drops what was kept on disk of the file's block index short of
    /// the whole (it did not check sound): `true` when there was some.
    fn forget_kept_part(&self) -> bool {
        false
    }

    /// Keeps on disk what is held of `ranges` (the header and parts of
    /// the block index and what follows it, read by range), as parts:
    /// never taken for the whole index.
    fn keep_part(&self, _ranges: &[Range<u64>]) {}
}

/// A local packed file, mapped whole.
pub(crate) struct Mapped(pub Arc<Mmap>);

impl Store for Mapped {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn bytes(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        let range = range.start as usize..range.end as usize;
        match self.0.get(range) {
            Some(bytes) => Ok(Cow::Borrowed(bytes)),
            None => Err(io::ErrorKind::UnexpectedEof.into()),
        }
    }

    fn index_bytes(&self, range: Range<u64>) -> io::Result<IndexBytes> {
        let range = range.start as usize..range.end as usize;
        if self.0.get(range.clone()).is_none() {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        Ok(IndexBytes::Part(Arc::clone(&self.0), range))
    }

    fn want(&self, _: &[Range<u64>]) -> io::Result<()> {
        Ok(())
    }
}
