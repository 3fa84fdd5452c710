//! What a server knows of its tree, behind one lock ([`super::server`]
//! holds it): the index queries read, the [`Overlay`] of paths touched
//! since that index was built, the watched directories, and the
//! bookkeeping of events, cookies and rebuilds. Its fields are private:
//! the apply thread, the reconcile and the rebuild change it only through
//! the operations below, each named for what happened.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::overlay::{FOREVER, Overlay};
use crate::index::fresh::changes::Touched;
use crate::index::reader::IndexReader;
use crate::index::table::flags;
use crate::sys::watch::DirWatches;

/// What the server knows of its tree.
pub struct State {
    /// The index queries read (reopened after each rebuild).
    reader: Arc<IndexReader>,
    /// What changed since that index was built.
    overlay: Overlay,
    /// The watched directories.
    watches: DirWatches,
    /// Events applied so far (each event's sequence number).
    seq: u64,
    /// The highest sync cookie applied.
    cookie_seen: u64,
    /// Queue overflows applied (a cookie lost in one is not waited for:
    /// the overflow makes every query stat the whole tree).
    overflows_applied: u64,
    /// The first reconcile is done: answers can be trusted.
    ready: bool,
    /// A rebuild is running.
    merging: bool,
    /// An ignore file changed: rebuild soon (queries walk meanwhile).
    walk_changed: bool,
    /// Entries created since the last rebuild that the index does not know
    /// (queries find them by walking their directory).
    created: usize,
}

/// What a server says once it applied every change made before a query.
pub(crate) struct Synced {
    /// What may have changed since the index was built.
    pub touched: Touched,
    /// That index.
    pub reader: Arc<IndexReader>,
    /// The events applied so far: while it stays the same, the watcher
    /// saw nothing change.
    pub seq: u64,
}

/// What a rebuild took over from the state when it began, given back if
/// it fails.
pub(crate) struct Begun {
    /// The last event applied before the build began.
    pub seq: u64,
    walk_changed: bool,
    created: usize,
}

/// The sync bookkeeping a query waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Events applied.
    pub seq: u64,
    /// The highest sync cookie applied.
    pub cookie_seen: u64,
    /// Queue overflows applied.
    pub overflows: u64,
}

impl State {
    /// The state of a server that opened `reader` and set `watches`, not
    /// yet ready.
    pub fn new(reader: Arc<IndexReader>, watches: DirWatches) -> State {
        State {
            reader,
            overlay: Overlay::default(),
            watches,
            seq: 0,
            cookie_seen: 0,
            overflows_applied: 0,
            ready: false,
            merging: false,
            walk_changed: false,
            created: 0,
        }
    }

    /// The index queries read.
    pub fn reader(&self) -> &Arc<IndexReader> {
        &self.reader
    }

    /// The paths touched since the index was built and the directories
    /// watched, to change together as events say.
    pub fn tree(&mut self) -> (&mut Overlay, &mut DirWatches) {
        (&mut self.overlay, &mut self.watches)
    }

    /// How far events, cookies and overflows have been applied.
    pub fn progress(&self) -> Progress {
        Progress { seq: self.seq, cookie_seen: self.cookie_seen, overflows: self.overflows_applied }
    }

    /// What may have changed since the index was built, that index, and
    /// the events applied so far; `None` until the first reconcile is done.
    pub fn answer(&self) -> Option<Synced> {
        self.ready.then(|| Synced {
            touched: self.overlay.touched(),
            reader: Arc::clone(&self.reader),
            seq: self.seq,
        })
    }

    /// The first reconcile is done: answers can be trusted.
    pub(crate) fn set_ready(&mut self) {
        self.ready = true;
    }

    /// Counts one more event; its sequence number.
    pub(crate) fn next_event(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// The kernel's queue overflowed at event `seq`: the whole tree is touched.
    pub fn overflowed(&mut self, seq: u64) {
        self.overflows_applied += 1;
        self.overlay.touch_subtree(Vec::new(), seq);
    }

    /// Sync cookie `n` was applied.
    pub(crate) fn cookie_applied(&mut self, n: u64) {
        self.cookie_seen = self.cookie_seen.max(n);
    }

    /// An ignore file or another path that steers the walk changed: the
    /// index is to be rebuilt (queries walk meanwhile).
    pub(crate) fn walk_changed(&mut self) {
        self.walk_changed = true;
    }

    /// An entry the index does not know was created.
    pub(crate) fn created_unknown(&mut self) {
        self.created += 1;
    }

    /// Watches the root and every directory the index's table lists; a
    /// directory past the watch limit is touched for good (queries stat below it).
    pub(crate) fn watch_table(&mut self) {
        let reader = Arc::clone(&self.reader);
        let dirs = std::iter::once(&b""[..])
            // A directory a link leads to is its target's inode: a second
            // watch would take the target's events (queries stat it instead).
            .chain(
                reader
                    .files()
                    .filter(|f| f.flags & (flags::DIR | flags::VIA_LINK) == flags::DIR)
                    .map(|f| f.path),
            );
        for d in dirs {
            if !self.watches.add(d) {
                self.overlay.touch_subtree(d.to_vec(), FOREVER);
            }
        }
    }

    /// Watches the new directory `rel` of the tree at `root` and the
    /// directories below it that the index's walk would enter. A link is
    /// not walked (a walk follows the link it starts at): what it leads to
    /// is watched under its own name, or stat-ed by every query, and a
    /// second name for a watched inode would take over its events (a
    /// looping `sub/up -> ..` renamed the root's and `sub`'s watches).
    pub(crate) fn watch_new_tree(&mut self, root: &Path, rel: &[u8]) {
        let top = root.join(crate::sys::rel_path(rel));
        if !top.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            return;
        }
        let Ok(builder) = crate::index::build::walk::watched_walk(&top) else {
            return;
        };
        for entry in builder.build().flatten() {
            if !entry.file_type().is_some_and(|t| t.is_dir()) {
                continue;
            }
            let path = entry.into_path();
            let Ok(sub) = path.strip_prefix(root) else { continue };
            let sub = &*crate::sys::rel_bytes(sub);
            if !self.watches.add(sub) {
                self.overlay.touch_subtree(sub.to_vec(), FOREVER);
            }
        }
    }

    /// Whether a rebuild is due: none runs, and the overlay holds
    /// `merge_at` entries, the walk changed, or the server holds more
    /// private memory than it may (`over_budget`) with changes to fold in.
    pub(crate) fn rebuild_due(&self, merge_at: usize, over_budget: bool) -> bool {
        !self.merging
            && (self.overlay.len() + self.created >= merge_at
                || self.walk_changed
                || (over_budget && !self.overlay.is_empty()))
    }

    /// Marks a rebuild as running.
    pub(crate) fn rebuild_starting(&mut self) {
        self.merging = true;
    }

    /// A rebuild begins: it takes over what made it due.
    pub(crate) fn rebuild_begins(&mut self) -> Begun {
        let begun = Begun { seq: self.seq, walk_changed: self.walk_changed, created: self.created };
        self.walk_changed = false;
        self.created = 0;
        begun
    }

    /// A rebuild ended: with `Some(reader)` it published that index, which
    /// holds every touch made before it began; with `None` it failed and
    /// is still due.
    pub(crate) fn rebuild_ended(&mut self, begun: Option<Begun>, reader: Option<IndexReader>) {
        self.merging = false;
        match (reader, begun) {
            (Some(reader), Some(begun)) => {
                self.reader = Arc::new(reader);
                self.overlay.forget_before(begun.seq + 1);
            }
            (_, Some(begun)) => {
                self.walk_changed |= begun.walk_changed;
                self.created += begun.created;
            }
            _ => {}
        }
    }

    /// Reads `reader` from now on (an index someone else published).
    pub fn follow(&mut self, reader: IndexReader) {
        self.reader = Arc::new(reader);
    }

    /// The fields `tg status` shows of the state.
    pub fn status(&self, out: &mut Map<String, Value>) {
        out.insert("ready".into(), json!(self.ready));
        out.insert("pending".into(), json!(self.overlay.len()));
        out.insert("watched_dirs".into(), json!(self.watches.count()));
        out.insert("unwatched_dirs".into(), json!(self.watches.unwatched.len()));
        out.insert("merging".into(), json!(self.merging));
    }
}
