//! Where a tree's index lives, and how a query finds it.
//!
//! Indexes live outside the tree, under a base directory (the user's cache
//! directory by default: `$XDG_CACHE_HOME/trigrep` or `~/.cache/trigrep`),
//! in `indexes/<name>-<hash>/`, where `<hash>` is a stable FNV-1a hash of the
//! tree's canonical path. A query run anywhere inside the tree walks up from
//! its directory and takes the nearest ancestor that has an index.
//!
//! ```
//! use std::path::Path;
//! use trigrep::index::location::index_dir_for;
//! let a = index_dir_for(Path::new("/base"), Path::new("/src/linux"));
//! assert!(a.starts_with("/base/indexes"));
//! assert_eq!(a, index_dir_for(Path::new("/base"), Path::new("/src/linux")));
//! ```

use std::path::{Path, PathBuf};

use super::storage::FsStorage;

/// The default base directory for indexes: `$XDG_CACHE_HOME/trigrep`, else `~/.cache/trigrep`.
pub fn default_base() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        return PathBuf::from(x).join("trigrep");
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    home.join(".cache").join("trigrep")
}

/// The index directory for the tree rooted at `root` (a canonical path).
pub fn index_dir_for(base: &Path, root: &Path) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let bytes = root.as_os_str().as_bytes();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let name: String = root
        .file_name()
        .map(|n| n.to_string_lossy().chars().filter(|c| c.is_alphanumeric() || *c == '-').collect())
        .unwrap_or_default();
    base.join("indexes").join(format!("{name}-{hash:016x}"))
}

/// The directory of what is kept of the file at `canonical` under the
/// kind `kind` (`"gz"`: a `.gz` file's index; `"zst"`: a packed file's
/// verdict): distinct from a block index of the same path, as its key
/// carries a NUL, which no path does.
pub fn kind_dir(base: &Path, canonical: &Path, kind: &str) -> PathBuf {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let mut key = canonical.as_os_str().as_bytes().to_vec();
    key.push(0);
    key.extend_from_slice(kind.as_bytes());
    index_dir_for(base, Path::new(&std::ffi::OsString::from_vec(key)))
}

/// An index found for a query: the tree it covers and the directory holding it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// The canonical root of the indexed tree.
    pub root: PathBuf,
    /// The index directory.
    pub dir: PathBuf,
}

/// Finds the index of the nearest ancestor of `start` (inclusive) that has one.
pub fn find(base: &Path, start: &Path) -> Option<Located> {
    let start = start.canonicalize().ok()?;
    let mut cur: Option<&Path> = Some(&start);
    while let Some(dir) = cur {
        let idx = index_dir_for(base, dir);
        if FsStorage::new(&idx).has_index() {
            return Some(Located { root: dir.to_path_buf(), dir: idx });
        }
        cur = dir.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::storage::INDEX_FILE;

    #[test]
    fn finds_the_nearest_indexed_ancestor() {
        let base = tempfile::tempdir().unwrap();
        let tree = tempfile::tempdir().unwrap();
        let root = tree.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        assert_eq!(find(base.path(), &root.join("a/b")), None);
        let dir = index_dir_for(base.path(), &root);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(INDEX_FILE), b"x").unwrap();
        let found = find(base.path(), &root.join("a/b")).unwrap();
        assert_eq!(found, Located { root: root.clone(), dir });
    }
}
