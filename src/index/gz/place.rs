//! Where the index of a `.gz` file's text lives.

use std::path::{Path, PathBuf};

use crate::index::location;
use crate::index::storage::FsStorage;

/// The index directory of the `.gz` file at `canonical`: distinct from a
/// block index of the same path (its name carries a NUL, which no path does).
pub fn index_dir(base: &Path, canonical: &Path) -> PathBuf {
    location::kind_dir(base, canonical, "gz")
}

/// Whether the `.gz` file at `path` has an index (fresh or not).
pub fn has_index(base: &Path, path: &Path) -> bool {
    path.canonicalize().is_ok_and(|c| FsStorage::new(&index_dir(base, &c)).has_index())
}
