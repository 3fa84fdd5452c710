//! Posting lists and the trigram table that points at them.
//!
//! A posting list holds the sorted, distinct `DocId`s of the documents
//! containing one trigram. How it is encoded follows from the index's
//! format version and the list's density (`ListKind::of`):
//!
//! - **varints** (formats 1, 2 and 4, a list in fewer than 1/8 of the
//!   documents): LEB128 varints, the first id as is, then each gap minus
//!   one (gaps are at least 1);
//! - **bitmap** (formats 2 and 4, a list in at least 1/8 of the
//!   documents): one bit per document of the index, least significant bit
//!   first. In format 4, a bitmap is followed by its **follow masks**: per
//!   document of the list, in id order, 4 bits saying which bytes follow
//!   the trigram in that document
//!   ([`follow_bit`](crate::query::trigram::follow_bit)), two documents to
//!   a byte, the first in the low half. A query for `abcd` then admits
//!   only documents where `abc` is followed by a byte of `d`'s bit: a
//!   trigram in many documents acts almost as a 4-gram. Sparse lists carry
//!   no masks: their ids already narrow a query;
//! - **coded** (format 7, tree indexes): a tag byte, then the ids as a
//!   bitmap (tag 0) or as exp-Golomb codes of the gaps of the order the
//!   tag says (`gamma.rs`: a tree's ids are in path order and its lists
//!   clustered, which these codes exploit); a list in at least 1/8 of the
//!   documents then has the byte length of its codes before them (a
//!   varint) and its follow masks after them, Huffman-coded per list
//!   (`masks_code.rs`; `coded.rs` is the layout). Both are read in id
//!   order, as every query reads them (a dense list's masks keep where
//!   every 128th starts). On the kernel's tree this is 0.7 of format 4's
//!   postings.
//!
//! Lists are concatenated in trigram order in the `postings` section. The
//! `trigrams` section is a sorted array of fixed [`TRIGRAM_ENTRY_LEN`]-byte
//! entries, binary searchable:
//!
//! ```text
//! +-------------+-----------+------------+---------+
//! | trigram u32 | count u32 | offset u64 | crc u32 |
//! +-------------+-----------+------------+---------+
//! ```
//!
//! `offset` is relative to the start of the `postings` section; a list ends
//! where the next begins (the last at the section's end). `count` lets
//! queries intersect the shortest lists first. `crc` is the CRC32 of the
//! list's bytes: the reader checks it before decoding a list, so a flipped
//! byte in the postings surfaces as an error, never as a wrong answer.
//!
//! `posting_encoder.rs` writes lists as a stream (memory bounded by the
//! number of documents); [`Postings`] decodes one; [`intersect`] and
//! [`union`] combine sorted sets.

use super::encoding::Put;
use super::error::IndexError;
use super::format::{read_u32, read_u64};
use super::table::DocId;
use crate::query::trigram::Trigram;

/// Length of one trigram table entry.
pub const TRIGRAM_ENTRY_LEN: usize = 20;

/// One entry of the trigram table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrigramEntry {
    /// The trigram.
    pub trigram: Trigram,
    /// Number of documents in its posting list.
    pub count: u32,
    /// Offset of the list in the `postings` section.
    pub offset: u64,
    /// CRC32 of the list's bytes.
    pub crc: u32,
}

impl TrigramEntry {
    /// Appends the entry's bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.put_le(self.trigram).put_le(self.count).put_le(self.offset).put_le(self.crc);
    }

    /// Decodes entry `i` of a table; `None` when out of bounds.
    pub fn decode(table: &[u8], i: usize) -> Option<TrigramEntry> {
        let at = i.checked_mul(TRIGRAM_ENTRY_LEN)?;
        Some(TrigramEntry {
            trigram: read_u32(table, at)?,
            count: read_u32(table, at + 4)?,
            offset: read_u64(table, at + 8)?,
            crc: read_u32(table, at + 16)?,
        })
    }
}

/// How one posting list is encoded, which follows from the index's format
/// version, the list's length and the document count alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ListKind {
    /// Delta varints.
    Varints,
    /// A bitmap over the documents (format version 2).
    Bitmap,
    /// A bitmap followed by its follow masks (format version 4).
    BitmapMasks,
    /// A tag, then a bitmap or exp-Golomb codes, then Huffman-coded
    /// follow masks for a dense list (format version 7).
    Coded,
}

impl ListKind {
    /// The encoding of a list of `count` ids among `doc_count` documents
    /// in an index of format version `format`.
    pub fn of(format: u32, count: u32, doc_count: u32) -> ListKind {
        match format {
            7.. => ListKind::Coded,
            _ if !is_bitmap(count, doc_count) => ListKind::Varints,
            0..=1 => ListKind::Varints,
            2 => ListKind::Bitmap,
            _ => ListKind::BitmapMasks,
        }
    }

    /// Whether `len` bytes can hold such a list of `count` ids: exactly the
    /// bitmap (and masks), 1 to 5 bytes per varint, or a coded list's
    /// bounds.
    pub fn fits(self, len: u64, count: u32, doc_count: u32) -> bool {
        match self {
            ListKind::Varints => len >= u64::from(count) && len <= 5 * u64::from(count),
            ListKind::Bitmap => len == bitmap_len(doc_count),
            ListKind::BitmapMasks => len == bitmap_len(doc_count) + masks_len(count),
            ListKind::Coded => len >= 1 && len <= coded::max_len(count, doc_count),
        }
    }
}

/// An iterator over the doc ids of one posting list, in increasing order.
///
/// The reader checks the list's CRC before handing one out; decoding is
/// bounds-checked anyway, and stops at the first malformed byte.
#[derive(Clone, Debug)]
pub struct Postings<'a> {
    left: u32,
    list: List<'a>,
    masks: Option<Masks<'a>>,
}

#[derive(Clone, Debug)]
enum List<'a> {
    Varints { bytes: &'a [u8], pos: usize, prev: Option<DocId> },
    Bitmap { bits: &'a [u8], at: u64 },
    Gamma(Gamma<'a>),
}

impl<'a> Postings<'a> {
    /// Decodes `count` ids from varint `bytes`.
    pub fn new(bytes: &'a [u8], count: u32) -> Self {
        Postings { left: count, list: List::Varints { bytes, pos: 0, prev: None }, masks: None }
    }

    /// The `count` ids set in bitmap `bits`.
    pub(crate) fn bitmap(bits: &'a [u8], count: u32) -> Self {
        Postings { left: count, list: List::Bitmap { bits, at: 0 }, masks: None }
    }

    /// The list of `count` ids in `bytes`, encoded as `kind` for an index
    /// of `doc_count` documents (the length was checked by
    /// [`ListKind::fits`]); an error when a coded list's layout is broken.
    pub(crate) fn of_kind(
        kind: ListKind,
        bytes: &'a [u8],
        count: u32,
        doc_count: u32,
    ) -> Result<Self, IndexError> {
        Ok(match kind {
            ListKind::Varints => Postings::new(bytes, count),
            ListKind::Bitmap => Postings::bitmap(bytes, count),
            ListKind::BitmapMasks => {
                let (bits, masks) =
                    bytes.split_at(bitmap_len(doc_count).min(bytes.len() as u64) as usize);
                Postings { masks: Some(Masks::Nibbles(masks)), ..Postings::bitmap(bits, count) }
            }
            ListKind::Coded => {
                let (ids, masks) = coded::split(bytes, count, doc_count)
                    .ok_or_else(|| IndexError::corrupt("coded posting list of a bad layout"))?;
                let list = match ids {
                    Ids::Bitmap(bits) => List::Bitmap { bits, at: 0 },
                    Ids::Gamma(bytes, k) => List::Gamma(Gamma::new(bytes, k)),
                };
                let masks = match is_bitmap(count, doc_count) {
                    true => Some(Masks::coded(masks, count).ok_or_else(|| {
                        IndexError::corrupt("posting list's mask code is not a prefix code")
                    })?),
                    false => None,
                };
                Postings { left: count, list, masks }
            }
        })
    }

    /// An empty list.
    pub fn empty() -> Self {
        Postings::new(&[], 0)
    }

    /// The ids of the sorted set `a` that this list holds, and in which
    /// the trigram is followed by a byte with follow bit `follow` when
    /// given and the list keeps masks: a bit test per id for a bitmap, a
    /// merge otherwise.
    pub fn intersect(mut self, a: &[DocId], follow: Option<u8>) -> Vec<DocId> {
        let masks = self.masks.take().zip(follow);
        match (self.list, masks) {
            (List::Bitmap { bits, .. }, Some((mut masks, want))) => {
                let mut rank = Rank::new(bits);
                a.iter()
                    .copied()
                    .filter(|&d| rank.of(d).is_some_and(|k| masks.at(k) & want != 0))
                    .collect()
            }
            (List::Bitmap { bits, .. }, None) => {
                a.iter().copied().filter(|&d| bit(bits, d)).collect()
            }
            (list, None) => intersect(a, Postings { left: self.left, list, masks: None }),
            (list, Some((mut masks, want))) => {
                let ranked = Postings { left: self.left, list, masks: None }.enumerate();
                let mut ids = intersect_ranked(a, ranked);
                ids.retain(|&(k, _)| masks.at(k as u64) & want != 0);
                ids.into_iter().map(|(_, d)| d).collect()
            }
        }
    }

    /// Calls `f` with every id of this list, not read yet, and its follow
    /// mask: the mask kept for it, or every follow bit where the list keeps
    /// none (varints: any byte may follow, as a query reading the list
    /// assumes). A bitmap is read a word at a time.
    pub(crate) fn for_each_with_mask(mut self, mut f: impl FnMut(DocId, u8)) {
        let mut masks = self.masks.take();
        let mut mask = |k: u64| masks.as_mut().map_or(ANY_FOLLOW, |m| m.at(k));
        let Postings { left, list, .. } = self;
        let List::Bitmap { bits, at: 0 } = list else {
            let rest = Postings { left, list, masks: None };
            return rest.enumerate().for_each(|(k, d)| f(d, mask(k as u64)));
        };
        let mut k = 0u64;
        for (w, chunk) in bits.chunks(8).enumerate() {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            let mut word = u64::from_le_bytes(word);
            while word != 0 && k < u64::from(left) {
                let d = w as u64 * 64 + u64::from(word.trailing_zeros());
                word &= word - 1;
                f(d as DocId, mask(k));
                k += 1;
            }
        }
    }

    /// The ids of this list in which the trigram is followed by a byte
    /// with follow bit `follow` when given (every id when not, or when the
    /// list keeps no masks).
    pub(crate) fn followed_by(mut self, follow: Option<u8>) -> Vec<DocId> {
        match self.masks.take().zip(follow) {
            Some((mut masks, want)) => self
                .enumerate()
                .filter(|&(k, _)| masks.at(k as u64) & want != 0)
                .map(|(_, d)| d)
                .collect(),
            None => self.collect(),
        }
    }
}

impl Iterator for Postings<'_> {
    type Item = DocId;

    #[inline]
    fn next(&mut self) -> Option<DocId> {
        if self.left == 0 {
            return None;
        }
        let doc = match &mut self.list {
            List::Varints { bytes, pos, prev } => {
                let v = get_varint(bytes, pos);
                let doc = match (*prev, v) {
                    (_, None) => None,
                    (None, Some(v)) => Some(v),
                    (Some(p), Some(v)) => p.checked_add(v).and_then(|d| d.checked_add(1)),
                };
                *prev = doc;
                doc
            }
            List::Bitmap { bits, at } => next_set_bit(bits, at),
            List::Gamma(g) => g.next_id(),
        };
        match doc {
            Some(d) => {
                self.left -= 1;
                Some(d)
            }
            None => {
                self.left = 0;
                None
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left as usize))
    }
}

/// The first set bit of `bits` at or after `*at`, moving `*at` past it.
#[inline]
fn next_set_bit(bits: &[u8], at: &mut u64) -> Option<DocId> {
    loop {
        let byte = *bits.get((*at / 8) as usize)? >> (*at % 8);
        if byte == 0 {
            *at = (*at / 8 + 1) * 8;
            continue;
        }
        let d = *at + u64::from(byte.trailing_zeros());
        *at = d + 1;
        return DocId::try_from(d).ok();
    }
}

/// The ids and follow masks of list `bytes` of `count` ids among
/// `doc_count` documents in an index of format `format`, read every way a
/// query reads a list (an error for a list `validate_list` refuses): the
/// door of the `posting_list` fuzz target to the decoders (and, with debug
/// assertions, to the writer's check of coded lists).
pub fn read_list(
    bytes: &[u8],
    count: u32,
    doc_count: u32,
    format: u32,
) -> Result<Vec<(DocId, u8)>, IndexError> {
    let kind = ListKind::of(format, count, doc_count);
    let list = Postings::of_kind(kind, bytes, count, doc_count)?;
    let some: Vec<DocId> = (0..doc_count.min(64)).map(|d| d * 3).collect();
    let _ = (list.clone().intersect(&some, Some(1)), list.clone().followed_by(Some(2)));
    let mut out = Vec::new();
    list.for_each_with_mask(|d, m| out.push((d, m)));
    validate_list(bytes, count, doc_count, kind)?;
    // The writer's check of a list it wrote agrees with the decoder.
    if cfg!(debug_assertions) && kind == ListKind::Coded {
        let (ids, masks): (Vec<DocId>, Vec<u8>) = out.iter().copied().unzip();
        assert!(coded::holds(bytes, &ids, &masks, doc_count), "the writer's check refuses it");
    }
    Ok(out)
}

/// Checks that a list decodes to exactly `count` strictly increasing ids,
/// all below `doc_count`, with no bytes left over, encoded as `kind`.
pub(crate) fn validate_list(
    bytes: &[u8],
    count: u32,
    doc_count: u32,
    kind: ListKind,
) -> Result<(), IndexError> {
    if !kind.fits(bytes.len() as u64, count, doc_count) {
        return Err(IndexError::corrupt("posting list of the wrong length"));
    }
    if kind == ListKind::Coded {
        return match coded::is_valid(bytes, count, doc_count) {
            true => Ok(()),
            false => Err(IndexError::corrupt("coded posting list does not decode")),
        };
    }
    if kind != ListKind::Varints {
        let bits = &bytes[..bitmap_len(doc_count) as usize];
        if !bitmap_holds(bits, count, doc_count) {
            return Err(IndexError::corrupt("bitmap list does not hold its count"));
        }
        let masks = &bytes[bits.len()..];
        if count % 2 == 1 && masks.last().is_some_and(|b| b >> 4 != 0) {
            return Err(IndexError::corrupt("follow masks past the last document"));
        }
        return Ok(());
    }
    let mut pos = 0;
    let mut prev: Option<u32> = None;
    for _ in 0..count {
        let v = get_varint(bytes, &mut pos).ok_or_else(|| IndexError::corrupt("bad varint"))?;
        let d = match prev {
            None => Some(v),
            Some(p) => p.checked_add(v).and_then(|d| d.checked_add(1)),
        };
        match d {
            Some(d) if d < doc_count => prev = Some(d),
            _ => return Err(IndexError::corrupt("posting out of range")),
        }
    }
    if pos != bytes.len() {
        return Err(IndexError::corrupt("posting list has trailing bytes"));
    }
    Ok(())
}

mod bits;
pub(crate) mod coded;
#[cfg(test)]
mod coded_tests;
mod follow;
mod gamma;
mod masks_code;
mod sets;
#[cfg(test)]
mod tests;
mod varint;

use coded::Ids;
pub use follow::masks_len;
pub(crate) use follow::pack_masks;
use follow::{ANY_FOLLOW, Masks, Rank, bit, bitmap_holds};
pub(crate) use follow::{bitmap_len, is_bitmap};
use gamma::Gamma;
use sets::intersect_ranked;
pub use sets::{intersect, union};
pub use varint::{get_varint, put_varint};
