//! Turning watch events into overlay touches, on one thread, in event order.
//!
//! For an event on entry `name` of watched directory `dir`:
//! - the entry is touched if the index knows it (a write to an ignored file
//!   the index never held touches nothing), or if it is one of the names
//!   that steer a walk (ignore files, `.git`);
//! - a creation, deletion or move also touches `dir`: its entries changed,
//!   and a query walks it one level to find new ones;
//! - a directory deleted or moved away touches its whole subtree (and its
//!   watches go); a directory created or moved in is watched (unless the
//!   walk ignores it) and its subtree touched;
//! - a queue overflow touches the whole tree at once, and starts one
//!   reconcile (`reconcile::reconcile`) that narrows it down again.

use std::path::Path;
use std::sync::Arc;

use crossbeam_channel::Receiver;

use super::overlay::FOREVER;
use super::reconcile;
use super::server::Server;
use super::state::State;
use crate::index::fresh::changes::lookup;
use crate::index::recorded::{WATCHED_NAMES, child_rel};
use crate::sys::watch::Raw;

/// Applies events from `rx` until the drain thread is gone.
pub fn run(server: &Arc<Server>, rx: &Receiver<Raw>) {
    while let Ok(first) = rx.recv() {
        let mut overflowed = None;
        {
            let mut st = server.state();
            let mut next = Some(first);
            let mut n = 0;
            while let Some(raw) = next {
                n += 1;
                if let Some(seq) = apply(server, &mut st, raw) {
                    overflowed = Some(seq);
                }
                next = if n < 4096 { rx.try_recv().ok() } else { None };
            }
            server.events_applied(n);
        }
        server.notify_applied();
        if let Some(seq) = overflowed {
            let s = Arc::clone(server);
            let _ = std::thread::Builder::new()
                .name("tg-reconcile".into())
                .spawn(move || reconcile::reconcile(&s, seq));
        }
    }
}

/// Applies one event; `Some(seq)` when it was an overflow (a reconcile is due).
fn apply(server: &Server, st: &mut State, raw: Raw) -> Option<u64> {
    let seq = st.next_event();
    let (wd, change, name) = match raw {
        Raw::Overflow => {
            server.overflowed();
            st.overflowed(seq);
            return Some(seq);
        }
        Raw::Failed => {
            // No more events will come: the server can no longer vouch.
            st.tree().0.touch_subtree(Vec::new(), FOREVER);
            return None;
        }
        Raw::Event(wd, change, name) => (wd, change, name),
    };
    if let Some(n) = st.tree().1.cookie_of(&wd, name.as_deref()) {
        st.cookie_applied(n);
        // A cookie inside the tree (macOS, Windows) that a rebuild's walk
        // listed is stat-ed like any file the index knows.
        let dir = st.tree().1.dir_of(&wd).map(<[u8]>::to_vec);
        if let Some(rel) = dir.zip(name).map(|(d, n)| child_rel(&d, &n))
            && lookup(st.reader(), &rel).is_some()
        {
            st.tree().0.touch(rel, seq);
        }
        return None;
    }
    let (overlay, watches) = st.tree();
    if change.forgotten {
        watches.forget(&wd);
        return None;
    }
    let dir = watches.dir_of(&wd).map(<[u8]>::to_vec)?;
    let Some(name) = name else {
        // The directory itself was deleted or moved: its parent reports it too.
        if change.self_gone {
            overlay.touch_subtree(dir, seq);
        }
        return None;
    };
    let rel = child_rel(&dir, &name);
    if change.created || change.removed {
        overlay.touch(dir.clone(), seq);
    }
    let steers_walk = WATCHED_NAMES.iter().any(|w| w.as_bytes() == name.as_slice());
    if steers_walk {
        st.walk_changed();
    }
    if steers_walk || lookup(st.reader(), &rel).is_some() {
        st.tree().0.touch(rel.clone(), seq);
    } else if change.created {
        st.created_unknown();
    }
    // (Not every backend tells a removed directory from a file.)
    if change.is_dir || (change.removed && st.tree().1.watches_dir(&rel)) {
        if change.removed {
            let (overlay, watches) = st.tree();
            watches.remove_below(&rel);
            overlay.touch_subtree(rel, seq);
        } else if change.created && walked(server.root(), &dir, &name) {
            st.tree().0.touch_subtree(rel.clone(), seq);
            st.watch_new_tree(server.root(), &rel);
        }
    }
    None
}

/// Whether the index's walk would enter directory `name` of `dir` (in
/// the tree at `root`).
fn walked(root: &Path, dir: &[u8], name: &[u8]) -> bool {
    let parent = root.join(crate::sys::rel_path(dir));
    let Ok(mut builder) = crate::index::build::walk::watched_walk(&parent) else {
        return true;
    };
    builder
        .max_depth(Some(1))
        .build()
        .flatten()
        .any(|e| e.depth() == 1 && e.file_name().as_encoded_bytes() == name)
}
