//! The bytes of a packed file: the zstd seekable format's seek table, tg's
//! header frame and its index frame with the footer (docs/PACK-FORMAT.md
//! draws them). Pure functions over byte slices: [`parse`] reads a whole
//! file's bytes (a mapping) and never panics on bad input; the `encode_*`
//! functions write what [`parse`] reads.
//!
//! ```text
//! [header frame] [data frame]... [index frame] [seek table frame]
//! ```
//!
//! Every frame is listed in the seek table, so a seekable reader finds the
//! data frames where it expects them; the header and index frames are
//! skippable frames (no text), which `zstd -d` skips.

use super::ends::Ends;
use super::error::PackError;
use crate::index::encoding::Put;
use crate::index::format::read_u32;

/// Magic of tg's skippable frames (header and index; 0x184D2A50..=5F are skippable).
pub(crate) const TG_FRAME_MAGIC: u32 = 0x184D_2A5B;
/// Magic of the seek table's skippable frame.
pub(crate) const SEEK_TABLE_MAGIC: u32 = 0x184D_2A5E;
/// The seek table footer's magic: the last four bytes of a seekable file.
pub(crate) const SEEKABLE_MAGIC: u32 = 0x8F92_EAB1;
/// The seek table footer's length (frames u32, descriptor u8, magic u32).
const SEEK_FOOTER_LEN: usize = 9;
/// Descriptor bit: every seek table entry carries a checksum.
const CHECKSUM_FLAG: u8 = 0x80;
/// Descriptor bits that must be zero.
const RESERVED_BITS: u8 = 0x7C;

/// The header frame's payload magic.
const HEADER_MAGIC: [u8; 8] = *b"TGPACK\0\0";
/// The footer's magic, its last eight bytes.
const FOOTER_MAGIC: [u8; 8] = *b"TGPKFOOT";

/// The container version: the newest, which a reader reads with every
/// one since version 1. A container is written as the oldest
/// version that holds it (one without a frame directory as version 1).
///
/// History (one line per bump):
/// - 1: header frame, data frames aligned with the block index's blocks,
///   index frame (block index + footer), seek table with checksums.
/// - 2: a frame directory follows the header frame (`super::directory`).
pub const VERSION: u32 = 2;

/// The oldest container version a reader reads.
pub(crate) const FIRST_VERSION: u32 = 1;

/// The header frame's length: skippable frame header, magic, version, reserved.
pub const HEADER_LEN: usize = 8 + 8 + 4 + 4;
/// The footer's length.
pub const FOOTER_LEN: usize = 8 + 4 + 4 + 8 + 4 + 4 + 4 + 4 + 4 + 8;
/// The seek table checksum of a frame with no text: XXH64 of nothing, low 32 bits.
pub(crate) const EMPTY_CHECKSUM: u32 = 0x51D8_E999;

/// Footer flag: the text holds a NUL byte.
pub(crate) const FLAG_HAS_NUL: u32 = 1;

/// Buckets in a frame directory (`super::directory`; a power of two: a
/// hash's top bits pick one).
pub(crate) const BUCKETS: usize = 1 << 14;
/// A bucket's bytes: its CRC, its entry count and flags, its entries.
pub(crate) const BUCKET_LEN: usize = 64;
/// The directory frame's own head: the skippable frame's magic and size,
/// then buckets, bucket length, frames and the CRC of those three.
const DIRECTORY_HEAD: usize = 8 + 16;
/// The directory frame's length in the file.
pub(crate) const FRAME_LEN: usize = DIRECTORY_HEAD + BUCKETS * BUCKET_LEN;
/// Where its buckets start in the file (after the header frame and its
/// own head), which is what a first reader fetches of a file's start
/// (the buckets come by range).
pub(crate) const BUCKETS_AT: u64 = (HEADER_LEN + DIRECTORY_HEAD) as u64;

/// The largest text a frame may hold (the seekable format's limit).
pub(crate) const MAX_FRAME_TEXT: u64 = 1 << 30;

/// One seek table entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// The frame's length in the file.
    pub compressed: u32,
    /// The length of its text.
    pub decompressed: u32,
    /// Low 32 bits of the XXH64 of its text (0 when the table has none).
    pub checksum: u32,
}

/// A data frame, placed: where it is in the file and where its text goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Offset of the frame in the file.
    pub offset: u64,
    /// Its length in the file.
    pub len: u64,
    /// Offset of its text in the whole text.
    pub text_offset: u64,
    /// Length of its text.
    pub text_len: u64,
}

/// What tg's footer records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footer {
    /// Length of the whole text.
    pub text_len: u64,
    /// CRC-32 of the whole text.
    pub text_crc: u32,
    /// Number of data frames.
    pub frames: u32,
    /// Length of the block index inside the index frame.
    pub index_len: u64,
    /// CRC-32 of the block index bytes.
    pub index_crc: u32,
    /// CRC-32 of the seek table's entries.
    pub table_crc: u32,
    /// `FLAG_*` bits.
    pub flags: u32,
}

/// A parsed packed file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The data frames, in text order.
    pub frames: Vec<Frame>,
    /// tg's footer and where the block index lies in the file (`None`: a
    /// seekable zstd file written by another tool).
    pub tg: Option<(Footer, std::ops::Range<usize>)>,
    /// Whether a frame directory follows the header frame.
    pub directory: bool,
}

impl Layout {
    /// The length of the whole text.
    pub fn text_len(&self) -> u64 {
        self.frames.last().map_or(0, |f| f.text_offset + f.text_len)
    }
}

/// Whether `bytes` (a file's start) open with tg's header frame.
pub fn is_tg(bytes: &[u8]) -> bool {
    read_u32(bytes, 0) == Some(TG_FRAME_MAGIC)
        && read_u32(bytes, 4) == Some((HEADER_LEN - 8) as u32)
        && bytes.get(8..16) == Some(&HEADER_MAGIC[..])
}

/// tg's header frame.
pub(crate) fn encode_header(version: u32) -> Vec<u8> {
    let mut b = Vec::with_capacity(HEADER_LEN);
    b.put_le(TG_FRAME_MAGIC).put_le((HEADER_LEN - 8) as u32);
    b.put(&HEADER_MAGIC).put_le(version).put_le(0u32);
    b
}

/// The seek table frame for `entries` (with checksums).
pub fn encode_seek_table(entries: &[Entry]) -> Vec<u8> {
    let body = entries_bytes(entries);
    let mut b = Vec::with_capacity(8 + body.len() + SEEK_FOOTER_LEN);
    b.put_le(SEEK_TABLE_MAGIC).put_le((body.len() + SEEK_FOOTER_LEN) as u32).put(&body);
    b.put_le(entries.len() as u32).put_le(CHECKSUM_FLAG).put_le(SEEKABLE_MAGIC);
    b
}

/// The entries as the seek table stores them (what `table_crc` covers).
pub(crate) fn entries_bytes(entries: &[Entry]) -> Vec<u8> {
    let mut b = Vec::with_capacity(entries.len() * 12);
    for e in entries {
        b.put_le(e.compressed).put_le(e.decompressed).put_le(e.checksum);
    }
    b
}

/// The index frame: a skippable frame holding `index` and the footer.
pub(crate) fn encode_index_frame(index: &[u8], footer: &Footer, version: u32) -> Vec<u8> {
    let mut b = Vec::with_capacity(8 + index.len() + FOOTER_LEN);
    b.put_le(TG_FRAME_MAGIC).put_le((index.len() + FOOTER_LEN) as u32).put(index);
    let start = b.len();
    b.put_le(footer.text_len).put_le(footer.text_crc).put_le(footer.frames);
    b.put_le(footer.index_len).put_le(footer.index_crc).put_le(footer.table_crc);
    b.put_le(footer.flags).put_le(version);
    let crc = crc32fast::hash(&b[start..]);
    b.put_le(crc).put(&FOOTER_MAGIC);
    b
}

/// Reads the seek table at the end of `file`.
fn seek_table(file: &Ends<'_>) -> Result<(Vec<Entry>, usize), PackError> {
    let len = file.len();
    if len < 8 + SEEK_FOOTER_LEN || file.u32_at(len - 4) != Some(SEEKABLE_MAGIC) {
        return Err(PackError::NotSeekable);
    }
    let count = file.u32_at(len - SEEK_FOOTER_LEN).unwrap_or(0) as usize;
    let descriptor = file.get(len - 5..len - 4).map_or(0, |d| d[0]);
    if descriptor & RESERVED_BITS != 0 {
        return Err(PackError::Mismatch("reserved bits set in the seek table".into()));
    }
    let width = if descriptor & CHECKSUM_FLAG != 0 { 12 } else { 8 };
    let body = count.checked_mul(width).filter(|b| b + 8 + SEEK_FOOTER_LEN <= len);
    let Some(body) = body else {
        return Err(PackError::Mismatch(format!("{count} seek table entries in {len} bytes")));
    };
    let start = len - SEEK_FOOTER_LEN - body - 8;
    if file.u32_at(start) != Some(SEEK_TABLE_MAGIC)
        || file.u32_at(start + 4) != Some((body + SEEK_FOOTER_LEN) as u32)
    {
        return Err(PackError::Mismatch("the seek table's frame header is wrong".into()));
    }
    let entries = (0..count)
        .map(|i| {
            let at = start + 8 + i * width;
            Entry {
                compressed: file.u32_at(at).unwrap_or(0),
                decompressed: file.u32_at(at + 4).unwrap_or(0),
                checksum: if width == 12 { file.u32_at(at + 8).unwrap_or(0) } else { 0 },
            }
        })
        .collect();
    Ok((entries, start))
}

/// Parses a packed file from all its bytes: a tg container (it opens with
/// tg's header frame) or another tool's seekable zstd file. Every offset is
/// checked against the file's length and the frames must tile the file up
/// to the seek table exactly.
pub fn parse(file: &[u8]) -> Result<Layout, PackError> {
    parse_ends(&Ends::whole(file))
}

/// [`parse`] from the file's ends alone (its tail from
/// [`Ends::needs_from`] on); bytes an end does not hold read as damage.
pub(crate) fn parse_ends(file: &Ends<'_>) -> Result<Layout, PackError> {
    let tg = file.get(0..HEADER_LEN.min(file.len())).is_some_and(is_tg);
    let (entries, table_start) = match seek_table(file) {
        Err(PackError::NotSeekable) if tg => {
            return Err(PackError::Corrupt("no seek table at the end (truncated?)".into()));
        }
        other => other?,
    };
    let total: u64 = entries.iter().map(|e| u64::from(e.compressed)).sum();
    if total != table_start as u64 {
        return Err(PackError::Mismatch(format!(
            "its frames end at byte {total}, the seek table starts at {table_start}"
        )));
    }
    if !tg {
        return Ok(Layout { frames: place(&entries, 0), tg: None, directory: false });
    }
    let version = file.u32_at(16).unwrap_or(0);
    if !(FIRST_VERSION..=VERSION).contains(&version) {
        return Err(PackError::Version(version, VERSION));
    }
    let directory = version >= 2;
    if file.u32_at(20) != Some(0) {
        return Err(PackError::Corrupt("reserved header bits set".into()));
    }
    let (n, skipped) = (entries.len(), 1 + usize::from(directory));
    let header_ok = n > skipped
        && (entries[0].compressed, entries[0].decompressed) == (HEADER_LEN as u32, 0)
        && entries[n - 1].decompressed == 0
        && (!directory
            || (entries[1].compressed, entries[1].decompressed) == (FRAME_LEN as u32, 0));
    if !header_ok {
        return Err(PackError::Mismatch("no header or index frame in the seek table".into()));
    }
    let index_frame = table_start - entries[n - 1].compressed as usize;
    let (footer, index) = footer(file, index_frame, table_start, version)?;
    let data = &entries[skipped..n - 1];
    if directory {
        let head = file.get(HEADER_LEN..BUCKETS_AT as usize).unwrap_or(&[]);
        check_directory_head(head, data.len() as u32)?;
    }
    if footer.frames as usize != data.len() {
        return Err(PackError::Mismatch(format!(
            "{} data frames in the seek table, {} in the footer",
            data.len(),
            footer.frames
        )));
    }
    if crc32fast::hash(&entries_bytes(&entries)) != footer.table_crc {
        return Err(PackError::Corrupt("seek table checksum mismatch".into()));
    }
    let first = HEADER_LEN as u64 + if directory { FRAME_LEN as u64 } else { 0 };
    let layout = Layout { frames: place(data, first), tg: Some((footer, index)), directory };
    if layout.text_len() != footer.text_len || data.iter().any(|e| e.decompressed == 0) {
        return Err(PackError::Mismatch(
            "the frames' text lengths disagree with the footer".into(),
        ));
    }
    Ok(layout)
}

/// Checks the head of a frame directory (the file's bytes at
/// [`HEADER_LEN`]) of a container of `frames` data frames.
fn check_directory_head(head: &[u8], frames: u32) -> Result<(), PackError> {
    let at = |i: usize| read_u32(head, i).unwrap_or(0);
    let ok = head.len() >= DIRECTORY_HEAD
        && at(0) == TG_FRAME_MAGIC
        && at(4) == (FRAME_LEN - 8) as u32
        && (at(8), at(12), at(16)) == (BUCKETS as u32, BUCKET_LEN as u32, frames)
        && at(20) == crc32fast::hash(&head[8..20]);
    match ok {
        true => Ok(()),
        false => Err(PackError::Corrupt("the frame directory's header is wrong".into())),
    }
}

/// Reads tg's footer from the index frame spanning `start..end` of `file`
/// (of the version its header says); returns it with the block index's
/// byte range.
fn footer(
    file: &Ends<'_>,
    start: usize,
    end: usize,
    header_version: u32,
) -> Result<(Footer, std::ops::Range<usize>), PackError> {
    let corrupt = |what: &str| PackError::Corrupt(what.to_string());
    // A ranged read holds the frame's header only when it holds the index.
    let unheld = file.ranged && file.get(start..start + 8).is_none();
    if end - start < 8 + FOOTER_LEN
        || !unheld
            && (file.u32_at(start) != Some(TG_FRAME_MAGIC)
                || file.u32_at(start + 4) != Some((end - start - 8) as u32))
    {
        return Err(corrupt("the index frame's header is wrong"));
    }
    let f = end - FOOTER_LEN;
    if file.get(end - 8..end) != Some(&FOOTER_MAGIC[..]) {
        return Err(corrupt("no footer magic"));
    }
    if file.u32_at(f + 40).is_none()
        || file.u32_at(f + 40) != file.get(f..f + 40).map(crc32fast::hash)
    {
        return Err(corrupt("footer checksum mismatch"));
    }
    let version = file.u32_at(f + 36).unwrap_or(0);
    if version != header_version {
        return Err(PackError::Corrupt(format!(
            "the footer says version {version}, the header {header_version}"
        )));
    }
    let get32 = |at: usize| file.u32_at(f + at).unwrap_or(0);
    let footer = Footer {
        text_len: file.u64_at(f).unwrap_or(0),
        text_crc: get32(8),
        frames: get32(12),
        index_len: file.u64_at(f + 16).unwrap_or(0),
        index_crc: get32(24),
        table_crc: get32(28),
        flags: get32(32),
    };
    if footer.index_len != (f - start - 8) as u64 {
        return Err(corrupt("the index length disagrees with its frame"));
    }
    Ok((footer, start + 8..f))
}

/// The frames of `entries`, the first starting at byte `offset` of the file.
fn place(entries: &[Entry], mut offset: u64) -> Vec<Frame> {
    let mut text_offset = 0;
    entries
        .iter()
        .map(|e| {
            let (len, text_len) = (u64::from(e.compressed), u64::from(e.decompressed));
            let frame = Frame { offset, len, text_offset, text_len };
            offset += len;
            text_offset += text_len;
            frame
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container() -> Vec<u8> {
        let text = b"hello\n";
        let frame = zstd::bulk::compress(text, 3).unwrap();
        let index = b"INDEX".to_vec();
        let mut footer = Footer {
            text_len: 6,
            text_crc: crc32fast::hash(text),
            frames: 1,
            index_len: index.len() as u64,
            index_crc: crc32fast::hash(&index),
            table_crc: 0,
            flags: 0,
        };
        let index_frame_len = (8 + index.len() + FOOTER_LEN) as u32;
        let entries = [
            Entry { compressed: HEADER_LEN as u32, decompressed: 0, checksum: EMPTY_CHECKSUM },
            Entry { compressed: frame.len() as u32, decompressed: 6, checksum: 0 },
            Entry { compressed: index_frame_len, decompressed: 0, checksum: EMPTY_CHECKSUM },
        ];
        footer.table_crc = crc32fast::hash(&entries_bytes(&entries));
        let mut b = encode_header(1);
        b.extend_from_slice(&frame);
        b.extend_from_slice(&encode_index_frame(&index, &footer, 1));
        b.extend_from_slice(&encode_seek_table(&entries));
        b
    }

    #[test]
    fn a_container_parses_and_every_damage_is_an_error() {
        let b = container();
        let layout = parse(&b).unwrap();
        assert_eq!(layout.frames.len(), 1);
        assert_eq!(layout.frames[0].offset, HEADER_LEN as u64);
        let (footer, index) = layout.tg.clone().unwrap();
        assert_eq!((footer.text_len, &b[index.clone()]), (6, &b"INDEX"[..]));
        for cut in 0..b.len() {
            assert!(parse(&b[..cut]).is_err(), "truncated to {cut}");
        }
        for at in 0..b.len() {
            if (HEADER_LEN..HEADER_LEN + layout.frames[0].len as usize).contains(&at)
                || index.contains(&at)
            {
                continue; // frame and index bytes are checked when read
            }
            let mut bad = b.clone();
            bad[at] ^= 0x40;
            match parse(&bad) {
                // Without its header it is no tg container: its first frame
                // is then not zstd, which reading it reports.
                Ok(layout) if at < 16 => assert_eq!(layout.tg, None, "flipped byte {at}"),
                Ok(_) => panic!("flipped byte {at} went unnoticed"),
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
    }

    #[test]
    fn a_foreign_seekable_file_parses() {
        let a = zstd::bulk::compress(b"one\ntw", 1).unwrap();
        let c = zstd::bulk::compress(b"o\n", 1).unwrap();
        let entries = [
            Entry { compressed: a.len() as u32, decompressed: 6, checksum: 0 },
            Entry { compressed: c.len() as u32, decompressed: 2, checksum: 0 },
        ];
        let mut b = [a.clone(), c].concat();
        b.extend_from_slice(&encode_seek_table(&entries));
        let layout = parse(&b).unwrap();
        assert_eq!(layout.tg, None);
        assert_eq!(layout.text_len(), 8);
        assert_eq!(layout.frames[1].offset, a.len() as u64);
        assert!(matches!(parse(b"plain text"), Err(PackError::NotSeekable)));
    }
}
