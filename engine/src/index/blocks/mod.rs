//! Huge files indexed as blocks: the second question about a big log reads
//! only the blocks that can match.
//!
//! [`build`] cuts a file at line ends into blocks of about a block size
//! ([`cut`]), and makes each block a document of the same trigram index a
//! tree uses (its offset, length and first line number in the document
//! table), in bounded memory, published atomically outside the file's
//! directory (`location::index_dir_for` of the file's canonical path). Its
//! `source` section ([`source::BlockSource`]) records which file, how much
//! of it and a checksum of its first and last bytes, so that a query can
//! tell with [`BlockIndex::freshness`] whether the file is unchanged, only
//! grew (its new tail is then searched directly), or was rewritten,
//! truncated or replaced (the index is then not used). The search itself
//! is the chunk engine's (`crate::chunk`), given the candidate blocks.

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::build::{Progress, batches, publish, writer_for};
use super::encoding::TextShape;
use super::error::IndexError;
use super::location;
use super::reader::IndexReader;
use super::recorded::{RACY_WINDOW_NS, changed_ns, recorded_change};
use super::storage::FsStorage;
use super::table::{FileId, FileMeta, RACY};
use super::trust;
use super::writer::{IndexSummary, IndexWriter};
use crate::logline::time::SAMPLE;
use crate::query::Query;
use crate::stats::MemorySampler;
use source::{BlockSource, HEAD_LEN};

mod cutting;
pub mod source;
pub mod time_ranges;

pub use cutting::cut;

/// The nominal block size. Events spread through a log make blocks
/// candidates by the fraction of blocks they touch: on the 1 GiB log, a
/// query with 65 matching lines touches 5.4 % of 1 MiB blocks, 1.5 % of
/// 256 KiB ones, 0.4 % of 64 KiB ones. With dense posting lists stored as
/// bitmaps the index of 64 KiB blocks is 2.5 % of the 1 GiB log and 2.7 %
/// of the 8 GiB one (256 KiB: 1.2 %, 1.1 %), and the 15 selective queries
/// on the 8 GiB log run 13.1x rg in total against 5.7x with 256 KiB
/// blocks (BENCHMARKS.md, "Huge files indexed as blocks").
pub const DEFAULT_BLOCK_SIZE: u64 = 64 << 10;

/// Whether a block index (of a log, a `.gz` file's text or a packed file)
/// keeps follow masks: no. On the 8 GiB generated log they grew the index
/// from 2.68 % to 4.70 % of the log, against a 5 % ceiling, for a third
/// fewer blocks read by case-insensitive phrases and little else (64 KiB of
/// log text follows most trigrams with most bytes).
pub(crate) const FOLLOW_MASKS: bool = false;

/// One block of a huge file: a document of its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// Where it starts in the file.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u64,
    /// The 1-based line number of its first line.
    pub first_line: u64,
}

/// What [`build`] made.
#[derive(Clone, Debug)]
pub struct BuiltBlocks {
    /// The index directory.
    pub dir: PathBuf,
    /// Blocks indexed.
    pub blocks: usize,
    /// Bytes indexed.
    pub bytes: u64,
    /// What the writer wrote.
    pub summary: IndexSummary,
    /// Wall time of the build.
    pub elapsed: Duration,
    /// Peak private memory (RssAnon) seen during the build, in bytes.
    pub peak_private: u64,
}

/// One block after extraction.
struct Extracted {
    trigrams: Vec<crate::query::trigram::Gram>,
    newlines: u64,
    nul: bool,
    times: Option<time_ranges::Scan>,
}

/// Builds (or rebuilds) the block index of the file at `path` under the
/// index base `base`: blocks of about `block_size` bytes, `budget` bytes of
/// memory for the sort (extraction batches take an eighth more).
pub fn build(
    path: &Path,
    base: &Path,
    block_size: u64,
    budget: usize,
    progress: &dyn Progress,
) -> Result<BuiltBlocks, IndexError> {
    let started = Instant::now();
    let peak = MemorySampler::start();
    let (canonical, file, md, storage) = open_for_build(path, base, None)?;
    let out = storage.dir().to_path_buf();
    // SAFETY: read-only map of a file we only read; a file truncated while
    // it is indexed can raise SIGBUS, as with any mmap reader (ripgrep too).
    let map = if md.len() == 0 { None } else { Some(unsafe { memmap2::Mmap::map(&file)? }) };
    let data: &[u8] = map.as_deref().unwrap_or(&[]);
    let blocks = cut(data, block_size);
    let text = Text { path: &canonical, md: &md, data, blocks: &blocks, block_size };
    let (writer, _) = index_text(&text, true, budget, &out, progress, &mut |_| Ok(()))?;
    let summary = publish(writer, &storage, &location::key(&canonical, None))?;
    Ok(BuiltBlocks {
        dir: out,
        blocks: blocks.len(),
        bytes: data.len() as u64,
        summary,
        elapsed: started.elapsed(),
        peak_private: peak.finish(),
    })
}

/// A text to index as blocks: the file it is (or was packed from), its
/// bytes and their blocks (cut at `block_size`).
pub(crate) struct Text<'a> {
    /// The file's path, as recorded.
    pub path: &'a Path,
    /// Its metadata.
    pub md: &'a std::fs::Metadata,
    /// Its bytes.
    pub data: &'a [u8],
    /// Its blocks, from [`cut`].
    pub blocks: &'a [(u64, u64)],
    /// The nominal block size they were cut at.
    pub block_size: u64,
}

/// Indexes `text` into a new writer (spilling into `spill`) and records its
/// `source` (with the file's device and inode when `same_file`: the index
/// describes that very file); `then` is [`add_blocks`]'s. Returns the
/// writer, ready to finish, and the source record.
pub(crate) fn index_text(
    text: &Text<'_>,
    same_file: bool,
    budget: usize,
    spill: &Path,
    progress: &dyn Progress,
    then: &mut dyn FnMut(Range<usize>) -> Result<(), IndexError>,
) -> Result<(IndexWriter, BlockSource), IndexError> {
    let Text { path, md, data, blocks, block_size } = *text;
    progress.start(data.len() as u64);
    let mut writer = writer_for(budget, spill, FOLLOW_MASKS);
    let meta = FileMeta {
        path: path.as_os_str().as_encoded_bytes().to_vec(),
        size: md.len(),
        changed_ns: recorded_change(md),
        flags: 0,
    };
    let id = writer.add_file(meta)?;
    let modified_ms = crate::sys::modified_ns(md).div_euclid(1_000_000);
    let head = &data[..data.len().min(SAMPLE)];
    let mut times = time_ranges::Builder::for_text(head, modified_ms, spill);
    let into = (&mut writer, id, &mut times);
    let (lines, has_nul) = add_blocks(into, data, blocks, budget, progress, then)?;
    if let Some(times) = times {
        writer.set_times(times.into_parts());
    }
    let head_len = data.len().min(HEAD_LEN as usize);
    let tail_offset = blocks.last().map_or(0, |b| b.0);
    let id = if same_file { crate::sys::file_id(path, md) } else { crate::sys::FileId::default() };
    let (dev, ino) = (id.dev, id.ino);
    let source = BlockSource {
        dev,
        ino,
        text: TextShape { len: data.len() as u64, lines, block_size, has_nul },
        head_len: head_len as u32,
        head_crc: crc32fast::hash(&data[..head_len]),
        tail_offset,
        tail_crc: crc32fast::hash(&data[tail_offset as usize..]),
        text_digest: Some(trust::digest_of(data)),
    };
    writer.set_source(source.encode());
    Ok((writer, source))
}

/// Adds `blocks` (cut from `data`) to `writer` as documents of file `id`
/// (and their times to `times`), extracting their trigrams and times a
/// batch at a time on every core (a batch
/// holds about an eighth of `budget` bytes); `then` is called with each
/// batch's range of `blocks` once it is added (a packer compresses the same
/// blocks there). Returns the lines counted and whether a NUL was seen.
fn add_blocks(
    (writer, id, times): (&mut IndexWriter, FileId, &mut Option<time_ranges::Builder>),
    data: &[u8],
    blocks: &[(u64, u64)],
    budget: usize,
    progress: &dyn Progress,
    then: &mut dyn FnMut(Range<usize>) -> Result<(), IndexError>,
) -> Result<(u64, bool), IndexError> {
    let (mut lines, mut has_nul) = (0u64, false);
    let sizes: Vec<u64> = blocks.iter().map(|b| b.1).collect();
    for range in batches(&sizes, budget) {
        let bytes = sizes[range.clone()].iter().sum();
        let batch: Vec<Extracted> = blocks[range.clone()]
            .par_iter()
            .map_init(
                || writer.trigram_set(),
                |set, &(off, len)| {
                    let bytes = &data[off as usize..(off + len) as usize];
                    set.add_document(bytes);
                    Extracted {
                        trigrams: set.take(),
                        newlines: memchr::memchr_iter(b'\n', bytes).count() as u64,
                        nul: memchr::memchr(0, bytes).is_some(),
                        times: times.as_ref().map(|t| t.scan(off, bytes)),
                    }
                },
            )
            .collect();
        for (e, &(off, len)) in batch.iter().zip(&blocks[range.clone()]) {
            writer.add_document(id, off, len, lines + 1, &e.trigrams)?;
            lines += e.newlines;
            has_nul |= e.nul;
            if let (Some(t), Some(scan)) = (times.as_mut(), e.times) {
                t.push(scan)?;
            }
        }
        then(range)?;
        progress.advance(bytes);
    }
    Ok((lines, has_nul))
}

/// Opens the file at `path` for a build of the index of documents cut
/// from it, in the directory `dir_of` its canonical path: its canonical
/// path, the file, its metadata and the storage. Waits out the racy
/// window first: a change just before the build would look racy (see
/// `tree::recorded_change`), and the index would never count as fresh.
pub(crate) fn open_for_build(
    path: &Path,
    base: &Path,
    kind: Option<&str>,
) -> Result<(PathBuf, File, std::fs::Metadata, FsStorage), IndexError> {
    std::thread::sleep(Duration::from_nanos(RACY_WINDOW_NS as u64));
    let canonical = path.canonicalize()?;
    let file = File::open(&canonical)?;
    let md = file.metadata()?;
    if !md.is_file() {
        return Err(IndexError::InvalidInput(format!("{}: not a regular file", path.display())));
    }
    let key = location::key(&canonical, kind);
    let storage = FsStorage::create(&location::index_dir_for(base, &key))?;
    Ok((canonical, file, md, storage))
}

/// The index of documents cut from one file, in `dir`, with its `source`
/// section and the file's status-change time at the build (`None`: there
/// is none; `what` names the kind of index in errors).
pub(crate) fn open_sourced(
    dir: &Path,
    what: &str,
) -> Result<Option<(IndexReader, i64)>, IndexError> {
    let storage = FsStorage::new(dir);
    if !storage.has_index() {
        return Ok(None);
    }
    sourced(IndexReader::load(&storage)?, what).map(Some)
}

/// `reader`, checked to be an index of one file (`what`) built by this
/// version, with the file's status-change time at the build.
pub(crate) fn sourced(reader: IndexReader, what: &str) -> Result<(IndexReader, i64), IndexError> {
    if reader.needs_reindex() {
        let by = if reader.foreign() { "on another system" } else { "by another version of tg" };
        return Err(IndexError::Corrupt(format!("built {by}")));
    }
    if reader.source().is_none() {
        return Err(IndexError::Corrupt(format!("not {what}")));
    }
    let changed_ns = reader.file(0).map_or(RACY, |f| f.changed_ns);
    Ok((reader, changed_ns))
}

/// The documents of `reader` that can hold a match of `query`, as blocks
/// in file order; an intersection stops at `enough` blocks
/// ([`IndexReader::candidates_within`]).
pub(crate) fn candidate_blocks(
    reader: &IndexReader,
    query: &Query,
    enough: usize,
) -> Result<Vec<Block>, IndexError> {
    let docs = reader.candidates_within(query, enough)?;
    let mut blocks: Vec<Block> = docs
        .as_slice()
        .iter()
        .filter_map(|&d| reader.doc(d))
        .map(|d| Block { offset: d.offset, len: d.len, first_line: d.first_line })
        .collect();
    blocks.sort_by_key(|b| b.offset);
    Ok(blocks)
}

/// Whether a block index still describes its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// The file is as indexed.
    Fresh,
    /// The file only grew: the indexed bytes are unchanged, the rest is new.
    Grown,
    /// Rewritten, truncated or replaced: the index must not be used.
    Stale,
}

/// An open block index.
pub struct BlockIndex {
    reader: IndexReader,
    /// The file's status-change time at the build ([`RACY`]: too recent to trust).
    changed_ns: i64,
    /// What the index records of its file.
    pub source: BlockSource,
    /// The index directory.
    pub dir: PathBuf,
}

impl BlockIndex {
    /// The block index of the file at `path` (`None`: there is none).
    pub fn open(base: &Path, path: &Path) -> Result<Option<BlockIndex>, IndexError> {
        let dir = location::index_dir_for(base, &path.canonicalize()?);
        let Some((reader, changed_ns)) = open_sourced(&dir, "a block index")? else {
            return Ok(None);
        };
        let source = BlockSource::decode(reader.source().unwrap_or_default())?;
        Ok(Some(BlockIndex { reader, changed_ns, source, dir }))
    }

    /// The block index `reader` opened (from the packed file that holds it).
    pub fn from_reader(reader: IndexReader, dir: PathBuf) -> Result<BlockIndex, IndexError> {
        let (reader, changed_ns) = sourced(reader, "a block index")?;
        let source = BlockSource::decode(reader.source().unwrap_or_default())?;
        Ok(BlockIndex { reader, changed_ns, source, dir })
    }

    /// How `file` (open, at the indexed path) compares with what was
    /// indexed, by the rule in [`crate::index::trust`]: another inode, a
    /// shorter file, or the same size with a new status-change time is
    /// stale; a longer file is grown only if every indexed byte is
    /// unchanged (its digest is the build's; an index without one, from
    /// an older tg, cannot tell, so the file is stale).
    pub fn freshness(&self, file: &File) -> std::io::Result<Freshness> {
        match self.look(file)? {
            Freshness::Grown if !self.indexed_bytes_unchanged(file)? => Ok(Freshness::Stale),
            f => Ok(f),
        }
    }

    /// [`BlockIndex::freshness`] without its costly part: `Grown` here
    /// means only that the file is longer and its first and last indexed
    /// bytes are as indexed; [`BlockIndex::indexed_bytes_unchanged`] must
    /// still say yes before the index is trusted.
    pub fn look(&self, file: &File) -> std::io::Result<Freshness> {
        let s = &self.source;
        let md = file.metadata()?;
        let id = crate::sys::open_file_id(file);
        if id.dev != s.dev || id.ino != s.ino || md.len() < s.text.len {
            return Ok(Freshness::Stale);
        }
        if md.len() == s.text.len {
            let same = self.changed_ns != RACY && changed_ns(&md) == self.changed_ns;
            return Ok(if same { Freshness::Fresh } else { Freshness::Stale });
        }
        // The head and the last block: a rewritten file is told stale
        // without reading the rest.
        let crc_of = |offset, len| super::encoding::crc_of_range(file, offset, len);
        let ends_same = s.text_digest.is_some()
            && crc_of(0, u64::from(s.head_len))? == s.head_crc
            && crc_of(s.tail_offset, s.text.len - s.tail_offset)? == s.tail_crc;
        Ok(if ends_same { Freshness::Grown } else { Freshness::Stale })
    }

    /// Whether every indexed byte of `file` is as indexed: its digest is
    /// the build's (reads all of them).
    pub fn indexed_bytes_unchanged(&self, file: &File) -> std::io::Result<bool> {
        let s = &self.source;
        Ok(s.text_digest.is_some_and(|d| trust::digest(file, s.text.len).is_ok_and(|got| got == d)))
    }

    /// Whether the blocks hold the trigrams of their edges (see
    /// [`IndexReader::has_edges`]).
    pub fn has_edges(&self) -> bool {
        self.reader.has_edges()
    }

    /// The blocks that can hold a match of `query`, in file order: exactly
    /// those holding its trigrams, or, with `enough` above 0, a superset
    /// once at most that many are left (see
    /// [`IndexReader::candidates_within`]).
    pub fn candidates(&self, query: &Query, enough: usize) -> Result<Vec<Block>, IndexError> {
        candidate_blocks(&self.reader, query, enough)
    }

    /// The last indexed block (`None`: the file was empty).
    pub fn last_block(&self) -> Option<Block> {
        let n = self.reader.stats().documents;
        let d = self.reader.doc(n.checked_sub(1)?)?;
        Some(Block { offset: d.offset, len: d.len, first_line: d.first_line })
    }

    /// Every block, in document order (file order).
    pub fn blocks(&self) -> impl Iterator<Item = Block> + '_ {
        self.reader.documents().map(|d| Block {
            offset: d.offset,
            len: d.len,
            first_line: d.first_line,
        })
    }

    /// How many blocks the index holds.
    pub fn block_count(&self) -> u32 {
        self.reader.stats().documents
    }

    /// The times its blocks' lines carry, if the build recorded them.
    pub(crate) fn times(&self) -> Option<time_ranges::BlockTimes> {
        time_ranges::BlockTimes::of(&self.reader)
    }
}
