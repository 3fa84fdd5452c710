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

/// Bits of value `x` in the code of order `k`.
#[inline]
fn code_bits(x: u64, k: u32) -> u64 {
    let len = 64 - (x + (1 << k)).leading_zeros();
    u64::from(2 * len - 1 - k)
}

/// The values coding `ids`: the first id, then each gap minus one.
fn values(ids: &[DocId]) -> impl Iterator<Item = u64> + '_ {
    let prev = std::iter::once(None).chain(ids.iter().map(|&d| Some(d)));
    ids.iter().zip(prev).map(|(&d, p)| u64::from(p.map_or(d, |p| d - p - 1)))
}

/// The order that codes `ids` (sorted, distinct) in the fewest bits, and
/// that number of bits. The order is chosen from the values' bit lengths
/// (a value of `m > k` bits costs about `2m - k - 1`, one of at most `k`
/// bits `k + 1`); the bit count is exact.
pub(super) fn best_order(ids: &[DocId]) -> (u32, u64) {
    let mut by_len = [0u64; 34];
    for x in values(ids) {
        by_len[(64 - x.leading_zeros()) as usize] += 1;
    }
    let estimate = |k: u32| -> u64 {
        let k64 = u64::from(k);
        let cost = |m: u64| if m <= k64 { k64 + 1 } else { 2 * m - k64 - 1 };
        by_len.iter().enumerate().map(|(m, &n)| n * cost(m as u64)).sum()
    };
    let k = (0..=MAX_ORDER).min_by_key(|&k| estimate(k)).unwrap_or(0);
    (k, values(ids).map(|x| code_bits(x, k)).sum())
}

/// Appends `ids` coded with order `k`, padded to a whole byte.
pub(super) fn encode(ids: &[DocId], k: u32, out: &mut Vec<u8>) {
    let mut w = BitWriter::new(out);
    for x in values(ids) {
        let y = x + (1 << k);
        let len = 64 - y.leading_zeros();
        w.put(0, len - 1 - k);
        w.put(y, len);
    }
    w.finish();
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
        let zeros = self.bits.peek().leading_zeros();
        let len = zeros + 1 + self.k;
        if len > 33 {
            return None;
        }
        self.bits.skip(zeros);
        let x = self.bits.read(len) - (1 << self.k);
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
