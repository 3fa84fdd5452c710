//! Fast extraction of a document's distinct trigrams and their follow masks.
//!
//! [`TrigramSet`] is a reusable table over all 2^24 trigrams: a 2 MiB
//! bitmap of those seen and 8 MiB of follow masks, 4 bits each (see
//! [`follow_bit`]), plus a list of the trigrams seen, so collecting a
//! document's distinct trigrams costs one bit test and one mask update per
//! byte of text and a sort of the distinct ones only, and clearing costs a
//! word and half a byte per distinct trigram. One set per extraction
//! thread ([`TrigramSet::bytes`], which a build takes out of its memory
//! budget); pages are touched only as trigrams land on them. An index
//! written without follow masks extracts without them: the bitmap alone.
//!
//! ```
//! use trigrep::index::extract::TrigramSet;
//! use trigrep::query::trigram::{follow_bit, gram, pack};
//! let mut set = TrigramSet::new(true);
//! set.add_bytes(b"abcabc");
//! let (a, b, c) = (follow_bit(b'a'), follow_bit(b'b'), follow_bit(b'c'));
//! let want = [gram(pack(*b"abc"), a), gram(pack(*b"bca"), b), gram(pack(*b"cab"), c)];
//! assert_eq!(set.take_sorted(), want);
//! ```

use crate::query::trigram::{Gram, Trigram, fold, follow_bit, for_each_edge, gram};

/// Words of the bitmap of all trigrams.
const WORDS: usize = (1 << 24) / 64;
/// Bytes of the follow masks of all trigrams, two to a byte.
const MASK_BYTES: usize = 1 << 23;
/// Each byte folded ([`fold`]), looked up.
const FOLD: [u8; 256] = {
    let mut out = [0; 256];
    let mut b = 0;
    while b < 256 {
        out[b] = fold(b as u8);
        b += 1;
    }
    out
};
/// Each byte's follow bit ([`follow_bit`]), looked up.
const FOLLOW: [u8; 256] = {
    let mut out = [0; 256];
    let mut b = 0;
    while b < 256 {
        out[b] = follow_bit(b as u8);
        b += 1;
    }
    out
};

/// The most trigrams a document's edges add ([`for_each_edge`]).
const EDGE_TRIGRAMS: usize = 16;

/// A set of trigrams and their follow masks that is cheap to fill, read in
/// order and reuse.
pub struct TrigramSet {
    bits: Vec<u64>,
    masks: Vec<u8>,
    seen: Vec<Trigram>,
}

impl TrigramSet {
    /// The bytes a set's tables take at most: the bitmap, and the masks
    /// when it keeps them.
    pub const fn bytes(masks: bool) -> usize {
        (1 << 24) / 8 + if masks { (1 << 24) / 2 } else { 0 }
    }

    /// An empty set (allocates, without touching, its tables) that keeps
    /// follow masks or not (its grams then have empty masks).
    pub fn new(masks: bool) -> TrigramSet {
        let masks = if masks { vec![0; MASK_BYTES] } else { Vec::new() };
        TrigramSet { bits: vec![0; WORDS], masks, seen: Vec::new() }
    }

    /// Adds every trigram of `bytes` and the byte after each (trigrams
    /// spanning two calls are not added; the last one's follower is unknown).
    pub fn add_bytes(&mut self, bytes: &[u8]) {
        let [a, b, rest @ ..] = bytes else { return };
        let Some(&last) = rest.last() else { return };
        // Fixed-size tables: a trigram's index is in bounds by its 24 bits,
        // so the loop below checks no bounds.
        let bits: &mut [u64; WORDS] = (&mut self.bits[..]).try_into().expect("a whole bitmap");
        let seen = &mut self.seen;
        let mut add = |t: Trigram| {
            let (word, bit) = ((t >> 6) as usize, 1u64 << (t & 63));
            if bits[word] & bit == 0 {
                bits[word] |= bit;
                seen.push(t);
            }
        };
        let mut t = (u32::from(FOLD[*a as usize]) << 8) | u32::from(FOLD[*b as usize]);
        let next = |t: Trigram, c: u8| ((t << 8) | u32::from(FOLD[c as usize])) & 0x00ff_ffff;
        if self.masks.is_empty() {
            for &c in rest {
                t = next(t, c);
                add(t);
            }
            return;
        }
        let masks: &mut [u8; MASK_BYTES] = (&mut self.masks[..]).try_into().expect("whole masks");
        for pair in rest.windows(2) {
            t = next(t, pair[0]);
            add(t);
            masks[(t >> 1) as usize] |= FOLLOW[pair[1] as usize] << (4 * (t & 1));
        }
        add(next(t, last));
    }

    /// Adds the trigrams of the document `text`: its own and those of its
    /// edges ([`for_each_edge`]).
    ///
    /// Room for every trigram the document can hold is made first, so the
    /// list taken ([`TrigramSet::take_sorted`]) takes at most 4 bytes a
    /// byte of text (and 64 for its edges), never twice that by growing.
    pub fn add_document(&mut self, text: &[u8]) {
        let most = (text.len() + EDGE_TRIGRAMS).min(1 << 24);
        self.seen.reserve_exact(most.saturating_sub(self.seen.len()));
        self.add_bytes(text);
        for_each_edge(text, |edge| self.add_bytes(edge));
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
    pub fn take_sorted(&mut self) -> Vec<Gram> {
        let mut seen = std::mem::take(&mut self.seen);
        seen.sort_unstable();
        let take = |t: Trigram| {
            self.bits[(t >> 6) as usize] = 0;
            let Some(byte) = self.masks.get_mut((t >> 1) as usize) else { return gram(t, 0) };
            let shift = 4 * (t & 1);
            let mask = (*byte >> shift) & 0x0f;
            *byte &= !(0x0f << shift);
            gram(t, mask)
        };
        seen.into_iter().map(take).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::trigram::grams;

    #[test]
    fn documents_match_the_naive_set() {
        let mut set = TrigramSet::new(true);
        for text in [&b"Hello\n"[..], b"", b"a", b"ab", b"abc", b"\xEF\xBB\xBFab", b"x\ny"] {
            set.add_document(text);
            assert_eq!(set.take_sorted(), crate::query::trigram::doc_grams(text));
        }
    }

    #[test]
    fn matches_the_naive_set_and_resets() {
        let (mut set, mut bare) = (TrigramSet::new(true), TrigramSet::new(false));
        for text in [&b"Hello, World! hello"[..], b"", b"ab", b"\x00\xff\x00\xff\x00"] {
            set.add_bytes(text);
            assert_eq!(set.take_sorted(), grams(text));
            assert!(set.is_empty());
            bare.add_bytes(text);
            let without: Vec<Gram> = grams(text).into_iter().map(|g| g & !0xff).collect();
            assert_eq!(bare.take_sorted(), without);
        }
    }
}
