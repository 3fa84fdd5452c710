//! Linux: one inotify instance, one watch per directory that the index's
//! walk entered (ignored directories are never subscribed), and a thread
//! that only drains events into a bounded queue.
//!
//! `notify` 8 subscribes every watch to `IN_OPEN`, so each file a query
//! reads would queue an event, and a busy server would overflow its queue
//! on its own clients' reads. This module asks inotify (through the
//! `inotify` crate, `notify`'s own Linux backend) for changes only:
//! creation, deletion, moves, writes and attribute changes.
//!
//! **Sync cookies** (watchman's technique): to know that every event of
//! changes made before a moment has been applied, the server creates a file
//! in its private cookie directory, watched by the same inotify instance;
//! inotify queues events in order, so once the cookie's event is applied,
//! so is every earlier one.
//!
//! **The quiet check** spares most queries the cookie: inotify queues an
//! event within the system call that made the change, so when the
//! kernel's queue is empty ([`Drained::quiet`], `FIONREAD`), every change
//! made before was already taken by the drain thread, which takes and
//! counts events under one lock; once the apply thread has applied that
//! many, the server can answer. Only a query that finds events queued (or
//! the drain thread mid-read) writes a cookie.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crossbeam_channel::Sender;
use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};

use super::event::{Change, Raw, under};

/// The watcher whose events [`drain`] reads.
pub type Watcher = Inotify;

/// The events a directory watch asks for.
fn dir_mask() -> WatchMask {
    WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MODIFY
        | WatchMask::CLOSE_WRITE
        | WatchMask::ATTRIB
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW
        | WatchMask::EXCL_UNLINK
}

/// What an event's mask says, in the terms the server applies.
fn change(mask: EventMask) -> Change {
    Change {
        created: mask.intersects(EventMask::CREATE | EventMask::MOVED_TO),
        removed: mask.intersects(EventMask::DELETE | EventMask::MOVED_FROM),
        self_gone: mask.intersects(EventMask::DELETE_SELF | EventMask::MOVE_SELF),
        forgotten: mask.contains(EventMask::IGNORED),
        is_dir: mask.contains(EventMask::ISDIR),
    }
}

/// The watched directories of a tree.
pub struct DirWatches {
    root: PathBuf,
    watches: Watches,
    /// Descriptor → directory (relative to the root; empty: the root).
    dirs: HashMap<WatchDescriptor, Vec<u8>>,
    by_dir: HashMap<Vec<u8>, WatchDescriptor>,
    /// The cookie directory's descriptor.
    cookies: Option<WatchDescriptor>,
    /// Directories not watched because the watch limit was reached.
    pub unwatched: Vec<Vec<u8>>,
}

/// Starts watching: returns the watches and the inotify instance whose
/// events [`drain`] reads.
pub fn start(root: &Path, cookies: &Path) -> io::Result<(DirWatches, Inotify)> {
    let inotify = Inotify::init()?;
    let mut w = DirWatches {
        root: root.to_path_buf(),
        watches: inotify.watches(),
        dirs: HashMap::new(),
        by_dir: HashMap::new(),
        cookies: None,
        unwatched: Vec::new(),
    };
    std::fs::create_dir_all(cookies)?;
    let cookie_watch = w.watches.add(cookies, WatchMask::CREATE | WatchMask::ONLYDIR);
    w.cookies = Some(cookie_watch.map_err(|e| match e.raw_os_error() {
        // Without its cookie watch a server cannot vouch for any answer.
        Some(libc::ENOSPC) => io::Error::other(
            "the inotify watch limit is reached (fs.inotify.max_user_watches): \
             nothing can be watched",
        ),
        _ => e,
    })?);
    Ok((w, inotify))
}

impl DirWatches {
    /// Watches directory `rel`; `false` when the watch limit
    /// (`max_user_watches`) is reached (it is then listed as unwatched).
    pub fn add(&mut self, rel: &[u8]) -> bool {
        if self.by_dir.contains_key(rel) {
            return true;
        }
        let path =
            if rel.is_empty() { self.root.clone() } else { self.root.join(OsStr::from_bytes(rel)) };
        match self.watches.add(&path, dir_mask()) {
            Ok(wd) => {
                // Watching an inode twice (a moved directory) yields its old descriptor.
                if let Some(old) = self.dirs.insert(wd.clone(), rel.to_vec()) {
                    self.by_dir.remove(&old);
                }
                self.by_dir.insert(rel.to_vec(), wd);
                true
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => {
                self.unwatched.push(rel.to_vec());
                false
            }
            // Gone or unreadable: its parent's events tell what happened.
            Err(_) => true,
        }
    }

    /// Stops watching `rel` and every directory below it.
    pub fn remove_below(&mut self, rel: &[u8]) {
        let gone: Vec<Vec<u8>> = self.by_dir.keys().filter(|d| under(d, rel)).cloned().collect();
        for d in gone {
            if let Some(wd) = self.by_dir.remove(&d) {
                self.dirs.remove(&wd);
                let _ = self.watches.remove(wd);
            }
        }
    }

    /// Forgets a descriptor the kernel dropped (`IN_IGNORED`).
    pub fn forget(&mut self, wd: &WatchDescriptor) {
        if let Some(d) = self.dirs.remove(wd) {
            self.by_dir.remove(&d);
        }
    }

    /// The directory of descriptor `wd`.
    pub fn dir_of(&self, wd: &WatchDescriptor) -> Option<&[u8]> {
        self.dirs.get(wd).map(Vec::as_slice)
    }

    /// Whether directory `rel` is watched.
    pub fn watches_dir(&self, rel: &[u8]) -> bool {
        self.by_dir.contains_key(rel)
    }

    /// The number of the sync cookie an event on entry `name` of `wd` is
    /// about, if `wd` is the cookie directory's (whose entries are named
    /// by their number).
    pub fn cookie_of(&self, wd: &WatchDescriptor, name: Option<&[u8]>) -> Option<u64> {
        if self.cookies.as_ref() != Some(wd) {
            return None;
        }
        std::str::from_utf8(name?).ok()?.parse().ok()
    }

    /// How many directories are watched.
    pub fn count(&self) -> usize {
        self.dirs.len()
    }
}

/// What the drain thread has taken from the kernel's queue (see the
/// module docs' quiet check).
pub struct Drained {
    /// Held while events are taken from the queue and counted.
    reading: Mutex<()>,
    /// Events taken from the queue and handed to the apply thread.
    handed: AtomicU64,
    /// The inotify descriptor, while `open`.
    fd: RawFd,
    /// The descriptor is open (cleared, under `reading`, before it closes).
    open: AtomicBool,
    /// The cookie directory.
    cookies: PathBuf,
}

impl Drained {
    /// The bookkeeping of the drain thread of `inotify`, whose cookies go
    /// in `cookies` (the directory [`start`] was given).
    pub fn of(inotify: &Inotify, cookies: &Path) -> Drained {
        Drained {
            reading: Mutex::new(()),
            handed: AtomicU64::new(0),
            fd: inotify.as_raw_fd(),
            open: AtomicBool::new(true),
            cookies: cookies.to_path_buf(),
        }
    }

    /// The path of sync cookie `n`.
    pub fn cookie(&self, n: u64) -> PathBuf {
        self.cookies.join(n.to_string())
    }

    /// How many events the drain thread had handed on when the kernel's
    /// queue was found empty now, so that every change made before this
    /// call is among them; `None` when events are queued, the drain thread
    /// is taking some, or it has stopped.
    pub fn quiet(&self) -> Option<u64> {
        let _taking = self.reading.try_lock().ok()?;
        if !self.open.load(Ordering::SeqCst) {
            return None;
        }
        let mut queued: libc::c_int = 0;
        // SAFETY: FIONREAD writes one int; the descriptor stays open while
        // `reading` is held and `open` is set.
        let rc = unsafe { libc::ioctl(self.fd, libc::FIONREAD, &raw mut queued) };
        (rc == 0 && queued == 0).then(|| self.handed.load(Ordering::SeqCst))
    }
}

/// Drains events from `inotify` into `tx` until the receiver is gone.
/// Runs on its own thread and does nothing else: no lookups, no state
/// lock (only `drained`'s, while it takes and counts a batch).
pub fn drain(mut inotify: Inotify, tx: Sender<Raw>, drained: &Drained) {
    let mut buf = vec![0u8; 64 << 10];
    let failed = loop {
        // Wait for events without taking them, so that the queue and the
        // count change together under the lock.
        let mut ready = libc::pollfd { fd: drained.fd, events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd; `inotify` keeps the descriptor open.
        if unsafe { libc::poll(&raw mut ready, 1, -1) } < 0 {
            match io::Error::last_os_error() {
                e if e.kind() == io::ErrorKind::Interrupted => continue,
                _ => break true,
            }
        }
        let _taking = drained.reading.lock().unwrap_or_else(|e| e.into_inner());
        let events = match inotify.read_events(&mut buf) {
            Ok(e) => e,
            Err(e)
                if matches!(e.kind(), io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock) =>
            {
                continue;
            }
            Err(_) => break true,
        };
        let (mut handed, mut gone) = (0, false);
        for e in events {
            let raw = if e.mask.contains(EventMask::Q_OVERFLOW) {
                Raw::Overflow
            } else {
                Raw::Event(e.wd, change(e.mask), e.name.map(|n| n.as_bytes().to_vec()))
            };
            gone = tx.send(raw).is_err();
            if gone {
                break;
            }
            handed += 1;
        }
        drained.handed.fetch_add(handed, Ordering::SeqCst);
        if gone {
            break false;
        }
    };
    if failed {
        let _ = tx.send(Raw::Failed);
    }
    let _closing = drained.reading.lock().unwrap_or_else(|e| e.into_inner());
    drained.open.store(false, Ordering::SeqCst);
    drop(inotify);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// `quiet` says "not quiet" while an event waits in the kernel's
    /// queue, and counts it once the drain thread has taken it.
    #[test]
    fn quiet_only_when_every_queued_event_was_handed_on() {
        let dir = tempfile::tempdir().unwrap();
        let inotify = Inotify::init().unwrap();
        inotify.watches().add(dir.path(), WatchMask::CREATE).unwrap();
        let drained = Arc::new(Drained::of(&inotify, dir.path()));
        assert_eq!(drained.quiet(), Some(0), "nothing happened yet");
        std::fs::write(dir.path().join("new"), b"x").unwrap();
        assert_eq!(drained.quiet(), None, "the creation's event is queued");
        let (tx, rx) = crossbeam_channel::bounded(16);
        let d = Arc::clone(&drained);
        let drainer = std::thread::spawn(move || drain(inotify, tx, &d));
        assert!(matches!(rx.recv_timeout(Duration::from_secs(10)), Ok(Raw::Event(..))));
        let deadline = Instant::now() + Duration::from_secs(10);
        while drained.quiet() != Some(1) {
            assert!(Instant::now() < deadline, "quiet: {:?}", drained.quiet());
            std::thread::yield_now();
        }
        drop(rx);
        std::fs::write(dir.path().join("another"), b"x").unwrap();
        drainer.join().unwrap();
        assert_eq!(drained.quiet(), None, "a stopped drain thread vouches for nothing");
    }
}
