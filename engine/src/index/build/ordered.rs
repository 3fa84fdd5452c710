//! Work on every core, results taken in order: the build's extraction
//! pipeline.
//!
//! [`in_order`] hands items out to worker threads one at a time, in order,
//! and gives their results to the calling thread in the same order, as
//! they complete: no batch waits for its slowest item, and the caller
//! (the writer: pushing pairs, sorting and spilling runs) works while the
//! workers go on. Items handed out but not yet taken are bounded by a
//! window of their costs, so memory stays bounded however far the workers
//! could run ahead (an item larger than the window goes alone). An item is
//! counted at its cost estimate while it is worked on, and at what its
//! result holds once done (never more), so that a large file whose
//! trigrams turned out few does not keep the others waiting.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

/// What the workers share: the next item to hand out, the sizes handed
/// out and not yet taken, and whether to stop.
struct Dispatch {
    next: usize,
    in_flight: u64,
    stop: bool,
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
    let state = Mutex::new(Dispatch { next: 0, in_flight: 0, stop: false });
    let room = Condvar::new();
    let (tx, rx) = mpsc::channel::<(usize, T, u64)>();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let (tx, state, room, init, work) = (tx.clone(), &state, &room, &init, &work);
            let (items, held) = (Items { n, size: &size, window }, &held);
            scope.spawn(move || {
                let mut local = init();
                while let Some(i) = claim(state, room, &items) {
                    let t = work(&mut local, i);
                    let charged = (items.size)(i);
                    let cost = held(&t).min(charged);
                    if cost < charged {
                        state.lock().unwrap().in_flight -= charged - cost;
                        room.notify_all();
                    }
                    if tx.send((i, t, cost)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting = BTreeMap::new();
        let mut want = 0;
        let mut result = Ok(());
        for (i, t, cost) in &rx {
            waiting.insert(i, (t, cost));
            while let Some((t, cost)) = waiting.remove(&want) {
                state.lock().unwrap().in_flight -= cost;
                room.notify_all();
                if let Err(e) = take(want, t) {
                    result = Err(e);
                    break;
                }
                want += 1;
            }
            if result.is_err() {
                break;
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

/// The next item for a worker, once the window has room for it; `None`
/// when all are handed out or the run stops.
fn claim<F: Fn(usize) -> u64>(
    state: &Mutex<Dispatch>,
    room: &Condvar,
    items: &Items<'_, F>,
) -> Option<usize> {
    let mut s = state.lock().unwrap();
    loop {
        if s.stop || s.next == items.n {
            return None;
        }
        let size = (items.size)(s.next);
        if s.in_flight == 0 || s.in_flight + size <= items.window {
            let i = s.next;
            s.next += 1;
            s.in_flight += size;
            return Some(i);
        }
        s = room.wait(s).unwrap();
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
