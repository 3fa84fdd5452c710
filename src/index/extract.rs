//! Fast extraction of a document's distinct trigrams.
//!
//! [`TrigramSet`] is a reusable 2 MiB bitmap over all 2^24 trigrams plus a
//! list of the trigrams seen, so collecting a document's distinct trigrams
//! costs one bit test per byte and a sort of the distinct ones only, and
//! clearing costs one bit per distinct trigram. One set per thread.
//!
//! ```
//! use trigrep::index::extract::TrigramSet;
//! use trigrep::index::trigram::pack;
//! let mut set = TrigramSet::new();
//! set.add_bytes(b"abcabc");
//! assert_eq!(set.take_sorted(), vec![pack(*b"abc"), pack(*b"bca"), pack(*b"cab")]);
//! ```

use super::trigram::{Trigram, for_each_trigram};

/// A set of trigrams that is cheap to fill, read in order and reuse.
pub struct TrigramSet {
    bits: Vec<u64>,
    seen: Vec<Trigram>,
}

impl Default for TrigramSet {
    fn default() -> Self {
        Self::new()
    }
}

impl TrigramSet {
    /// An empty set (allocates the 2 MiB bitmap).
    pub fn new() -> TrigramSet {
        TrigramSet { bits: vec![0; (1 << 24) / 64], seen: Vec::new() }
    }

    /// Adds every trigram of `bytes` (trigrams spanning two calls are not added).
    pub fn add_bytes(&mut self, bytes: &[u8]) {
        let (bits, seen) = (&mut self.bits, &mut self.seen);
        for_each_trigram(bytes, |t| {
            let (word, bit) = ((t >> 6) as usize, 1u64 << (t & 63));
            if bits[word] & bit == 0 {
                bits[word] |= bit;
                seen.push(t);
            }
        });
    }

    /// The number of distinct trigrams added since the last take.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether no trigram was added since the last take.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// Returns the distinct trigrams in ascending order and empties the set.
    pub fn take_sorted(&mut self) -> Vec<Trigram> {
        for &t in &self.seen {
            self.bits[(t >> 6) as usize] = 0;
        }
        let mut out = std::mem::take(&mut self.seen);
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::trigram::trigrams;

    #[test]
    fn matches_the_naive_set_and_resets() {
        let mut set = TrigramSet::new();
        for text in [&b"Hello, World! hello"[..], b"", b"ab", b"\x00\xff\x00\xff\x00"] {
            set.add_bytes(text);
            assert_eq!(set.take_sorted(), trigrams(text));
            assert!(set.is_empty());
        }
    }
}
