//! Work on every core, results taken in order: the build's extraction
//! pipeline.
//!
//! [`in_order`] hands items out to worker threads in order, a few
//! consecutive small ones at a time (one large one alone), and gives their
//! results to the calling thread in the same order, as they complete: the
//! caller (the writer: pushing pairs, sorting and spilling runs) works
//! while the workers go on. Handing out and handing back a few small
//! items at once spares a lock and a wake-up each (84,000 kernel files
//! made 285,000 `futex` calls one by one). Items handed out but not yet
//! taken are bounded by a window of their costs, so memory stays bounded
//! however far the workers could run ahead (an item larger than the window
//! goes alone). An item is counted at its cost estimate while its batch
//! is worked on, and at what its result holds once the batch is done
//! (never more), so that a large file (alone in its batch) whose trigrams
//! turned out few does not keep the others waiting.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

/// The most items handed out at once.
const BATCH_ITEMS: usize = 32;

/// The most cost handed out at once, but for a single item: about 64 KiB
/// of files ([`super::budget::item_cost`]).
const BATCH_COST: u64 = 256 << 10;

/// What the workers share: the next item to hand out, the sizes handed
/// out and not yet taken, whether to stop, and how many workers wait for
/// room (woken only when some do: a wake is a system call, and most
/// items find room at once).
struct Dispatch {
    next: usize,
    in_flight: u64,
    stop: bool,
    waiting: usize,
}

impl Dispatch {
    /// Gives `freed` back to the window, waking the workers waiting for
    /// room, if any.
    fn free(&mut self, freed: u64, room: &Condvar) {
        self.in_flight -= freed;
        if self.waiting > 0 {
            room.notify_all();
        }
    }
}

/// Runs `work` on each of the items `0..n` on `threads` threads (each
/// with its own state from `init`) and `take` on their results in item
/// order on the calling thread, with items costing at most `window`
/// handed out and not yet taken: item `i` costs `size(i)` (its bytes, or
/// what its result can hold) until its result `t` is made, then
/// `held(&t)` if that is less. The first error of `take` stops the
/// workers and is returned.
#[allow(clippy::too_many_arguments)]
pub(super) fn in_order<S, T: Send, E>(
    n: usize,
    size: impl Fn(usize) -> u64 + Sync,
    held: impl Fn(&T) -> u64 + Sync,
    window: u64,
    threads: usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize) -> T + Sync,
    mut take: impl FnMut(usize, T) -> Result<(), E>,
) -> Result<(), E> {
    let state = Mutex::new(Dispatch { next: 0, in_flight: 0, stop: false, waiting: 0 });
    let room = Condvar::new();
    let (tx, rx) = mpsc::channel::<(usize, Vec<T>, u64)>();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let (tx, state, room, init, work) = (tx.clone(), &state, &room, &init, &work);
            let (items, held) = (Items { n, size: &size, window }, &held);
            scope.spawn(move || {
                let mut local = init();
                while let Some(batch) = claim(state, room, &items) {
                    let (start, mut results, mut cost, mut over) = (batch.start, Vec::new(), 0, 0);
                    for i in batch {
                        let t = work(&mut local, i);
                        let charged = (items.size)(i);
                        let held = held(&t).min(charged);
                        results.push(t);
                        (cost, over) = (cost + held, over + charged - held);
                    }
                    // What the results hold less than charged, given back
                    // once a batch (a large item goes alone, so at once).
                    if over > 0 {
                        state.lock().unwrap().free(over, room);
                    }
                    if tx.send((start, results, cost)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        let mut want = 0;
        let mut result = Ok(());
        'results: for (start, results, cost) in &rx {
            waiting.insert(start, (results, cost));
            while let Some((results, cost)) = waiting.remove(&want) {
                for t in results {
                    if let Err(e) = take(want, t) {
                        result = Err(e);
                        break 'results;
                    }
                    want += 1;
                }
                state.lock().unwrap().free(cost, &room);
            }
        }
        state.lock().unwrap().stop = true;
        room.notify_all();
        drop(rx);
        result
    })
}

/// The items handed out: how many, their sizes, the window.
struct Items<'a, F> {
    n: usize,
    size: &'a F,
    window: u64,
}

/// The next items for a worker (consecutive, up to [`BATCH_ITEMS`] and
/// [`BATCH_COST`], or one alone), once the window has room for them;
/// `None` when all are handed out or the run stops.
fn claim<F: Fn(usize) -> u64>(
    state: &Mutex<Dispatch>,
    room: &Condvar,
    items: &Items<'_, F>,
) -> Option<Range<usize>> {
    let mut s = state.lock().unwrap();
    loop {
        if s.stop || s.next == items.n {
            return None;
        }
        let (first, mut batch) = (s.next, 0);
        while s.next < items.n && s.next - first < BATCH_ITEMS {
            let size = (items.size)(s.next);
            let alone = s.next == first && s.in_flight == 0;
            let fits = alone || s.in_flight + size <= items.window;
            if !fits || (s.next > first && batch + size > BATCH_COST) {
                break;
            }
            s.next += 1;
            s.in_flight += size;
            batch += size;
        }
        if s.next > first {
            return Some(first..s.next);
        }
        s.waiting += 1;
        s = room.wait(s).unwrap();
        s.waiting -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_order_within_the_window() {
        let sizes: Vec<u64> = (0..500).map(|i| (i * 7919) % 100).collect();
        let mut got = Vec::new();
        let out: Result<(), ()> = in_order(
            sizes.len(),
            |i| sizes[i],
            |_| 0,
            300,
            3,
            || 0u64,
            |n, i| {
                *n += 1;
                i * 2
            },
            |i, t| {
                got.push((i, t));
                Ok(())
            },
        );
        assert!(out.is_ok());
        assert_eq!(got, (0..500).map(|i| (i, i * 2)).collect::<Vec<_>>());
    }

    #[test]
    fn an_error_stops_the_workers() {
        let sizes = vec![1u64; 10_000];
        let out = in_order(
            sizes.len(),
            |i| sizes[i],
            |_| 1,
            10,
            2,
            || (),
            |_, i| i,
            |i, _| if i == 5 { Err(i) } else { Ok(()) },
        );
        assert_eq!(out, Err(5));
    }

    #[test]
    fn a_result_holding_less_than_its_estimate_makes_room() {
        // Items 1 and 2 each fill the window by their estimate, and their
        // results hold nothing: item 2 starts while the caller is still
        // taking item 0 and item 1's result waits.
        let started = std::sync::atomic::AtomicBool::new(false);
        let out = in_order(
            3,
            |i| if i == 0 { 0 } else { 100 },
            |_| 0,
            100,
            2,
            || (),
            |_, i| started.fetch_or(i == 2, std::sync::atomic::Ordering::SeqCst),
            |i, _| {
                let waited = std::time::Instant::now();
                while i == 0 && !started.load(std::sync::atomic::Ordering::SeqCst) {
                    if waited.elapsed() > std::time::Duration::from_secs(10) {
                        return Err("item 2 never started while item 0 was taken");
                    }
                    std::thread::yield_now();
                }
                Ok(())
            },
        );
        assert_eq!(out, Ok(()));
    }
}
