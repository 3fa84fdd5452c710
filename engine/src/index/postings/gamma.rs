//! Exp-Golomb codes of order `k` for the gaps of a posting list: a list
//! of documents in path order comes in clusters (a directory's files
//! share words), and an exp-Golomb code spends `k + 1` bits on a small
//! gap and about `2 log2(gap) - k` on a large one, so per list the best
//! `k` costs a third less than LEB128 varints on a source tree.
//!
//! A list `d0 < d1 < ...` is coded as the values `d0`, `d1 - d0 - 1`, ...;
//! a value `x` as `n` zero bits then the `n + k + 1` bits of `x + 2^k`,
//! where `n + k + 1` is the bit length of `x + 2^k`.

use super::bits::{BitReader, BitWriter};
use crate::index::table::DocId;

/// The largest order: every value is below 2^32.
pub(super) const MAX_ORDER: u32 = 31;

/// The values coding `ids`: the first id, then each gap minus one.
fn values(ids: &[DocId]) -> impl Iterator<Item = u64> + '_ {
    let prev = std::iter::once(None).chain(ids.iter().map(|&d| Some(d)));
    ids.iter().zip(prev).map(|(&d, p)| u64::from(p.map_or(d, |p| d - p - 1)))
}

/// The order that codes `ids` (sorted, distinct) in about the fewest
/// bits, chosen from the values' bit lengths alone: a value of `m > k`
/// bits costs `2m - k - 1` (or 2 more), one of at most `k` bits `k + 1`.
pub(super) fn best_order(ids: &[DocId]) -> u32 {
    let mut by_len = [0u64; 34];
    for x in values(ids) {
        by_len[(64 - x.leading_zeros()) as usize] += 1;
    }
    // cost(k) = (k + 1) * (values of <= k bits) + sum over longer ones of
    // (2m - 1) - k * (values longer), from running sums.
    let mut longer: u64 = by_len.iter().sum();
    let mut longer_bits: u64 =
        by_len.iter().enumerate().map(|(m, &n)| n * (2 * m as u64).saturating_sub(1)).sum();
    let (mut best, mut best_cost) = (0, u64::MAX);
    for k in 0..=MAX_ORDER {
        let m = k as usize;
        longer -= by_len[m];
        longer_bits -= by_len[m] * (2 * m as u64).saturating_sub(1);
        let k64 = u64::from(k);
        let shorter = ids.len() as u64 - longer;
        let cost = shorter * (k64 + 1) + longer_bits - k64 * longer;
        if cost < best_cost {
            (best, best_cost) = (k, cost);
        }
    }
    best
}

/// Appends `ids` coded with order `k`, padded to a whole byte.
pub(super) fn encode(ids: &[DocId], k: u32, out: &mut Vec<u8>) {
    let mut w = BitWriter::new(out);
    for x in values(ids) {
        let y = x + (1 << k);
        let len = 64 - y.leading_zeros();
        let bits = 2 * len - 1 - k;
        if bits <= 32 {
            w.put(y, bits);
        } else {
            w.put(0, len - 1 - k);
            w.put(y >> 16, len - 16);
            w.put(y & 0xffff, 16);
        }
    }
    w.finish();
}

/// Whether `bytes` decode ([`Gamma`]) to exactly `ids` (increasing)
/// coded with order `k`, the stream read to its end and its padding zero.
/// Each code is checked where the codes of the ids before it end, so no
/// check waits for the one before (as a decoder's read of a code waits for
/// the read of the one before it to know where it starts); a code read
/// where the one before ends, if each is right, is the next one, so this
/// is the decoder's answer.
pub(super) fn holds(bytes: &[u8], k: u32, ids: &[DocId]) -> bool {
    let mut bits = BitReader::new(bytes);
    let (mut pos, mut wrong) = (0u64, false);
    let mut prev: Option<DocId> = None;
    for &d in ids {
        // The gap after the id before, less one (ids not increasing are
        // wrong, whatever the bits).
        let x = match prev {
            None => u64::from(d),
            Some(p) => {
                wrong |= d <= p;
                u64::from(d.wrapping_sub(p).wrapping_sub(1))
            }
        };
        prev = Some(d);
        let y = x + (1 << k);
        let len = 64 - y.leading_zeros();
        let zeros = len - 1 - k;
        bits.seek(pos);
        // The code is `zeros` zero bits, then `y`: as a number, `y`.
        wrong |= if zeros + len <= 57 {
            bits.read(zeros + len) != y
        } else {
            bits.read(zeros) != 0 || bits.read(len) != y
        };
        pos += u64::from(zeros + len);
    }
    bits.seek(pos);
    !wrong && bits.at_padded_end()
}

/// Decodes the ids of a list coded with order `k`, one at a time.
#[derive(Clone, Debug)]
pub(super) struct Gamma<'a> {
    bits: BitReader<'a>,
    k: u32,
    prev: Option<DocId>,
}

impl<'a> Gamma<'a> {
    pub(super) fn new(bytes: &'a [u8], k: u32) -> Self {
        Gamma { bits: BitReader::new(bytes), k, prev: None }
    }

    /// The next id; `None` when the bits are malformed, run past the end
    /// of the stream or give an id past `u32`.
    #[inline]
    pub(super) fn next_id(&mut self) -> Option<DocId> {
        let window = self.bits.peek();
        let zeros = window.leading_zeros();
        let len = zeros + 1 + self.k;
        if len > 33 {
            return None;
        }
        let x = if zeros + len <= 57 {
            self.bits.skip(zeros + len);
            ((window << zeros) >> (64 - len)) - (1 << self.k)
        } else {
            self.bits.skip(zeros);
            self.bits.read(len) - (1 << self.k)
        };
        if self.bits.overrun() {
            return None;
        }
        let d = match self.prev {
            None => u32::try_from(x).ok()?,
            Some(p) => u32::try_from(u64::from(p) + x + 1).ok()?,
        };
        self.prev = Some(d);
        Some(d)
    }

    /// Whether the stream was read to its end exactly, padding zero.
    pub(super) fn at_padded_end(&self) -> bool {
        self.bits.at_padded_end()
    }
}
