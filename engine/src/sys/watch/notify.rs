//! macOS, Windows and the other systems without inotify: one recursive
//! watch of the root through the `notify` crate (FSEvents on macOS,
//! ReadDirectoryChangesW on Windows), and a thread that turns its events,
//! in the order they come, into [`Raw`] for the server.
//!
//! **Sync cookies inside the tree.** Both backends deliver the events of
//! one watch in order (one FSEvents stream; one directory handle whose
//! notification buffer Windows fills in order, parsed in order by `notify`'s
//! single thread), but nothing orders two watches. So the cookie a query
//! waits for is written inside the watched tree, not in the server's own
//! directory as on Linux: in the root's `.git` directory when there is one
//! (the index's walk never enters it, and git ignores unknown files there;
//! watchman does the same), else in the root itself, named
//! `.tg-cookie-PID-N`. Once its event is applied, so is every event of a
//! change made before it was written.
//!
//! There is no quiet check ([`Drained::quiet`] is always `None`): no
//! backend says how many events are still queued, so every query writes a
//! cookie and waits for it (up to the server's patience, after which the
//! query checks the tree itself).
//!
//! **What the backends lose, and how it is caught.** A lost-event signal
//! (FSEvents' `MustScanSubDirs`, kernel or user dropped; Windows' zero-byte
//! completion or `ERROR_NOTIFY_ENUM_DIR`) arrives as `notify`'s rescan
//! flag and becomes [`Raw::Overflow`]: the whole tree is touched and
//! reconciled, as after an inotify overflow. An error from the backend
//! becomes [`Raw::Failed`]: the server no longer vouches for anything and
//! every query stats the tree. A watch that ends without a word (Windows
//! gives up on an unknown error) stops the cookies too, so queries wait out
//! the server's patience and check the tree themselves. If the watch cannot
//! be set at all, nothing is watched and every directory is reported
//! unwatched: every query stats the tree (the stat sweep).
//!
//! Events name paths, not (directory, entry) pairs as inotify does, and
//! say less: a Windows event does not tell a directory from a file, an
//! FSEvents rename does not tell its two sides apart. An entry whose kind
//! or side is not told is looked at (`symlink_metadata`) when its event is
//! taken: there now, it was created; gone, removed. A content or attribute
//! change of a directory tells nothing its entries' own events do not, and
//! is dropped (a recursive watch reports a directory as modified whenever
//! an entry of it changes, `.git` included).

use std::collections::HashSet;
use std::ffi::OsStr;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc;

use crossbeam_channel::Sender;
use notify::event::{CreateKind, ModifyKind, RemoveKind, RenameMode};
use notify::{Config, Event, EventKind, EventKindMask, RecommendedWatcher, RecursiveMode};

use super::event::{Change, Raw, WatchId, under};

/// The watcher whose events [`drain`] reads: the backend (alive while it
/// drains; `None` when the watch could not be set) and the channel its
/// thread sends events on.
pub struct Watcher {
    backend: Option<RecommendedWatcher>,
    events: mpsc::Receiver<notify::Result<Event>>,
    root: PathBuf,
    /// Where cookies are written (`.git` below the root, or the root).
    cookie_dir: PathBuf,
}

/// The directories of a tree whose events the server applies: those the
/// index's walk entered (the one recursive watch reports the others too).
pub struct DirWatches {
    /// The watch is set.
    live: bool,
    dirs: HashSet<Vec<u8>>,
    /// The cookie directory, relative to the root (empty: the root).
    cookie_dir: Vec<u8>,
    /// The name every cookie of this server starts with.
    cookie_prefix: Vec<u8>,
    /// Directories not watched because of a limit (none here: one watch
    /// covers the tree).
    pub unwatched: Vec<Vec<u8>>,
}

/// The start of this server's cookie names.
fn cookie_prefix() -> String {
    format!(".tg-cookie-{}-", std::process::id())
}

/// Starts watching the tree at `root` (recursively): returns the
/// directories to apply events of, and the watcher [`drain`] reads. The
/// server's own cookie directory (`_cookies`) is not used: cookies go
/// inside the tree (see the module's docs).
pub fn start(root: &Path, _cookies: &Path) -> io::Result<(DirWatches, Watcher)> {
    let (tx, events) = mpsc::channel();
    let config = Config::default().with_event_kinds(EventKindMask::CORE);
    let backend = notify::Watcher::new(tx, config).and_then(|mut w: RecommendedWatcher| {
        notify::Watcher::watch(&mut w, root, RecursiveMode::Recursive)?;
        Ok(w)
    });
    let git = root.join(".git");
    let (cookie_dir, cookie_rel) =
        if git.is_dir() { (git, b".git".to_vec()) } else { (root.to_path_buf(), Vec::new()) };
    let watches = DirWatches {
        live: backend.is_ok(),
        dirs: HashSet::new(),
        cookie_dir: cookie_rel,
        cookie_prefix: cookie_prefix().into_bytes(),
        unwatched: Vec::new(),
    };
    let watcher = Watcher { backend: backend.ok(), events, root: root.to_path_buf(), cookie_dir };
    Ok((watches, watcher))
}

impl DirWatches {
    /// Applies the events of directory `rel` from now on; `false` when
    /// nothing is watched (the directory is then checked by every query).
    pub fn add(&mut self, rel: &[u8]) -> bool {
        if self.live {
            self.dirs.insert(rel.to_vec());
        }
        self.live
    }

    /// Stops applying events of `rel` and every directory below it.
    pub fn remove_below(&mut self, rel: &[u8]) {
        self.dirs.retain(|d| !under(d, rel));
    }

    /// Nothing to forget: the backend drops no single directory's watch.
    pub fn forget(&mut self, _wd: &WatchId) {}

    /// The directory `wd` names, if its events are applied.
    pub fn dir_of<'a>(&self, wd: &'a WatchId) -> Option<&'a [u8]> {
        self.dirs.contains(&wd.0).then_some(wd.0.as_slice())
    }

    /// Whether the events of directory `rel` are applied.
    pub fn watches_dir(&self, rel: &[u8]) -> bool {
        self.dirs.contains(rel)
    }

    /// The number of the sync cookie an event on entry `name` of `wd` is
    /// about, if it is one of this server's cookies.
    pub fn cookie_of(&self, wd: &WatchId, name: Option<&[u8]>) -> Option<u64> {
        let n = name?.strip_prefix(self.cookie_prefix.as_slice())?;
        (wd.0 == self.cookie_dir).then(|| std::str::from_utf8(n).ok()?.parse().ok())?
    }

    /// How many directories' events are applied.
    pub fn count(&self) -> usize {
        self.dirs.len()
    }
}

/// What the server needs of the watcher to sync: whether anything is
/// watched, and where cookies go.
pub struct Drained {
    live: bool,
    cookie_dir: PathBuf,
    cookie_prefix: String,
}

impl Drained {
    /// The bookkeeping of `watcher` (`_cookies`: see [`start`]).
    pub fn of(watcher: &Watcher, _cookies: &Path) -> Drained {
        Drained {
            live: watcher.backend.is_some(),
            cookie_dir: watcher.cookie_dir.clone(),
            cookie_prefix: cookie_prefix(),
        }
    }

    /// Never quiet while watching (no backend says what it still holds):
    /// every query waits for a cookie. With nothing watched, always
    /// caught up (every directory is checked by the query itself).
    pub fn quiet(&self) -> Option<u64> {
        (!self.live).then_some(0)
    }

    /// The path of sync cookie `n`.
    pub fn cookie(&self, n: u64) -> PathBuf {
        self.cookie_dir.join(format!("{}{n}", self.cookie_prefix))
    }
}

/// Turns the backend's events into [`Raw`] on `tx`, in order, until the
/// receiver is gone (or the backend is: nothing was watched).
pub fn drain(watcher: Watcher, tx: Sender<Raw>, _drained: &Drained) {
    let Watcher { backend, events, root, .. } = watcher;
    for event in events.iter() {
        let raws = match event {
            Ok(e) => raws(&root, e),
            // The backend failed: the server can no longer vouch.
            Err(_) => vec![Raw::Failed],
        };
        if raws.into_iter().any(|r| tx.send(r).is_err()) {
            break;
        }
    }
    drop(backend);
}

/// Which side of a change an event is about.
#[derive(Clone, Copy)]
enum Side {
    Created,
    Removed,
    /// Created or removed, not told which: looked at.
    Either,
    /// Written or changed in place.
    Changed,
}

/// What `kind` says of its paths, and whether they are directories
/// (`None`: not told).
fn side(kind: &EventKind) -> (Side, Option<bool>) {
    match kind {
        EventKind::Create(CreateKind::Folder) => (Side::Created, Some(true)),
        EventKind::Create(CreateKind::File) => (Side::Created, Some(false)),
        EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(RenameMode::To)) => {
            (Side::Created, None)
        }
        EventKind::Remove(RemoveKind::Folder) => (Side::Removed, Some(true)),
        EventKind::Remove(RemoveKind::File) => (Side::Removed, Some(false)),
        EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(RenameMode::From)) => {
            (Side::Removed, None)
        }
        EventKind::Modify(ModifyKind::Name(_)) | EventKind::Any | EventKind::Other => {
            (Side::Either, None)
        }
        EventKind::Modify(_) | EventKind::Access(_) => (Side::Changed, None),
    }
}

/// The events the server applies for backend event `e` on the tree at `root`.
fn raws(root: &Path, e: Event) -> Vec<Raw> {
    if e.need_rescan() {
        return vec![Raw::Overflow];
    }
    if let EventKind::Access(_) = e.kind {
        return Vec::new();
    }
    // A rename with both sides: the first path left, the second came.
    if let (EventKind::Modify(ModifyKind::Name(RenameMode::Both)), [from, to]) =
        (&e.kind, e.paths.as_slice())
    {
        return [(from, Side::Removed), (to, Side::Created)]
            .into_iter()
            .filter_map(|(p, s)| entry(root, p, s, None))
            .collect();
    }
    let (s, is_dir) = side(&e.kind);
    e.paths.iter().filter_map(|p| entry(root, p, s, is_dir)).collect()
}

/// The event of `side` on `path`; `None` when there is nothing to apply
/// (a directory's own modification).
fn entry(root: &Path, path: &Path, side: Side, is_dir: Option<bool>) -> Option<Raw> {
    let Some(rel) = below(root, path) else {
        // A path outside the root, or spelt otherwise: nothing can say
        // what changed, so everything is looked at again.
        return Some(Raw::Overflow);
    };
    let now = std::fs::symlink_metadata(path).ok();
    let there_dir = now.as_ref().map(|m| m.is_dir());
    let created = match side {
        Side::Created => true,
        Side::Removed => false,
        Side::Either => now.is_some(),
        Side::Changed if there_dir == Some(true) => return None,
        Side::Changed => {
            let change = Change::default();
            return Some(event(&rel, change));
        }
    };
    let change = Change {
        created,
        removed: !created,
        is_dir: is_dir.unwrap_or(created && there_dir == Some(true)),
        ..Change::default()
    };
    Some(event(&rel, change))
}

/// The event on table path `rel` (empty: the root itself).
fn event(rel: &[u8], change: Change) -> Raw {
    if rel.is_empty() {
        let gone = Change { self_gone: change.removed, ..Change::default() };
        return Raw::Event(WatchId(Vec::new()), gone, None);
    }
    let (dir, name) = match rel.iter().rposition(|&b| b == b'/') {
        Some(i) => (&rel[..i], &rel[i + 1..]),
        None => (&rel[..0], rel),
    };
    Raw::Event(WatchId(dir.to_vec()), change, Some(name.to_vec()))
}

/// `path` below `root` as the index stores it; the case of the root's own
/// components may differ (a case-insensitive system may report the name
/// as it was typed, not as it was created).
fn below(root: &Path, path: &Path) -> Option<Vec<u8>> {
    if let Ok(rel) = path.strip_prefix(root) {
        return Some(crate::sys::rel_bytes(rel).into_owned());
    }
    let mut parts = path.components();
    for r in root.components() {
        let p = parts.next()?;
        let same = match (r, p) {
            (Component::Normal(a), Component::Normal(b)) => same_ignoring_case(a, b),
            (a, b) => a == b,
        };
        if !same {
            return None;
        }
    }
    Some(crate::sys::rel_bytes(parts.as_path()).into_owned())
}

/// Whether two names are equal but for ASCII case.
fn same_ignoring_case(a: &OsStr, b: &OsStr) -> bool {
    a.as_encoded_bytes().eq_ignore_ascii_case(b.as_encoded_bytes())
}
