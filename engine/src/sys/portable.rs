//! What systems without Linux's read-ahead controls and pidfds share
//! (macOS, Windows): advice is not given, the prefetcher only advises
//! (that is, does nothing), and a process's exit is not watched.

use std::fs::File;
use std::time::Duration;

pub fn advise_sequential(_file: &File) {}

pub fn advise_willneed(_file: &File, _offset: u64, _len: u64) {}

pub(crate) fn read_cached(file: &mut File, buf: &mut [u8]) -> std::io::Result<Option<usize>> {
    std::io::Read::read(file, buf).map(Some)
}

pub fn page_resident(_map: &[u8], _off: usize) -> bool {
    false
}

pub fn reopen(_file: &File) -> Option<File> {
    None
}

pub fn send_to_null(_file: &File, _null: &File, _pos: u64, _len: u64) -> bool {
    false
}

pub fn release_free_heap() {}

/// A watch on a process's exit: none here (the caller waits for the
/// server's lock instead).
pub struct ExitWatch;

impl ExitWatch {
    /// Always `None` on this system.
    pub fn new(_pid: u32) -> Option<ExitWatch> {
        None
    }

    /// Never called (no watch is made).
    pub fn wait(&self, _timeout: Duration) -> bool {
        false
    }
}
