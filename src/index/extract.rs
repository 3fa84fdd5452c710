//! Fast extraction of a document's distinct trigrams.
//!
//! [`TrigramSet`] is a reusable 16 MiB table of a byte per trigram (a
//! "seen" bit and the trigram's follow mask, see [`follow_bit`]) plus a list
//! of the trigrams seen, so collecting a document's distinct trigrams costs
//! one byte update per byte of text and a sort of the distinct ones only,
//! and clearing costs one byte per distinct trigram. One set per thread;
//! pages of the table are touched only as trigrams land on them.
//!
//! ```
//! use trigrep::index::extract::TrigramSet;
//! use trigrep::index::trigram::{follow_bit, pack};
//! let mut set = TrigramSet::new();
//! set.add_bytes(b"abcabc");
//! let (a, b, c) = (follow_bit(b'a'), follow_bit(b'b'), follow_bit(b'c'));
//! assert_eq!(set.take_sorted(), vec![(pack(*b"abc"), a), (pack(*b"bca"), b), (pack(*b"cab"), c)]);
//! ```

use super::trigram::{Trigram, follow_bit, for_each_trigram};

/// The bit of a [`TrigramSet`] entry saying the trigram was seen (the
/// follow masks use the low four).
const SEEN: u8 = 0x80;

/// A set of trigrams and their follow masks that is cheap to fill, read in
/// order and reuse.
pub struct TrigramSet {
    marks: Vec<u8>,
    seen: Vec<Trigram>,
}

impl Default for TrigramSet {
    fn default() -> Self {
        Self::new()
    }
}

impl TrigramSet {
    /// An empty set (allocates, without touching, the 16 MiB table).
    pub fn new() -> TrigramSet {
        TrigramSet { marks: vec![0; 1 << 24], seen: Vec::new() }
    }

    /// Adds every trigram of `bytes` and the byte after each (trigrams
    /// spanning two calls are not added; the last one's follower is unknown).
    pub fn add_bytes(&mut self, bytes: &[u8]) {
        let (marks, seen) = (&mut self.marks, &mut self.seen);
        for_each_trigram(bytes, |t, next| {
            let m = &mut marks[t as usize];
            if *m == 0 {
                seen.push(t);
            }
            *m |= SEEN | next.map_or(0, follow_bit);
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

    /// Returns the distinct trigrams in ascending order, each with its
    /// follow mask, and empties the set.
    pub fn take_sorted(&mut self) -> Vec<(Trigram, u8)> {
        let mut seen = std::mem::take(&mut self.seen);
        seen.sort_unstable();
        seen.iter().map(|&t| (t, std::mem::take(&mut self.marks[t as usize]) & !SEEN)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::trigram::grams;

    #[test]
    fn matches_the_naive_set_and_resets() {
        let mut set = TrigramSet::new();
        for text in [&b"Hello, World! hello"[..], b"", b"ab", b"\x00\xff\x00\xff\x00"] {
            set.add_bytes(text);
            assert_eq!(set.take_sorted(), grams(text));
            assert!(set.is_empty());
        }
    }
}
