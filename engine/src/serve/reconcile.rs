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

use std::sync::Arc;
use std::time::Duration;

use super::server::{ServeOptions, Server};
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
pub(crate) fn build_quietly(opts: &ServeOptions) -> Result<(), IndexError> {
    build::build(&opts.root, &opts.base, build_budget(opts), &Quiet).map(|_| ())
}

/// Stats every entry of the table and touches those that differ, then
/// clears the whole-tree mark set at event `seq` (an overflow; 0 at start).
pub fn reconcile(server: &Server, seq: u64) {
    let reader = Arc::clone(server.state().reader());
    let differ = changes::reconcile(&reader, server.root());
    let mut st = server.state();
    let now = st.progress().seq;
    for rel in differ {
        let entry = lookup(&reader, &rel).and_then(|id| reader.file(id)).map_or(0, |f| f.flags);
        // A watched path (an ignore file, a repository marker, git's
        // configuration) changed while no one watched: what the build
        // walked may differ, so rebuild (queries walk meanwhile).
        if entry & (flags::WATCH | flags::WATCH_EXISTS) != 0 {
            st.walk_changed();
        }
        if entry & flags::DIR != 0 {
            // New directories below it are not watched yet.
            st.watch_new_tree(server.root(), &rel);
        }
        st.tree().0.touch(rel, now);
    }
    if seq > 0 {
        st.tree().0.clear_subtree(b"", seq);
    }
    server.reconciled();
}

/// Rebuilds the index from the tree, publishes it, and forgets the touches
/// it holds; on failure (a full disk, say) the old index and the overlay
/// stay, and the error is kept for `tg status`.
fn rebuild(server: &Server) {
    let storage = FsStorage::new(server.index_dir());
    let Ok(Some(_lock)) = storage.try_lock_build() else {
        server.state().rebuild_ended(None, None);
        return;
    };
    let begun = server.state().rebuild_begins();
    let result = build_quietly(server.opts()).and_then(|()| IndexReader::open(server.index_dir()));
    let mut st = server.state();
    match result {
        Ok(reader) => {
            st.rebuild_ended(Some(begun), Some(reader));
            st.watch_table();
            drop(st);
            server.rebuilt(None);
            // Hand the build's memory back, so private memory shows the server at rest.
            crate::sys::release_free_heap();
        }
        Err(e) => {
            // Still due: retried after the back-off.
            st.rebuild_ended(Some(begun), None);
            server.rebuilt(Some(e.to_string()));
        }
    }
}

/// Reopens the index when someone else (`tg index`) published a new one:
/// the overlay stays (it covers more than needed), and one reconcile finds
/// what changed between that build and now.
fn follow_external_rebuild(server: &Server) {
    let Ok(reader) = IndexReader::open(server.index_dir()) else { return };
    if reader.needs_reindex() || !reader.has_edges() {
        // Published by another version of tg: clients plan for an index
        // with edges. Build this version's (queries walk meanwhile).
        server.state().walk_changed();
        return;
    }
    if reader.stats().table_id == server.state().reader().stats().table_id {
        return;
    }
    {
        let mut st = server.state();
        st.follow(reader);
        st.watch_table();
    }
    reconcile(server, 0);
}

/// The identity of the published index file (inode and modification time).
fn published(server: &Server) -> Option<(u64, std::time::SystemTime)> {
    let path = FsStorage::new(server.index_dir()).index_path();
    let md = std::fs::metadata(&path).ok()?;
    Some((crate::sys::file_id(&path, &md).ino, md.modified().ok()?))
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
pub(crate) fn housekeeping(server: &Arc<Server>) {
    let opts = server.opts();
    let mut failed_at: Option<std::time::Instant> = None;
    let mut failures = 0;
    // Nothing seen yet: the first round compares the published index with
    // the one the server opened, so that one replaced before this thread
    // started (a slow start on a busy machine) is followed too.
    let mut seen = None;
    // The watched paths outside the tree of the index in use (by its table
    // id), and their stats last acted on: a rebuild is asked for once per
    // new state, never again and again for a path the build sees otherwise.
    let (mut outside_of, mut outside) = (None, Vec::new());
    let mut acted_on = Vec::new();
    while !server.stopping() {
        std::thread::sleep(Duration::from_secs(1));
        let now = published(server);
        if now != seen {
            follow_external_rebuild(server);
            seen = now;
        }
        let reader = Arc::clone(server.state().reader());
        if outside_of != Some(reader.stats().table_id) {
            outside_of = Some(reader.stats().table_id);
            outside = changes::outside_watched(&reader);
        }
        drop(reader);
        let stats = changes::stat_each(&outside, &opts.root);
        if stats != acted_on && changes::any_differs(&outside, &stats) {
            server.state().walk_changed();
            acted_on = stats;
        }
        if let Some(idle) = opts.idle_timeout
            && server.idle_for() >= idle
            && server.no_clients()
        {
            server.stop();
            return;
        }
        let over_budget = crate::sys::private_bytes() > opts.max_memory;
        let due = server.state().rebuild_due(opts.merge_at, over_budget);
        let backing_off = failed_at.is_some_and(|t| t.elapsed() < backoff(failures));
        if due && !backing_off {
            server.state().rebuild_starting();
            rebuild(server);
            seen = published(server);
            let failed = server.rebuild_failed();
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
