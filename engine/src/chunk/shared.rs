//! How the chunk workers and the printing thread keep in step: the window
//! of chunks that may be searched ahead of printing, the newline counts
//! that give each chunk its first line number, and cancellation.

use std::sync::{Condvar, Mutex};

/// State shared by the workers and the printing thread.
pub(super) struct Shared {
    state: Mutex<State>,
    cv: Condvar,
    /// Line numbers are printed: chunks must know how many lines precede them.
    pub(super) lines: bool,
}

struct State {
    /// Chunks printed so far (workers stay within `window` chunks past this).
    emitted: usize,
    window: usize,
    /// The search stopped (a chunk asked to stop, or an error).
    cancelled: bool,
    /// Newlines per chunk, once counted.
    counts: Vec<Option<u64>>,
    /// The leading chunks whose counts are all known.
    known: usize,
    /// Newlines before chunk `i`, valid for `i <= known`.
    before: Vec<u64>,
}

impl Shared {
    /// State for `n` chunks; workers may run `window` chunks ahead of printing.
    pub(super) fn new(n: usize, lines: bool, window: usize) -> Shared {
        let state = State {
            emitted: 0,
            window,
            cancelled: false,
            counts: vec![None; n],
            known: 0,
            before: vec![0; n + 1],
        };
        Shared { state: Mutex::new(state), cv: Condvar::new(), lines }
    }

    /// Waits until chunk `i` is within the window past the printed chunks;
    /// false when the search was cancelled.
    pub(super) fn wait_window(&self, i: usize) -> bool {
        let mut st = self.state.lock().unwrap();
        while !st.cancelled && i >= st.emitted + st.window {
            st = self.cv.wait(st).unwrap();
        }
        !st.cancelled
    }

    /// Lets the workers run up to `window` chunks past the printed ones
    /// (never less than before).
    pub(super) fn set_window(&self, window: usize) {
        let mut st = self.state.lock().unwrap();
        if window > st.window {
            st.window = window;
            self.cv.notify_all();
        }
    }

    /// Records that chunk `i` holds `count` newlines.
    pub(super) fn publish(&self, i: usize, count: u64) {
        let mut st = self.state.lock().unwrap();
        st.counts[i] = Some(count);
        while st.known < st.counts.len() {
            let Some(c) = st.counts[st.known] else { break };
            let k = st.known;
            st.before[k + 1] = st.before[k] + c;
            st.known += 1;
        }
        self.cv.notify_all();
    }

    /// Waits for the number of newlines before chunk `i`; `None` when cancelled.
    pub(super) fn wait_prefix(&self, i: usize) -> Option<u64> {
        let mut st = self.state.lock().unwrap();
        while !st.cancelled && st.known < i {
            st = self.cv.wait(st).unwrap();
        }
        if st.cancelled { None } else { Some(st.before[i]) }
    }

    /// Records that the first `n` chunks have been printed.
    pub(super) fn emitted(&self, n: usize) {
        self.state.lock().unwrap().emitted = n;
        self.cv.notify_all();
    }

    /// Stops the search: every waiter returns.
    pub(super) fn cancel(&self) {
        self.state.lock().unwrap().cancelled = true;
        self.cv.notify_all();
    }
}
