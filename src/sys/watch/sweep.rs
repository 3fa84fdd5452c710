//! No watcher (macOS, Windows): every directory is reported unwatched, so
//! the server has every query stat the tree (see the folder's docs).

use std::io;
use std::path::Path;

use crossbeam_channel::Sender;

use super::event::{Raw, WatchId};

/// The watcher: none.
pub struct Watcher;

/// The watched directories of a tree: none.
pub struct DirWatches {
    /// Directories not watched because of a limit (none: nothing is
    /// watched at all here, which is not a limit).
    pub unwatched: Vec<Vec<u8>>,
}

/// Starts "watching": nothing is, and nothing is to drain.
pub fn start(_root: &Path, cookies: &Path) -> io::Result<(DirWatches, Watcher)> {
    std::fs::create_dir_all(cookies)?;
    Ok((DirWatches { unwatched: Vec::new() }, Watcher))
}

impl DirWatches {
    /// Never watches: `false`, so the directory is checked by every query.
    pub fn add(&mut self, _rel: &[u8]) -> bool {
        false
    }

    /// Nothing to stop watching.
    pub fn remove_below(&mut self, _rel: &[u8]) {}

    /// Nothing to forget.
    pub fn forget(&mut self, _wd: &WatchId) {}

    /// No watch names a directory.
    pub fn dir_of(&self, _wd: &WatchId) -> Option<&[u8]> {
        None
    }

    /// No watch is the cookie directory's.
    pub fn is_cookie(&self, _wd: &WatchId) -> bool {
        false
    }

    /// How many directories are watched: none.
    pub fn count(&self) -> usize {
        0
    }
}

/// What the drain thread took: nothing, ever, so the server is always
/// caught up (every directory being checked by the query itself).
pub struct Drained;

impl Drained {
    /// The bookkeeping of the watcher.
    pub fn of(_watcher: &Watcher) -> Drained {
        Drained
    }

    /// Always quiet, with no event handed on.
    pub fn quiet(&self) -> Option<u64> {
        Some(0)
    }
}

/// Returns at once: there are no events to drain.
pub fn drain(_watcher: Watcher, _tx: Sender<Raw>, _drained: &Drained) {}
