//! What the server is told of a change, the same on every system.

/// What names one watched directory: an inotify watch descriptor on Linux.
#[cfg(target_os = "linux")]
pub type WatchId = inotify::WatchDescriptor;

/// What names the directory of an event: its path below the root, as the
/// index stores it (one watch covers the tree on this system).
#[cfg(not(target_os = "linux"))]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WatchId(pub(super) Vec<u8>);

/// One event, as the drain thread queues it.
#[derive(Debug)]
pub enum Raw {
    /// The kernel's queue overflowed (elsewhere: the backend asked for a
    /// rescan): events were lost.
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

/// Whether table path `rel` is `prefix` or below it (`prefix` empty: the root).
pub(super) fn under(rel: &[u8], prefix: &[u8]) -> bool {
    prefix.is_empty()
        || (rel.starts_with(prefix) && (rel.len() == prefix.len() || rel[prefix.len()] == b'/'))
}
