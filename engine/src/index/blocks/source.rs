//! What a block index records of the file it was cut from, so that a
//! query can tell whether the index still describes the file: unchanged,
//! grown (a log appended to), or rewritten.
//!
//! Stored in the index's `source` section as `SOURCE_LEN` bytes:
//!
//! ```text
//! magic "TGBLKSRC" | version u32 | flags u32 | dev u64 | ino u64 | len u64
//! | lines u64 | block_size u64 | head_len u32 | head_crc u32 | tail_offset u64
//! | tail_crc u32 | reserved u32 | text_digest u64 (version 2 on)
//! ```
//!
//! All integers little-endian. Version 1 had no `text_digest`: a grown file
//! whose index has none is stale (see [`crate::index::trust`]). [`BlockSource::decode`] checks the length,
//! magic and version and never panics on bad input.

use crate::index::encoding::{self, Fields, Put, TextShape};
use crate::index::error::IndexError;

/// The magic opening a `source` section of a block index.
const MAGIC: [u8; 8] = *b"TGBLKSRC";

/// The version of this record.
///
/// History: 1, the first; 2 adds `text_digest`, the digest of every
/// indexed byte, so that a grown file is trusted only when none changed.
const VERSION: u32 = 2;

/// The length of a version 1 record.
const SOURCE_LEN_V1: usize = 8 + 4 + 4 + 8 * 5 + 4 + 4 + 8 + 4 + 4;

/// The length of an encoded record.
pub(crate) const SOURCE_LEN: usize = SOURCE_LEN_V1 + 8;

/// How many leading bytes are checksummed.
pub const HEAD_LEN: u64 = 64 << 10;

/// What a block index records of its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockSource {
    /// The file's device and inode: another inode is another file (rotated
    /// or replaced).
    pub dev: u64,
    /// See `dev`.
    pub ino: u64,
    /// The indexed text: its length (the file's size at the build), its
    /// newlines, its nominal block size, whether it holds a NUL.
    pub text: TextShape,
    /// How many leading bytes `head_crc` covers (`min(len, HEAD_LEN)`).
    pub head_len: u32,
    /// CRC32 of the first `head_len` bytes.
    pub head_crc: u32,
    /// Where the last block starts.
    pub tail_offset: u64,
    /// CRC32 of the last block (`tail_offset..len`).
    pub tail_crc: u32,
    /// `crate::index::trust::digest` of the indexed bytes (`None`: a
    /// version 1 record, which has none).
    pub text_digest: Option<u64>,
}

impl BlockSource {
    /// The record's bytes (a version 1 record when it has no digest, so
    /// that every record read encodes back to its own bytes).
    pub fn encode(&self) -> Vec<u8> {
        let version = if self.text_digest.is_some() { VERSION } else { 1 };
        let mut b = encoding::start(&MAGIC, version, self.text.flags(), SOURCE_LEN);
        b.put_le(self.dev).put_le(self.ino);
        self.text.put(&mut b);
        b.put_le(self.head_len).put_le(self.head_crc);
        b.put_le(self.tail_offset).put_le(self.tail_crc).put_le(0u32);
        if let Some(d) = self.text_digest {
            b.put_le(d);
        }
        b
    }

    /// Reads a record; a wrong length, magic or version, or inconsistent
    /// offsets, are [`IndexError::Corrupt`] or [`IndexError::UnsupportedVersion`].
    pub fn decode(b: &[u8]) -> Result<BlockSource, IndexError> {
        let bad = |what: &str| IndexError::Corrupt(format!("block source record: {what}"));
        let f = Fields::check(b, &MAGIC, 1..=VERSION, bad)?;
        let v2 = f.version() >= 2;
        if b.len() != if v2 { SOURCE_LEN } else { SOURCE_LEN_V1 } {
            return Err(bad("wrong length"));
        }
        let (u32_at, u64_at) = (|at| f.u32_at(at), |at| f.u64_at(at));
        let s = BlockSource {
            dev: u64_at(16),
            ino: u64_at(24),
            text: TextShape::read(&f, 32),
            head_len: u32_at(56),
            head_crc: u32_at(60),
            tail_offset: u64_at(64),
            tail_crc: u32_at(72),
            text_digest: v2.then(|| u64_at(80)),
        };
        if u64::from(s.head_len) > s.text.len.min(HEAD_LEN) || s.tail_offset > s.text.len {
            return Err(bad("offsets out of range"));
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> BlockSource {
        BlockSource {
            dev: 7,
            ino: 42,
            text: TextShape { len: 1 << 30, lines: 12_345_678, block_size: 1 << 20, has_nul: true },
            head_len: 65_536,
            head_crc: 0xdead_beef,
            tail_offset: (1 << 30) - 1000,
            tail_crc: 0x1234_5678,
            text_digest: Some(0x0123_4567_89ab_cdef),
        }
    }

    #[test]
    fn round_trips() {
        let s = sample();
        let b = s.encode();
        assert_eq!(b.len(), SOURCE_LEN);
        assert_eq!(BlockSource::decode(&b).unwrap(), s);
    }

    #[test]
    fn version_1_records_are_read_without_a_digest() {
        let old = BlockSource { text_digest: None, ..sample() };
        let mut b = old.encode();
        assert_eq!((b.len(), &b[8..12]), (SOURCE_LEN_V1, &1u32.to_le_bytes()[..]));
        assert_eq!(BlockSource::decode(&b).unwrap(), old);
        b.push(0);
        assert!(BlockSource::decode(&b).is_err(), "a version 1 record of the wrong length");
    }

    #[test]
    fn bad_records_are_errors_not_panics() {
        let b = sample().encode();
        assert!(BlockSource::decode(&b[..SOURCE_LEN - 1]).is_err());
        let mut m = b.clone();
        m[0] ^= 1;
        assert!(BlockSource::decode(&m).is_err());
        let mut v = b.clone();
        v[8] = 9;
        assert!(matches!(BlockSource::decode(&v), Err(IndexError::UnsupportedVersion { .. })));
        let mut o = b;
        o[64..72].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(BlockSource::decode(&o).is_err());
        for n in 0..SOURCE_LEN {
            let _ = BlockSource::decode(&vec![0xff; n]);
        }
    }
}
