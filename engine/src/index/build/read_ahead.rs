//! Asking the disk for the next files before the extraction threads open
//! them.
//!
//! On a cold tree each extraction thread reads one file at a time, so the
//! disk sees at most one request per core and waits between them (the
//! kernel's 84,000 files, cold: 12.3 s read one at a time, 3.2 s sixteen
//! at a time). [`read_ahead`] runs beside the
//! threads, a bounded distance ahead of the furthest file they reached,
//! and asks for each file's bytes (`sys::advise_willneed`) without
//! waiting for them: the pages land in the page cache (not the build's
//! private memory) while the threads work on earlier files. It starts
//! only once [`WAITED_READS`] of the threads' reads had to wait for the
//! disk (`Frontier::waited`: a read that asks the page cache alone,
//! `sys::read_cached`, came back short): on a warm tree asking would only
//! cost an open per file. Timing reads instead started it on warm trees
//! whenever the machine was busy.

use crate::sys::dirstat::DirStat;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// The most bytes asked for ahead of the threads and not yet reached.
const AHEAD_BYTES: u64 = 64 << 20;

/// The most files asked for ahead of the threads and not yet reached.
const AHEAD_FILES: usize = 256;

/// Reads that waited for the disk after which reading ahead starts.
const WAITED_READS: usize = 16;

/// Where the extraction threads are: the furthest item claimed, how many
/// of their reads waited for the disk, and whether they are done.
#[derive(Debug, Default)]
pub(super) struct Frontier {
    reached: AtomicUsize,
    waits: AtomicUsize,
    done: AtomicBool,
}

impl Frontier {
    /// An extraction thread's read had to wait for the disk.
    pub(super) fn waited(&self) {
        self.waits.fetch_add(1, Ordering::Relaxed);
    }

    /// An extraction thread took item `i`.
    pub(super) fn reach(&self, i: usize) {
        self.reached.fetch_max(i, Ordering::Relaxed);
    }

    /// The threads are done (or stopped): reading ahead stops.
    pub(super) fn finish(&self) {
        self.done.store(true, Ordering::Relaxed);
    }
}

/// Once [`WAITED_READS`] reads waited for the disk, asks for the bytes of items
/// `0..n` in order (`ask(i)` asks for item `i`'s and says whether it
/// could; `size(i)` is its bytes; it is skipped unless `wanted(i)`),
/// staying within [`AHEAD_BYTES`] and [`AHEAD_FILES`] of the furthest item
/// `frontier` reached, until the last item or [`Frontier::finish`].
pub(super) fn read_ahead(
    n: usize,
    size: impl Fn(usize) -> u64,
    wanted: impl Fn(usize) -> bool,
    frontier: &Frontier,
    mut ask: impl FnMut(usize) -> bool,
) {
    while frontier.waits.load(Ordering::Relaxed) < WAITED_READS {
        if frontier.done.load(Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let mut asked: VecDeque<(usize, u64)> = VecDeque::new();
    let mut ahead = 0u64;
    let mut next = 0;
    while next < n && !frontier.done.load(Ordering::Relaxed) {
        let reached = frontier.reached.load(Ordering::Relaxed);
        while let Some(&(_, bytes)) = asked.front().filter(|(i, _)| *i <= reached) {
            ahead -= bytes;
            asked.pop_front();
        }
        next = next.max(reached);
        if ahead >= AHEAD_BYTES || asked.len() >= AHEAD_FILES {
            std::thread::sleep(Duration::from_micros(500));
            continue;
        }
        let (i, bytes) = (next, size(next));
        next += 1;
        if bytes > 0 && wanted(i) && ask(i) {
            asked.push_back((i, bytes));
            ahead += bytes;
        }
    }
}

/// Asks the system to start reading the file at `rel` under `root`,
/// opened as its reader opens it ([`super::read::open`], through
/// `handles`); nothing if it cannot be opened (its reader will say so);
/// whether it could.
pub(super) fn ask(root: &Path, rel: &[u8], handles: &mut Option<DirStat>) -> bool {
    let Ok(file) = super::read::open(root, rel, handles) else { return false };
    crate::sys::advise_willneed(&file, 0, 0);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_asks_for_wanted_items_in_order_within_its_distance_and_stops() {
        let frontier = Frontier::default();
        for _ in 0..WAITED_READS {
            frontier.waited();
        }
        let asked = std::sync::Mutex::new(Vec::new());
        let n = 5_000;
        std::thread::scope(|scope| {
            scope.spawn(|| {
                read_ahead(
                    n,
                    |i| (i % 3) as u64 * 1000,
                    |i| i % 5 != 0,
                    &frontier,
                    |i| {
                        let reached = frontier.reached.load(Ordering::Relaxed);
                        asked.lock().unwrap().push((i, reached));
                        true
                    },
                )
            });
            // The threads move on, slower than it asks.
            for i in 0..n / 2 {
                frontier.reach(i);
                std::thread::sleep(Duration::from_micros(20));
            }
            frontier.finish();
        });
        let asked = asked.into_inner().unwrap();
        assert!(asked.len() > 100, "it asked for {} items", asked.len());
        assert!(asked.windows(2).all(|w| w[0].0 < w[1].0), "in order");
        assert!(asked.iter().all(|&(i, _)| i % 5 != 0 && i % 3 != 0), "only wanted, non-empty");
        // At most AHEAD_FILES asked and not yet reached (each of the files
        // asked since the frontier passed is one of them).
        for (k, &(i, reached)) in asked.iter().enumerate() {
            let pending = asked[..k].iter().filter(|&&(j, _)| j > reached).count();
            assert!(pending < AHEAD_FILES, "item {i}: {pending} asked ahead of {reached}");
        }
        // It stopped with the threads, short of the last item.
        assert!(asked.last().unwrap().0 < n - 1);
    }

    #[test]
    fn it_asks_for_nothing_until_enough_reads_waited() {
        let frontier = Frontier::default();
        let asked = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                read_ahead(
                    1000,
                    |_| 4096,
                    |_| true,
                    &frontier,
                    |_| {
                        asked.fetch_add(1, Ordering::Relaxed);
                        true
                    },
                )
            });
            for i in 0..1000 {
                frontier.reach(i);
                if i % 100 == 0 && i / 100 < WAITED_READS - 1 {
                    frontier.waited();
                }
                std::thread::sleep(Duration::from_micros(20));
            }
            frontier.finish();
        });
        assert_eq!(asked.into_inner(), 0);
    }
}
