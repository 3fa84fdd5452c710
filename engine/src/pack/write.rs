//! `tg pack`'s engine: a text file into a packed file (see [`super`]).
//!
//! One pass over the mapped input, a batch of blocks at a time: the block
//! index extracts the batch's trigrams on every core, then the same blocks
//! are compressed as independent zstd frames on every core and appended in
//! order. The output is written to a temporary file beside the target,
//! fsynced and renamed over it: a pack killed midway leaves no partial
//! file under the target's name, and its temporary file is removed by the
//! next pack into the same directory.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::directory;
use super::error::PackError;
use super::format::{
    EMPTY_CHECKSUM, Entry, FLAG_HAS_NUL, FOOTER_LEN, FRAME_LEN, Footer, HEADER_LEN, MAX_FRAME_TEXT,
    VERSION, encode_header, encode_index_frame, encode_seek_table, entries_bytes,
};
use super::read::PackedFile;
use crate::index::blocks::{Text, cut, index_text};
use crate::index::build::Progress;
use crate::index::error::IndexError;
use crate::index::temp::locked_temp_file;
use crate::stats::MemorySampler;

/// The default zstd level, and [`DEFAULT_FRAME_SIZE`]: measured on the
/// whole 1 GiB log (zstd 1.5, BENCHMARKS.md "Packed logs"). The text packs
/// 9.9:1 at 256 KiB frames and level 6, 10.4:1 at level 9; 11.05:1 at 1 MiB
/// and level 8. The block index, whose blocks are the frames, is stored as
/// is, so that queries map it in place (zstd would shrink it 3x, but a
/// query would then inflate it first); with dense lists as bitmaps (index
/// format 2) the container is 9.37 % of the log at 2 MiB frames, 9.67 % at
/// 1 MiB and 10.13 % at 512 KiB. 1 MiB is the smallest frame under 1/10:
/// a candidate frame costs half a millisecond to inflate, and selective
/// queries ran 1.3–1.7x faster than with 2 MiB frames.
pub const DEFAULT_LEVEL: i32 = 8;

/// The default nominal frame size (see [`DEFAULT_LEVEL`]).
pub const DEFAULT_FRAME_SIZE: u64 = 1 << 20;

/// How to pack.
#[derive(Clone, Debug)]
pub struct PackOptions {
    /// zstd compression level.
    pub level: i32,
    /// Nominal frame (and block) size: frames end at the first line end
    /// past it.
    pub frame_size: u64,
    /// Memory budget of the block index build's sort, in bytes.
    pub budget: usize,
}

impl Default for PackOptions {
    fn default() -> Self {
        PackOptions { level: DEFAULT_LEVEL, frame_size: DEFAULT_FRAME_SIZE, budget: 64 << 20 }
    }
}

/// What [`pack`] wrote.
#[derive(Clone, Debug)]
pub struct PackSummary {
    /// Bytes of text packed.
    pub text_len: u64,
    /// Bytes written (the whole packed file).
    pub packed_len: u64,
    /// Bytes of the block index inside it.
    pub index_len: u64,
    /// Data frames written.
    pub frames: usize,
    /// Wall time.
    pub elapsed: Duration,
    /// Peak private memory (RssAnon) seen, in bytes.
    pub peak_private: u64,
}

/// Packs the file at `input` into `output` (replaced atomically).
pub fn pack(
    input: &Path,
    output: &Path,
    opts: &PackOptions,
    progress: &dyn Progress,
) -> Result<PackSummary, PackError> {
    let started = Instant::now();
    let peak = MemorySampler::start();
    let file = File::open(input)?;
    let md = file.metadata()?;
    if !md.is_file() {
        return Err(PackError::Input(format!("{}: not a regular file", input.display())));
    }
    // SAFETY: a read-only map of a file we only read; a file truncated
    // while it is packed can raise SIGBUS, as with any mmap reader.
    let map = if md.len() == 0 { None } else { Some(unsafe { memmap2::Mmap::map(&file)? }) };
    let data: &[u8] = map.as_deref().unwrap_or(&[]);
    let blocks = cut(data, opts.frame_size.max(1));
    if let Some(b) = blocks.iter().find(|b| b.1 > MAX_FRAME_TEXT) {
        return Err(PackError::Input(format!(
            "a line at byte {} is longer than a frame may be (1 GiB)",
            b.0
        )));
    }
    let dir = output_dir(output)?;
    let tmp = locked_temp_file(&dir, TEMP_PREFIX, TEMP_SUFFIX)?;
    let mut out = BufWriter::with_capacity(1 << 20, tmp.as_file());
    // A large container's frame directory follows its header: its room is
    // kept now, and it is written once the block index is built.
    let with_directory = directory::wanted(blocks.len());
    let version = if with_directory { VERSION } else { 1 };
    out.write_all(&encode_header(version))?;
    let mut entries =
        vec![Entry { compressed: HEADER_LEN as u32, decompressed: 0, checksum: EMPTY_CHECKSUM }];
    if with_directory {
        out.write_all(&vec![0; FRAME_LEN])?;
        let compressed = FRAME_LEN as u32;
        entries.push(Entry { compressed, decompressed: 0, checksum: EMPTY_CHECKSUM });
    }
    let mut text_crc = crc32fast::Hasher::new();

    // The output's errors are kept here: indexing carries index errors only.
    let mut failed: Option<PackError> = None;
    let mut then = |range: Range<usize>| {
        let done = write_frames(&blocks[range], data, opts.level, &mut out, &mut entries)
            .map(|crc| text_crc.combine(&crc));
        done.map_err(|e| {
            failed = Some(e);
            IndexError::InvalidInput("the packed file could not be written".into())
        })
    };
    let text = Text { path: input, md: &md, data, blocks: &blocks, block_size: opts.frame_size };
    let indexed = index_text(&text, false, opts.budget, &dir, progress, &mut then);
    if let Some(e) = failed {
        return Err(e);
    }
    let (writer, source) = indexed?;
    let (index, _) = writer.finish_to_vec()?;
    let index_frame_len = 8 + index.len() + FOOTER_LEN;
    let index_frame_len = u32::try_from(index_frame_len)
        .map_err(|_| PackError::Input("the block index outgrows a frame (4 GiB)".into()))?;
    entries.push(Entry { compressed: index_frame_len, decompressed: 0, checksum: EMPTY_CHECKSUM });
    let footer = Footer {
        text_len: data.len() as u64,
        text_crc: text_crc.finalize(),
        frames: blocks.len() as u32,
        index_len: index.len() as u64,
        index_crc: crc32fast::hash(&index),
        table_crc: crc32fast::hash(&entries_bytes(&entries)),
        flags: if source.text.has_nul { FLAG_HAS_NUL } else { 0 },
    };
    out.write_all(&encode_index_frame(&index, &footer, version))?;
    out.write_all(&encode_seek_table(&entries))?;
    if with_directory {
        let reader = crate::index::reader::IndexReader::from_bytes(index.clone())?;
        out.seek(SeekFrom::Start(HEADER_LEN as u64))?;
        out.write_all(&directory::encode(&reader, footer.frames)?)?;
    }
    out.flush()?;
    drop(out);
    // The packed file may be read by whoever could read the log.
    tmp.as_file().set_permissions(md.permissions())?;
    tmp.as_file().sync_all()?;
    let packed_len = tmp.as_file().metadata()?.len();
    tmp.persist(output).map_err(|e| PackError::Io(e.error))?;
    let _ = crate::sys::sync_dir(&dir);
    Ok(PackSummary {
        text_len: data.len() as u64,
        packed_len,
        index_len: index.len() as u64,
        frames: blocks.len(),
        elapsed: started.elapsed(),
        peak_private: peak.finish(),
    })
}

/// Compresses `blocks` of `data` as frames on every core, appends them to
/// `out` in order and their seek table entries to `entries`; returns the
/// CRC-32 of their text.
fn write_frames(
    blocks: &[(u64, u64)],
    data: &[u8],
    level: i32,
    out: &mut dyn Write,
    entries: &mut Vec<Entry>,
) -> Result<crc32fast::Hasher, PackError> {
    let frames: Vec<std::io::Result<(Vec<u8>, crc32fast::Hasher)>> = blocks
        .par_iter()
        .map_init(
            || compressor(level),
            |c, &(off, len)| {
                let text = &data[off as usize..(off + len) as usize];
                let mut crc = crc32fast::Hasher::new();
                crc.update(text);
                let c = c.as_mut().map_err(|e| std::io::Error::new(e.kind(), e.to_string()))?;
                Ok((c.compress(text)?, crc))
            },
        )
        .collect();
    let mut crc = crc32fast::Hasher::new();
    for (frame, &(_, text_len)) in frames.into_iter().zip(blocks) {
        let (frame, frame_crc) = frame?;
        let compressed = u32::try_from(frame.len())
            .map_err(|_| PackError::Input("a frame outgrows 4 GiB".into()))?;
        // The frame's own checksum (its last 4 bytes) is the low 32 bits of
        // the XXH64 of its text: the seek table's checksum.
        let checksum = frame
            .len()
            .checked_sub(4)
            .map_or(0, |at| u32::from_le_bytes(frame[at..].try_into().unwrap_or_default()));
        entries.push(Entry { compressed, decompressed: text_len as u32, checksum });
        out.write_all(&frame)?;
        crc.combine(&frame_crc);
    }
    Ok(crc)
}

/// Prefix and suffix of a pack's temporary file (`.tg-pack.PID.XXXXXX.tmp`).
const TEMP_PREFIX: &str = ".tg-pack.";
const TEMP_SUFFIX: &str = ".tmp";

/// Removes this process's temporary files from `dir` (a pack interrupted
/// by a signal: the process exits before dropping them).
pub fn remove_own_temp_files(dir: &Path) {
    crate::index::temp::remove_own_temp_files(dir, TEMP_PREFIX, TEMP_SUFFIX);
}

/// The directory `output` is written in.
pub fn output_dir(output: &Path) -> std::io::Result<std::path::PathBuf> {
    match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => Ok(p.to_path_buf()),
        _ => std::env::current_dir(),
    }
}

/// Unpacks `packed` (read from `file`) into a temporary file beside
/// `output`, then renames it over `output` with `file`'s permissions,
/// durably; returns the text's length. Nothing is left behind on failure.
pub fn unpack_to(packed: &PackedFile, file: &File, output: &Path) -> Result<u64, PackError> {
    let dir = output_dir(output)?;
    let mut tmp = locked_temp_file(&dir, ".tg-unpack.", ".tmp")?;
    let mut out = BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
    let n = packed.unpack(&mut out)?;
    out.flush()?;
    drop(out);
    tmp.as_file().set_permissions(file.metadata()?.permissions())?;
    tmp.as_file().sync_all()?;
    tmp.persist(output).map_err(|e| e.error)?;
    Ok(n)
}

/// A zstd compressor for frames with their text length and checksum.
fn compressor(level: i32) -> std::io::Result<zstd::bulk::Compressor<'static>> {
    use zstd::zstd_safe::CParameter;
    let mut c = zstd::bulk::Compressor::new(level)?;
    c.set_parameter(CParameter::ChecksumFlag(true))?;
    c.set_parameter(CParameter::ContentSizeFlag(true))?;
    Ok(c)
}
