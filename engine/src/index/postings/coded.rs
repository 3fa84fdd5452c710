//! The layout of a format 7 list (see the [`super`] docs): a tag byte
//! saying how the ids are coded, the ids, then for a list in at least 1/8
//! of the documents its follow masks, Huffman-coded.

use super::follow::{bit, bitmap_holds, bitmap_len, is_bitmap};
use super::gamma::{self, MAX_ORDER};
use super::masks_code::{self, CODE_LEN};
use super::varint::{get_varint, put_varint};
use crate::index::table::DocId;

/// The tag of ids kept as a bitmap; tag `1 + k` is an exp-Golomb code of
/// order `k`.
const BITMAP_TAG: u8 = 0;

/// How the ids of a list are coded.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ids<'a> {
    /// One bit per document.
    Bitmap(&'a [u8]),
    /// Exp-Golomb codes of this order.
    Gamma(&'a [u8], u32),
}

/// Appends the list of `ids` (sorted, distinct, below `doc_count`) and
/// their follow `masks` (one per id, when the list is in at least 1/8 of
/// the documents). The ids are a bitmap when that is no longer than
/// their exp-Golomb code, or when the list is in at least 1/4 of the
/// documents (a query tests such a list's bits for its few candidates
/// instead of decoding all its ids), else that code.
pub(crate) fn encode(ids: &[DocId], masks: &[u8], doc_count: u32, out: &mut Vec<u8>) {
    let count = ids.len() as u32;
    let bitmap = bitmap_len(doc_count) as usize;
    let mut codes = Vec::new();
    let k = match u64::from(count) * 4 >= u64::from(doc_count) {
        true => None,
        false => Some(gamma::best_order(ids)),
    };
    if let Some(k) = k {
        gamma::encode(ids, k, &mut codes);
    }
    match k.filter(|_| codes.len() < bitmap) {
        None => {
            out.push(BITMAP_TAG);
            let start = out.len();
            out.resize(start + bitmap, 0);
            for &d in ids {
                out[start + (d / 8) as usize] |= 1 << (d % 8);
            }
        }
        Some(k) => {
            out.push(1 + k as u8);
            if is_bitmap(count, doc_count) {
                put_varint(out, codes.len() as u32);
            }
            out.extend_from_slice(&codes);
        }
    }
    if is_bitmap(count, doc_count) {
        masks_code::encode(masks, out);
    }
}

/// The most bytes a list of `count` ids among `doc_count` documents takes:
/// a tag, a length, the longer of a bitmap and 66 bits an id, a code, the
/// masks' starts kept and 15 bits a mask.
pub(super) fn max_len(count: u32, doc_count: u32) -> u64 {
    let ids = bitmap_len(doc_count).max((66 * u64::from(count)).div_ceil(8));
    let masks = (CODE_LEN + masks_code::skips_len(count)) as u64;
    1 + 5 + ids + masks + (15 * u64::from(count)).div_ceil(8)
}

/// A list's ids and its masks' bytes (the code, then the codes), when its
/// bytes have the layout of a list of `count` ids among `doc_count`.
pub(super) fn split(bytes: &[u8], count: u32, doc_count: u32) -> Option<(Ids<'_>, &[u8])> {
    let (&tag, rest) = bytes.split_first()?;
    let masked = is_bitmap(count, doc_count);
    let (ids, masks) = if tag == BITMAP_TAG {
        let len = bitmap_len(doc_count) as usize;
        let (bits, masks) = rest.split_at_checked(len)?;
        (Ids::Bitmap(bits), masks)
    } else if u32::from(tag) - 1 <= MAX_ORDER {
        let k = u32::from(tag) - 1;
        if masked {
            let mut pos = 0;
            let len = get_varint(rest, &mut pos)? as usize;
            let (ids, masks) = rest[pos..].split_at_checked(len)?;
            (Ids::Gamma(ids, k), masks)
        } else {
            (Ids::Gamma(rest, k), &[][..])
        }
    } else {
        return None;
    };
    if !masked && !masks.is_empty() {
        return None;
    }
    Some((ids, masks))
}

/// Whether a list's bytes decode to exactly `count` increasing ids below
/// `doc_count` (and a mask for each when it keeps masks), with no bytes
/// left over and padding bits zero.
pub(super) fn is_valid(bytes: &[u8], count: u32, doc_count: u32) -> bool {
    let Some((ids, masks)) = split(bytes, count, doc_count) else { return false };
    let ids_ok = match ids {
        Ids::Bitmap(bits) => bitmap_holds(bits, count, doc_count),
        Ids::Gamma(bytes, k) => {
            let mut g = gamma::Gamma::new(bytes, k);
            (0..count).all(|_| g.next_id().is_some_and(|d| d < doc_count)) && g.at_padded_end()
        }
    };
    let masks_ok = !is_bitmap(count, doc_count)
        || masks_code::MaskDecoder::new(masks, count).is_some_and(|mut m| {
            let every = masks_code::SKIP_EVERY;
            let at_start = |m: &masks_code::MaskDecoder, k: u64| {
                !k.is_multiple_of(every) || k == 0 || m.at_block(k / every)
            };
            (0..u64::from(count)).all(|k| at_start(&m, k) && m.next_mask().is_some())
                && m.at_padded_end()
        });
    ids_ok && masks_ok
}

/// Whether `bytes`, a list [`encode`] just wrote, decode to `ids` (sorted,
/// distinct, below `doc_count`) and, when it keeps them, their `masks`, as
/// [`is_valid`] reads them: what it checks, and that the ids and masks are
/// these. Codes are checked where `ids` and `masks` say each starts, so no
/// code waits for the one before it to be read (a writer's check of its
/// lists took twice as long decoding).
pub(crate) fn holds(bytes: &[u8], ids: &[DocId], masks: &[u8], doc_count: u32) -> bool {
    let count = ids.len() as u32;
    let Some((coded, mask_bytes)) = split(bytes, count, doc_count) else { return false };
    let ids_ok = match coded {
        Ids::Bitmap(bits) => {
            let in_order = ids.windows(2).fold(true, |ok, w| ok & (w[0] < w[1]));
            in_order && bitmap_holds(bits, count, doc_count) && ids.iter().all(|&d| bit(bits, d))
        }
        Ids::Gamma(bytes, k) => gamma::holds(bytes, k, ids),
    };
    let below = ids.last().is_none_or(|&d| d < doc_count);
    let masks_ok = match is_bitmap(count, doc_count) {
        true => masks.len() == ids.len() && masks_code::holds(mask_bytes, masks),
        false => mask_bytes.is_empty(),
    };
    below && ids_ok && masks_ok
}
