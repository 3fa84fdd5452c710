//! The `trigram_dir` section (docs/INDEX-FORMAT.md): a sampled directory
//! of the trigram table, written last (beside the table of contents, in
//! the tail a remote reader fetches first), so that a reader of an index
//! by range (`crate::pack::partial`) fetches, for each trigram of a query,
//! the part of the table that can hold it and that part's posting lists,
//! in one round trip, instead of the whole table first and the lists
//! after it.
//!
//! The table is cut into parts of at most [`PART_ENTRIES`] entries whose
//! lists take at most [`PART_LIST_BYTES`] (a part holds one entry at
//! least); each part is one 24-byte record:
//!
//! ```text
//! first trigram u32 | first entry u32 | entries u32 | list offset u64 | crc u32
//! ```
//!
//! (little-endian; `list offset`: its first list's offset in `postings`;
//! `crc`: the CRC-32 of its entries' bytes, so that a part is checked as
//! the whole table is by the section's CRC). [`decode`] checks that the
//! parts tile the table in order, and never panics on bad input.

use std::ops::Range;

use super::encoding::Put;
use super::format::{read_u32, read_u64};
use super::postings::{TRIGRAM_ENTRY_LEN, TrigramEntry};
use crate::query::trigram::Trigram;

/// The section's name.
pub(crate) const SECTION: &str = "trigram_dir";

/// Entries of the table a part holds at most: 2.5 KB of table.
pub(crate) const PART_ENTRIES: u32 = 128;

/// Bytes of posting lists a part's entries take at most (unless one list
/// alone is longer): what a reader fetches for one trigram is a part of
/// the table and at most this much of lists.
pub(crate) const PART_LIST_BYTES: u64 = 16 << 10;

/// Bytes of one record.
const RECORD: usize = 24;

/// One part of the trigram table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Part {
    /// Its first entry's trigram.
    pub(crate) trigram: Trigram,
    /// Its first entry's number.
    pub(crate) first: u32,
    /// Its entries.
    pub(crate) entries: u32,
    /// Its first list's offset in `postings`.
    pub(crate) offset: u64,
    /// The CRC-32 of its entries' bytes.
    pub(crate) crc: u32,
}

impl Part {
    /// Its entries' bytes in the trigram table.
    pub(crate) fn table_range(&self) -> Range<u64> {
        let at = |i: u32| u64::from(i) * TRIGRAM_ENTRY_LEN as u64;
        at(self.first)..at(self.first + self.entries)
    }
}

/// Cuts a trigram table into parts as its entries are written.
#[derive(Default)]
pub(crate) struct DirWriter {
    parts: Vec<Part>,
    crc: crc32fast::Hasher,
}

impl DirWriter {
    /// Takes the next entry `e` (number `i`), whose bytes are `bytes`.
    pub(crate) fn add(&mut self, i: u32, e: &TrigramEntry, bytes: &[u8]) {
        let new = match self.parts.last() {
            None => true,
            Some(p) => p.entries >= PART_ENTRIES || e.offset - p.offset >= PART_LIST_BYTES,
        };
        if new {
            self.close();
            self.parts.push(Part {
                trigram: e.trigram,
                first: i,
                entries: 0,
                offset: e.offset,
                crc: 0,
            });
        }
        self.crc.update(bytes);
        if let Some(p) = self.parts.last_mut() {
            p.entries += 1;
        }
    }

    /// Ends the part being written.
    fn close(&mut self) {
        let crc = std::mem::take(&mut self.crc).finalize();
        if let Some(p) = self.parts.last_mut() {
            p.crc = crc;
        }
    }

    /// The section's bytes.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.close();
        let mut out = Vec::with_capacity(self.parts.len() * RECORD);
        for p in &self.parts {
            out.put_le(p.trigram).put_le(p.first).put_le(p.entries).put_le(p.offset).put_le(p.crc);
        }
        out
    }
}

/// The parts in `bytes`, checked to tile a table of `entries` entries in
/// order, their lists within `postings_len` bytes (`None`: they do not).
pub(crate) fn decode(bytes: &[u8], entries: u64, postings_len: u64) -> Option<Vec<Part>> {
    if !bytes.len().is_multiple_of(RECORD) {
        return None;
    }
    let mut parts: Vec<Part> = Vec::with_capacity(bytes.len() / RECORD);
    let mut next = 0u64;
    for r in bytes.chunks_exact(RECORD) {
        let p = Part {
            trigram: read_u32(r, 0)?,
            first: read_u32(r, 4)?,
            entries: read_u32(r, 8)?,
            offset: read_u64(r, 12)?,
            crc: read_u32(r, 20)?,
        };
        let after = parts.last().is_none_or(|q| q.trigram < p.trigram && q.offset <= p.offset);
        if u64::from(p.first) != next || p.entries == 0 || !after || p.offset > postings_len {
            return None;
        }
        next += u64::from(p.entries);
        parts.push(p);
    }
    (next == entries).then_some(parts)
}

/// The part of `parts` that can hold `trigram` (`None`: it comes before
/// the first, so no entry holds it).
pub(crate) fn part_of(parts: &[Part], trigram: Trigram) -> Option<usize> {
    parts.partition_point(|p| p.trigram <= trigram).checked_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(trigram: u32, offset: u64) -> TrigramEntry {
        TrigramEntry { trigram, count: 1, offset, crc: 7 }
    }

    #[test]
    fn a_table_is_cut_into_parts_that_read_back() {
        let mut w = DirWriter::default();
        let mut table = Vec::new();
        // 300 entries, lists of 100 bytes, one list of 20 KiB at entry 10.
        let mut offset = 0;
        for i in 0..300u32 {
            let e = entry(i * 3 + 1, offset);
            let mut bytes = Vec::new();
            e.encode(&mut bytes);
            w.add(i, &e, &bytes);
            table.extend_from_slice(&bytes);
            offset += if i == 10 { 20 << 10 } else { 100 };
        }
        let bytes = w.finish();
        let parts = decode(&bytes, 300, offset).expect("parts");
        assert!(parts.iter().all(|p| p.entries <= PART_ENTRIES));
        assert_eq!(parts[0].entries, 11, "the long list ends its part");
        for p in &parts {
            let r = p.table_range();
            assert_eq!(crc32fast::hash(&table[r.start as usize..r.end as usize]), p.crc);
        }
        assert_eq!(part_of(&parts, 0), None);
        assert_eq!(part_of(&parts, 1), Some(0));
        assert_eq!(part_of(&parts, parts[1].trigram), Some(1));
        assert_eq!(part_of(&parts, u32::MAX), Some(parts.len() - 1));
        assert!(decode(&bytes, 299, offset).is_none());
        assert!(decode(&bytes[..bytes.len() - 1], 300, offset).is_none());
        let mut bad = bytes.clone();
        bad[RECORD + 4] ^= 1;
        assert!(decode(&bad, 300, offset).is_none());
        assert_eq!(decode(&[], 0, 0), Some(Vec::new()));
    }
}
