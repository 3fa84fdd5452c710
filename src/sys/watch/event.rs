//! What the server is told of a change, the same on every system.

/// What names one watched directory: an inotify watch descriptor on Linux;
/// elsewhere nothing is watched.
#[cfg(target_os = "linux")]
pub type WatchId = inotify::WatchDescriptor;

/// What names one watched directory: nothing is watched on this system.
#[cfg(not(target_os = "linux"))]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WatchId;

/// One event, as the drain thread queues it.
#[derive(Debug)]
pub enum Raw {
    /// The kernel's queue overflowed: events were lost.
    Overflow,
    /// An event on a watched directory: its watch, what happened, and the
    /// name of the entry it concerns (`None`: the directory itself).
    Event(WatchId, Change, Option<Vec<u8>>),
    /// Reading events failed; the watcher is gone.
    Failed,
}

/// What an event says happened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Change {
    /// The entry was created or moved in.
    pub created: bool,
    /// The entry was deleted or moved away.
    pub removed: bool,
    /// The watched directory itself was deleted or moved.
    pub self_gone: bool,
    /// The system dropped the watch.
    pub forgotten: bool,
    /// The entry is a directory.
    pub is_dir: bool,
}
