//! Watching an indexed tree for the server, per system.
//!
//! - **Linux** (`inotify`): one watch per directory the index's walk
//!   entered, a drain thread, sync cookies and the quiet check: every change
//!   made before a question is applied before it is answered.
//! - **Elsewhere** (`notify`: FSEvents on macOS, ReadDirectoryChangesW on
//!   Windows): one recursive watch of the root, sync cookies written inside
//!   the tree, no quiet check; a backend's lost-event signal becomes an
//!   overflow (the tree is reconciled). The same guarantee, as far as each
//!   backend keeps its own order (see there and docs/PLATFORMS.md); where
//!   the watch cannot be set, every directory is reported unwatched and
//!   every query stats the tree.
//!
//! The server sees events in the terms of [`Raw`] and [`Change`] only.

mod event;
#[cfg(target_os = "linux")]
mod inotify;
#[cfg(not(target_os = "linux"))]
mod notify;

pub use event::{Change, Raw, WatchId};
#[cfg(target_os = "linux")]
pub use inotify::{DirWatches, Drained, Watcher, drain, start};
#[cfg(not(target_os = "linux"))]
pub use notify::{DirWatches, Drained, Watcher, drain, start};
