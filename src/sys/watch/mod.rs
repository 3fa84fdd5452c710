//! Watching an indexed tree for the server, per system.
//!
//! - **Linux** (`inotify`): one watch per directory the index's walk
//!   entered, a drain thread, sync cookies and the quiet check: every change
//!   made before a question is applied before it is answered.
//! - **Elsewhere** (`sweep`): no directory is watched. Each directory is
//!   reported as not watched, which the server treats as it treats a
//!   directory past Linux's watch limit: touched for good, so every query
//!   stats everything below it (the stat sweep a query without a server
//!   makes). The same guarantee holds (nothing changed before a question
//!   is missed), without the watcher's saving. macOS's FSEvents and
//!   Windows' ReadDirectoryChangesW (through the `notify` crate) coalesce
//!   events and can drop them without a sync point the server could wait
//!   for; until a backend with cookies is written and measured there, the
//!   sweep is what is promised.
//!
//! The server sees events in the terms of [`Raw`] and [`Change`] only.

mod event;
#[cfg(target_os = "linux")]
mod inotify;
#[cfg(not(target_os = "linux"))]
mod sweep;

pub use event::{Change, Raw, WatchId};
#[cfg(target_os = "linux")]
pub use inotify::{DirWatches, Drained, Watcher, drain, start};
#[cfg(not(target_os = "linux"))]
pub use sweep::{DirWatches, Drained, Watcher, drain, start};
