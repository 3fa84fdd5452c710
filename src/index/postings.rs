//! Posting lists and the trigram table that points at them.
//!
//! A posting list holds the sorted, distinct [`DocId`]s of the documents
//! containing one trigram, encoded as LEB128 varints: the first id as is,
//! then each gap minus one (gaps are at least 1). Lists are concatenated in
//! trigram order in the `postings` section. The `trigrams` section is a
//! sorted array of fixed [`TRIGRAM_ENTRY_LEN`]-byte entries, binary
//! searchable:
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
//! [`PostingEncoder`] writes lists as a stream (constant memory);
//! [`Postings`] decodes one; [`intersect`] and [`union`] combine sorted sets.

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

/// Streams posting lists into a writer, one trigram at a time, and returns
/// a [`TrigramEntry`] per list. Memory does not depend on list length: the
/// bytes of the current list are written out (and checksummed) in chunks.
#[derive(Debug)]
pub struct PostingEncoder {
    current: Option<OpenList>,
    written: u64,
    pending: Vec<u8>,
    /// Total postings written.
    pub postings: u64,
}

#[derive(Debug)]
struct OpenList {
    trigram: Trigram,
    count: u32,
    prev: DocId,
    hasher: crc32fast::Hasher,
    offset: u64,
}

/// Bytes of a list buffered before they are written out.
const ENCODER_CHUNK: usize = 64 << 10;

impl Default for PostingEncoder {
    fn default() -> Self {
        Self::new()
    }
}

impl PostingEncoder {
    /// A fresh encoder at offset 0 of the postings section.
    pub fn new() -> Self {
        PostingEncoder { current: None, written: 0, pending: Vec::new(), postings: 0 }
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
        let mut done = None;
        match &mut self.current {
            Some(l) if l.trigram == trigram => {
                if doc == l.prev {
                    return Ok(None);
                }
                debug_assert!(doc > l.prev, "pairs out of order");
                put_varint(&mut self.pending, doc.wrapping_sub(l.prev).wrapping_sub(1));
                l.count += 1;
                l.prev = doc;
                if self.pending.len() >= ENCODER_CHUNK {
                    self.flush_pending(out)?;
                }
            }
            _ => {
                done = self.close(out)?;
                put_varint(&mut self.pending, doc);
                self.current = Some(OpenList {
                    trigram,
                    count: 1,
                    prev: doc,
                    hasher: crc32fast::Hasher::new(),
                    offset: self.written,
                });
            }
        }
        self.postings += 1;
        Ok(done)
    }

    fn flush_pending(&mut self, out: &mut impl Write) -> io::Result<()> {
        if let Some(l) = &mut self.current {
            l.hasher.update(&self.pending);
        }
        out.write_all(&self.pending)?;
        self.written += self.pending.len() as u64;
        self.pending.clear();
        Ok(())
    }

    /// Ends the open list, writing its last bytes, and returns its entry.
    pub fn close(&mut self, out: &mut impl Write) -> io::Result<Option<TrigramEntry>> {
        self.flush_pending(out)?;
        Ok(self.current.take().map(|l| TrigramEntry {
            trigram: l.trigram,
            count: l.count,
            offset: l.offset,
            crc: l.hasher.finalize(),
        }))
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
    bytes: &'a [u8],
    pos: usize,
    left: u32,
    prev: Option<DocId>,
}

impl<'a> Postings<'a> {
    /// Decodes `count` ids from `bytes`.
    pub fn new(bytes: &'a [u8], count: u32) -> Self {
        Postings { bytes, pos: 0, left: count, prev: None }
    }

    /// An empty list.
    pub fn empty() -> Self {
        Postings::new(&[], 0)
    }
}

impl Iterator for Postings<'_> {
    type Item = DocId;

    #[inline]
    fn next(&mut self) -> Option<DocId> {
        if self.left == 0 {
            return None;
        }
        let Some(v) = get_varint(self.bytes, &mut self.pos) else {
            self.left = 0;
            return None;
        };
        let doc = match self.prev {
            None => Some(v),
            Some(p) => p.checked_add(v).and_then(|d| d.checked_add(1)),
        };
        let Some(doc) = doc else {
            self.left = 0;
            return None;
        };
        self.left -= 1;
        self.prev = Some(doc);
        Some(doc)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left as usize))
    }
}

/// Checks that `bytes` decode to exactly `count` strictly increasing ids,
/// all below `doc_count`, with no bytes left over.
pub fn validate_list(bytes: &[u8], count: u32, doc_count: u32) -> Result<(), IndexError> {
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
mod tests {
    use super::*;

    #[test]
    fn varint_round_trip_and_truncation() {
        for v in [0u32, 1, 127, 128, 16383, 16384, u32::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            let mut pos = 0;
            assert_eq!(get_varint(&b, &mut pos), Some(v));
            assert_eq!(pos, b.len());
            let mut pos = 0;
            assert_eq!(get_varint(&b[..b.len() - 1], &mut pos), None);
        }
        let mut pos = 0;
        assert_eq!(get_varint(&[0xff; 6], &mut pos), None);
        // A 5th byte carrying bits beyond u32 is rejected.
        let mut pos = 0;
        assert_eq!(get_varint(&[0xff, 0xff, 0xff, 0xff, 0x7f], &mut pos), None);
    }

    #[test]
    fn encoder_streams_lists() {
        let pairs = [(1, 0), (1, 5), (1, 5), (1, 300), (2, 7), (9, u32::MAX)];
        let mut out = Vec::new();
        let mut enc = PostingEncoder::new();
        let mut entries = Vec::new();
        for (t, d) in pairs {
            entries.extend(enc.push(&mut out, t, d).unwrap());
        }
        entries.extend(enc.close(&mut out).unwrap());
        assert_eq!(entries.len(), 3);
        assert_eq!(enc.postings, 5);
        let ends: Vec<u64> =
            entries.iter().skip(1).map(|e| e.offset).chain([out.len() as u64]).collect();
        let lists: Vec<Vec<u32>> = entries
            .iter()
            .zip(&ends)
            .map(|(e, &end)| {
                let bytes = &out[e.offset as usize..end as usize];
                assert_eq!(crc32fast::hash(bytes), e.crc);
                Postings::new(bytes, e.count).collect()
            })
            .collect();
        assert_eq!(lists, vec![vec![0, 5, 300], vec![7], vec![u32::MAX]]);
        let mut t = Vec::new();
        entries[0].encode(&mut t);
        assert_eq!(TrigramEntry::decode(&t, 0), Some(entries[0]));
        assert_eq!(TrigramEntry::decode(&t, 1), None);
        assert!(validate_list(&out[..ends[0] as usize], 3, 301).is_ok());
        assert!(validate_list(&out[..ends[0] as usize], 3, 300).is_err());
        assert!(validate_list(&out[..ends[0] as usize], 2, 301).is_err());
    }

    #[test]
    fn set_operations() {
        assert_eq!(intersect(&[1, 3, 5, 7], [0, 3, 4, 7, 9].into_iter()), vec![3, 7]);
        assert_eq!(union(&[1, 3, 5], &[2, 3, 9]), vec![1, 2, 3, 5, 9]);
        assert_eq!(intersect(&[], [1].into_iter()), Vec::<u32>::new());
    }
}
