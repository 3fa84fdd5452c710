//! Follow masks: which bytes follow a trigram in a document, 4 bits per
//! document of a dense list (see the [`super`] docs), read by rank.

use super::masks_code::{MaskDecoder, SKIP_EVERY};
use crate::index::table::DocId;

/// A follow mask with every bit set: any byte may follow.
pub(super) const ANY_FOLLOW: u8 = 0x0f;

/// Whether a list of `count` ids among `doc_count` documents is dense: a
/// bitmap in formats 2 and 4, a list with follow masks in formats 4 and
/// 7. When at least 1/8 of the documents hold the trigram, a bit per
/// document takes no more bytes than the varints.
pub(crate) fn is_bitmap(count: u32, doc_count: u32) -> bool {
    u64::from(count) * 8 >= u64::from(doc_count)
}

/// Bytes of a bitmap list of an index of `doc_count` documents.
pub(crate) fn bitmap_len(doc_count: u32) -> u64 {
    u64::from(doc_count).div_ceil(8)
}

/// Whether bitmap `bits` of an index of `doc_count` documents holds
/// exactly `count` ids, none past the last document.
pub(super) fn bitmap_holds(bits: &[u8], count: u32, doc_count: u32) -> bool {
    let set: u64 = bits.iter().map(|b| u64::from(b.count_ones())).sum();
    let tail_bits = doc_count % 8;
    let past_end = tail_bits != 0 && bits.last().is_some_and(|b| b >> tail_bits != 0);
    bits.len() as u64 == bitmap_len(doc_count) && set == u64::from(count) && !past_end
}

/// The follow masks of a list, read by increasing rank (the position of
/// an id in the list).
#[derive(Clone, Debug)]
pub(super) enum Masks<'a> {
    /// Two to a byte (format 4).
    Nibbles(&'a [u8]),
    /// Huffman-coded (format 7), decoded in order: the masks of ranks
    /// below `next` were read, the last of them is `last`.
    Coded { masks: Box<MaskDecoder<'a>>, next: u64, last: u8 },
}

impl<'a> Masks<'a> {
    /// Huffman-coded `count` masks `bytes`; `None` when their code is no
    /// prefix code.
    pub(super) fn coded(bytes: &'a [u8], count: u32) -> Option<Self> {
        let masks = Box::new(MaskDecoder::new(bytes, count)?);
        Some(Masks::Coded { masks, next: 0, last: ANY_FOLLOW })
    }

    /// The mask of rank `k`: ranks must not decrease. Where the masks are
    /// malformed (a list whose CRC matched, so never on disk by accident),
    /// every follow bit: a document read in vain, never a match missed.
    pub(super) fn at(&mut self, k: u64) -> u8 {
        match self {
            Masks::Nibbles(bytes) => nibble(bytes, k),
            Masks::Coded { masks, next, last } => {
                if k + 1 < *next {
                    return ANY_FOLLOW;
                }
                // Far ahead: from the start kept before `k`.
                let block = k / SKIP_EVERY;
                if block * SKIP_EVERY > *next && masks.seek_block(block) {
                    *next = block * SKIP_EVERY;
                }
                while *next <= k {
                    match masks.next_mask() {
                        Some(m) => *last = m,
                        None => {
                            *next = u64::MAX;
                            *last = ANY_FOLLOW;
                            return ANY_FOLLOW;
                        }
                    }
                    *next += 1;
                }
                *last
            }
        }
    }
}

/// Bytes of the follow masks of a bitmap list of `count` ids.
pub fn masks_len(count: u32) -> u64 {
    u64::from(count).div_ceil(2)
}

/// Appends `masks` (one per id, low 4 bits), two to a byte, the first in
/// the low half.
pub(crate) fn pack_masks(masks: &[u8], out: &mut Vec<u8>) {
    for pair in masks.chunks(2) {
        let high = pair.get(1).map_or(0, |m| m & 0x0f);
        out.push((pair[0] & 0x0f) | (high << 4));
    }
}

/// Follow mask `k` of a list's masks (0 past their end).
fn nibble(masks: &[u8], k: u64) -> u8 {
    masks.get((k / 2) as usize).map_or(0, |b| if k.is_multiple_of(2) { b & 0x0f } else { b >> 4 })
}

/// Ranks in a bitmap for increasing ids: how many bits are set before
/// each, counted a word at a time from where the last id left off.
pub(super) struct Rank<'a> {
    bits: &'a [u8],
    /// Bytes already counted, a multiple of 8.
    counted: usize,
    /// Set bits in them.
    before: u64,
}

impl<'a> Rank<'a> {
    pub(super) fn new(bits: &'a [u8]) -> Self {
        Rank { bits, counted: 0, before: 0 }
    }

    /// The number of set bits before `d` when bit `d` is set; ids must
    /// come in increasing order.
    pub(super) fn of(&mut self, d: DocId) -> Option<u64> {
        if !bit(self.bits, d) {
            return None;
        }
        let byte = (d / 8) as usize;
        while self.counted + 8 <= byte {
            let word = &self.bits[self.counted..self.counted + 8];
            self.before += u64::from(u64::from_le_bytes(word.try_into().ok()?).count_ones());
            self.counted += 8;
        }
        let whole: u64 =
            self.bits[self.counted..byte].iter().map(|b| u64::from(b.count_ones())).sum();
        let low = self.bits[byte] & ((1u8 << (d % 8)) - 1);
        Some(self.before + whole + u64::from(low.count_ones()))
    }
}

/// Whether bit `d` of `bits` is set (false past its end).
pub(super) fn bit(bits: &[u8], d: DocId) -> bool {
    bits.get((d / 8) as usize).is_some_and(|b| b & (1 << (d % 8)) != 0)
}
