//! Fast extraction of a document's distinct trigrams and their follow masks.
//!
//! [`TrigramSet`] is a reusable table over all 2^24 trigrams, plus a list
//! of the trigrams seen. With follow masks it is 16 MiB, a byte a trigram:
//! a bit saying it was seen and its follow mask (4 bits, see
//! [`follow_bit`]), so collecting a document's trigrams costs one load and
//! one store per byte of text. Without, it is a 2 MiB bitmap of those seen.
//! Taking the set out costs a byte (or a word) per distinct trigram; the
//! trigrams come out in the order first seen, unsorted: the external sort
//! orders pairs by trigram stably, so a document's own order is not needed
//! (sorting each document's trigrams took a quarter of a kernel build's
//! extraction). One set per extraction thread ([`TrigramSet::bytes`], which
//! a build takes out of its memory budget); pages are touched only as
//! trigrams land on them.
//!
//! ```
//! use trigrep::index::extract::TrigramSet;
//! use trigrep::query::trigram::{follow_bit, gram, pack};
//! let mut set = TrigramSet::new(true);
//! set.add_bytes(b"abcabc");
//! let (a, b, c) = (follow_bit(b'a'), follow_bit(b'b'), follow_bit(b'c'));
//! let want = [gram(pack(*b"abc"), a), gram(pack(*b"bca"), b), gram(pack(*b"cab"), c)];
//! let mut got = set.take();
//! got.sort_unstable();
//! assert_eq!(got, want);
//! ```

use crate::query::trigram::{Gram, Trigram, fold, follow_bit, for_each_edge, gram};

/// Words of the bitmap of all trigrams.
const WORDS: usize = (1 << 24) / 64;
/// Trigrams: bytes of the table with follow masks.
const TRIGRAMS: usize = 1 << 24;
/// The bit of a trigram's byte that says it was seen (its low 4 bits are
/// its follow mask).
const SEEN: u8 = 0x80;
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

/// Bytes of text whose trigrams [`TrigramSet::add_bytes`] makes room for
/// at a time.
const PART: usize = 64 << 10;

/// The most trigrams a document's edges add ([`for_each_edge`]).
const EDGE_TRIGRAMS: usize = 16;

/// A set of trigrams and their follow masks that is cheap to fill, read
/// and reuse.
pub struct TrigramSet {
    table: Table,
    seen: Vec<Trigram>,
}

/// Which trigrams a [`TrigramSet`] holds.
enum Table {
    /// A bit per trigram: seen or not (a set without follow masks).
    Seen(Vec<u64>),
    /// A byte per trigram: [`SEEN`] and its follow mask.
    SeenFollowed(Vec<u8>),
}

impl TrigramSet {
    /// The bytes a set's table takes at most, with follow masks or not.
    pub const fn bytes(masks: bool) -> usize {
        if masks { TRIGRAMS } else { TRIGRAMS / 8 }
    }

    /// An empty set (allocates, without touching, its table) that keeps
    /// follow masks or not (its grams then have empty masks).
    pub fn new(masks: bool) -> TrigramSet {
        let table = if masks {
            Table::SeenFollowed(vec![0; TRIGRAMS])
        } else {
            Table::Seen(vec![0; WORDS])
        };
        TrigramSet { table, seen: Vec::new() }
    }

    /// Adds every trigram of `bytes` and the byte after each (trigrams
    /// spanning two calls are not added; the last one's follower is unknown).
    pub fn add_bytes(&mut self, bytes: &[u8]) {
        let [a, b, rest @ ..] = bytes else { return };
        let Some(&last) = rest.last() else { return };
        let seen = &mut self.seen;
        let mut t = (u32::from(FOLD[*a as usize]) << 8) | u32::from(FOLD[*b as usize]);
        let next = |t: Trigram, c: u8| ((t << 8) | u32::from(FOLD[c as usize])) & 0x00ff_ffff;
        // Fixed-size tables: a trigram's index is in bounds by its 24 bits,
        // so the loops below check no bounds.
        match &mut self.table {
            Table::Seen(bits) => {
                let bits: &mut [u64; WORDS] = (&mut bits[..]).try_into().expect("a whole bitmap");
                for &c in rest {
                    t = next(t, c);
                    let (word, bit) = ((t >> 6) as usize, 1u64 << (t & 63));
                    if bits[word] & bit == 0 {
                        bits[word] |= bit;
                        seen.push(t);
                    }
                }
            }
            Table::SeenFollowed(bytes) => {
                let table: &mut [u8; TRIGRAMS] = (&mut bytes[..]).try_into().expect("a table");
                // Each trigram is written past the list's end and kept
                // (counted) only if new: no branch on whether it is new
                // (about one text byte in ten, unpredictably), whose
                // mispredictions stalled the loop (9 % slower on kernel
                // sources). Room is made a part at a time, so a huge text
                // takes no more than its distinct trigrams.
                let mut add_part = |t: &mut Trigram, part: &[u8], after: Option<u8>| {
                    seen.reserve(part.len() + 1);
                    let (len, spare) = (seen.len(), seen.spare_capacity_mut());
                    let mut added = 0;
                    let mut add = |t: Trigram, follow: u8| {
                        let old = table[t as usize];
                        table[t as usize] = old | SEEN | follow;
                        spare[added].write(t);
                        added += usize::from(old == 0);
                    };
                    for pair in part.windows(2) {
                        *t = next(*t, pair[0]);
                        add(*t, FOLLOW[pair[1] as usize]);
                    }
                    if let Some(c) = after {
                        *t = next(*t, c);
                        add(*t, 0);
                    }
                    // SAFETY: `reserve` made room for a slot a trigram
                    // added (`part.len()` at most), and the first `added`
                    // were written (a slot is written before `added`
                    // passes it).
                    unsafe { seen.set_len(len + added) };
                };
                // Parts overlap by a byte: each byte but the last is
                // followed within its part.
                let mut start = 0;
                while start + 1 < rest.len() {
                    let end = (start + PART).min(rest.len() - 1);
                    add_part(&mut t, &rest[start..=end], None);
                    start = end;
                }
                add_part(&mut t, &[], Some(last));
            }
        }
    }

    /// Adds the trigrams of the document `text`: its own and those of its
    /// edges ([`for_each_edge`]).
    ///
    /// Room for every trigram the document can hold is made first, so the
    /// list taken ([`TrigramSet::take`]) takes at most 4 bytes a byte of
    /// text (and 64 for its edges), never twice that by growing.
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

    /// Returns the distinct trigrams, each with its follow mask, in the
    /// order first seen, and empties the set.
    pub fn take(&mut self) -> Vec<Gram> {
        let seen = std::mem::take(&mut self.seen);
        match &mut self.table {
            Table::Seen(bits) => seen
                .into_iter()
                .map(|t| {
                    bits[(t >> 6) as usize] = 0;
                    gram(t, 0)
                })
                .collect(),
            Table::SeenFollowed(table) => seen
                .into_iter()
                .map(|t| gram(t, std::mem::take(&mut table[t as usize]) & 0x0f))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::trigram::grams;

    fn sorted(mut grams: Vec<Gram>) -> Vec<Gram> {
        grams.sort_unstable();
        grams
    }

    #[test]
    fn documents_match_the_naive_set() {
        let mut set = TrigramSet::new(true);
        for text in [&b"Hello\n"[..], b"", b"a", b"ab", b"abc", b"\xEF\xBB\xBFab", b"x\ny"] {
            set.add_document(text);
            assert_eq!(sorted(set.take()), crate::query::trigram::doc_grams(text));
        }
    }

    #[test]
    fn a_text_of_many_parts_matches_the_naive_set() {
        // Past three parts, cut at every byte near a part's edge; random
        // bytes, so that most trigrams occur once and a missed one shows.
        let mut seed = 5u64;
        let text: Vec<u8> = (0..3 * PART + 7)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (seed >> 56) as u8
            })
            .collect();
        let mut set = TrigramSet::new(true);
        for cut in [text.len(), PART + 1, PART + 2, PART + 3, 2 * PART + 2] {
            set.add_bytes(&text[..cut]);
            assert_eq!(sorted(set.take()), grams(&text[..cut]), "cut at {cut}");
        }
    }

    #[test]
    fn matches_the_naive_set_and_resets() {
        let (mut set, mut bare) = (TrigramSet::new(true), TrigramSet::new(false));
        for text in [&b"Hello, World! hello"[..], b"", b"ab", b"\x00\xff\x00\xff\x00"] {
            set.add_bytes(text);
            assert_eq!(sorted(set.take()), grams(text));
            assert!(set.is_empty());
            bare.add_bytes(text);
            let without: Vec<Gram> = grams(text).into_iter().map(|g| g & !0xff).collect();
            assert_eq!(sorted(bare.take()), without);
        }
    }
}
