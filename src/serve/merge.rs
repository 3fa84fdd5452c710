//! Keeping the index and the watches in step with the tree: the reconcile
//! (one full look, at start and after lost events), the rebuild that folds
//! the overlay into a new index on disk, and the housekeeping thread that
//! decides when to rebuild and when an idle server leaves.
//!
//! A rebuild is the ordinary bounded-memory build, published atomically:
//! queries read the old index until the new one is renamed into place, and
//! a rebuild killed half-way leaves the old index (and the overlay, rebuilt
//! by the next start's reconcile). After it, the overlay forgets every
//! touch made before the build began — the new index holds those changes —
//! and keeps the later ones.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::{ServeOptions, Server, State};
use crate::index::build::{self, Progress};
use crate::index::error::IndexError;
use crate::index::fresh::changes::{self, lookup};
use crate::index::reader::IndexReader;
use crate::index::storage::FsStorage;
use crate::index::table::flags;

/// A build's progress, unreported.
struct Quiet;

impl Progress for Quiet {
    fn start(&self, _bytes: u64) {}
    fn advance(&self, _bytes: u64) {}
}

/// The build's sort budget: an eighth of the server's memory budget, at
/// least 16 MiB.
fn build_budget(opts: &ServeOptions) -> usize {
    (opts.max_memory / 8).max(16 << 20) as usize
}

/// Builds the tree's index with no progress shown.
pub fn build_quietly(opts: &ServeOptions) -> Result<(), IndexError> {
    build::build(&opts.root, &opts.base, build_budget(opts), &Quiet).map(|_| ())
}

/// Watches the root and every directory the index's table lists; a
/// directory past the watch limit is touched for good (queries stat below it).
pub fn watch_table(server: &Server) {
    let mut st = server.state();
    let reader = Arc::clone(&st.reader);
    let dirs = std::iter::once(&b""[..])
        .chain(reader.files().filter(|f| f.flags & flags::DIR != 0).map(|f| f.path));
    for d in dirs {
        if !st.watches.add(d) {
            st.overlay.touch_subtree(d.to_vec(), super::overlay::FOREVER);
        }
    }
}

/// Watches the new directory `rel` and the directories below it that the
/// index's walk would enter.
pub fn watch_new_tree(server: &Server, st: &mut State, rel: &[u8]) {
    let top = server.opts.root.join(OsStr::from_bytes(rel));
    let Ok(builder) = crate::options::WalkFilters::default().builder(&[top], 1, false, false)
    else {
        return;
    };
    for entry in builder.build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_dir()) {
            continue;
        }
        let path = entry.into_path();
        let Ok(sub) = path.strip_prefix(&server.opts.root) else { continue };
        let sub = sub.as_os_str().as_bytes();
        if !st.watches.add(sub) {
            st.overlay.touch_subtree(sub.to_vec(), super::overlay::FOREVER);
        }
    }
}

/// Stats every entry of the table and touches those that differ, then
/// clears the whole-tree mark set at event `seq` (an overflow; 0 at start).
pub fn reconcile(server: &Server, seq: u64) {
    let reader = Arc::clone(&server.state().reader);
    let differ = changes::reconcile(&reader, &server.opts.root);
    let mut st = server.state();
    let now = st.seq;
    for rel in differ {
        let entry = lookup(&reader, &rel).and_then(|id| reader.file(id)).map_or(0, |f| f.flags);
        // A watched path (an ignore file, a repository marker, git's
        // configuration) changed while no one watched: what the build
        // walked may differ, so rebuild (queries walk meanwhile).
        if entry & (flags::WATCH | flags::WATCH_EXISTS) != 0 {
            st.walk_changed = true;
        }
        if entry & flags::DIR != 0 {
            // New directories below it are not watched yet.
            watch_new_tree(server, &mut st, &rel);
        }
        st.overlay.touch(rel, now);
    }
    if seq > 0 {
        st.overlay.clear_subtree(b"", seq);
    }
    server.counters.reconciles.fetch_add(1, Ordering::Relaxed);
}

/// Rebuilds the index from the tree, publishes it, and forgets the touches
/// it holds; on failure (a full disk, say) the old index and the overlay
/// stay, and the error is kept for `tg status`.
pub fn rebuild(server: &Server) {
    let storage = FsStorage::new(&server.index_dir);
    let Ok(Some(_lock)) = storage.try_lock_build() else {
        server.state().merging = false;
        return;
    };
    let (began, walk_changed, created) = {
        let mut st = server.state();
        let taken = (st.seq, st.walk_changed, st.created);
        st.walk_changed = false;
        st.created = 0;
        taken
    };
    let result = build_quietly(&server.opts).and_then(|()| IndexReader::open(&server.index_dir));
    let mut st = server.state();
    st.merging = false;
    match result {
        Ok(reader) => {
            st.reader = Arc::new(reader);
            st.overlay.forget_before(began + 1);
            drop(st);
            watch_table(server);
            // The error is cleared before the count shows the merge, so
            // a status never shows both.
            *server.counters.merge_error.lock().unwrap_or_else(|e| e.into_inner()) = None;
            server.counters.merges.fetch_add(1, Ordering::Relaxed);
            // Hand the build's memory back, so private memory shows the server at rest.
            // SAFETY: malloc_trim only releases free heap pages.
            unsafe { libc::malloc_trim(0) };
        }
        Err(e) => {
            // Still due: retried after the back-off.
            st.walk_changed |= walk_changed;
            st.created += created;
            *server.counters.merge_error.lock().unwrap_or_else(|e| e.into_inner()) =
                Some(e.to_string());
        }
    }
}

/// Reopens the index when someone else (`tg index`) published a new one:
/// the overlay stays (it covers more than needed), and one reconcile finds
/// what changed between that build and now.
fn follow_external_rebuild(server: &Server) {
    let Ok(reader) = IndexReader::open(&server.index_dir) else { return };
    if reader.needs_reindex() || !reader.has_edges() {
        // Published by another version of tg: clients plan for an index
        // with edges. Build this version's (queries walk meanwhile).
        server.state().walk_changed = true;
        return;
    }
    if reader.stats().table_id == server.state().reader.stats().table_id {
        return;
    }
    server.state().reader = Arc::new(reader);
    watch_table(server);
    reconcile(server, 0);
}

/// The identity of the published index file (inode and modification time).
fn published(server: &Server) -> Option<(u64, std::time::SystemTime)> {
    use std::os::unix::fs::MetadataExt;
    let md = std::fs::metadata(FsStorage::new(&server.index_dir).index_path()).ok()?;
    Some((md.ino(), md.modified().ok()?))
}

/// How long to wait before retrying after `failures` rebuilds in a row
/// failed (a full disk, say): 5 s, doubling up to a minute, so that a
/// rebuild is retried soon once space returns but a lasting failure does
/// not rebuild over and over.
fn backoff(failures: u32) -> Duration {
    Duration::from_secs(5u64 << failures.saturating_sub(1).min(4)).min(Duration::from_secs(60))
}

/// Every second: follow an index published by someone else; start a
/// rebuild when the overlay is large, an ignore file changed (in the tree,
/// as events tell, or outside it, as a stat tells), or private memory
/// passed the budget; stop an idle server.
pub fn housekeeping(server: &Arc<Server>) {
    let mut failed_at: Option<std::time::Instant> = None;
    let mut failures = 0;
    let mut seen = published(server);
    // The watched paths outside the tree of the index in use (by its table
    // id), and their stats last acted on: a rebuild is asked for once per
    // new state, never again and again for a path the build sees otherwise.
    let (mut outside_of, mut outside) = (None, Vec::new());
    let mut acted_on = Vec::new();
    while !server.stopping.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_secs(1));
        let now = published(server);
        if now != seen {
            follow_external_rebuild(server);
            seen = now;
        }
        let reader = Arc::clone(&server.state().reader);
        if outside_of != Some(reader.stats().table_id) {
            outside_of = Some(reader.stats().table_id);
            outside = changes::outside_watched(&reader);
        }
        drop(reader);
        let stats = changes::stat_each(&outside, &server.opts.root);
        if stats != acted_on && changes::any_differs(&outside, &stats) {
            server.state().walk_changed = true;
            acted_on = stats;
        }
        if let Some(idle) = server.opts.idle_timeout
            && server.idle_for() >= idle
            && server.counters.clients.load(Ordering::Relaxed) == 0
        {
            super::listen::stop(server);
            return;
        }
        let private = crate::stats::status_bytes("RssAnon:");
        let due = {
            let st = server.state();
            !st.merging
                && (st.overlay.len() + st.created >= server.opts.merge_at
                    || st.walk_changed
                    || (private > server.opts.max_memory && !st.overlay.is_empty()))
        };
        let backing_off = failed_at.is_some_and(|t| t.elapsed() < backoff(failures));
        if due && !backing_off {
            server.state().merging = true;
            rebuild(server);
            seen = published(server);
            let failed = server.counters.merge_error.lock().map(|e| e.is_some()).unwrap_or(true);
            failures = if failed { failures + 1 } else { 0 };
            failed_at = failed.then(std::time::Instant::now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_rebuilds_back_off_from_5_s_to_a_minute() {
        let secs: Vec<u64> = (1..=7).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(secs, [5, 10, 20, 40, 60, 60, 60]);
    }
}
