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

/// The default base directory for indexes: `$XDG_CACHE_HOME/trigrep`, else
/// the system's cache directory ([`crate::sys::cache_dir`]: `%LOCALAPPDATA%`
/// on Windows), else `~/.cache/trigrep`.
pub fn default_base() -> PathBuf {
    let xdg = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()).map(PathBuf::from);
    if let Some(x) = xdg.or_else(crate::sys::cache_dir) {
        return x.join("trigrep");
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    home.join(".cache").join("trigrep")
}

/// The index directory for the tree rooted at `root` (a canonical path).
pub fn index_dir_for(base: &Path, root: &Path) -> PathBuf {
    let bytes = root.as_os_str().as_encoded_bytes();
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

/// The key every kind of index is filed under ([`index_dir_for`] of it),
/// and which its directory records (`super::storage::KEY_FILE`): the
/// canonical path of the tree or file it describes, followed, for the kinds
/// a file can have besides its block index, by a NUL and the kind (`"gz"`:
/// a `.gz` file's index; `"zst"`: a packed file's verdict). No path holds
/// a NUL, so no two kinds share a directory.
pub fn key(canonical: &Path, kind: Option<&str>) -> PathBuf {
    let Some(kind) = kind else { return canonical.to_path_buf() };
    let mut key = canonical.as_os_str().as_encoded_bytes().to_vec();
    key.push(0);
    key.extend_from_slice(kind.as_bytes());
    PathBuf::from(crate::sys::os_string(key))
}

/// The directory of what is kept of the file at `canonical` under the
/// kind `kind` ([`key`]).
pub fn kind_dir(base: &Path, canonical: &Path, kind: &str) -> PathBuf {
    index_dir_for(base, &key(canonical, Some(kind)))
}

/// What an index directory under a base holds, read from the key it records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filed {
    /// The directory.
    pub dir: PathBuf,
    /// The tree or file described (`None`: the directory records no key).
    pub path: Option<PathBuf>,
    /// The kind named in the key (`None`: a tree's or a file's block index).
    pub kind: Option<String>,
}

/// Every index directory under `base`, in name order, with what its key
/// says it describes.
pub fn all(base: &Path) -> std::io::Result<Vec<Filed>> {
    let mut dirs: Vec<PathBuf> = match std::fs::read_dir(base.join("indexes")) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    dirs.retain(|d| d.is_dir());
    dirs.sort();
    Ok(dirs
        .into_iter()
        .map(|dir| {
            let recorded = std::fs::read(dir.join(super::storage::KEY_FILE)).ok();
            let (path, kind) = match recorded.as_deref().map(|k| k.splitn(2, |&b| b == 0)) {
                Some(mut parts) => {
                    let path = parts.next().map(|p| PathBuf::from(&*crate::sys::os_str(p)));
                    let kind = parts.next().map(|k| String::from_utf8_lossy(k).into_owned());
                    (path, kind)
                }
                None => (None, None),
            };
            Filed { dir, path, kind }
        })
        .collect())
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
