//! Stats by path, where no directory handle can be stat-ed relative to
//! (macOS has no `O_PATH`; Windows no `fstatat`): each path is resolved
//! whole, which costs more per file, with the same answers.

use std::path::{Path, PathBuf};

use super::meta::Meta;

/// Stats paths relative to a root.
pub struct DirStat {
    root: PathBuf,
}

impl DirStat {
    /// A stat helper for paths below `root`.
    pub fn new(root: &Path) -> Option<DirStat> {
        Some(DirStat { root: root.to_path_buf() })
    }

    /// `lstat` of `rel` (relative to the root, `/`-separated): `Ok(None)`
    /// when it (or a parent) does not exist, `Err` when it cannot be stat-ed
    /// for another reason (permissions, ...).
    pub fn lstat(&mut self, rel: &[u8]) -> std::io::Result<Option<Meta>> {
        let path = if rel.is_empty() {
            self.root.clone()
        } else {
            self.root.join(&*crate::sys::os_str(rel))
        };
        // A parent that is a link must not be followed: a walk does not.
        let mut parent = path.parent();
        while let Some(p) = parent.filter(|p| p.starts_with(&self.root) && *p != self.root) {
            match std::fs::symlink_metadata(p) {
                Ok(md) if md.is_dir() => {}
                Ok(_) => return Ok(None),
                Err(e) if is_missing(&e) => return Ok(None),
                Err(e) => return Err(e),
            }
            parent = p.parent();
        }
        Meta::by_path(&path)
    }

    /// `lstat` of `rel`, as `std::fs::symlink_metadata` of the joined path
    /// answers (links among its parents followed); `Ok(None)` when it does
    /// not exist.
    pub(crate) fn lstat_entry(&mut self, rel: &[u8]) -> std::io::Result<Option<Meta>> {
        Meta::by_path(&self.root.join(crate::sys::rel_path(rel)))
    }

    /// Opens the file `rel` for reading, by its path.
    pub(crate) fn open_file(&mut self, rel: &[u8]) -> std::io::Result<std::fs::File> {
        std::fs::File::open(self.root.join(crate::sys::rel_path(rel)))
    }

    /// `stat` of `rel`, following links wherever they are: `Ok(None)` when
    /// it (or a parent) does not exist, `Err` for anything else.
    pub fn stat_followed(&mut self, rel: &[u8]) -> std::io::Result<Option<Meta>> {
        Meta::followed(&self.root.join(crate::sys::rel_path(rel)))
    }

    /// `lstat` of the directory `rel` (the same as [`DirStat::lstat`] here).
    pub fn lstat_dir(&mut self, rel: &[u8]) -> std::io::Result<Option<Meta>> {
        self.lstat(rel)
    }
}

/// Whether `e` says the path is gone.
fn is_missing(e: &std::io::Error) -> bool {
    matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory)
}
