//! Where the index of a `.gz` file's text lives.

use std::path::{Path, PathBuf};

use crate::index::location;

/// The kind a `.gz` file's index is filed under ([`location::key`]).
pub const KIND: &str = "gz";

/// The index directory of the `.gz` file at `canonical`: distinct from a
/// block index of the same path ([`location::key`]).
pub fn index_dir(base: &Path, canonical: &Path) -> PathBuf {
    location::kind_dir(base, canonical, KIND)
}
