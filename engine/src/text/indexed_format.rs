//! What tg knows of a compression format whose text it indexes in blocks
//! (`tg index FILE.gz`): one [`IndexedFormat`] each, in one list kept by
//! the door to texts ([`super::opening`], [`IndexedFormat::of`]).
//!
//! An entry says everything a front door asks of such a format: how its
//! text is opened through a trusted index (search, `tg view` and `tg sql`
//! all go through it), how long that text is by its index, where its index
//! lives, how it is built and from what size a `-z` search leaves a build
//! behind. Adding a format is: its entry in `kind/compression.rs` and its
//! decoder (as any `-z` format), its index in `index/<fmt>/`, its text in
//! `text/<fmt>.rs` (a [`BlockText`] and its entry), and that entry in
//! the list in `text/opening.rs`. Nothing else names a format.
//!
//! A packed `.zst` is not among them: it carries its own index and is told
//! by its content ([`crate::kind::Opening::packed`]).

use std::fs::File;
use std::path::{Path, PathBuf};

use super::{BlockText, Opened};
use crate::index::build::Progress;
pub use crate::index::built_text::BuiltText;
use crate::index::error::IndexError;
use crate::index::location;
use crate::index::lock;
use crate::index::storage::FsStorage;
use crate::kind::Format;

/// A text opened through its index, or why not.
pub(crate) type OpenedText = Result<Opened<Box<dyn BlockText>>, IndexError>;

/// A compression format whose text tg indexes in blocks.
pub struct IndexedFormat {
    /// The format.
    pub format: Format,
    /// The kind its indexes are filed under ([`location::key`]), apart
    /// from a block index of the same path.
    pub(crate) kind: &'static str,
    /// The distance between the places decompression can start from, in
    /// bytes of text, when `tg index --access-spacing` does not say.
    pub default_spacing: u64,
    /// Files from this compressed size up get an index built in the
    /// background after a `-z` search decompressed them whole.
    pub auto_index_min: u64,
    /// The text of the file at `path` (open as `file`) through its index
    /// under `base`, trusted only when the file is as indexed.
    pub(crate) open: fn(&Path, &Path, File) -> OpenedText,
    /// The length of the text the index of the file at `path` describes
    /// (`None`: there is none), fresh or not: a cheap test for planning.
    pub text_len: fn(&Path, &Path) -> Result<Option<u64>, IndexError>,
    /// Builds (or rebuilds) the index of a file.
    pub build: fn(&BuildRequest<'_>, &dyn Progress) -> Result<BuiltText, IndexError>,
}

/// What a build of a compressed file's index is asked.
pub struct BuildRequest<'a> {
    /// The file.
    pub path: &'a Path,
    /// The index base ([`location`]).
    pub base: &'a Path,
    /// The nominal size of a block of text.
    pub block_size: u64,
    /// The distance between the places decompression can start from, in
    /// bytes of text.
    pub spacing: u64,
    /// Bytes of memory for the sort.
    pub budget: usize,
}

impl IndexedFormat {
    /// The index directory of the file at `canonical`.
    pub fn index_dir(&self, base: &Path, canonical: &Path) -> PathBuf {
        location::kind_dir(base, canonical, self.kind)
    }

    /// Whether the file at `path` has an index (fresh or not).
    pub(crate) fn has_index(&self, base: &Path, path: &Path) -> bool {
        path.canonicalize().is_ok_and(|c| FsStorage::new(&self.index_dir(base, &c)).has_index())
    }

    /// Whether a build of the file at `path`'s index is under way.
    pub(crate) fn build_under_way(&self, base: &Path, path: &Path) -> bool {
        lock::build_under_way(base, path, Some(self.kind))
    }
}
