//! Building the index of a `.gz` file: one decompression of the whole file
//! (rapidgzip-core on its own thread, collecting access points), its text
//! cut into blocks at line ends as it arrives, the blocks' trigrams
//! extracted on every core in bounded batches, the access points taken
//! from the decoder as they come, each window deflated and spooled (the
//! `source` section is copied from the spools at the publish), one atomic
//! publish: memory stays within the budget however long the text.

use std::io::Write;
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rapidgzip_core::{
    Checkpoint, CheckpointKind, Decoder, IndexOptions, StoredWindow, WindowStorage,
};
use rayon::prelude::*;

use super::record::{AccessPoint, EDGE_LEN, GzFile, GzRecord, POINT_LEN, PointKind};
use crate::index::blocks::time_ranges::{Builder, Scan};
use crate::index::blocks::{cut, open_for_build};
use crate::index::build::{Progress, publish, writer_for};
use crate::index::built_text::BuiltText;
use crate::index::encoding::TextShape;
use crate::index::error::IndexError;
use crate::index::recorded::recorded_change;
use crate::index::spool::Spool;
use crate::index::table::FileMeta;
use crate::index::writer::IndexWriter;
use crate::logline::time::SAMPLE;
use crate::readfull::read_full;
use crate::stats::MemorySampler;

/// The decoder's chunks of text held at once: those in flight (three: one
/// for its thread and two more), the one it fills and the one read from.
const DECODER_CHUNKS: usize = 5;

/// Builds (or rebuilds) the index of the `.gz` file at `path` under the
/// index base `base`: text blocks of about `block_size` bytes, access points
/// about every `spacing` bytes of text, within `budget` bytes of private
/// memory: what the build holds of the text (a batch of a sixteenth of the
/// budget and its trigram lists, the decoder's chunks) is taken from it,
/// and the writer gets the rest (its sort, the extraction threads'
/// tables). A file that does not decompress (damaged, truncated, not gzip)
/// is an error and gets no index.
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
    // The decoder runs a few chunks ahead of this thread, holding their
    // text and the windows of the points in them: chunks of a few points'
    // text, at most a MiB, keep that small however close the points are.
    let chunk = spacing.saturating_mul(4).clamp(64 << 10, 1 << 20) as usize;
    let decoder = Decoder::builder().decoder_threads(1).decoded_chunk_size(chunk);
    let decoder = decoder.build().map_err(|e| bad(&e))?;
    let options = IndexOptions {
        checkpoint_spacing: NonZeroU64::new(spacing.max(1)).expect("at least 1"),
        // Raw: the points are taken after each MiB read (a few dozen
        // windows at most), deflated and spooled.
        window_storage: WindowStorage::Raw,
    };
    let mut text = decoder.reader_with_index(file.try_clone()?, options).map_err(|e| bad(&e))?;
    progress.start(md.len());

    // Held besides the writer's share: a batch of text, its blocks'
    // trigram lists (about as large for log text), the MiB read after it,
    // the decoder's chunks (in flight, being filled, being read).
    let batch = (budget / 16).max(4 << 20);
    let held = 2 * batch + (1 << 20) + DECODER_CHUNKS * chunk;
    let share = budget.saturating_sub(held).max(budget / 2);
    let mut writer = writer_for(share, &out, crate::index::blocks::FOLLOW_MASKS);
    let id = writer.add_file(FileMeta {
        path: canonical.as_os_str().as_encoded_bytes().to_vec(),
        size: md.len(),
        changed_ns: recorded_change(&md),
        flags: 0,
    })?;
    let modified_ms = crate::sys::modified_ns(&md).div_euclid(1_000_000);
    let mut cutter = Cutter { block_size, offset: 0, lines: 0, blocks: 0, has_nul: false };
    let mut times = Times { modified_ms, dir: out.clone(), builder: None };
    let mut pending: Vec<u8> = Vec::with_capacity(batch + (1 << 20));
    let mut points = Points::new(&out);
    let (handle, mut reported) = (text.handle(), 0);
    loop {
        let at = pending.len();
        pending.resize(at + (1 << 20), 0);
        let got = read_full(&mut text, &mut pending[at..]).map_err(|e| bad(&e))?;
        pending.truncate(at + got);
        // The points decoded so far, each window 32 KiB until it is
        // deflated and spooled: taken every MiB, so that few are held
        // however close together they are.
        let taken = text.take_checkpoints();
        points.add(taken.par_iter().map(|(c, w)| access_point(c, Some(w))).collect())?;
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
    let window = |c: &Checkpoint| index.windows().get(c.compressed_offset_in_bits);
    points.add(index.checkpoints().par_iter().map(|c| access_point(c, window(c))).collect())?;
    drop(index);
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
    let n_points = points.count as usize;
    let header = GzRecord::header(&gz, &text, spacing, points.count);
    writer.set_source_parts(vec![Spool::holding(header), points.table, points.windows]);
    if let Some(Some(times)) = times.builder {
        writer.set_times(times.into_parts());
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
    /// Where its ranges are spooled.
    dir: PathBuf,
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
        let (head, modified, dir) =
            (&text[..text.len().min(SAMPLE)], times.modified_ms, &times.dir);
        let builder = times.builder.get_or_insert_with(|| Builder::for_text(head, modified, dir));
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
                    (set.take(), newlines, memchr::memchr(0, bytes).is_some(), scan)
                },
            )
            .collect();
        for ((trigrams, newlines, nul, scan), &(off, len)) in extracted.iter().zip(&blocks) {
            writer.add_document(id, self.offset + off, len, self.lines + 1, trigrams)?;
            self.lines += newlines;
            self.has_nul |= nul;
            if let (Some(b), Some(scan)) = (builder.as_mut(), scan) {
                b.push(*scan)?;
            }
        }
        let used = blocks.last().map_or(0, |&(off, len)| off + len);
        self.offset += used;
        self.blocks += blocks.len();
        Ok(used as usize)
    }
}

/// The access points taken so far, each stored as it came: its entry of
/// the record's point table and its compressed window, each spooled.
struct Points {
    count: u64,
    table: Spool,
    windows: Spool,
    entry: Vec<u8>,
}

impl Points {
    /// None yet; the spools' temporary files, if they need them, go in `dir`.
    fn new(dir: &Path) -> Points {
        let (table, windows) = (Spool::new(dir), Spool::new(dir));
        Points { count: 0, table, windows, entry: Vec::with_capacity(POINT_LEN) }
    }

    /// Appends the next points, in file order, with their compressed windows.
    fn add(
        &mut self,
        points: Result<Vec<(AccessPoint, Vec<u8>)>, IndexError>,
    ) -> Result<(), IndexError> {
        for (point, window) in points? {
            self.entry.clear();
            GzRecord::put_point(&mut self.entry, &point, window.len() as u32);
            self.table.push(&self.entry)?;
            self.windows.push(&window)?;
            self.count += 1;
        }
        Ok(())
    }
}

/// The access point of checkpoint `c`, with its window raw-deflate
/// compressed (`None` or empty: it needs none).
fn access_point(
    c: &Checkpoint,
    window: Option<&StoredWindow>,
) -> Result<(AccessPoint, Vec<u8>), IndexError> {
    let bad = |what: String| IndexError::InvalidInput(format!("gzip access points: {what}"));
    let kind = match c.kind {
        CheckpointKind::GzipMemberHeader => PointKind::MemberHeader,
        CheckpointKind::GzipMemberDeflate { header_offset_in_bytes } => {
            PointKind::MemberData(header_offset_in_bytes)
        }
        CheckpointKind::DeflateBlock => PointKind::Block,
        other => return Err(bad(format!("unexpected checkpoint {other:?}"))),
    };
    let window = match window {
        Some(w) if !w.is_empty() => {
            let raw = w.decompressed().map_err(|e| bad(e.to_string()))?;
            let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
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
}
