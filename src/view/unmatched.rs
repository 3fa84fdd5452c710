//! Which of a [`super::finder::Finder`]'s candidate ranges a scan read
//! whole and found no matching line in: later scans of the same pattern
//! (`n`, the density count, the histogram `H`, a filtered screen) skip
//! them. A search through the index reads most candidate blocks to find
//! nothing in them; remembering that costs a bit a range.
//!
//! Only a scan that read a range from its start to its end, without a
//! stop or a refused read, marks it; a range's bytes never change while
//! its index is trusted (an appended tail is a range of its own, fixed
//! when the pattern was planned).

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// A bit per candidate range: set when the range holds no matching line.
pub struct Unmatched {
    bits: Vec<AtomicU64>,
}

impl Unmatched {
    /// No range known yet, for `n` ranges.
    pub fn new(n: usize) -> Unmatched {
        Unmatched { bits: (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect() }
    }

    /// Whether range `i` is known to hold no matching line.
    pub fn has(&self, i: usize) -> bool {
        self.bits.get(i / 64).is_some_and(|w| w.load(Ordering::Relaxed) >> (i % 64) & 1 == 1)
    }

    /// Marks `r` as holding no matching line, if it is one of `ranges`
    /// (sorted, disjoint) exactly.
    pub fn mark(&self, ranges: &[Range<u64>], r: &Range<u64>) {
        let i = ranges.partition_point(|x| x.start < r.start);
        if ranges.get(i) == Some(r)
            && let Some(w) = self.bits.get(i / 64)
        {
            w.fetch_or(1 << (i % 64), Ordering::Relaxed);
        }
    }

    /// The first index from `i` on not known to hold no matching line.
    pub fn skip_forward(&self, mut i: usize) -> usize {
        while self.has(i) {
            i += 1;
        }
        i
    }

    /// The last index below `end` not known to hold no matching line.
    pub fn skip_back(&self, end: usize) -> Option<usize> {
        (0..end).rev().find(|&i| !self.has(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_only_listed_ranges_and_skips_them() {
        let ranges = vec![0..10, 20..30, 30..45, 70..80];
        let u = Unmatched::new(ranges.len());
        u.mark(&ranges, &(20..29));
        u.mark(&ranges, &(0..80));
        assert!(!(0..4).any(|i| u.has(i)), "no range marked by a range not listed");
        u.mark(&ranges, &(20..30));
        u.mark(&ranges, &(30..45));
        assert_eq!(u.skip_forward(0), 0);
        assert_eq!(u.skip_forward(1), 3);
        assert_eq!(u.skip_back(3), Some(0));
        assert_eq!(u.skip_back(4), Some(3));
        assert!(!u.has(4) && !u.has(1000));
    }
}
