//! Removing a whole index directory (`tg status --prune`), safely: never
//! while a build holds its lock, and never leaving a half-removed index
//! that a query could take for a whole one.
//!
//! The directory's build lock is taken first and held to the end, so no
//! build starts or publishes meanwhile. The published index goes first (a
//! query that has it open keeps its bytes: a removed file stays readable
//! through an open map), then every other file, then the directory.

use std::path::Path;

use super::error::IndexError;
use super::storage::{FsStorage, INDEX_FILE};

/// What [`remove_dir`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Removal {
    /// Removed, with the bytes its files held.
    Removed(u64),
    /// Left alone: a build holds its lock.
    Building,
}

/// Removes the index directory `dir` and everything in it, unless a build
/// holds its lock.
pub fn remove_dir(dir: &Path) -> Result<Removal, IndexError> {
    let storage = FsStorage::new(dir);
    let Some(_lock) = storage.try_lock_build()? else { return Ok(Removal::Building) };
    let mut bytes = 0;
    let index = dir.join(INDEX_FILE);
    if let Ok(md) = std::fs::symlink_metadata(&index) {
        bytes += md.len();
        std::fs::remove_file(&index)?;
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let md = entry.metadata()?;
        if md.is_dir() {
            std::fs::remove_dir_all(entry.path())?;
        } else {
            bytes += md.len();
            std::fs::remove_file(entry.path())?;
        }
    }
    std::fs::remove_dir(dir)?;
    Ok(Removal::Removed(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::storage::Storage;
    use std::io::Write;

    #[test]
    fn removes_everything_but_never_under_a_build() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("x");
        let s = FsStorage::create(&dir).unwrap();
        let mut p = s.begin().unwrap();
        p.write_all(b"index").unwrap();
        p.commit().unwrap();
        s.record_key(Path::new("/gone")).unwrap();
        let held = s.load().unwrap();
        let lock = s.try_lock_build().unwrap().unwrap();
        assert_eq!(remove_dir(&dir).unwrap(), Removal::Building);
        assert!(s.has_index());
        drop(lock);
        assert_eq!(remove_dir(&dir).unwrap(), Removal::Removed(5 + 5));
        assert!(!dir.exists());
        assert_eq!(&*held, b"index", "a reader keeps its bytes");
    }
}
