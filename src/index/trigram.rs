//! Trigrams: the unit the index is built on.
//!
//! A trigram is three consecutive bytes of a document, after ASCII case
//! folding ([`fold`]), packed into the low 24 bits of a `u32` ([`pack`]).
//! Folding makes one index serve case-sensitive and case-insensitive
//! queries: the planner folds its required strings the same way, so a
//! document containing a string always contains the folded trigrams of it.
//!
//! ```
//! use trigrep::index::trigram::{pack, trigrams};
//! let mut seen = trigrams(b"Abcd");
//! seen.sort();
//! assert_eq!(seen, vec![pack(*b"abc"), pack(*b"bcd")]);
//! ```

/// A case-folded trigram packed as `b0 << 16 | b1 << 8 | b2`.
pub type Trigram = u32;

/// Folds one byte: ASCII upper case becomes lower case, every other byte is kept.
#[inline]
pub fn fold(b: u8) -> u8 {
    b.to_ascii_lowercase()
}

/// Packs three bytes, folding each, into a [`Trigram`].
#[inline]
pub fn pack(t: [u8; 3]) -> Trigram {
    (u32::from(fold(t[0])) << 16) | (u32::from(fold(t[1])) << 8) | u32::from(fold(t[2]))
}

/// Calls `f` with every trigram of `bytes`, in order, repeats included.
#[inline]
pub fn for_each_trigram(bytes: &[u8], mut f: impl FnMut(Trigram)) {
    if bytes.len() < 3 {
        return;
    }
    let mut t = (u32::from(fold(bytes[0])) << 8) | u32::from(fold(bytes[1]));
    for &b in &bytes[2..] {
        t = ((t << 8) | u32::from(fold(b))) & 0x00ff_ffff;
        f(t);
    }
}

/// The distinct trigrams of `bytes`, in no particular order.
pub fn trigrams(bytes: &[u8]) -> Vec<Trigram> {
    let mut out = Vec::new();
    for_each_trigram(bytes, |t| out.push(t));
    out.sort_unstable();
    out.dedup();
    out
}
