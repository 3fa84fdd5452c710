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

use crate::query::trigram::{Gram, Trigram, follow_bit, for_each_edge, gram};

/// Words of the bitmap of all trigrams.
const WORDS: usize = (1 << 24) / 64;
/// Trigrams: bytes of the table with follow masks.
const TRIGRAMS: usize = 1 << 24;
/// The bit of a trigram's byte that says it was seen (its low 4 bits are
/// its follow mask).
const SEEN: u8 = 0x80;
/// Each byte's follow bit ([`follow_bit`]) and [`SEEN`]: what the byte
/// after a trigram sets in the trigram's table byte.
const FOLLOW_SEEN: [u8; 256] = {
    let mut out = [0; 256];
    let mut b = 0;
    while b < 256 {
        out[b] = SEEN | follow_bit(b as u8);
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
    /// The keys ([`key`]) of the trigrams added, in the order first seen.
    seen: Vec<u32>,
    /// The part of the text being added, folded ([`fold_into`]).
    folded: Vec<u8>,
}

/// A trigram's key: its bytes, folded, in the order a little-endian load
/// of them gives (the first byte lowest), which indexes the tables.
fn key(t: [u8; 3]) -> u32 {
    u32::from(t[0]) | (u32::from(t[1]) << 8) | (u32::from(t[2]) << 16)
}

/// The trigram of a key.
fn trigram(k: u32) -> Trigram {
    ((k & 0xff) << 16) | (k & 0xff00) | (k >> 16)
}

/// Replaces `out` with `bytes` folded, as
/// [`fold`](crate::query::trigram::fold) does, in a loop the compiler
/// vectorizes.
fn fold_into(out: &mut Vec<u8>, bytes: &[u8]) {
    out.clear();
    out.extend(bytes.iter().map(|&b| b | (u8::from(b.wrapping_sub(b'A') < 26) << 5)));
}

/// Which trigrams a [`TrigramSet`] holds.
enum Table {
    /// A bit per trigram: seen or not (a set without follow masks).
    Seen(Vec<u64>),
    /// A byte per trigram: [`SEEN`] and its follow mask.
    SeenFollowed(Vec<u8>),
}

impl TrigramSet {
    /// The bytes a set's table and folding buffer take at most, with
    /// follow masks or not.
    pub const fn bytes(masks: bool) -> usize {
        let table = if masks { TRIGRAMS } else { TRIGRAMS / 8 };
        table + PART + 3
    }

    /// An empty set (allocates, without touching, its table) that keeps
    /// follow masks or not (its grams then have empty masks).
    pub fn new(masks: bool) -> TrigramSet {
        let table = if masks {
            Table::SeenFollowed(vec![0; TRIGRAMS])
        } else {
            Table::Seen(vec![0; WORDS])
        };
        TrigramSet { table, seen: Vec::new(), folded: Vec::new() }
    }

    /// Adds every trigram of `bytes` and the byte after each (trigrams
    /// spanning two calls are not added; the last one's follower is unknown).
    ///
    /// The text is folded a part at a time into a buffer (a loop the
    /// compiler vectorizes), so that one 4-byte load gives a trigram and
    /// its follower; the table is indexed by the trigram's bytes in load
    /// order and [`TrigramSet::take`] turns them back.
    pub fn add_bytes(&mut self, bytes: &[u8]) {
        if bytes.len() < 3 {
            return;
        }
        // Parts overlap by three bytes: a trigram and its follower lie
        // within one part; the text's last trigram has none.
        let mut start = 0;
        loop {
            let end = (start + PART + 3).min(bytes.len());
            fold_into(&mut self.folded, &bytes[start..end]);
            self.add_folded();
            if end == bytes.len() {
                let n = self.folded.len();
                self.add_last(key([self.folded[n - 3], self.folded[n - 2], self.folded[n - 1]]));
                return;
            }
            start = end - 3;
        }
    }

    /// Adds the trigrams of the folded buffer that have a byte after them,
    /// each with its follow bit.
    fn add_folded(&mut self) {
        let Self { table, seen, folded } = self;
        let windows = folded.len().saturating_sub(3);
        seen.reserve(windows);
        let (len, spare) = (seen.len(), &mut seen.spare_capacity_mut()[..windows]);
        // Each trigram is written past the list's end and kept (counted)
        // only if new: no branch on whether it is new (about one text byte
        // in ten, unpredictably), whose mispredictions stalled the loop (9 %
        // slower on kernel sources).
        let mut added = 0;
        let mut add = |k: u32, new: bool| {
            // SAFETY: `added` counts the new trigrams among those before
            // this one, so it is below `windows`, the spare slice's length.
            unsafe { spare.get_unchecked_mut(added) }.write(k);
            added += usize::from(new);
        };
        // Fixed-size tables: a key is in bounds by its 24 bits, so the
        // loops check no bounds.
        match table {
            Table::Seen(bits) => {
                let bits: &mut [u64; WORDS] = (&mut bits[..]).try_into().expect("a whole bitmap");
                for w in folded.windows(4) {
                    let k = u32::from_le_bytes(w.try_into().expect("four bytes")) & 0x00ff_ffff;
                    let (word, bit) = ((k >> 6) as usize, 1u64 << (k & 63));
                    let old = bits[word];
                    bits[word] = old | bit;
                    add(k, old & bit == 0);
                }
            }
            Table::SeenFollowed(bytes) => {
                let table: &mut [u8; TRIGRAMS] = (&mut bytes[..]).try_into().expect("a table");
                for w in folded.windows(4) {
                    let x = u32::from_le_bytes(w.try_into().expect("four bytes"));
                    let k = x & 0x00ff_ffff;
                    let old = table[k as usize];
                    table[k as usize] = old | FOLLOW_SEEN[(x >> 24) as usize];
                    add(k, old == 0);
                }
            }
        }
        // SAFETY: the first `added` spare slots were written.
        unsafe { seen.set_len(len + added) };
    }

    /// Adds the text's last trigram, whose follower is unknown, by its key.
    fn add_last(&mut self, k: u32) {
        let new = match &mut self.table {
            Table::Seen(bits) => {
                let (word, bit) = ((k >> 6) as usize, 1u64 << (k & 63));
                let old = bits[word];
                bits[word] = old | bit;
                old & bit == 0
            }
            Table::SeenFollowed(table) => {
                let old = table[k as usize];
                table[k as usize] = old | SEEN;
                old == 0
            }
        };
        if new {
            self.seen.push(k);
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
                .map(|k| {
                    bits[(k >> 6) as usize] = 0;
                    gram(trigram(k), 0)
                })
                .collect(),
            Table::SeenFollowed(table) => seen
                .into_iter()
                .map(|k| gram(trigram(k), std::mem::take(&mut table[k as usize]) & 0x0f))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::trigram::{grams, pack};

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
        for cut in [text.len(), PART + 1, PART + 2, PART + 3, PART + 4, PART + 5, 2 * PART + 2] {
            set.add_bytes(&text[..cut]);
            assert_eq!(sorted(set.take()), grams(&text[..cut]), "cut at {cut}");
        }
    }

    #[test]
    fn the_folding_loop_folds_each_byte_and_keys_turn_back_into_trigrams() {
        let all: Vec<u8> = (0..=255).collect();
        let mut folded = Vec::new();
        fold_into(&mut folded, &all);
        let want: Vec<u8> = all.iter().map(|&b| crate::query::trigram::fold(b)).collect();
        assert_eq!(folded, want);
        let t = [b'x', b'Y', 0xe9];
        assert_eq!(trigram(key(t.map(crate::query::trigram::fold))), pack(t));
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
