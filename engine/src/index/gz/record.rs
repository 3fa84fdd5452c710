//! What the index of a `.gz` file records besides its trigrams: which
//! compressed file it describes, and the access points that let a query
//! decompress any part of it without decompressing what comes before.
//!
//! Stored as the index's `source` section (so the index file's footer and
//! the section's CRC32 cover it, and it is published atomically with the
//! trigrams). All integers little-endian:
//!
//! ```text
//! header, HEADER_LEN bytes:
//! ┌──────────────┬─────────────┬───────────┬─────────┬─────────┬────────────┬──────────────┐
//! │ "TGGZSRC\0"  │ version u32 │ flags u32 │ dev u64 │ ino u64 │ gz_len u64 │ mtime_ns i64 │ …
//! └──────────────┴─────────────┴───────────┴─────────┴─────────┴────────────┴──────────────┘
//! … text_len u64 │ lines u64 │ block_size u64 │ spacing u64 │ points u64
//!   │ head_len u32 │ head_crc u32 │ tail_len u32 │ tail_crc u32
//! then `points` records of POINT_LEN bytes:
//!   bits u64 │ text_offset u64 │ member u64 │ kind u32 │ window_len u32
//! then the windows: each point's 32 KiB of preceding text, raw-deflate
//! compressed, one after another (window_len 0: the point needs none).
//! ```
//!
//! `bits` is the compressed offset in bits of the point; `kind` says what is
//! there: a gzip member header (0), the deflate data right after the header
//! at byte `member` (1), or a deflate block inside a member (2, the only
//! kind with a window). [`GzRecord::decode`] checks every length, offset
//! and order, and never panics on bad input (`fuzz/fuzz_targets/gz_record.rs`).

use std::ops::Range;

use crate::index::encoding::{self, Fields, Put, TextShape};
use crate::index::error::IndexError;

/// The magic opening the record.
const MAGIC: [u8; 8] = *b"TGGZSRC\0";

/// The version of this record.
/// 1: first version (access points every `spacing` bytes of text).
pub const VERSION: u32 = 1;

/// Length of the header.
pub const HEADER_LEN: usize = 8 + 4 + 4 + 8 * 9 + 4 * 4;

/// Length of one access-point record.
pub(crate) const POINT_LEN: usize = 32;

/// How many leading and trailing compressed bytes are checksummed.
pub(crate) const EDGE_LEN: u64 = 64 << 10;

/// The length of a window of preceding text (deflate's history).
pub(crate) const WINDOW_LEN: usize = 32 << 10;

/// `member` of a point inside a member's deflate data.
const NO_MEMBER: u64 = u64::MAX;

/// What is at an access point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointKind {
    /// A gzip member header starts here.
    MemberHeader,
    /// A member's deflate data starts here; its header starts at this byte.
    MemberData(u64),
    /// A deflate block inside a member: the point carries a window.
    Block,
}

/// One access point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessPoint {
    /// Compressed offset, in bits.
    pub bits: u64,
    /// Offset in the decompressed text.
    pub text_offset: u64,
    /// What is there.
    pub kind: PointKind,
    /// Where its compressed window lies in the record (empty: none).
    pub window: Range<usize>,
}

/// The compressed file an index describes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GzFile {
    /// Device and inode: another inode is another file.
    pub dev: u64,
    /// See `dev`.
    pub ino: u64,
    /// Size of the compressed file.
    pub gz_len: u64,
    /// Modification time, in nanoseconds since the epoch.
    pub mtime_ns: i64,
    /// CRC32 of the first `head_len` compressed bytes.
    pub head_crc: u32,
    /// `min(gz_len, EDGE_LEN)`.
    pub head_len: u32,
    /// CRC32 of the last `tail_len` compressed bytes.
    pub tail_crc: u32,
    /// `min(gz_len, EDGE_LEN)`.
    pub tail_len: u32,
}

/// A decoded record (windows stay in the record's bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GzRecord {
    /// The compressed file.
    pub file: GzFile,
    /// Its text.
    pub text: TextShape,
    /// The nominal distance between access points, in bytes of text.
    pub spacing: u64,
    /// The access points, in file order.
    pub points: Vec<AccessPoint>,
}

impl GzRecord {
    /// The record's bytes: of the compressed `file`, its `text` with access
    /// points every `spacing` bytes of it, `windows[i]` the compressed window
    /// of `points[i]` (their `window` fields are ignored).
    pub fn encode(
        file: &GzFile,
        text: &TextShape,
        spacing: u64,
        points: &[(AccessPoint, Vec<u8>)],
    ) -> Vec<u8> {
        let mut b = GzRecord::header(file, text, spacing, points.len() as u64);
        b.reserve(points.len() * POINT_LEN);
        for (p, window) in points {
            GzRecord::put_point(&mut b, p, window.len() as u32);
        }
        for (_, window) in points {
            b.put(window);
        }
        b
    }

    /// The record's first [`HEADER_LEN`] bytes: of the compressed `file`,
    /// its `text`, with `points` access points every `spacing` bytes of it.
    /// The point table and the windows follow ([`GzRecord::put_point`]).
    pub(crate) fn header(file: &GzFile, text: &TextShape, spacing: u64, points: u64) -> Vec<u8> {
        let mut b = encoding::start(&MAGIC, VERSION, text.flags(), HEADER_LEN);
        for v in [file.dev, file.ino, file.gz_len, file.mtime_ns as u64] {
            b.put_le(v);
        }
        text.put(&mut b);
        b.put_le(spacing).put_le(points);
        for v in [file.head_len, file.head_crc, file.tail_len, file.tail_crc] {
            b.put_le(v);
        }
        b
    }

    /// Appends the [`POINT_LEN`] bytes of the point table's entry of `p`,
    /// whose compressed window is `window_len` bytes long (its `window`
    /// field is ignored).
    pub(crate) fn put_point(b: &mut Vec<u8>, p: &AccessPoint, window_len: u32) {
        let (kind, member) = match p.kind {
            PointKind::MemberHeader => (0u32, NO_MEMBER),
            PointKind::MemberData(at) => (1, at),
            PointKind::Block => (2, NO_MEMBER),
        };
        for v in [p.bits, p.text_offset, member] {
            b.put_le(v);
        }
        b.put_le(kind).put_le(window_len);
    }

    /// Reads a record: a wrong length, magic, kind, order or offset is
    /// [`IndexError::Corrupt`], another version [`IndexError::UnsupportedVersion`].
    pub fn decode(b: &[u8]) -> Result<GzRecord, IndexError> {
        let bad = |what: &str| IndexError::Corrupt(format!("gzip access points: {what}"));
        if b.len() < HEADER_LEN {
            return Err(bad("too short"));
        }
        let f = Fields::check(b, &MAGIC, VERSION..=VERSION, bad)?;
        let (u32_at, u64_at) = (|at| f.u32_at(at), |at| f.u64_at(at));
        let file = GzFile {
            dev: u64_at(16),
            ino: u64_at(24),
            gz_len: u64_at(32),
            mtime_ns: u64_at(40) as i64,
            head_len: u32_at(88),
            head_crc: u32_at(92),
            tail_len: u32_at(96),
            tail_crc: u32_at(100),
        };
        if f.flags() & !TextShape::HAS_NUL != 0 {
            return Err(bad("unknown flags"));
        }
        let (text, spacing) = (TextShape::read(&f, 48), u64_at(72));
        let edge = file.gz_len.min(EDGE_LEN);
        if u64::from(file.head_len) != edge || u64::from(file.tail_len) != edge {
            return Err(bad("checksummed edges do not match the file size"));
        }
        let n = u64_at(80);
        let table_end = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(POINT_LEN))
            .and_then(|t| t.checked_add(HEADER_LEN))
            .filter(|&end| end <= b.len())
            .ok_or_else(|| bad("point table out of bounds"))?;
        let mut points = Vec::with_capacity((table_end - HEADER_LEN) / POINT_LEN);
        let mut window_at = table_end;
        for at in (HEADER_LEN..table_end).step_by(POINT_LEN) {
            let (bits, text_offset, member) = (u64_at(at), u64_at(at + 8), u64_at(at + 16));
            let window_len = u32_at(at + 28) as usize;
            let kind = match (u32_at(at + 24), member) {
                (0, NO_MEMBER) if bits % 8 == 0 => PointKind::MemberHeader,
                (1, m) if bits % 8 == 0 && m < bits / 8 => PointKind::MemberData(m),
                (2, NO_MEMBER) => PointKind::Block,
                _ => return Err(bad("bad point kind")),
            };
            if (kind == PointKind::Block) != (window_len > 0) {
                return Err(bad("a window where none belongs, or none where one must be"));
            }
            let window = window_at..window_at + window_len;
            if window.end > b.len() {
                return Err(bad("window out of bounds"));
            }
            window_at = window.end;
            let ordered = points
                .last()
                .is_none_or(|p: &AccessPoint| bits > p.bits && text_offset >= p.text_offset);
            if !ordered || bits > file.gz_len.saturating_mul(8) || text_offset > text.len {
                return Err(bad("points out of order or out of range"));
            }
            if points.is_empty() && text_offset != 0 {
                return Err(bad("the first point is not at the start of the text"));
            }
            points.push(AccessPoint { bits, text_offset, kind, window });
        }
        if window_at != b.len() {
            return Err(bad("trailing bytes"));
        }
        if text.len > 0 && points.is_empty() {
            return Err(bad("no access point"));
        }
        Ok(GzRecord { file, text, spacing, points })
    }

    /// The last access point at or before `text_offset`.
    pub fn point_before(&self, text_offset: u64) -> Option<&AccessPoint> {
        let i = self.points.partition_point(|p| p.text_offset <= text_offset);
        self.points.get(i.checked_sub(1)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(bits: u64, text_offset: u64, kind: PointKind) -> AccessPoint {
        AccessPoint { bits, text_offset, kind, window: 0..0 }
    }

    fn sample() -> Vec<u8> {
        let file = GzFile {
            dev: 1,
            ino: 2,
            gz_len: 1000,
            mtime_ns: 1_700_000_000_123_456_789,
            head_crc: 7,
            head_len: 1000,
            tail_crc: 8,
            tail_len: 1000,
        };
        let text = TextShape { len: 5000, lines: 40, block_size: 4096, has_nul: true };
        let points = vec![
            (point(80, 0, PointKind::MemberData(0)), vec![]),
            (point(2003, 1500, PointKind::Block), vec![1, 2, 3]),
            (point(4000, 3000, PointKind::MemberHeader), vec![]),
            (point(4160, 3000, PointKind::MemberData(500)), vec![]),
        ];
        GzRecord::encode(&file, &text, 1024, &points)
    }

    #[test]
    fn round_trips_and_finds_points() {
        let b = sample();
        let r = GzRecord::decode(&b).unwrap();
        assert_eq!(r.encode_again(&b), b);
        assert_eq!((r.text.len, r.text.lines, r.text.has_nul), (5000, 40, true));
        assert_eq!(r.points[1].kind, PointKind::Block);
        assert_eq!(&b[r.points[1].window.clone()], &[1, 2, 3]);
        assert_eq!(r.point_before(1499).unwrap().bits, 80);
        assert_eq!(r.point_before(1500).unwrap().bits, 2003);
        assert_eq!(r.point_before(4999).unwrap().bits, 4160);
    }

    #[test]
    fn bad_records_are_errors_not_panics() {
        let b = sample();
        for n in 0..b.len() {
            assert!(GzRecord::decode(&b[..n]).is_err(), "cut at {n}");
        }
        let mut v = b.clone();
        v[8] = 2;
        assert!(matches!(GzRecord::decode(&v), Err(IndexError::UnsupportedVersion { .. })));
        for at in 0..b.len() {
            let mut m = b.clone();
            m[at] ^= 0x55;
            let _ = GzRecord::decode(&m);
        }
        // Found by fuzz/fuzz_targets/gz_record.rs: unknown flags were
        // accepted, and lost when the record was encoded again.
        let mut flags = b.clone();
        flags[13] = 6;
        assert!(GzRecord::decode(&flags).is_err());
        let mut swapped = b.clone();
        swapped[HEADER_LEN + 8] = 0xff;
        assert!(GzRecord::decode(&swapped).is_err());
    }

    impl GzRecord {
        /// Encodes this record again with the windows of `bytes`.
        fn encode_again(&self, bytes: &[u8]) -> Vec<u8> {
            let points: Vec<_> =
                self.points.iter().map(|p| (p.clone(), bytes[p.window.clone()].to_vec())).collect();
            GzRecord::encode(&self.file, &self.text, self.spacing, &points)
        }
    }
}
