//! Where long lines end: remembered, so that a line of a gigabyte is
//! scanned for its end once, not at every redraw or move, and looked for
//! in the background, so that the screen never waits for it.
//!
//! The screen reads at most [`LONG`] bytes of a line looking for its end
//! ([`super::screen`]); a line longer than that is shown from its start
//! at once, the rows below it wait, and a thread ([`LineEnds::look_for`])
//! scans the rest of the line and records where the next line starts,
//! which draws them. A line that runs to the end of the text is recorded
//! as such (scanned up to a length), so that it is not scanned again
//! until the text grows.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use super::nav;
use super::text::Text;

/// Lines at least this long have their end remembered; the screen looks
/// no further than this for a line's end.
pub const LONG: u64 = 1 << 20;

/// What is known of long lines' ends.
#[derive(Default)]
pub struct LineEnds {
    known: Mutex<Known>,
    /// Bumped whenever a thread records an end (the screen must be drawn again).
    found: AtomicU64,
}

#[derive(Default)]
struct Known {
    /// `(start, next line's start)`, the last [`LineEnds::KEEP`].
    ends: VecDeque<(u64, u64)>,
    /// The line that runs to the end of the text: its start, and how far
    /// it was scanned without a newline.
    open: Option<(u64, u64)>,
    /// Starts of the lines whose ends threads look for now.
    looking: Vec<u64>,
    /// Bumped by [`LineEnds::clear`]: threads started before stop.
    epoch: u64,
}

impl Known {
    /// Remembers that the line starting at `start` ends before `next`.
    fn put(&mut self, start: u64, next: u64) {
        if self.ends.iter().any(|e| e.0 == start) {
            return;
        }
        if self.ends.len() == LineEnds::KEEP {
            self.ends.pop_front();
        }
        self.ends.push_back((start, next));
    }
}

/// What the screen learns about a line's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The next line starts here.
    Next(u64),
    /// The line is the text's last.
    Last,
    /// Not known yet (a thread looks for it).
    Unknown,
}

impl LineEnds {
    /// How many long lines are remembered (more than any screen shows).
    const KEEP: usize = 1024;

    fn known(&self) -> MutexGuard<'_, Known> {
        self.known.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What is known of the end of the line starting at `start` in a
    /// text `len` bytes long (`None`: nothing).
    pub fn get(&self, start: u64, len: u64) -> Option<End> {
        let k = self.known();
        if let Some(&(_, next)) = k.ends.iter().find(|e| e.0 == start) {
            return Some(if next < len { End::Next(next) } else { End::Last });
        }
        match k.open {
            Some((s, scanned)) if s == start && scanned >= len => Some(End::Last),
            _ if k.looking.contains(&start) => Some(End::Unknown),
            _ => None,
        }
    }

    /// Remembers that the line starting at `start` ends before `next`.
    pub fn put(&self, start: u64, next: u64) {
        self.known().put(start, next);
    }

    /// Looks for the end of the line starting at `start` on a thread of
    /// its own, from `from` on (no newline before it); does nothing when
    /// a thread already does, or the end is known.
    pub fn look_for(self: &Arc<Self>, text: &Arc<dyn Text>, start: u64, from: u64) {
        let epoch = {
            let mut k = self.known();
            if k.looking.contains(&start) || k.ends.iter().any(|e| e.0 == start) {
                return;
            }
            k.looking.push(start);
            k.epoch
        };
        let (ends, text) = (Arc::clone(self), Arc::clone(text));
        // The open line's scan goes on from where it stopped.
        let from = match self.known().open {
            Some((s, scanned)) if s == start => scanned.max(from),
            _ => from,
        };
        std::thread::spawn(move || {
            let (mut at, mut next) = (from, None);
            nav::each_chunk(&*text, from..text.len(), &mut |bytes| {
                if let Some(i) = memchr::memchr(b'\n', bytes) {
                    next = Some(at + i as u64 + 1);
                    return false;
                }
                at += bytes.len() as u64;
                // A move that read over the line may have found its end first.
                let k = ends.known();
                k.epoch == epoch && !k.ends.iter().any(|e| e.0 == start)
            });
            let mut k = ends.known();
            k.looking.retain(|&s| s != start);
            if k.epoch != epoch {
                return;
            }
            match next {
                Some(next) => k.put(start, next),
                None if k.ends.iter().any(|e| e.0 == start) => {}
                None => k.open = Some((start, at)),
            }
            ends.found.fetch_add(1, Ordering::Release);
        });
    }

    /// Whether a thread looks for a line's end now.
    pub fn looking(&self) -> bool {
        !self.known().looking.is_empty()
    }

    /// How many ends threads have found (changes when the screen must be drawn again).
    pub fn found(&self) -> u64 {
        self.found.load(Ordering::Acquire)
    }

    /// Where the line `n` lines after the one starting at `from` starts
    /// (`None`: there are fewer), stepping over remembered long lines
    /// without reading them again, and remembering those it reads over.
    pub fn skip(&self, text: &dyn Text, mut from: u64, mut n: u64) -> Option<u64> {
        let len = text.len();
        // Where remembered lines start: a walk stops there and steps over.
        let mut starts: Vec<u64> = self.known().ends.iter().map(|e| e.0).collect();
        starts.sort_unstable();
        while n > 0 {
            let k = self.known();
            match k.ends.iter().find(|e| e.0 == from) {
                Some(&(_, next)) => {
                    (from, n) = (next, n - 1);
                    continue;
                }
                // A line with no newline up to the end: none to skip.
                None if k.open.is_some_and(|o| o.0 == from && o.1 >= len) => return None,
                None => drop(k),
            }
            let end = starts.iter().copied().find(|&s| s > from).unwrap_or(len).min(len);
            match nav::skip_within(text, from..end, n, &mut |s, next| self.note(s, next)) {
                Ok(at) => return Some(at),
                Err(_) if end == len => return None,
                Err(counted) => (from, n) = (end, n - counted),
            }
        }
        Some(from)
    }

    /// Where the line `n` lines before the one starting at `at` starts,
    /// stepping back over remembered long lines without reading them
    /// again, and remembering those it reads over.
    pub fn back(&self, text: &dyn Text, mut at: u64, mut n: u64) -> u64 {
        // Where remembered lines end: a walk back stops there and steps over.
        let mut nexts: Vec<u64> = self.known().ends.iter().map(|e| e.1).collect();
        nexts.sort_unstable();
        while n > 0 {
            let before = self.known().ends.iter().find(|e| e.1 == at).map(|e| e.0);
            if let Some(start) = before {
                (at, n) = (start, n - 1);
                continue;
            }
            let (mut crossed, mut stop) = (0, false);
            let start = nav::lines_back(text, at, n, &mut |s, next| {
                self.note(s, next);
                crossed += 1;
                stop = crossed < n && nexts.binary_search(&s).is_ok();
                !stop
            });
            if !stop {
                return start;
            }
            (at, n) = (start, n - crossed);
        }
        at
    }

    /// Remembers the end of the line from `start` to `next` if it is long
    /// (a move read over it: the screen need not look for its end again).
    fn note(&self, start: u64, next: u64) {
        if next - start >= LONG {
            self.put(start, next);
            self.found.fetch_add(1, Ordering::Release);
        }
    }

    /// Forgets every line (the text was truncated or replaced); threads
    /// looking for ends stop.
    pub fn clear(&self) {
        let mut k = self.known();
        k.ends.clear();
        k.open = None;
        k.epoch += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::text::Memory;
    use std::time::{Duration, Instant};

    fn wait_found(ends: &LineEnds, n: u64) {
        let t = Instant::now();
        while ends.found() < n {
            assert!(t.elapsed() < Duration::from_secs(10), "no end found");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn a_thread_finds_ends_once() {
        let mut data = vec![b'a'; 3 << 20];
        data.extend_from_slice(b"\nnext\n");
        data.extend(std::iter::repeat_n(b'b', 2 << 20));
        let text: Arc<dyn Text> = Arc::new(Memory(data));
        let len = text.len();
        let ends = Arc::new(LineEnds::default());
        assert_eq!(ends.get(0, len), None);
        ends.look_for(&text, 0, 1000);
        ends.look_for(&text, 0, 1000);
        wait_found(&ends, 1);
        assert_eq!(ends.get(0, len), Some(End::Next((3 << 20) + 1)));
        assert!(!ends.looking());
        // The last line, without a newline: known to run to the end.
        let last = (3 << 20) + 6;
        ends.look_for(&text, last, last);
        wait_found(&ends, 2);
        assert_eq!(ends.get(last, len), Some(End::Last));
        assert_eq!(ends.get(last, len + 1), None, "grown: look again");
        assert_eq!(ends.skip(&*text, 0, 1), Some((3 << 20) + 1));
        assert_eq!(ends.skip(&*text, 0, 2), Some(last));
        assert_eq!(ends.skip(&*text, last, 1), None);
        assert_eq!(ends.back(&*text, (3 << 20) + 1, 1), 0);
        ends.clear();
        assert_eq!(ends.get(0, len), None);
    }
}
