//! The container layout of an index file: named sections, a table of
//! contents and a checksummed footer. All integers are little-endian.
//!
//! ```text
//! +-----------+-----------+-----+-----+--------+
//! | section 0 | section 1 | ... | TOC | footer |
//! +-----------+-----------+-----+-----+--------+
//! ```
//!
//! [`FormatWriter`] writes sections one after another through a
//! `CrcWriter`, which checksums every byte as it goes out, then the TOC
//! and the [`FOOTER_LEN`]-byte footer. [`Layout::parse`] checks the footer
//! (magic, version, footer CRC, body length), the TOC's CRC and every
//! section's bounds before any offset is trusted; it never panics on bad
//! input. What each section holds is described in `docs/INDEX-FORMAT.md`
//! and in the modules that write them ([`super::table`], [`super::postings`]).

use std::io::{self, Write};

use super::encoding::Put;
use super::error::IndexError;

/// Magic bytes ending every index file.
pub const MAGIC: [u8; 8] = *b"TRIGRIDX";

/// The format version this build writes. Version history (one line per bump; bump when the layout changes):
/// - 1: first layout — sections `postings`, `trigrams`, `files`, `paths`,
///   `docs`, `always`; delta-varint postings with a CRC per list.
/// - 2: lists in at least 1/8 of the documents are bitmaps
///   (`super::postings::is_bitmap`); version 1 files are still read.
/// - 4: a bitmap list is followed by its follow masks
///   (`super::postings::ListKind::BitmapMasks`); 1 and 2 are still read.
///   3 is skipped: the version field has no checksum of its own, so every
///   two versions read differ in at least two bits (docs/INDEX-FORMAT.md).
/// - 7: lists are coded (`super::postings::ListKind::Coded`): a tag, ids
///   as a bitmap or exp-Golomb gaps, Huffman-coded follow masks; 0.73 of
///   format 4's size on the kernel's tree. 5 and 6 are one bit from 4: skipped.
pub const FORMAT_VERSION: u32 = 7;

/// The oldest format version this build can read.
pub const MIN_FORMAT_VERSION: u32 = 1;
/// Every format version this build reads: no two one bit apart.
pub(crate) const READ_FORMAT_VERSIONS: [u32; 4] = [1, 2, 4, 7];

/// Bumped when the layout stays the same but what it holds changes:
/// 1 ASCII-folded trigrams; 2 ctimes, racy entries, directories and
/// watched paths, binary files left out; 3 documents hold the trigrams of
/// their edges ([`crate::query::trigram::for_each_edge`]); 4 a tree's
/// table holds the recorded walks ([`super::table::views`]). Readers report
/// [`super::reader::IndexReader::needs_reindex`] outside
/// `OLDEST_FEATURE_VERSION`..=this (docs/INDEX-FORMAT.md).
pub const FEATURE_VERSION: u32 = 4;
/// The oldest feature version used: 2, without edges (planned without).
pub(crate) const OLDEST_FEATURE_VERSION: u32 = 2;
/// The feature version since which documents hold their edges.
pub(crate) const EDGES_FEATURE_VERSION: u32 = 3;
/// The feature version since which a tree's table holds the recorded walks.
pub(crate) const VIEWS_FEATURE_VERSION: u32 = 4;

/// Length of the footer in bytes (format version 1).
pub const FOOTER_LEN: usize = 52;

/// Length of a section name in the TOC (zero-padded ASCII).
pub const SECTION_NAME_LEN: usize = 16;

/// Length of one TOC entry: name, offset, length, CRC32, reserved.
pub(crate) const TOC_ENTRY_LEN: usize = SECTION_NAME_LEN + 8 + 8 + 4 + 4;

/// A writer that counts and checksums (CRC32) every byte passed through it.
#[derive(Debug)]
pub(crate) struct CrcWriter<W> {
    inner: W,
    hasher: crc32fast::Hasher,
    written: u64,
}

impl<W: Write> CrcWriter<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        CrcWriter { inner, hasher: crc32fast::Hasher::new(), written: 0 }
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// CRC32 of the bytes written so far.
    pub fn crc(&self) -> u32 {
        self.hasher.clone().finalize()
    }

    /// Returns the wrapped writer.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write> Write for CrcWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// One entry of the table of contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionEntry {
    /// Section name (ASCII, at most [`SECTION_NAME_LEN`] bytes).
    pub name: String,
    /// Offset of the section's first byte from the start of the file.
    pub offset: u64,
    /// Length of the section in bytes.
    pub len: u64,
    /// CRC32 of the section's bytes.
    pub crc: u32,
}

/// Writes an index file as a sequence of named sections, then the TOC and
/// the footer. Bytes of the open section go through [`Write`].
#[derive(Debug)]
pub struct FormatWriter<W: Write> {
    out: CrcWriter<W>,
    sections: Vec<SectionEntry>,
    open: Option<(String, u64, crc32fast::Hasher)>,
    format_version: u32,
}

impl<W: Write> FormatWriter<W> {
    /// Starts a [`FORMAT_VERSION`] file on `out` (which should be buffered).
    pub fn new(out: W) -> Self {
        FormatWriter::of_version(out, FORMAT_VERSION)
    }

    /// Starts a file of format version `version` (one of
    /// [`READ_FORMAT_VERSIONS`]: the caller writes that version's lists).
    pub(crate) fn of_version(out: W, version: u32) -> Self {
        debug_assert!(READ_FORMAT_VERSIONS.contains(&version), "version {version}");
        let sections = Vec::new();
        FormatWriter { out: CrcWriter::new(out), sections, open: None, format_version: version }
    }

    /// Opens a section; every byte written until [`end_section`](Self::end_section)
    /// belongs to it.
    ///
    /// # Panics
    /// If a section is already open or the name is longer than
    /// [`SECTION_NAME_LEN`] (both are bugs of the caller, not of the data).
    pub(crate) fn begin_section(&mut self, name: &str) {
        assert!(self.open.is_none(), "section already open");
        assert!(name.len() <= SECTION_NAME_LEN, "section name too long");
        self.open = Some((name.to_string(), self.out.written(), crc32fast::Hasher::new()));
    }

    /// Closes the open section and records it in the TOC.
    ///
    /// # Panics
    /// If no section is open.
    pub(crate) fn end_section(&mut self) {
        let (name, offset, hasher) = self.open.take().expect("no open section");
        let len = self.out.written() - offset;
        self.sections.push(SectionEntry { name, offset, len, crc: hasher.finalize() });
    }

    /// Writes a whole section at once.
    pub fn section(&mut self, name: &str, bytes: &[u8]) -> io::Result<()> {
        self.begin_section(name);
        self.write_all(bytes)?;
        self.end_section();
        Ok(())
    }

    /// Writes the TOC and the footer, flushes, and returns the sink and the
    /// total file length.
    pub fn finish(mut self) -> io::Result<(W, u64)> {
        assert!(self.open.is_none(), "section left open");
        let toc = encode_toc(&self.sections);
        let toc_offset = self.out.written();
        self.out.write_all(&toc)?;
        let body_len = self.out.written();
        let footer = encode_footer(&Footer {
            toc_offset,
            toc_len: toc.len() as u64,
            body_len,
            body_crc: self.out.crc(),
            toc_crc: crc32fast::hash(&toc),
            feature_version: FEATURE_VERSION | (u32::from(crate::sys::PATH_STYLE) << 16),
            format_version: self.format_version,
        });
        self.out.write_all(&footer)?;
        self.out.flush()?;
        let total = self.out.written();
        Ok((self.out.into_inner(), total))
    }
}

impl<W: Write> Write for FormatWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        if let Some((_, _, h)) = &mut self.open {
            h.update(&buf[..n]);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The decoded footer.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Footer {
    toc_offset: u64,
    toc_len: u64,
    body_len: u64,
    body_crc: u32,
    toc_crc: u32,
    feature_version: u32,
    format_version: u32,
}

fn encode_footer(f: &Footer) -> Vec<u8> {
    let mut b = Vec::with_capacity(FOOTER_LEN);
    b.put_le(f.toc_offset).put_le(f.toc_len).put_le(f.body_len);
    b.put_le(f.body_crc).put_le(f.toc_crc).put_le(f.feature_version);
    let footer_crc = crc32fast::hash(&b);
    b.put_le(footer_crc).put_le(f.format_version).put(&MAGIC);
    debug_assert_eq!(b.len(), FOOTER_LEN);
    b
}

fn encode_toc(sections: &[SectionEntry]) -> Vec<u8> {
    let mut b = Vec::with_capacity(8 + sections.len() * TOC_ENTRY_LEN);
    b.put_le(sections.len() as u32).put_le(0u32);
    for s in sections {
        let mut name = [0u8; SECTION_NAME_LEN];
        name[..s.name.len()].copy_from_slice(s.name.as_bytes());
        b.put(&name).put_le(s.offset).put_le(s.len).put_le(s.crc).put_le(0u32);
    }
    b
}

/// Reads a little-endian `u32` at `at`; `None` when out of bounds.
#[inline]
pub fn read_u32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(s.try_into().ok()?))
}

/// Reads a little-endian `u64` at `at`; `None` when out of bounds.
#[inline]
pub fn read_u64(b: &[u8], at: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(s.try_into().ok()?))
}

/// The checked layout of an index file: where each section is.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The sections, in TOC order, each inside the body.
    pub sections: Vec<SectionEntry>,
    /// The feature version written in the footer.
    pub feature_version: u32,
    /// The format version written in the footer (what encodings it uses).
    pub format_version: u32,
    /// CRC32 of the body (everything before the footer).
    pub body_crc: u32,
    /// Length of the body (everything before the footer).
    pub body_len: u64,
}

impl Layout {
    /// Checks the footer and the TOC of `file` (the whole index file) and
    /// returns the section layout. Checks: length, magic, version, footer
    /// CRC, body length, TOC bounds and CRC, each section inside the body
    /// before the TOC, no duplicate names. Section contents are not checked.
    pub fn parse(file: &[u8]) -> Result<Layout, IndexError> {
        let c = IndexError::corrupt;
        if file.len() < FOOTER_LEN {
            return Err(c(&format!("file too short ({} bytes)", file.len())));
        }
        let footer = &file[file.len() - FOOTER_LEN..];
        if footer[FOOTER_LEN - 8..] != MAGIC {
            return Err(c("bad magic (not a trigrep index)"));
        }
        let version = read_u32(footer, 40).ok_or_else(|| c("footer"))?;
        if !READ_FORMAT_VERSIONS.contains(&version) {
            return Err(IndexError::UnsupportedVersion {
                found: version,
                min: MIN_FORMAT_VERSION,
                max: FORMAT_VERSION,
            });
        }
        let footer_crc = read_u32(footer, 36).ok_or_else(|| c("footer"))?;
        if crc32fast::hash(&footer[..36]) != footer_crc {
            return Err(c("footer checksum mismatch"));
        }
        let f = Footer {
            toc_offset: read_u64(footer, 0).ok_or_else(|| c("footer"))?,
            toc_len: read_u64(footer, 8).ok_or_else(|| c("footer"))?,
            body_len: read_u64(footer, 16).ok_or_else(|| c("footer"))?,
            body_crc: read_u32(footer, 24).ok_or_else(|| c("footer"))?,
            toc_crc: read_u32(footer, 28).ok_or_else(|| c("footer"))?,
            feature_version: read_u32(footer, 32).ok_or_else(|| c("footer"))?,
            format_version: version,
        };
        let body_len = (file.len() - FOOTER_LEN) as u64;
        if f.body_len != body_len {
            return Err(c(&format!("body length {} but file holds {body_len}", f.body_len)));
        }
        let toc_end = f.toc_offset.checked_add(f.toc_len).ok_or_else(|| c("TOC overflow"))?;
        if toc_end != body_len {
            return Err(c("TOC does not end where the footer starts"));
        }
        let toc = &file[f.toc_offset as usize..toc_end as usize];
        if crc32fast::hash(toc) != f.toc_crc {
            return Err(c("TOC checksum mismatch"));
        }
        let sections = parse_toc(toc, f.toc_offset)?;
        Ok(Layout {
            sections,
            feature_version: f.feature_version,
            format_version: f.format_version,
            body_crc: f.body_crc,
            body_len,
        })
    }

    /// The entry of section `name`, if present.
    pub fn get(&self, name: &str) -> Option<&SectionEntry> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The entry of section `name`, or a corruption error naming it.
    pub fn require(&self, name: &str) -> Result<&SectionEntry, IndexError> {
        self.get(name).ok_or_else(|| IndexError::corrupt(&format!("missing section {name:?}")))
    }
}

fn parse_toc(toc: &[u8], toc_offset: u64) -> Result<Vec<SectionEntry>, IndexError> {
    let c = IndexError::corrupt;
    let n = read_u32(toc, 0).ok_or_else(|| c("TOC too short"))? as usize;
    if toc.len() != 8 + n.checked_mul(TOC_ENTRY_LEN).ok_or_else(|| c("TOC count"))? {
        return Err(c("TOC length does not match its entry count"));
    }
    let mut out: Vec<SectionEntry> = Vec::with_capacity(n);
    for i in 0..n {
        let e = &toc[8 + i * TOC_ENTRY_LEN..8 + (i + 1) * TOC_ENTRY_LEN];
        let raw = &e[..SECTION_NAME_LEN];
        let end = raw.iter().position(|&b| b == 0).unwrap_or(SECTION_NAME_LEN);
        let name = std::str::from_utf8(&raw[..end])
            .map_err(|_| c("section name is not UTF-8"))?
            .to_string();
        let offset = read_u64(e, SECTION_NAME_LEN).ok_or_else(|| c("TOC entry"))?;
        let len = read_u64(e, SECTION_NAME_LEN + 8).ok_or_else(|| c("TOC entry"))?;
        let crc = read_u32(e, SECTION_NAME_LEN + 16).ok_or_else(|| c("TOC entry"))?;
        let end = offset.checked_add(len).ok_or_else(|| c("section bounds overflow"))?;
        if end > toc_offset {
            return Err(c(&format!("section {name:?} runs past the TOC")));
        }
        if out.iter().any(|s| s.name == name) {
            return Err(c(&format!("duplicate section {name:?}")));
        }
        out.push(SectionEntry { name, offset, len, crc });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        let mut w = FormatWriter::new(Vec::new());
        w.section("alpha", b"hello").unwrap();
        w.begin_section("beta");
        w.write_all(b"wor").unwrap();
        w.write_all(b"ld").unwrap();
        w.end_section();
        w.finish().unwrap().0
    }

    #[test]
    fn round_trip_sections() {
        let file = sample();
        let l = Layout::parse(&file).unwrap();
        let a = l.require("alpha").unwrap();
        assert_eq!(&file[a.offset as usize..(a.offset + a.len) as usize], b"hello");
        let b = l.require("beta").unwrap();
        assert_eq!(&file[b.offset as usize..(b.offset + b.len) as usize], b"world");
        assert_eq!(b.crc, crc32fast::hash(b"world"));
        assert_eq!(l.body_crc, crc32fast::hash(&file[..file.len() - FOOTER_LEN]));
        assert!(l.get("gamma").is_none());
    }

    #[test]
    fn bad_magic_and_version() {
        let mut file = sample();
        let n = file.len();
        file[n - 1] ^= 1;
        assert!(matches!(Layout::parse(&file), Err(IndexError::Corrupt(_))));
        let mut file = sample();
        file[n - 12..n - 8].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        assert!(matches!(
            Layout::parse(&file),
            Err(IndexError::UnsupportedVersion { found, .. }) if found == FORMAT_VERSION + 1
        ));
        for v in [0, 3] {
            file[n - 12..n - 8].copy_from_slice(&u32::to_le_bytes(v));
            assert!(matches!(Layout::parse(&file), Err(IndexError::UnsupportedVersion { .. })));
        }
        for (i, a) in READ_FORMAT_VERSIONS.iter().enumerate() {
            for b in &READ_FORMAT_VERSIONS[i + 1..] {
                assert!((a ^ b).count_ones() >= 2, "versions {a} and {b} are one flip apart");
            }
        }
    }

    #[test]
    fn every_truncation_and_flip_in_footer_or_toc_is_an_error() {
        let file = sample();
        for cut in 0..file.len() {
            assert!(Layout::parse(&file[..cut]).is_err(), "cut at {cut}");
        }
        let body = file.len() - FOOTER_LEN;
        let toc_start = body - (8 + 2 * TOC_ENTRY_LEN);
        for i in toc_start..file.len() {
            for bit in 0..8 {
                let mut f = file.clone();
                f[i] ^= 1 << bit;
                assert!(Layout::parse(&f).is_err(), "flip byte {i} bit {bit}");
            }
        }
    }
}
