//! Where the matches of a pattern are, across the whole text: candidate
//! ranges at once (from the index), then matching lines counted in the
//! background, in text order, as they are verified.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::search::Finder;
use super::text::Text;

/// The text is cut into this many equal parts.
pub const BUCKETS: usize = 1024;

/// The density of one pattern's matches.
pub struct Density {
    state: Mutex<State>,
    stop: AtomicBool,
}

#[derive(Clone, Default)]
struct State {
    /// The text's length when counting started.
    len: u64,
    /// Candidate bytes per bucket.
    candidates: Vec<u64>,
    /// Matching lines per bucket, counted up to `verified`.
    matches: Vec<u64>,
    /// Everything before this offset is counted.
    verified: u64,
}

/// One row of the picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// No match here.
    Empty,
    /// Candidates not verified yet.
    Maybe,
    /// This many matching lines, out of the most any row holds.
    Hits(u64, u64),
}

impl Density {
    /// Starts counting `finder`'s matches in `text` on a thread of its own.
    pub fn start(text: Arc<dyn Text>, finder: Arc<Finder>) -> Arc<Density> {
        let len = text.len();
        let mut state =
            State { len, candidates: vec![0; BUCKETS], matches: vec![0; BUCKETS], verified: 0 };
        let ranges = finder.ranges(0, len);
        if finder.indexed() {
            for r in &ranges {
                state.candidates[bucket(r.start, len)] += r.end - r.start;
            }
        }
        let density = Arc::new(Density { state: Mutex::new(state), stop: AtomicBool::new(false) });
        let d = Arc::clone(&density);
        std::thread::spawn(move || {
            for r in ranges {
                let mut hits = Vec::new();
                finder.each_line(&*text, r.clone(), &mut |at| hits.push(at), &mut || {
                    !d.stop.load(Ordering::Relaxed)
                });
                let mut s = d.lock();
                for at in hits {
                    s.matches[bucket(at, len)] += 1;
                }
                s.verified = r.end;
                if d.stop.load(Ordering::Relaxed) {
                    return;
                }
            }
            d.lock().verified = len;
        });
        density
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops the counting thread.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether every match is counted.
    pub fn done(&self) -> bool {
        let s = self.lock();
        s.verified >= s.len
    }

    /// The picture in `rows` rows, the first row the start of the text.
    pub fn cells(&self, rows: usize) -> Vec<Cell> {
        let s = self.lock().clone();
        let rows = rows.max(1);
        let span =
            |r: usize| (r * BUCKETS / rows)..((r + 1) * BUCKETS / rows).max(r * BUCKETS / rows + 1);
        let sums: Vec<(u64, u64, bool)> = (0..rows)
            .map(|r| {
                let b = span(r);
                let end = (b.end as u64).saturating_mul(s.len) / BUCKETS as u64;
                let hits = s.matches[b.clone()].iter().sum();
                let maybe = s.candidates[b].iter().sum();
                (hits, maybe, end <= s.verified)
            })
            .collect();
        let most = sums.iter().map(|x| x.0).max().unwrap_or(0);
        sums.into_iter()
            .map(|(hits, maybe, verified)| match (hits, verified) {
                (0, true) => Cell::Empty,
                (0, false) if maybe == 0 && s.candidates.iter().any(|&c| c > 0) => Cell::Empty,
                (0, false) => Cell::Maybe,
                (n, _) => Cell::Hits(n, most),
            })
            .collect()
    }
}

/// The bucket of `offset` in a text of `len` bytes.
fn bucket(offset: u64, len: u64) -> usize {
    if len == 0 {
        return 0;
    }
    ((u128::from(offset) * BUCKETS as u128 / u128::from(len)) as usize).min(BUCKETS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::view::text::Memory;
    use trigrep::options::Case;

    #[test]
    fn matches_land_in_their_rows() {
        let mut data = Vec::new();
        for i in 0..10_000 {
            let word = if (9_000..9_100).contains(&i) { "ERROR" } else { "ok" };
            data.extend_from_slice(format!("{i} {word}\n").as_bytes());
        }
        let text: Arc<dyn Text> = Arc::new(Memory(data));
        let finder = Arc::new(Finder::new(&*text, "ERROR", Case::Sensitive).unwrap());
        let d = Density::start(text, finder);
        while !d.done() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let cells = d.cells(10);
        let hits: u64 = cells.iter().map(|c| if let Cell::Hits(n, _) = c { *n } else { 0 }).sum();
        assert_eq!(hits, 100);
        assert!(cells[..8].iter().all(|c| *c == Cell::Empty), "{cells:?}");
    }
}
