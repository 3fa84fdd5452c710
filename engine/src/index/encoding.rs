//! Little-endian bytes on disk, written by one encoder ([`Put`]) and read
//! by [`Fields`]: the index file's sections and footer ([`super::format`]),
//! the `source` records of a file's index (a block index's
//! [`super::blocks::source`], a `.gz` index's [`super::gz::record`]), the
//! integrity record and a packed file's frames ([`crate::pack`]).
//!
//! A record opens with an 8-byte magic, a `u32` version and `u32` flags
//! ([`start`]), then little-endian fields at fixed offsets.

use super::error::IndexError;

/// The one encoder of on-disk bytes: fields appended to a buffer in
/// little-endian order, each at its own type's width (each call returns
/// the buffer, so fields chain).
pub(crate) trait Put {
    /// Appends `v`, little-endian, at its type's width.
    fn put_le(&mut self, v: impl Le) -> &mut Self;
    /// Appends `b` as it is.
    fn put(&mut self, b: &[u8]) -> &mut Self;
}

impl Put for Vec<u8> {
    fn put_le(&mut self, v: impl Le) -> &mut Self {
        v.append_to(self);
        self
    }

    fn put(&mut self, b: &[u8]) -> &mut Self {
        self.extend_from_slice(b);
        self
    }
}

/// A fixed-width integer as stored on disk.
pub(crate) trait Le {
    /// Appends the value's little-endian bytes to `out`.
    fn append_to(self, out: &mut Vec<u8>);
}

macro_rules! le {
    ($($t:ty),*) => {$(
        impl Le for $t {
            fn append_to(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
le!(u8, u32, u64, i64);

/// What a block-indexed text is, as the `source` records of a block index
/// ([`super::blocks::source`]) and of a `.gz` index ([`super::gz::record`])
/// both store it: three `u64`s in a row (its length, its newlines, the
/// nominal size of its blocks) and a bit of the record's flags
/// (bit 0: the text holds a NUL).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextShape {
    /// Bytes of text indexed.
    pub len: u64,
    /// Newlines in them (line numbers of a grown tail start after them).
    pub lines: u64,
    /// The nominal block size the text was cut into.
    pub block_size: u64,
    /// The text holds a NUL byte.
    pub has_nul: bool,
}

impl TextShape {
    /// The record flag set when the text holds a NUL.
    pub(crate) const HAS_NUL: u32 = 1;

    /// The record flags that say what the numbers cannot.
    pub(crate) fn flags(&self) -> u32 {
        if self.has_nul { Self::HAS_NUL } else { 0 }
    }

    /// Appends the three numbers to `b`.
    pub(crate) fn put(&self, b: &mut Vec<u8>) {
        b.put_le(self.len).put_le(self.lines).put_le(self.block_size);
    }

    /// The shape whose numbers start at byte `at` of `f` (within the
    /// length the caller checked).
    pub(crate) fn read(f: &Fields<'_>, at: usize) -> TextShape {
        TextShape {
            len: f.u64_at(at),
            lines: f.u64_at(at + 8),
            block_size: f.u64_at(at + 16),
            has_nul: f.flags() & Self::HAS_NUL != 0,
        }
    }
}

/// A record's first bytes: `magic`, `version`, `flags`.
pub(crate) fn start(magic: &[u8; 8], version: u32, flags: u32, capacity: usize) -> Vec<u8> {
    let mut b = Vec::with_capacity(capacity);
    b.put(magic).put_le(version).put_le(flags);
    b
}

/// A record's bytes whose magic and version were checked.
pub(crate) struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    /// `b`, when it starts with `magic` and a version in `versions`;
    /// `bad` makes the error for a short record or a wrong magic.
    pub(crate) fn check(
        b: &'a [u8],
        magic: &[u8; 8],
        versions: std::ops::RangeInclusive<u32>,
        bad: impl Fn(&str) -> IndexError,
    ) -> Result<Fields<'a>, IndexError> {
        if b.len() < 16 {
            return Err(bad("too short"));
        }
        if b[..8] != *magic {
            return Err(bad("bad magic"));
        }
        let f = Fields(b);
        let found = f.u32_at(8);
        if !versions.contains(&found) {
            let (min, max) = (*versions.start(), *versions.end());
            return Err(IndexError::UnsupportedVersion { found, min, max });
        }
        Ok(f)
    }

    /// The record's version.
    pub(crate) fn version(&self) -> u32 {
        self.u32_at(8)
    }

    /// The record's flags.
    pub(crate) fn flags(&self) -> u32 {
        self.u32_at(12)
    }

    /// The `u32` at byte `at` (within the length the caller checked).
    pub(crate) fn u32_at(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.0[at..at + 4].try_into().expect("4 bytes"))
    }

    /// The `u64` at byte `at` (within the length the caller checked).
    pub(crate) fn u64_at(&self, at: usize) -> u64 {
        u64::from_le_bytes(self.0[at..at + 8].try_into().expect("8 bytes"))
    }
}

/// The CRC32 of `len` bytes of `file` at `offset`, as records store a
/// file's head and tail to tell it unchanged: read in 64 KiB pieces, so a
/// long span (a last block that is one huge line, or a crafted record)
/// never sits in memory whole.
pub(crate) fn crc_of_range(file: &std::fs::File, offset: u64, len: u64) -> std::io::Result<u32> {
    let mut crc = crc32fast::Hasher::new();
    let mut buf = vec![0; len.min(64 << 10) as usize];
    read_in_pieces(file, offset..offset + len, &mut buf, |piece| crc.update(piece))?;
    Ok(crc.finalize())
}

/// Reads the bytes `range` of `file` with `pread`, a `buf` at a time, and
/// hands each piece to `take` (a file shorter than the range is an error).
pub(crate) fn read_in_pieces(
    file: &std::fs::File,
    range: std::ops::Range<u64>,
    buf: &mut [u8],
    mut take: impl FnMut(&[u8]),
) -> std::io::Result<()> {
    let mut at = range.start;
    while at < range.end {
        let n = buf.len().min((range.end - at) as usize);
        crate::sys::read_exact_at(file, &mut buf[..n], at)?;
        take(&buf[..n]);
        at += n as u64;
    }
    Ok(())
}
