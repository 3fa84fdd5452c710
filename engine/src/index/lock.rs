//! The locks of an index directory that say who builds there: the build
//! lock (`.building`, held by whoever writes a new index: `tg index`, a
//! background build started after a search, a server's merge) and the
//! request to give way (`.takeover`, held by a `tg index` that waits for
//! the build lock).
//!
//! Both are `flock`s, so they vanish with their holder. A background build
//! looks at the request between batches ([`FsStorage::asked_to_give_way`])
//! and stops when someone holds it; the waiting `tg index` then takes the
//! build lock ([`FsStorage::lock_build`]) and builds at its own priority. A
//! query only peeks ([`FsStorage::build_under_way`]): it never waits on
//! either lock.

use std::fs::File;
use std::path::Path;

use super::error::IndexError;
use super::location;
use super::storage::{BUILD_LOCK, FsStorage, TAKEOVER};

/// How often [`FsStorage::try_lock_build`] tries before it says another
/// build holds the lock: a query's peek holds it shared for microseconds.
const TRIES: u32 = 3;

impl FsStorage {
    /// Takes the directory's build lock (held while the returned file
    /// lives); `None` when another build holds it.
    pub fn try_lock_build(&self) -> Result<Option<File>, IndexError> {
        for attempt in 1..=TRIES {
            let file = self.open_lock(BUILD_LOCK)?;
            match file.try_lock() {
                Ok(()) if self.still_named(BUILD_LOCK, &file) => return Ok(Some(file)),
                // Removed by a build that failed, after we opened it.
                Ok(()) => continue,
                Err(std::fs::TryLockError::WouldBlock) if attempt < TRIES => {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
                Err(std::fs::TryLockError::Error(e)) => return Err(e.into()),
            }
        }
        Ok(None)
    }

    /// Takes the directory's build lock, waiting for whoever holds it.
    pub fn lock_build(&self) -> Result<File, IndexError> {
        self.lock_waiting(BUILD_LOCK)
    }

    /// Asks a background build here to give way, and keeps asking while
    /// the returned file lives (waiting for another `tg index` that asks).
    pub fn ask_to_give_way(&self) -> Result<File, IndexError> {
        self.lock_waiting(TAKEOVER)
    }

    /// Whether someone waits for this directory's build lock and asks a
    /// background build to give way. Never waits.
    pub fn asked_to_give_way(&self) -> bool {
        held(&self.dir().join(TAKEOVER))
    }

    /// Whether a build holds this directory's build lock. Never waits.
    pub fn build_under_way(&self) -> bool {
        held(&self.dir().join(BUILD_LOCK))
    }

    /// The lock file `name` here, opened (created if missing, with the
    /// directory: a failed build may have removed both).
    fn open_lock(&self, name: &str) -> Result<File, IndexError> {
        let place = |err| IndexError::Place { dir: self.dir().to_path_buf(), err };
        std::fs::create_dir_all(self.dir()).map_err(place)?;
        File::options().create(true).append(true).open(self.dir().join(name)).map_err(place)
    }

    /// Waits for the lock `name`, then checks that the name still leads
    /// to the file locked (a failed build removes its lock file).
    fn lock_waiting(&self, name: &str) -> Result<File, IndexError> {
        loop {
            let file = self.open_lock(name)?;
            file.lock()?;
            if self.still_named(name, &file) {
                return Ok(file);
            }
        }
    }

    /// Whether `name` here is the open `file`.
    fn still_named(&self, name: &str, file: &File) -> bool {
        let path = self.dir().join(name);
        std::fs::metadata(&path)
            .is_ok_and(|md| crate::sys::file_id(&path, &md) == crate::sys::open_file_id(file))
    }
}

/// Whether a build of an index of the file at `path` is under way: its
/// block index (`kind` `None`) or its index of that kind (`Some("gz")`,
/// [`location::key`]). Never waits.
pub fn build_under_way(base: &Path, path: &Path, kind: Option<&str>) -> bool {
    path.canonicalize().is_ok_and(|c| {
        FsStorage::new(&location::index_dir_for(base, &location::key(&c, kind))).build_under_way()
    })
}

/// Whether someone holds the lock on the file at `path` (an absent or
/// unreadable file: no). Takes and drops a shared lock when free.
fn held(path: &Path) -> bool {
    let Ok(file) = File::open(path) else { return false };
    matches!(file.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peeks_see_holders() {
        let dir = tempfile::tempdir().unwrap();
        let s = FsStorage::new(dir.path());
        assert!(!s.build_under_way() && !s.asked_to_give_way());
        let lock = s.try_lock_build().unwrap().expect("free");
        assert!(s.build_under_way());
        assert!(s.try_lock_build().unwrap().is_none(), "held by another build");
        drop(lock);
        assert!(!s.build_under_way());
        let ask = s.ask_to_give_way().unwrap();
        assert!(s.asked_to_give_way());
        drop(ask);
        assert!(!s.asked_to_give_way());
    }

    #[test]
    fn a_waiter_gets_the_lock_once_its_holder_goes_even_if_it_removed_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let s = FsStorage::new(dir.path());
        let held = s.try_lock_build().unwrap().unwrap();
        let waiter = {
            let s = s.clone();
            std::thread::spawn(move || s.lock_build().unwrap())
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        // The holder fails and cleans up: its lock file goes.
        std::fs::remove_file(dir.path().join(BUILD_LOCK)).unwrap();
        drop(held);
        let got = waiter.join().unwrap();
        assert!(s.still_named(BUILD_LOCK, &got));
        assert!(s.build_under_way());
    }
}
