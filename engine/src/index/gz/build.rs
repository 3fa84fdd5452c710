//! Building the index of a `.gz` file: one decompression of the whole file
//! (rapidgzip-core on its own thread, collecting access points), its text
//! cut into blocks at line ends as it arrives, the blocks' trigrams
//! extracted on every core in bounded batches, one atomic publish.

use std::io::Write;
use std::num::NonZeroU64;
use std::path::Path;
use std::time::Instant;

use rapidgzip_core::{CheckpointKind, Decoder, DeflateIndex, IndexOptions, WindowStorage};
use rayon::prelude::*;

use super::record::{AccessPoint, EDGE_LEN, GzFile, GzRecord, PointKind};
use crate::index::blocks::time_ranges::{Builder, Scan};
use crate::index::blocks::{cut, open_for_build};
use crate::index::build::{Progress, publish, writer_for};
use crate::index::built_text::BuiltText;
use crate::index::encoding::TextShape;
use crate::index::error::IndexError;
use crate::index::recorded::recorded_change;
use crate::index::table::FileMeta;
use crate::index::writer::IndexWriter;
use crate::logline::time::SAMPLE;
use crate::readfull::read_full;
use crate::stats::MemorySampler;

/// Builds (or rebuilds) the index of the `.gz` file at `path` under the
/// index base `base`: text blocks of about `block_size` bytes, access points
/// about every `spacing` bytes of text, `budget` bytes of memory for the
/// sort (text batches take an eighth more). A file that does not decompress
/// (damaged, truncated, not gzip) is an error and gets no index.
pub fn build(
    path: &Path,
    base: &Path,
    block_size: u64,
    spacing: u64,
    budget: usize,
    progress: &dyn Progress,
) -> Result<BuiltText, IndexError> {
    let started = Instant::now();
    let peak = MemorySampler::start();
    let (canonical, file, md, storage) = open_for_build(path, base, Some(super::place::KIND))?;
    let out = storage.dir().to_path_buf();
    let bad =
        |e: &dyn std::fmt::Display| IndexError::InvalidInput(format!("{}: {e}", path.display()));
    let decoder = Decoder::builder().decoder_threads(1).build().map_err(|e| bad(&e))?;
    let options = IndexOptions {
        checkpoint_spacing: NonZeroU64::new(spacing.max(1)).expect("at least 1"),
        // Compressed while the decode goes on: 32 KiB a point raw would be
        // 3 % of the text in memory.
        window_storage: WindowStorage::Zlib,
    };
    let mut text = decoder.reader_with_index(file.try_clone()?, options).map_err(|e| bad(&e))?;
    progress.start(md.len());

    let mut writer = writer_for(budget, &out, crate::index::blocks::FOLLOW_MASKS);
    let id = writer.add_file(FileMeta {
        path: canonical.as_os_str().as_encoded_bytes().to_vec(),
        size: md.len(),
        changed_ns: recorded_change(&md),
        flags: 0,
    })?;
    let batch = (budget / 8).max(4 << 20);
    let modified_ms = crate::sys::modified_ns(&md).div_euclid(1_000_000);
    let mut cutter = Cutter { block_size, offset: 0, lines: 0, blocks: 0, has_nul: false };
    let mut times = Times { modified_ms, builder: None };
    let mut pending: Vec<u8> = Vec::with_capacity(batch + (1 << 20));
    let (handle, mut reported) = (text.handle(), 0);
    loop {
        let at = pending.len();
        pending.resize(at + (1 << 20), 0);
        let got = read_full(&mut text, &mut pending[at..]).map_err(|e| bad(&e))?;
        pending.truncate(at + got);
        let done = got == 0;
        if pending.len() >= batch || done {
            let used = cutter.add(&pending, done, (&mut writer, id), &mut times)?;
            pending.drain(..used);
            // Compressed bytes consumed so far, as the decoder counts them.
            let now = handle.stats().consumed_bytes.min(md.len());
            progress.advance(now.saturating_sub(reported));
            reported = reported.max(now);
        }
        if done {
            break;
        }
    }
    let index = text.finish().map_err(|e| bad(&e))?.index;
    let points = access_points(&index)?;
    let edge = md.len().min(EDGE_LEN) as u32;
    let crc_at = |offset| super::super::encoding::crc_of_range(&file, offset, u64::from(edge));
    let gz = GzFile {
        dev: crate::sys::open_file_id(&file).dev,
        ino: crate::sys::open_file_id(&file).ino,
        gz_len: md.len(),
        mtime_ns: crate::sys::modified_ns(&md),
        head_crc: crc_at(0)?,
        head_len: edge,
        tail_crc: crc_at(md.len() - u64::from(edge))?,
        tail_len: edge,
    };
    let text =
        TextShape { len: cutter.offset, lines: cutter.lines, block_size, has_nul: cutter.has_nul };
    let n_points = points.len();
    writer.set_source(GzRecord::encode(&gz, &text, spacing, &points));
    if let Some(Some(times)) = times.builder {
        writer.set_times(times.encode());
    }
    progress.advance(md.len() - reported);
    let summary = publish(
        writer,
        &storage,
        &crate::index::location::key(&canonical, Some(super::place::KIND)),
    )?;
    Ok(BuiltText {
        dir: out,
        blocks: cutter.blocks,
        text_bytes: text.len,
        points: n_points,
        summary,
        elapsed: started.elapsed(),
        peak_private: peak.finish(),
    })
}

/// The times of the text's blocks: their builder, made from the text's
/// first batch (`None` until then; `Some(None)`: the text has none).
struct Times {
    modified_ms: i64,
    builder: Option<Option<Builder>>,
}

/// Cuts arriving text into blocks and adds them to the index.
struct Cutter {
    block_size: u64,
    /// Text offset of the next block.
    offset: u64,
    /// Newlines before it.
    lines: u64,
    blocks: usize,
    has_nul: bool,
}

impl Cutter {
    /// Adds the blocks of `text` (which follows the text already added),
    /// all of them when it is the `last` text, else all but the last
    /// (which may go on); returns how many bytes were added.
    fn add(
        &mut self,
        text: &[u8],
        last: bool,
        (writer, id): (&mut IndexWriter, u32),
        times: &mut Times,
    ) -> Result<usize, IndexError> {
        let mut blocks = cut(text, self.block_size);
        if !last {
            blocks.pop();
        }
        let (head, modified) = (&text[..text.len().min(SAMPLE)], times.modified_ms);
        let builder = times.builder.get_or_insert_with(|| Builder::for_text(head, modified));
        let at = self.offset;
        let extracted: Vec<(Vec<_>, u64, bool, Option<Scan>)> = blocks
            .par_iter()
            .map_init(
                || writer.trigram_set(),
                |set, &(off, len)| {
                    let bytes = &text[off as usize..(off + len) as usize];
                    set.add_document(bytes);
                    let newlines = memchr::memchr_iter(b'\n', bytes).count() as u64;
                    let scan = builder.as_ref().map(|b| b.scan(at + off, bytes));
                    (set.take_sorted(), newlines, memchr::memchr(0, bytes).is_some(), scan)
                },
            )
            .collect();
        for ((trigrams, newlines, nul, scan), &(off, len)) in extracted.iter().zip(&blocks) {
            writer.add_document(id, self.offset + off, len, self.lines + 1, trigrams)?;
            self.lines += newlines;
            self.has_nul |= nul;
            if let (Some(b), Some(scan)) = (builder.as_mut(), scan) {
                b.push(*scan);
            }
        }
        let used = blocks.last().map_or(0, |&(off, len)| off + len);
        self.offset += used;
        self.blocks += blocks.len();
        Ok(used as usize)
    }
}

/// The access points of `index`, each with its window raw-deflate
/// compressed (rapidgzip-core keeps it zlib-compressed: inflated here, and
/// deflated again, in parallel).
fn access_points(index: &DeflateIndex) -> Result<Vec<(AccessPoint, Vec<u8>)>, IndexError> {
    let bad = |what: String| IndexError::InvalidInput(format!("gzip access points: {what}"));
    index
        .checkpoints()
        .par_iter()
        .map(|c| {
            let kind = match c.kind {
                CheckpointKind::GzipMemberHeader => PointKind::MemberHeader,
                CheckpointKind::GzipMemberDeflate { header_offset_in_bytes } => {
                    PointKind::MemberData(header_offset_in_bytes)
                }
                CheckpointKind::DeflateBlock => PointKind::Block,
                other => return Err(bad(format!("unexpected checkpoint {other:?}"))),
            };
            let window = match index.windows().get(c.compressed_offset_in_bits) {
                Some(w) if !w.is_empty() => {
                    let raw = w.decompressed().map_err(|e| bad(e.to_string()))?;
                    let mut z =
                        flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
                    z.write_all(&raw)?;
                    z.finish()?
                }
                _ => Vec::new(),
            };
            if (kind == PointKind::Block) == window.is_empty() {
                return Err(bad("a deflate block point without its window".into()));
            }
            let point = AccessPoint {
                bits: c.compressed_offset_in_bits,
                text_offset: c.uncompressed_offset_in_bytes,
                kind,
                window: 0..0,
            };
            Ok((point, window))
        })
        .collect()
}
