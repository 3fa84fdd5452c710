//! Trigrams: the unit the index is built on.
//!
//! A trigram is three consecutive bytes of a document, after ASCII case
//! folding ([`fold`]), packed into the low 24 bits of a `u32` ([`pack`]).
//! Folding makes one index serve case-sensitive and case-insensitive
//! queries: the planner folds its required strings the same way, so a
//! document containing a string always contains the folded trigrams of it.
//!
//! A document's trigrams include those of its *edges*: the document is
//! taken to start after a line terminator and to end before one
//! ([`for_each_edge`]), so `^static`, `-w read` and `-x` can require the
//! trigrams around a match even where it starts or ends the document.
//!
//! Each trigram of a text also has a *follow mask*: the follow bits
//! ([`follow_bit`]) of the bytes that follow it there, so an index can
//! tell `abc` followed by `d` from `abc` alone.
//!
//! ```
//! use trigrep::query::trigram::{doc_grams, follow_bit, gram, grams, pack, trigrams};
//! assert_eq!(trigrams(b"Abcd"), vec![pack(*b"abc"), pack(*b"bcd")]);
//! assert_eq!(doc_grams(b"ab").len(), 2, "\\nab and ab\\n");
//! assert_eq!(grams(b"Abcd"), vec![gram(pack(*b"abc"), follow_bit(b'd')), gram(pack(*b"bcd"), 0)]);
//! ```

/// A case-folded trigram packed as `b0 << 16 | b1 << 8 | b2`.
pub type Trigram = u32;

/// Folds one byte: ASCII upper case becomes lower case, every other byte is kept.
#[inline]
pub const fn fold(b: u8) -> u8 {
    b.to_ascii_lowercase()
}

/// The bit (of 4) that byte `b`, folded, sets in the follow mask of the
/// trigram before it: the top two bits of a multiplicative hash, so that
/// the bytes of identifiers and words spread over all four.
#[inline]
pub const fn follow_bit(b: u8) -> u8 {
    1 << ((fold(b) as u32).wrapping_mul(0x9E37_79B1) >> 30)
}

/// Packs three bytes, folding each, into a [`Trigram`].
#[inline]
pub fn pack(t: [u8; 3]) -> Trigram {
    (u32::from(fold(t[0])) << 16) | (u32::from(fold(t[1])) << 8) | u32::from(fold(t[2]))
}

/// Calls `f` with every trigram of `bytes`, in order, repeats included,
/// and the byte after it (`None` for the last).
#[inline]
pub fn for_each_trigram(bytes: &[u8], mut f: impl FnMut(Trigram, Option<u8>)) {
    if bytes.len() < 3 {
        return;
    }
    let mut t = (u32::from(fold(bytes[0])) << 8) | u32::from(fold(bytes[1]));
    for (i, &b) in bytes[2..].iter().enumerate() {
        t = ((t << 8) | u32::from(fold(b))) & 0x00ff_ffff;
        f(t, bytes.get(i + 3).copied());
    }
}

/// A trigram and its follow mask in one document, packed in a `u32` as
/// `trigram << 8 | mask` (half the bytes of a pair: a build holds a batch
/// of documents' grams at once). Sorting grams sorts their trigrams.
pub type Gram = u32;

/// The [`Gram`] of trigram `t` with follow mask `mask`.
#[inline]
pub fn gram(t: Trigram, mask: u8) -> Gram {
    (t << 8) | u32::from(mask)
}

/// The trigram of a [`Gram`].
#[inline]
pub fn gram_trigram(g: Gram) -> Trigram {
    g >> 8
}

/// The follow mask of a [`Gram`].
#[inline]
pub fn gram_mask(g: Gram) -> u8 {
    g as u8
}

/// The line terminator a document is taken to start and end with.
pub(crate) const EDGE: u8 = b'\n';

/// The UTF-8 byte-order mark, which the searcher drops from a file's start.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Calls `f` with the short texts whose trigrams, added to those of
/// `text`, are the trigrams of the document `text`: the ones its edges
/// make when an `EDGE` is put before its start (before, and after, a
/// UTF-8 byte-order mark, which the searcher drops) and after its end
/// (unless it ends with one already).
///
/// Adding trigrams to a document only ever makes it a candidate more
/// often, so edges are sound wherever a document is cut: a block of a
/// huge file, or a binary file's text before its first NUL.
pub fn for_each_edge(text: &[u8], mut f: impl FnMut(&[u8])) {
    let open_end = !text.ends_with(&[EDGE]);
    for t in std::iter::once(text).chain(text.strip_prefix(UTF8_BOM)) {
        let n = t.len().min(3);
        let mut buf = [EDGE; 4];
        buf[1..=n].copy_from_slice(&t[..n]);
        // A one-byte text is its own end too: `\nx\n`.
        let len = if n == 1 && open_end { 3 } else { 1 + n };
        f(&buf[..len]);
    }
    if open_end && text.len() >= 2 {
        let tail = [text[text.len() - 2], text[text.len() - 1], EDGE];
        f(&tail);
    }
}

/// The distinct trigrams of the document `text` (its own and its edges',
/// [`for_each_edge`]), sorted, with their follow masks: what an index
/// holds for it.
pub fn doc_grams(text: &[u8]) -> Vec<Gram> {
    collect_grams(|add| {
        add(text);
        for_each_edge(text, add);
    })
}

/// The distinct trigrams of `bytes`, sorted.
pub fn trigrams(bytes: &[u8]) -> Vec<Trigram> {
    grams(bytes).into_iter().map(gram_trigram).collect()
}

/// The distinct trigrams of `bytes`, sorted, each with its follow mask
/// (the follow bits of every byte after it in `bytes`).
pub fn grams(bytes: &[u8]) -> Vec<Gram> {
    collect_grams(|add| add(bytes))
}

/// The distinct trigrams of every text `feed` passes to its argument,
/// sorted, with their follow masks.
fn collect_grams(feed: impl FnOnce(&mut dyn FnMut(&[u8]))) -> Vec<Gram> {
    let mut all = std::collections::BTreeMap::new();
    feed(&mut |bytes| {
        for_each_trigram(bytes, |t, next| {
            *all.entry(t).or_insert(0) |= next.map_or(0, follow_bit);
        });
    });
    all.into_iter().map(|(t, m)| gram(t, m)).collect()
}
