//! The times a block index records per block: the earliest and the latest
//! time its lines carry, in the timestamp format found in the text's
//! first [`time::SAMPLE`] bytes ([`time::detect`], a syslog line's year
//! from the file's modification time). A line carries its own time, or
//! (a continuation, a stack trace's line) that of the last line before
//! it with one, in this block or an earlier one; a line before the
//! text's first time carries none. So a reader of lines in a time range
//! reads only the blocks whose range meets it, however the times are
//! ordered (`tg sql`'s `WHERE time …`).
//!
//! Kept in the index's optional `times` section (docs/INDEX-FORMAT.md),
//! written by every block index build (a huge file's, a `.gz` file's
//! text's, a packed file's) and trusted with the rest of the index:
//!
//! ```text
//! magic "TGTIMES\0" | version u32 (1) | format u32 (0 ISO, 1 syslog,
//! 2 access log, 3 JSON) | year i32 | month u32 (syslog's; else 0)
//! | blocks u64 | blocks × (min i64, max i64)   (none: i64::MAX, i64::MIN)
//! ```

use std::io;
use std::path::Path;

use crate::index::reader::IndexReader;
use crate::index::spool::Spool;
use crate::logline::time::{self, Format};

/// The section's first bytes.
const MAGIC: &[u8; 8] = b"TGTIMES\0";
/// The section's version.
const VERSION: u32 = 1;
/// Bytes before the blocks' ranges.
const HEAD: usize = 32;

/// The times a text's blocks carry, as its index recorded them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockTimes {
    /// The timestamp format they were read in.
    pub format: Format,
    /// Per block, in text order: the earliest and latest time its lines
    /// carry, in ms since the epoch (`None`: no line carries one).
    pub ranges: Vec<Option<(i64, i64)>>,
}

/// What one block's lines say of their times, before the time carried
/// into it is known ([`scan`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Scan {
    /// Whether lines before its first line with a time carry the one
    /// carried into the block.
    leading: bool,
    /// The earliest and latest of its lines' own times.
    own: Option<(i64, i64)>,
    /// The time of its last line with one.
    last: Option<i64>,
}

/// The times of `bytes`' lines (a block, starting at a line start; its
/// last line ends at its end) in `format`, each line's read as `tg sql`
/// and `tg view` read it (from its first [`time::LINE_HEAD`] bytes).
fn scan(format: Format, bytes: &[u8]) -> Scan {
    let mut s = Scan::default();
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let line = &bytes[start..end];
        match time::parse(format, &line[..line.len().min(time::LINE_HEAD)]) {
            Some(t) => {
                s.own = Some(s.own.map_or((t, t), |(lo, hi)| (lo.min(t), hi.max(t))));
                s.last = Some(t);
            }
            None => s.leading |= s.last.is_none(),
        }
        start = end + 1;
    }
    s
}

/// The recorded times of a text's blocks, built in text order: each
/// block's range encoded as it comes and spooled, so that a text of any
/// length costs the same memory.
#[derive(Debug)]
pub(crate) struct Builder {
    /// The time carried out of the blocks pushed so far.
    carried: Option<i64>,
    format: Format,
    /// Blocks pushed.
    blocks: u64,
    /// Their ranges, encoded.
    ranges: Spool,
}

impl Builder {
    /// A builder for a text starting with `head` (at least its first
    /// [`time::SAMPLE`] bytes, when it is that long) of a file last
    /// modified at `modified_ms`; `None` when no line of the sample has
    /// a time. Its ranges past a few hundred KiB go to a temporary file
    /// in `dir`.
    pub(crate) fn for_text(head: &[u8], modified_ms: i64, dir: &Path) -> Option<Builder> {
        let head = without_mark(head, 0);
        let format = time::detect(&head[..head.len().min(time::SAMPLE)], modified_ms)?;
        Some(Builder { carried: None, format, blocks: 0, ranges: Spool::new(dir) })
    }

    /// [`scan`] of the block at `offset` of the text, `bytes`, in the
    /// builder's format (the text's UTF-8 byte-order mark left out).
    pub(crate) fn scan(&self, offset: u64, bytes: &[u8]) -> Scan {
        scan(self.format, without_mark(bytes, offset))
    }

    /// Adds the next block, as [`Builder::scan`] found it (fails when
    /// its range cannot be spooled).
    pub(crate) fn push(&mut self, s: Scan) -> io::Result<()> {
        let mut range = s.own;
        if let (true, Some(t)) = (s.leading, self.carried) {
            range = Some(range.map_or((t, t), |(lo, hi)| (lo.min(t), hi.max(t))));
        }
        self.carried = s.last.or(self.carried);
        let mut entry = Vec::with_capacity(16);
        put_range(&mut entry, range);
        self.blocks += 1;
        self.ranges.push(&entry)
    }

    /// The section's bytes, in parts: its head, then the spooled ranges.
    pub(crate) fn into_parts(self) -> Vec<Spool> {
        vec![Spool::holding(head(self.format, self.blocks)), self.ranges]
    }
}

/// The section's first [`HEAD`] bytes: of `blocks` ranges in `format`.
fn head(format: Format, blocks: u64) -> Vec<u8> {
    let (kind, year, month) = match format {
        Format::Iso => (0u32, 0i32, 0u32),
        Format::Syslog { year, month } => (1, year, month),
        Format::Access => (2, 0, 0),
        Format::Json => (3, 0, 0),
    };
    let mut out = Vec::with_capacity(HEAD);
    out.extend_from_slice(MAGIC);
    for v in [VERSION, kind, year as u32, month] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&blocks.to_le_bytes());
    out
}

/// Appends the 16 bytes of one block's range.
fn put_range(out: &mut Vec<u8>, range: Option<(i64, i64)>) {
    let (lo, hi) = range.unwrap_or((i64::MAX, i64::MIN));
    out.extend_from_slice(&lo.to_le_bytes());
    out.extend_from_slice(&hi.to_le_bytes());
}

/// `bytes` without the UTF-8 byte-order mark they start with when they
/// are the text's start (`offset` 0): no line of a row holds it.
fn without_mark(bytes: &[u8], offset: u64) -> &[u8] {
    match offset {
        0 => bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes),
        _ => bytes,
    }
}

impl BlockTimes {
    /// The `times` section holding these ranges.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = head(self.format, self.ranges.len() as u64);
        out.reserve(16 * self.ranges.len());
        for &r in &self.ranges {
            put_range(&mut out, r);
        }
        out
    }

    /// The times `reader`'s `times` section records of its documents
    /// (`None`: it has none, or not one this version reads).
    pub(crate) fn of(reader: &IndexReader) -> Option<BlockTimes> {
        BlockTimes::decode(reader.times()?, u64::from(reader.stats().documents))
    }

    /// Reads a `times` section of an index of `blocks` blocks: `None`
    /// when it is not one this version writes (its magic, version,
    /// format, length and block count are checked, and each range).
    pub fn decode(bytes: &[u8], blocks: u64) -> Option<BlockTimes> {
        let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
        let u64_at = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
        if bytes.get(..8)? != MAGIC || u32_at(8)? != VERSION || u64_at(24)? != blocks {
            return None;
        }
        let (year, month) = (u32_at(16)? as i32, u32_at(20)?);
        let format = match (u32_at(12)?, year, month) {
            (0, 0, 0) => Format::Iso,
            (1, _, 1..=12) => Format::Syslog { year, month },
            (2, 0, 0) => Format::Access,
            (3, 0, 0) => Format::Json,
            _ => return None,
        };
        let body = bytes.get(HEAD..)?;
        if body.len() as u64 != blocks.checked_mul(16)? {
            return None;
        }
        let ranges = body
            .chunks_exact(16)
            .map(|c| {
                let lo = i64::from_le_bytes(c[..8].try_into().expect("8 bytes"));
                let hi = i64::from_le_bytes(c[8..].try_into().expect("8 bytes"));
                match (lo, hi) {
                    (i64::MAX, i64::MIN) => Some(None),
                    _ => (lo <= hi).then_some(Some((lo, hi))),
                }
            })
            .collect::<Option<Vec<_>>>()?;
        Some(BlockTimes { format, ranges })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 1_767_434_400_000;

    /// The ranges of `text` cut into `blocks` (lengths).
    fn ranges(text: &[u8], blocks: &[usize]) -> Vec<Option<(i64, i64)>> {
        let mut b = Builder::for_text(text, 0, &std::env::temp_dir()).unwrap();
        let mut at = 0;
        for &len in blocks {
            b.push(b.scan(at as u64, &text[at..at + len])).unwrap();
            at += len;
        }
        BlockTimes::decode(&section(b), blocks.len() as u64).unwrap().ranges
    }

    /// The section a builder wrote.
    fn section(b: Builder) -> Vec<u8> {
        let mut out = Vec::new();
        for part in b.into_parts() {
            part.copy_to(&mut out).unwrap();
        }
        out
    }

    #[test]
    fn a_long_texts_ranges_are_spooled_and_read_back_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let line = b"2026-01-03 10:00:00 a\n";
        let mut b = Builder::for_text(line, 0, dir.path()).unwrap();
        let mut want = Vec::new();
        for i in 0..40_000i64 {
            let own = (i % 5 != 0).then_some((T + i, T + 2 * i));
            b.push(Scan { leading: false, own, last: own.map(|r| r.1) }).unwrap();
            want.push(own);
        }
        let whole = BlockTimes { format: Format::Iso, ranges: want }.encode();
        assert_eq!(section(b), whole, "640,000 bytes of ranges, past a spool's memory");
    }

    #[test]
    fn continuations_carry_times_across_blocks_and_nothing_before_the_first() {
        let text = b"\xEF\xBB\xBFpreamble\n2026-01-03 10:00:01 a\n  at x\n\
            2026-01-03 10:00:00 late\n  at y\n  at z\n2026-01-03 10:00:05 b";
        let lens = [12, 22, 32, 7, 7, 21];
        assert_eq!(lens.iter().sum::<usize>(), text.len());
        let want = [
            None,
            Some((T + 1000, T + 1000)),
            Some((T, T + 1000)),
            Some((T, T)),
            Some((T, T)),
            Some((T + 5000, T + 5000)),
        ];
        assert_eq!(ranges(text, &lens), want);
        let whole = ranges(text, &[text.len()]);
        assert_eq!(whole, [Some((T, T + 5000))]);
    }

    #[test]
    fn a_section_of_another_shape_is_not_read() {
        let mut b = Builder::for_text(b"Jan  3 10:00:00 h x\n", T, &std::env::temp_dir()).unwrap();
        b.push(b.scan(0, b"Jan  3 10:00:00 h x\n")).unwrap();
        let bytes = section(b);
        let read = BlockTimes::decode(&bytes, 1).unwrap();
        assert_eq!(read.format, Format::Syslog { year: 2026, month: 1 });
        assert_eq!(read.ranges, [Some((T, T))]);
        assert_eq!(BlockTimes::decode(&bytes, 2), None, "another block count");
        for cut in 0..bytes.len() {
            assert_eq!(BlockTimes::decode(&bytes[..cut], 1), None);
        }
        // Every byte flipped, every length: a section or `None`, never a
        // panic, and what decodes encodes back to the same bytes.
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let mut b = bytes.clone();
            let at = (rng % b.len() as u64) as usize;
            b[at] ^= (rng >> 32) as u8 | 1;
            b.truncate(b.len() - (rng >> 40) as usize % 3);
            if let Some(t) = BlockTimes::decode(&b, 1) {
                assert_eq!(t.encode(), b);
            }
        }
        let mut swapped = bytes.clone();
        swapped[HEAD..HEAD + 8].copy_from_slice(&(T + 1).to_le_bytes());
        assert_eq!(BlockTimes::decode(&swapped, 1), None, "min after max");
    }
}
