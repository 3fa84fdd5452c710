//! Posting lists and the trigram table that points at them.
//!
//! A posting list holds the sorted, distinct [`DocId`]s of the documents
//! containing one trigram, in one of two encodings, chosen by the list's
//! density alone (see [`is_bitmap`]), so no tag is stored:
//!
//! - **varints** (a list in fewer than 1/8 of the documents): LEB128
//!   varints, the first id as is, then each gap minus one (gaps are at
//!   least 1);
//! - **bitmap** (format version 2 on; a list in at least 1/8 of the
//!   documents): one bit per document of the index, least significant bit
//!   first. It is never longer than the varints would be (each takes at
//!   least a byte), and a log's block index is mostly such lists: 2x
//!   smaller in all, and an intersection with one is a bit test per id.
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
//! [`PostingEncoder`] writes lists as a stream (memory bounded by the
//! number of documents); [`Postings`] decodes one; [`intersect`] and
//! [`union`] combine sorted sets.

use std::io::{self, Write};

use super::error::IndexError;
use super::format::{read_u32, read_u64};
use super::table::DocId;
use super::trigram::Trigram;

/// Length of one trigram table entry.
pub const TRIGRAM_ENTRY_LEN: usize = 20;

/// Appends `v` as an LEB128 varint.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Decodes a varint at `*pos`, advancing it; `None` when truncated or longer
/// than 5 bytes.
#[inline]
pub fn get_varint(b: &[u8], pos: &mut usize) -> Option<u32> {
    let mut v: u32 = 0;
    for shift in (0..35).step_by(7) {
        let byte = *b.get(*pos)?;
        *pos += 1;
        if shift == 28 && byte & 0x70 != 0 {
            return None; // bits beyond u32
        }
        v |= u32::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

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
        out.extend_from_slice(&self.trigram.to_le_bytes());
        out.extend_from_slice(&self.count.to_le_bytes());
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.crc.to_le_bytes());
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

/// Whether a list of `count` ids among `doc_count` documents is stored as a
/// bitmap (format version 2 on): when at least 1/8 of the documents hold
/// the trigram, a bit per document takes no more bytes than the varints.
pub fn is_bitmap(count: u32, doc_count: u32) -> bool {
    u64::from(count) * 8 >= u64::from(doc_count)
}

/// Bytes of a bitmap list of an index of `doc_count` documents.
pub fn bitmap_len(doc_count: u32) -> u64 {
    u64::from(doc_count).div_ceil(8)
}

/// Streams posting lists into a writer, one trigram at a time, and returns
/// a [`TrigramEntry`] per list. The open list's ids are held until it
/// ends (its encoding depends on its length), so memory is bounded by the
/// number of documents, not by the number of postings.
#[derive(Debug)]
pub struct PostingEncoder {
    doc_count: u32,
    current: Option<(Trigram, Vec<DocId>)>,
    bytes: Vec<u8>,
    written: u64,
    /// Total postings written.
    pub postings: u64,
}

impl PostingEncoder {
    /// A fresh encoder at offset 0 of the postings section of an index of
    /// `doc_count` documents (every id pushed must be below it).
    pub fn new(doc_count: u32) -> Self {
        PostingEncoder { doc_count, current: None, bytes: Vec::new(), written: 0, postings: 0 }
    }

    /// Adds `(trigram, doc)`; pairs must come sorted by trigram then doc.
    /// Duplicate pairs are ignored. Returns the entry of the previous list
    /// when this pair starts a new one.
    pub fn push(
        &mut self,
        out: &mut impl Write,
        trigram: Trigram,
        doc: DocId,
    ) -> io::Result<Option<TrigramEntry>> {
        debug_assert!(doc < self.doc_count, "doc id past the documents");
        if let Some((t, ids)) = &mut self.current
            && *t == trigram
        {
            if ids.last() != Some(&doc) {
                debug_assert!(ids.last() < Some(&doc), "pairs out of order");
                ids.push(doc);
                self.postings += 1;
            }
            return Ok(None);
        }
        let done = self.close(out)?;
        self.current = Some((trigram, vec![doc]));
        self.postings += 1;
        Ok(done)
    }

    /// Ends the open list, writing its bytes, and returns its entry.
    pub fn close(&mut self, out: &mut impl Write) -> io::Result<Option<TrigramEntry>> {
        let Some((trigram, ids)) = self.current.take() else { return Ok(None) };
        let count = ids.len() as u32;
        self.bytes.clear();
        if is_bitmap(count, self.doc_count) {
            self.bytes.resize(bitmap_len(self.doc_count) as usize, 0);
            for d in ids {
                self.bytes[(d / 8) as usize] |= 1 << (d % 8);
            }
        } else {
            let mut prev = None;
            for d in ids {
                put_varint(&mut self.bytes, prev.map_or(d, |p: DocId| d - p - 1));
                prev = Some(d);
            }
        }
        out.write_all(&self.bytes)?;
        let offset = self.written;
        self.written += self.bytes.len() as u64;
        Ok(Some(TrigramEntry { trigram, count, offset, crc: crc32fast::hash(&self.bytes) }))
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
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
}

#[derive(Clone, Debug)]
enum List<'a> {
    Varints { bytes: &'a [u8], pos: usize, prev: Option<DocId> },
    Bitmap { bits: &'a [u8], at: u64 },
}

impl<'a> Postings<'a> {
    /// Decodes `count` ids from varint `bytes`.
    pub fn new(bytes: &'a [u8], count: u32) -> Self {
        Postings { left: count, list: List::Varints { bytes, pos: 0, prev: None } }
    }

    /// The `count` ids set in bitmap `bits`.
    pub fn bitmap(bits: &'a [u8], count: u32) -> Self {
        Postings { left: count, list: List::Bitmap { bits, at: 0 } }
    }

    /// An empty list.
    pub fn empty() -> Self {
        Postings::new(&[], 0)
    }

    /// The ids of the sorted set `a` that this list holds: a bit test per
    /// id for a bitmap, a merge for varints.
    pub fn intersect(self, a: &[DocId]) -> Vec<DocId> {
        match self.list {
            List::Bitmap { bits, .. } => a.iter().copied().filter(|&d| bit(bits, d)).collect(),
            List::Varints { .. } => intersect(a, self),
        }
    }
}

/// Whether bit `d` of `bits` is set (false past its end).
fn bit(bits: &[u8], d: DocId) -> bool {
    bits.get((d / 8) as usize).is_some_and(|b| b & (1 << (d % 8)) != 0)
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

/// Checks that a list decodes to exactly `count` strictly increasing ids,
/// all below `doc_count`, with no bytes left over; `bitmap` says how it is
/// encoded (see [`is_bitmap`]).
pub fn validate_list(
    bytes: &[u8],
    count: u32,
    doc_count: u32,
    bitmap: bool,
) -> Result<(), IndexError> {
    if bitmap {
        if bytes.len() as u64 != bitmap_len(doc_count) {
            return Err(IndexError::corrupt("bitmap list of the wrong length"));
        }
        let set: u64 = bytes.iter().map(|b| u64::from(b.count_ones())).sum();
        let tail_bits = doc_count % 8;
        let past_end = tail_bits != 0 && bytes.last().is_some_and(|b| b >> tail_bits != 0);
        if set != u64::from(count) || past_end {
            return Err(IndexError::corrupt("bitmap list does not hold its count"));
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

/// The intersection of a sorted set with a sorted stream, in order.
pub fn intersect(a: &[DocId], b: impl Iterator<Item = DocId>) -> Vec<DocId> {
    let mut out = Vec::with_capacity(a.len());
    let mut i = 0;
    for d in b {
        while i < a.len() && a[i] < d {
            i += 1;
        }
        if i == a.len() {
            break;
        }
        if a[i] == d {
            out.push(d);
            i += 1;
        }
    }
    out
}

/// The union of two sorted sets, sorted and without duplicates.
pub fn union(a: &[DocId], b: &[DocId]) -> Vec<DocId> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests;
