//! Where the matches of a pattern are, across the whole text: candidate
//! ranges first (from the index), then matching lines counted in the
//! background, in text order, as they are verified. The picture's cells
//! are also places to go: the first match of the next, previous or
//! densest marked cell ([`Density::target`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::finder::Finder;
use super::keys::Region;
use super::text::Text;

/// The text is cut into this many equal parts.
pub const BUCKETS: usize = 1024;

/// The density of one pattern's matches.
pub struct Density {
    finder: Arc<Finder>,
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
    /// Per bucket, where its first match starts (`u64::MAX`: none yet).
    first: Vec<u64>,
    /// Per bucket, where its first candidate range starts (`u64::MAX`: none).
    first_candidate: Vec<u64>,
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
        let state = State {
            len,
            candidates: vec![0; BUCKETS],
            matches: vec![0; BUCKETS],
            first: vec![u64::MAX; BUCKETS],
            first_candidate: vec![u64::MAX; BUCKETS],
            verified: 0,
        };
        let density = Arc::new(Density {
            finder: Arc::clone(&finder),
            state: Mutex::new(state),
            stop: AtomicBool::new(false),
        });
        let d = Arc::clone(&density);
        std::thread::spawn(move || {
            // A merge's ranges are placed here, off the UI thread.
            if let Some(ranges) = finder.few_ranges(&*text) {
                let mut s = d.lock();
                for r in &ranges {
                    let b = bucket(r.start, len);
                    s.candidates[b] += r.end - r.start;
                    s.first_candidate[b] = s.first_candidate[b].min(r.start);
                }
            }
            for r in finder.ranges(&*text, 0) {
                let mut hits = Vec::new();
                finder.each_line(&*text, r.clone(), &mut |at| hits.push(at), &mut || {
                    !d.stop.load(Ordering::Relaxed)
                });
                let mut s = d.lock();
                for at in hits {
                    let b = bucket(at, len);
                    s.matches[b] += 1;
                    s.first[b] = s.first[b].min(at);
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

    /// The pattern counted.
    pub fn finder(&self) -> &Arc<Finder> {
        &self.finder
    }

    /// The picture in `rows` rows, the first row the start of the text.
    pub fn cells(&self, rows: usize) -> Vec<Cell> {
        self.rows(rows).into_iter().map(|r| r.0).collect()
    }

    /// Where to go from `from` for `to` on a picture of `rows` rows: the
    /// first match of the first marked row starting after `from`, of the
    /// last one before it, or of the row with the most matches (a row
    /// not verified yet: its first candidate block; without an index, a
    /// row not counted yet is not a place to go).
    pub fn target(&self, rows: usize, from: u64, to: Region) -> Option<u64> {
        let rows = self.rows(rows);
        match to {
            Region::Next => rows.iter().find_map(|r| r.1.filter(|&at| at > from)),
            Region::Previous => rows.iter().rev().find_map(|r| r.1.filter(|&at| at < from)),
            Region::Densest => {
                let hits = |c: &Cell| if let Cell::Hits(n, _) = c { *n } else { 0 };
                let most = rows.iter().map(|r| hits(&r.0)).max().filter(|&n| n > 0)?;
                rows.iter().find(|r| hits(&r.0) == most).and_then(|r| r.1)
            }
        }
    }

    /// Each row's cell, and where its first match (or candidate) starts.
    fn rows(&self, rows: usize) -> Vec<(Cell, Option<u64>)> {
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
        let indexed = s.candidates.iter().any(|&c| c > 0);
        let first = |v: &[u64]| v.iter().copied().min().filter(|&at| at != u64::MAX);
        sums.into_iter()
            .enumerate()
            .map(|(r, (hits, maybe, verified))| {
                let b = span(r);
                match (hits, verified) {
                    (0, true) => (Cell::Empty, None),
                    (0, false) if maybe == 0 && indexed => (Cell::Empty, None),
                    (0, false) => (Cell::Maybe, first(&s.first_candidate[b])),
                    (n, _) => (Cell::Hits(n, most), first(&s.first[b])),
                }
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
    use crate::view::text::Memory;
    use trigrep::options::Case;

    #[test]
    fn matches_land_in_their_rows_and_rows_are_places_to_go() {
        // Two clusters: 10 lines at 10 %, 20 lines at 95 %.
        let error = |i| (1_000..1_010).contains(&i) || (9_500..9_520).contains(&i);
        let mut data = Vec::new();
        for i in 0..10_000 {
            let word = if error(i) { "ERROR" } else { "ok" };
            data.extend_from_slice(format!("{i:05} {word}\n").as_bytes());
        }
        let text: Arc<dyn Text> = Arc::new(Memory(data));
        let finder = Arc::new(Finder::new(&*text, "ERROR", Case::Sensitive).unwrap());
        let d = Density::start(text, finder);
        while !d.done() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let cells = d.cells(10);
        let hits: u64 = cells.iter().map(|c| if let Cell::Hits(n, _) = c { *n } else { 0 }).sum();
        assert_eq!(hits, 30);
        let marked: Vec<usize> = (0..10).filter(|&r| cells[r] != Cell::Empty).collect();
        assert_eq!(marked, vec![1, 9], "{cells:?}");
        // A line is 9 bytes (12 with ERROR); the match starts 6 bytes in.
        let (a, b) = (1_000 * 9 + 6, 9_500 * 9 + 10 * 3 + 6);
        assert_eq!(d.target(10, 0, Region::Next), Some(a));
        assert_eq!(d.target(10, a, Region::Next), Some(b));
        assert_eq!(d.target(10, b, Region::Next), None);
        assert_eq!(d.target(10, u64::MAX, Region::Previous), Some(b));
        assert_eq!(d.target(10, b, Region::Previous), Some(a));
        assert_eq!(d.target(10, a, Region::Previous), None);
        assert_eq!(d.target(10, 0, Region::Densest), Some(b));
    }
}
