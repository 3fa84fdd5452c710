//! A sorted run: the posting lists of a range of documents, compactly
//! encoded, with where each trigram partition starts.
//!
//! A run holds pairs in `(trigram, doc)` order, grouped by trigram into
//! lists. Each list is
//!
//! ```text
//! +-----------+---------------+------------------+------+-------------------+
//! | trigram   | count varint  | doc bytes varint | docs | follow masks      |
//! | 3 bytes LE|               |                  |      | ceil(count/2) B   |
//! +-----------+---------------+------------------+------+-------------------+
//! ```
//!
//! where `docs` are the first id as a varint and each gap minus one as a
//! varint (the posting encoding's own), and the masks are 4 bits per
//! document, two to a byte, the first in the low half. The runs of one
//! sort cover increasing ranges of documents (a document cut by a spill
//! ends one run and starts the next), so a trigram's merged list is its
//! lists in run order, with such a document's two masks joined.
//!
//! Trigrams fall into [`PARTITIONS`] partitions by their top 12 bits;
//! [`RunEncoder`] records where each partition's lists begin, in a table
//! after the lists (in the run's file, not in memory), so that a merge
//! reads any range of partitions of every run without reading the rest,
//! and several threads merge several ranges at once.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::path::Path;

use crate::index::postings::{get_varint, put_varint};

/// Partitions of the trigram space.
pub(crate) const PARTITIONS: usize = 1 << 12;

/// The partition of trigram `t`.
#[inline]
pub(crate) fn partition(t: u32) -> usize {
    (t >> 12) as usize
}

/// The list being encoded.
struct Open {
    trigram: u32,
    docs: Vec<u32>,
    masks: Vec<u8>,
}

/// Writes lists, in `(trigram, doc)` order, into a run.
pub(super) struct RunEncoder<W> {
    out: W,
    written: u64,
    /// Where each partition begins, for the partitions reached so far.
    starts: Vec<u64>,
    open: Option<Open>,
    bytes: Vec<u8>,
    gaps: Vec<u8>,
}

impl<W: Write> RunEncoder<W> {
    /// An encoder writing to `out`.
    pub(super) fn new(out: W) -> Self {
        let starts = Vec::with_capacity(PARTITIONS + 1);
        let (bytes, gaps) = (Vec::new(), Vec::new());
        RunEncoder { out, written: 0, starts, open: None, bytes, gaps }
    }

    /// Adds sorted keys packed as a sort buffer holds them
    /// (`trigram << 40 | doc << 8 | follow`).
    pub(super) fn push_keys(&mut self, keys: &[u64]) -> io::Result<()> {
        for list in keys.chunk_by(|a, b| a >> 40 == b >> 40) {
            let pairs = list.iter().map(|&k| ((k >> 8) as u32, k as u8));
            self.push_list((list[0] >> 40) as u32, pairs)?;
        }
        Ok(())
    }

    /// Adds `(trigram, doc)` and its follow mask for each of `pairs`;
    /// pairs come in `(trigram, doc)` order, a repeated pair joining its
    /// mask.
    pub(super) fn push_list(
        &mut self,
        trigram: u32,
        pairs: impl IntoIterator<Item = (u32, u8)>,
    ) -> io::Result<()> {
        if self.open.as_ref().is_none_or(|o| o.trigram != trigram) {
            self.close()?;
            while self.starts.len() <= partition(trigram) {
                self.starts.push(self.written);
            }
        }
        let o = self.open.get_or_insert_with(|| Open { trigram, docs: vec![], masks: vec![] });
        o.trigram = trigram;
        for (doc, follow) in pairs {
            if o.docs.last() == Some(&doc) {
                *o.masks.last_mut().expect("a mask per doc") |= follow;
            } else {
                o.docs.push(doc);
                o.masks.push(follow);
            }
        }
        Ok(())
    }

    /// Writes the open list out (keeping its buffers for the next).
    fn close(&mut self) -> io::Result<()> {
        let Some(o) = &mut self.open else { return Ok(()) };
        if o.docs.is_empty() {
            return Ok(());
        }
        let (b, gaps) = (&mut self.bytes, &mut self.gaps);
        gaps.clear();
        let mut prev: Option<u32> = None;
        for &d in &o.docs {
            put_varint(gaps, prev.map_or(d, |p| d - p - 1));
            prev = Some(d);
        }
        b.clear();
        b.extend_from_slice(&o.trigram.to_le_bytes()[..3]);
        put_varint(b, o.docs.len() as u32);
        put_varint(b, gaps.len() as u32);
        b.extend_from_slice(gaps);
        for pair in o.masks.chunks(2) {
            b.push(pair[0] | pair.get(1).map_or(0, |m| m << 4));
        }
        self.out.write_all(b)?;
        self.written += b.len() as u64;
        o.docs.clear();
        o.masks.clear();
        Ok(())
    }

    /// Ends the run: its writer and where each partition begins (and,
    /// last, the run's length).
    pub(super) fn finish(mut self) -> io::Result<(W, Vec<u64>)> {
        self.close()?;
        self.starts.resize(PARTITIONS + 1, self.written);
        Ok((self.out, self.starts))
    }
}

/// One list of a run, as read.
#[derive(Clone, Copy, Debug)]
pub(super) struct RunList<'a> {
    /// Its trigram.
    pub(super) trigram: u32,
    count: u32,
    docs: &'a [u8],
    masks: &'a [u8],
}

impl RunList<'_> {
    /// Appends each doc of the list and its follow mask to `out`, in
    /// order.
    pub(super) fn decode_into(&self, out: &mut Vec<(u32, u8)>) -> io::Result<()> {
        // `next_list` cut `masks` to half a byte a doc.
        let count = self.count as usize;
        out.reserve(count);
        // The first id is stored as it is, each next as its gap less one.
        let (mut pos, mut next) = (0, 0u64);
        for i in 0..count {
            let gap = get_varint(self.docs, &mut pos).ok_or_else(bad_run)?;
            let d = u32::try_from(next + u64::from(gap)).map_err(|_| bad_run())?;
            next = u64::from(d) + 1;
            out.push((d, (self.masks[i / 2] >> (4 * (i % 2))) & 0x0f));
        }
        Ok(())
    }
}

/// The lists of a slice of a run (from a partition's start), in order.
pub(super) struct RunLists<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> RunLists<'a> {
    /// The lists in `bytes`.
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        RunLists { bytes, pos: 0 }
    }

    /// The next list, `None` at the end, an error on malformed bytes.
    pub(super) fn next_list(&mut self) -> io::Result<Option<RunList<'a>>> {
        if self.pos == self.bytes.len() {
            return Ok(None);
        }
        let b = self.bytes;
        let t = b.get(self.pos..self.pos + 3).ok_or_else(bad_run)?;
        let trigram = u32::from_le_bytes([t[0], t[1], t[2], 0]);
        self.pos += 3;
        let count = get_varint(b, &mut self.pos).ok_or_else(bad_run)?;
        let len = get_varint(b, &mut self.pos).ok_or_else(bad_run)? as usize;
        let docs = b.get(self.pos..self.pos + len).ok_or_else(bad_run)?;
        self.pos += len;
        let masks_len = (count as usize).div_ceil(2);
        let masks = b.get(self.pos..self.pos + masks_len).ok_or_else(bad_run)?;
        self.pos += masks_len;
        Ok(Some(RunList { trigram, count, docs, masks }))
    }
}

/// A finished run: its lists, then where each partition begins in them
/// (`PARTITIONS + 1` offsets, u64 LE, the last the lists' length), mapped
/// from its temporary file (page cache, not private memory) or in memory.
#[derive(Debug)]
pub(super) struct Run {
    bytes: RunBytes,
}

#[derive(Debug)]
enum RunBytes {
    Memory(Vec<u8>),
    Mapped(memmap2::Mmap),
}

/// Bytes of a run's partition table.
const TABLE_LEN: usize = (PARTITIONS + 1) * 8;

impl Run {
    /// The run that `fill` encodes, in memory.
    pub(super) fn in_memory(
        fill: impl FnOnce(&mut RunEncoder<Vec<u8>>) -> io::Result<()>,
    ) -> io::Result<Run> {
        let mut enc = RunEncoder::new(Vec::new());
        fill(&mut enc)?;
        let (mut bytes, starts) = enc.finish()?;
        bytes.extend(starts.iter().flat_map(|s| s.to_le_bytes()));
        Ok(Run { bytes: RunBytes::Memory(bytes) })
    }

    /// The run that `fill` encodes, written to an unnamed temporary file in
    /// `dir` (gone with the run, or with the process) and mapped back.
    pub(super) fn in_file(
        dir: &Path,
        fill: impl FnOnce(&mut RunEncoder<BufWriter<File>>) -> io::Result<()>,
    ) -> io::Result<Run> {
        let file = tempfile::tempfile_in(dir)?;
        let mut enc = RunEncoder::new(BufWriter::with_capacity(256 << 10, file));
        fill(&mut enc)?;
        let (mut w, starts) = enc.finish()?;
        for s in &starts {
            w.write_all(&s.to_le_bytes())?;
        }
        let file = w.into_inner().map_err(|e| e.into_error())?;
        // SAFETY: the file is unnamed and this process's own: nothing
        // else can change or truncate it while the map lives.
        let map = unsafe { memmap2::Mmap::map(&file) }?;
        if map.len() as u64 != starts[PARTITIONS] + TABLE_LEN as u64 {
            return Err(bad_run());
        }
        Ok(Run { bytes: RunBytes::Mapped(map) })
    }

    /// The lists and the table.
    fn all(&self) -> &[u8] {
        match &self.bytes {
            RunBytes::Memory(v) => v,
            RunBytes::Mapped(m) => m,
        }
    }

    /// Where partition `p` begins (`PARTITIONS`: the lists' end).
    fn start(&self, p: usize) -> u64 {
        let all = self.all();
        let at = all.len() - TABLE_LEN + 8 * p;
        u64::from_le_bytes(all[at..at + 8].try_into().expect("8 bytes"))
    }

    /// The run's length in bytes (its lists).
    pub(super) fn len(&self) -> u64 {
        self.start(PARTITIONS)
    }

    /// The bytes of the lists of partitions `parts`.
    pub(super) fn partitions(&self, parts: Range<usize>) -> &[u8] {
        &self.all()[self.start(parts.start) as usize..self.start(parts.end) as usize]
    }
}

/// The error of a run that does not decode (a temporary file changed
/// under the build).
fn bad_run() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "a sort run does not decode")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_round_trip_with_partition_starts() {
        let pairs = [(5u32, 1u32, 1u8), (5, 1, 2), (5, 9, 4), (70_000, 3, 8), (70_000, 200, 1)];
        let mut e = RunEncoder::new(Vec::new());
        for (t, d, f) in pairs {
            e.push_list(t, [(d, f)]).unwrap();
        }
        let (bytes, starts) = e.finish().unwrap();
        assert_eq!(starts.len(), PARTITIONS + 1);
        assert_eq!(starts[0], 0);
        assert_eq!(starts[1], starts[partition(70_000)]);
        assert_eq!(starts[PARTITIONS], bytes.len() as u64);
        let mut got = Vec::new();
        let mut lists = RunLists::new(&bytes[starts[partition(70_000)] as usize..]);
        while let Some(l) = lists.next_list().unwrap() {
            let mut pairs = Vec::new();
            l.decode_into(&mut pairs).unwrap();
            got.extend(pairs.into_iter().map(|(d, m)| (l.trigram, d, m)));
        }
        assert_eq!(got, vec![(70_000, 3, 8), (70_000, 200, 1)]);
        assert!(RunLists::new(&bytes[..bytes.len() - 1]).next_list().is_ok());
        let mut cut = RunLists::new(&bytes[..4]);
        assert!(cut.next_list().is_err());
    }
}
