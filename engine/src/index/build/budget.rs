//! How a tree build spends its memory budget: `Plan`.
//!
//! Whatever grows with the tree lives in temporary files (the listing:
//! `Paged`; the writer's tables: `Spool`; the sorted runs), so a build's
//! private memory is a sum of parts the budget sets:
//!
//! - `FIXED`: the process, the walkers, the writer's spools and the
//!   buffers of runs being written;
//! - the listing's part in memory (`listing_memory`), and two bits an
//!   entry (the walks' marks, the writer's always-candidate bits);
//! - per extraction thread (`thread_bytes`): its trigram table
//!   ([`TrigramSet::bytes`]) and read buffer (a larger file is mapped);
//! - the window of files handed out and not yet written, counted at what
//!   their trigram lists can take (`item_cost`);
//! - the external sort's buffers (one filling, one being written when the
//!   sort has 64 MiB or more, the radix sort's scratch): the rest.
//!
//! The merge runs after the listing and the sort's buffers are gone:
//! each merging thread holds one posting list (up to `DOC_BYTES` a
//! document) and its buffers, and fewer threads merge when the budget
//! cannot hold one such list per core (`merge_threads`).
//!
//! A budget below [`floor`] cannot be kept: the build then runs with the
//! least of each part (and a tiny sort, which the tests use to force
//! spills), and the command line says so.

use crate::index::extract::TrigramSet;

/// What a build holds whatever its budget: the process and its threads,
/// the walkers, the writer's four spools and a run's write buffer, and
/// what the allocator keeps of freed memory.
pub(super) const FIXED: usize = 8 << 20;

/// Bytes of a thread's read buffer: a larger file is mapped (page cache,
/// not private memory).
pub(super) const READ_BUFFER: usize = 1 << 20;

/// The least and the most of the listing held in memory.
const LISTING: (usize, usize) = (256 << 10, 2 << 20);

/// The least and the most of the window of files read ahead. A file is
/// counted at four times its bytes until its trigrams are collected, so
/// the most lets a 16 MiB file be read beside others (a file counted
/// over the window is read alone, the other cores waiting).
const WINDOW: (u64, u64) = (1 << 20, 96 << 20);

/// The least sort buffers a budget above the floor gets.
const SORT_MIN: usize = 4 << 20;

/// Sort buffers from which the window may take half of what is free
/// (below, more would cost the sort a merge pass: the kernel at 64 MiB).
const SORT_ROOMY: usize = 64 << 20;

/// What one file in the window costs besides its trigram lists: its
/// table entry and path, the channel's and the queue's nodes.
const ITEM_BYTES: u64 = 256;

/// What a merging thread holds per document at most: a posting list of
/// every document (its ids, masks and bitmap, with room to grow).
pub(super) const DOC_BYTES: usize = 12;

/// What a merging thread holds besides its posting list: its output
/// buffers and the lists of a partition of every run.
const MERGE_THREAD: usize = 1 << 20;

/// Private memory an extraction thread holds: its trigram set (table and
/// folding buffer) and read buffer.
pub(super) fn thread_bytes() -> usize {
    TrigramSet::bytes(true) + READ_BUFFER
}

/// The least budget a tree build on `threads` extraction threads keeps
/// to (besides a quarter of a byte an entry): the fixed part, the
/// listing's part in memory, each thread's tables and read buffer, the
/// least window and sort.
pub fn floor(threads: usize) -> usize {
    FIXED + LISTING.1 + threads.max(1) * thread_bytes() + WINDOW.0 as usize + SORT_MIN
}

/// The most threads (at most `cores`, at least one) whose build keeps to
/// `budget`.
pub fn threads_for(budget: usize, cores: usize) -> usize {
    (1..=cores.max(1)).rev().find(|&t| floor(t) <= budget).unwrap_or(1)
}

/// The listing's part in memory under `budget`: a sixteenth, within
/// bounds; the rest goes to temporary files.
pub(super) fn listing_memory(budget: usize) -> usize {
    (budget / 16).clamp(LISTING.0, LISTING.1)
}

/// What a file of `size` bytes with an `path_len`-byte path costs the
/// window: its trigram list (at most 4 bytes a byte, and its edges'), its
/// path twice (entry and table record), and [`ITEM_BYTES`].
pub(super) fn item_cost(size: u64, path_len: usize) -> u64 {
    4 * (size + 16) + 2 * path_len as u64 + ITEM_BYTES
}

/// What a file's result holds once extracted: `grams` trigrams (4 bytes
/// each), its path twice and [`ITEM_BYTES`]; never more than its
/// [`item_cost`].
pub(super) fn result_cost(grams: usize, path_len: usize) -> u64 {
    4 * grams as u64 + 2 * path_len as u64 + ITEM_BYTES
}

/// The parts of a build's budget, once its walk is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    /// Cost of the files handed out and not yet written ([`item_cost`]).
    pub(super) window: u64,
    /// The external sort's buffers.
    pub(super) sort: usize,
}

impl Plan {
    /// The plan of a build under `budget` on `threads` threads whose
    /// listing of `entries` entries holds `listing` bytes in memory.
    pub(super) fn new(budget: usize, threads: usize, listing: usize, entries: usize) -> Plan {
        let held = FIXED + listing + entries / 4 + threads.max(1) * thread_bytes();
        let free = budget.saturating_sub(held);
        // Half of what is free when the sort keeps `SORT_ROOMY` (a window
        // that reads a tree's biggest files beside others keeps every core
        // busy: the kernel's 4-24 MB register headers, counted at four
        // times their bytes), else a quarter, the sort its least if it can.
        let share = if free / 2 >= SORT_ROOMY { 2 } else { 4 };
        let window = (free / share).min(free.saturating_sub(SORT_MIN)) as u64;
        let window = window.clamp(WINDOW.0, WINDOW.1);
        let left = free.saturating_sub(window as usize);
        // Below the floor the sort takes a quarter of the budget, as small
        // as asked (tests force spills so).
        let sort = if left >= SORT_MIN { left } else { (budget / 4).max(left) };
        Plan { window, sort }
    }
}

/// Threads (at most `cores`, at least one) that merge an index of `docs`
/// documents within `budget`.
pub(super) fn merge_threads(budget: usize, cores: usize, docs: usize) -> usize {
    let each = docs * DOC_BYTES + MERGE_THREAD;
    (budget.saturating_sub(FIXED) / each).clamp(1, cores.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    #[test]
    fn parts_add_up_to_the_budget_above_the_floor() {
        let cases = [(64 * MIB, 2), (floor(1), 1), (256 * MIB, 8), (floor(4), 4)];
        for ((budget, threads), entries) in cases.into_iter().zip([600_000, 0, 10_000_000, 9]) {
            let budget = budget + entries / 4;
            let listing = listing_memory(budget);
            let plan = Plan::new(budget, threads, listing, entries);
            let held = FIXED + listing + entries / 4 + threads * thread_bytes();
            let used = held + plan.window as usize + plan.sort;
            assert!(used <= budget, "{budget} {threads}: {plan:?} uses {used}");
            assert!(plan.sort >= SORT_MIN && plan.window >= WINDOW.0, "{plan:?}");
        }
        // Below it: the least window, a quarter of the budget to sort.
        assert_eq!(Plan::new(MIB, 4, LISTING.0, 400), Plan { window: WINDOW.0, sort: MIB / 4 });
    }

    #[test]
    fn threads_and_merges_are_what_the_budget_affords() {
        assert_eq!(threads_for(floor(3), 8), 3);
        assert_eq!(threads_for(floor(3) - 1, 8), 2);
        assert_eq!(threads_for(MIB, 8), 1);
        assert_eq!(threads_for(1 << 40, 8), 8);
        assert_eq!(threads_for(64 * MIB, 2), 2);
        assert_eq!(merge_threads(64 * MIB, 2, 520_000), 2);
        assert_eq!(merge_threads(64 * MIB, 16, 20_000_000), 1);
        assert_eq!(merge_threads(MIB, 4, 10), 1);
    }

    #[test]
    fn the_floor_is_what_tg_index_help_says() {
        // A thread: its table, read buffer and folding buffer (64 KiB).
        let folding = (64 << 10) + 3;
        assert_eq!((floor(1), thread_bytes()), (32 * MIB + folding, 17 * MIB + folding));
        assert_eq!(listing_memory(1 << 40), 2 * MIB);
    }
}
