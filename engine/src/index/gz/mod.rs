//! `.gz` files indexed as blocks of their text: a selective `tg -z` query
//! decompresses only the blocks that can match.
//!
//! [`build`] decompresses a gzip file once (rapidgzip-core, on zlib-rs),
//! cuts its text at line ends into blocks, as [`super::blocks`] cuts a
//! plain file, makes each block a document of the same trigram index (its
//! offset in the text, length and first line number), and records access
//! points about every [`DEFAULT_SPACING`] bytes of text: the compressed bit
//! offset of a deflate block and the 32 KiB of text before it (zlib's
//! `zran`, indexed_gzip and rapidgzip do the same). Points and the file's
//! identity are the index's `source` section ([`record`]), so one file,
//! checksummed and published atomically, holds everything; the `.gz` is
//! never touched, and the index lives in the index directory under a name
//! of its own ([`index_dir`]), apart from a block index of the same path.
//!
//! A query opens the [`GzIndex`], checks it still describes the file
//! ([`GzIndex::is_fresh`]: same inode, size and modification time, same
//! CRC32 of the first and last 64 KiB), takes the candidate blocks of its
//! trigram query, and reads each block's text with [`GzIndex::read_text`]:
//! inflate from the access point before it (rapidgzip-core's
//! `IndexedReader`, given that one point), skip to the block, read it.
//!
//! Why this record rather than indexed_gzip's GZIDX (which rapidgzip-core
//! writes): GZIDX stores each window raw, 32 KiB a point (27.7 MB for the
//! 1 GiB test log at 1 MiB spacing, against 3.5 MB compressed), and both
//! rapidgzip-core readers inflate every window when they open an index
//! (58 ms per GiB of text, per query); here a query inflates only the
//! windows of its candidate blocks. BENCHMARKS.md, "Indexed .gz".

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

use rapidgzip_core::{
    Checkpoint, CheckpointKind, DeflateIndex, IndexKind, IndexedReader, StoredWindow,
};

use super::blocks::{Block, candidate_blocks, open_sourced};
use super::error::IndexError;
use super::reader::IndexReader;
use super::recorded::changed_ns;
use super::table::RACY;
use crate::query::Query;
use record::{AccessPoint, GzRecord, PointKind, WINDOW_LEN};

mod blocks;
mod build;
mod place;
pub mod record;

pub use place::{KIND, index_dir};

pub use build::build;

/// The nominal distance between access points, in bytes of text: a
/// candidate block costs on average half of it in extra inflate (about
/// 0.5 ms here), and each point about 4 KiB of index.
pub const DEFAULT_SPACING: u64 = 1 << 20;

/// `.gz` files from this compressed size up get an index built in the
/// background after a `-z` search decompressed them whole (about 0.6 GiB of
/// log text: 0.6 s of inflate per query, where the index answers selective
/// queries in a few tens of milliseconds).
pub const AUTO_INDEX_MIN: u64 = 64 << 20;

/// An open index of a `.gz` file.
pub struct GzIndex {
    reader: IndexReader,
    /// The file's status-change time at the build ([`RACY`]: too recent to trust).
    changed_ns: i64,
    /// The access points and what the index describes.
    pub record: GzRecord,
}

impl GzIndex {
    /// The index of the `.gz` file at `path` (`None`: there is none).
    pub fn open(base: &Path, path: &Path) -> Result<Option<GzIndex>, IndexError> {
        let dir = index_dir(base, &path.canonicalize()?);
        let Some((reader, changed_ns)) = open_sourced(&dir, "the index of a .gz file")? else {
            return Ok(None);
        };
        let record = GzRecord::decode(reader.source().unwrap_or_default())?;
        Ok(Some(GzIndex { reader, changed_ns, record }))
    }

    /// Whether `file` (open, at the indexed path) is the file indexed:
    /// same device, inode, size, modification and status-change times,
    /// and the same first and last 64 KiB. Anything else (rewritten,
    /// appended to, replaced) means the index must not be used.
    pub fn is_fresh(&self, file: &File) -> std::io::Result<bool> {
        let f = &self.record.file;
        let md = file.metadata()?;
        let mtime_ns = crate::sys::modified_ns(&md);
        let id = crate::sys::open_file_id(file);
        if id.dev != f.dev || id.ino != f.ino || md.len() != f.gz_len || mtime_ns != f.mtime_ns {
            return Ok(false);
        }
        if self.changed_ns == RACY || changed_ns(&md) != self.changed_ns {
            return Ok(false);
        }
        let crc_of = |offset, len| super::encoding::crc_of_range(file, offset, u64::from(len));
        Ok(crc_of(0, f.head_len)? == f.head_crc
            && crc_of(f.gz_len - u64::from(f.tail_len), f.tail_len)? == f.tail_crc)
    }

    /// Whether the blocks hold the trigrams of their edges (see
    /// [`IndexReader::has_edges`]).
    pub fn has_edges(&self) -> bool {
        self.reader.has_edges()
    }

    /// The blocks of text that can hold a match of `query`, in text order.
    pub fn candidates(&self, query: &Query) -> Result<Vec<Block>, IndexError> {
        self.candidates_within(query, 0)
    }

    /// [`GzIndex::candidates`], or a superset once at most `enough` are
    /// left, when above 0 (see [`IndexReader::candidates_within`]).
    pub fn candidates_within(
        &self,
        query: &Query,
        enough: usize,
    ) -> Result<Vec<Block>, IndexError> {
        candidate_blocks(&self.reader, query, enough)
    }

    /// How many blocks the index holds.
    pub fn block_count(&self) -> u32 {
        self.reader.stats().documents
    }

    /// The times its blocks' lines carry, if the build recorded them.
    pub(crate) fn times(&self) -> Option<super::blocks::time_ranges::BlockTimes> {
        super::blocks::time_ranges::BlockTimes::of(&self.reader)
    }

    /// Fills `into` with the text from `offset` on, decompressed from `gz`
    /// (the indexed file): by reading on with `reader` when it stands at or
    /// before `offset` and past the access point before it, else from that
    /// access point. Returns the reader, now at the end of `into`, for a
    /// later call.
    pub fn read_text(
        &self,
        gz: &Arc<File>,
        offset: u64,
        into: &mut [u8],
        reader: Option<TextReader>,
    ) -> std::io::Result<TextReader> {
        let bad = |what: String| std::io::Error::other(IndexError::Corrupt(what));
        let point =
            self.record.point_before(offset).ok_or_else(|| bad("no access point".into()))?;
        let reuse = reader.filter(|r| (point.text_offset..=offset).contains(&r.position()));
        let mut reader = match reuse {
            Some(mut r) => {
                let gap = offset - r.position();
                let skipped = std::io::copy(&mut (&mut r.0).take(gap), &mut std::io::sink())?;
                if skipped != gap {
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                }
                r
            }
            None => {
                let mut one = DeflateIndex::new();
                one.set_kind(IndexKind::Gzip);
                one.set_compressed_size(Some(self.record.file.gz_len));
                one.push(checkpoint(point), self.window(point)?).map_err(|e| bad(e.to_string()))?;
                let mut r =
                    IndexedReader::new(Arc::clone(gz), one).map_err(std::io::Error::other)?;
                r.seek(SeekFrom::Start(offset))?;
                TextReader(r)
            }
        };
        reader.0.read_exact(into)?;
        Ok(reader)
    }

    /// The 32 KiB of text before `point` (empty when it needs none).
    fn window(&self, point: &AccessPoint) -> std::io::Result<StoredWindow> {
        if point.window.is_empty() {
            return Ok(StoredWindow::empty());
        }
        let source = self.reader.source().unwrap_or_default();
        let packed = source.get(point.window.clone()).unwrap_or_default();
        let mut raw = Vec::with_capacity(WINDOW_LEN);
        flate2::read::DeflateDecoder::new(packed)
            .take(WINDOW_LEN as u64 + 1)
            .read_to_end(&mut raw)?;
        StoredWindow::from_raw(raw).map_err(std::io::Error::other)
    }
}

/// A reader of a `.gz` file's text, kept from one [`GzIndex::read_text`]
/// to the next.
pub struct TextReader(IndexedReader<Arc<File>>);

impl TextReader {
    /// The offset in the text of the next byte it reads.
    pub fn position(&self) -> u64 {
        self.0.position()
    }
}

/// rapidgzip-core's view of `point`.
fn checkpoint(point: &AccessPoint) -> Checkpoint {
    let kind = match point.kind {
        PointKind::MemberHeader => CheckpointKind::GzipMemberHeader,
        PointKind::MemberData(at) => {
            CheckpointKind::GzipMemberDeflate { header_offset_in_bytes: at }
        }
        PointKind::Block => CheckpointKind::DeflateBlock,
    };
    Checkpoint {
        compressed_offset_in_bits: point.bits,
        uncompressed_offset_in_bytes: point.text_offset,
        kind,
        line_offset: None,
    }
}
