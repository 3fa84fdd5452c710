//! Building a tree's index: walk, extract, sort, publish.
//!
//! [`build`] walks the tree with the search's default filters
//! ([`walk`]), sorts the files by path (so file ids follow path order),
//! reads each file's distinct trigrams on every core in bounded batches
//! ([`read`]), and feeds them in order to the
//! [`IndexWriter`], whose external sort
//! keeps memory within the budget. The index is checked whole, then
//! published atomically through [`FsStorage`]: a build killed at any point
//! leaves the previous index answering.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::index::error::IndexError;
use crate::index::extract::TrigramSet;
use crate::index::location;
use crate::index::reader::IndexReader;
use crate::index::storage::FsStorage;
use crate::index::table::flags;
use crate::index::tree::RACY_WINDOW_NS;
use crate::index::writer::{IndexSummary, IndexWriter, IndexWriterBuilder};
use crate::stats::MemorySampler;
use read::{Extracted, extract};
use walk::{WalkError, walk};

pub mod read;
pub mod walk;

/// The share of the memory budget given to extraction batches (input bytes
/// read per batch, whose trigram lists wait for the writer); the writer's
/// sort gets three quarters.
const BATCH_SHARE: usize = 8;

/// How a build reports its progress (a progress bar, or nothing).
pub trait Progress {
    /// The walk is done: `bytes` of file contents are to be read.
    fn start(&self, bytes: u64);
    /// `bytes` more were read.
    fn advance(&self, bytes: u64);
}

/// No progress shown.
impl Progress for () {
    fn start(&self, _bytes: u64) {}

    fn advance(&self, _bytes: u64) {}
}

/// What a build made.
#[derive(Clone, Debug)]
pub struct Built {
    /// The index directory.
    pub dir: PathBuf,
    /// Files indexed.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Files left out (binary past a NUL, unreadable, other encodings) and
    /// directories the walk could not read.
    pub skipped: u64,
    /// Where the walk failed (each also left out).
    pub walk_errors: Vec<WalkError>,
    /// What the writer wrote.
    pub summary: IndexSummary,
    /// Wall time of the build.
    pub elapsed: Duration,
    /// Peak private memory (RssAnon) seen during the build, in bytes.
    pub peak_private: u64,
}

/// Builds (or rebuilds) the index of the tree at `root` (a canonical
/// directory) under the index base `base`, with `budget` bytes of memory.
pub fn build(
    root: &Path,
    base: &Path,
    budget: usize,
    progress: &dyn Progress,
) -> Result<Built, IndexError> {
    let started = Instant::now();
    let peak = MemorySampler::start();
    let storage = FsStorage::create(&location::index_dir_for(base, root))?;
    let out = storage.dir().to_path_buf();

    // Files changed just before the build would otherwise look racy (see
    // `walk::recorded_change`) and be re-read by every query until the next build.
    std::thread::sleep(Duration::from_nanos(RACY_WINDOW_NS as u64));
    let (mut files, walk_errors) = walk(root)?;
    // A watched ignore file that a wider walk searches is two entries:
    // the watch first, so that a lookup by path finds it.
    let watch = |f: &walk::Found| f.flags & (flags::WATCH | flags::WATCH_EXISTS) == 0;
    files.sort_unstable_by(|a, b| a.rel.cmp(&b.rel).then(watch(a).cmp(&watch(b))));
    let is_file = |f: &&walk::Found| f.flags & flags::NOT_A_FILE == 0;
    let total: u64 = files.iter().filter(is_file).map(|f| f.size).sum();
    let n_files = files.iter().filter(is_file).count();
    progress.start(total);

    let mut writer = writer_for(budget, &out, true);
    let mut skipped = 0u64;
    let sizes: Vec<u64> = files.iter().map(|f| f.size).collect();
    for range in batches(&sizes, budget) {
        let bytes = sizes[range.clone()].iter().sum();
        let batch: Vec<Extracted> = files[range]
            .par_iter()
            .map_init(
                || (writer.trigram_set(), Vec::new()),
                |(set, buf), f| extract(root, f, set, buf),
            )
            .collect();
        for e in batch {
            skipped += u64::from(e.meta.flags & flags::SKIPPED_ANY != 0);
            let is_file = e.meta.flags & flags::NOT_A_FILE == 0;
            let id = writer.add_file(e.meta);
            if is_file {
                writer.add_document(id, 0, e.len, 1, &e.trigrams)?;
            }
        }
        progress.advance(bytes);
    }
    let summary = publish(writer, &storage, root)?;
    Ok(Built {
        dir: out,
        files: n_files,
        bytes: total,
        skipped,
        walk_errors,
        summary,
        elapsed: started.elapsed(),
        peak_private: peak.finish(),
    })
}

/// A writer whose external sort holds three quarters of `budget` less the
/// extraction threads' trigram tables ([`TrigramSet::bytes`] each), at
/// least a quarter, spilling into `dir` (extraction batches take an
/// eighth: [`batches`]), with follow masks or not
/// ([`IndexWriterBuilder::follow_masks`]; its trigram sets come from
/// [`IndexWriter::trigram_set`]).
pub(crate) fn writer_for(budget: usize, dir: &Path, masks: bool) -> IndexWriter {
    let tables = rayon::current_num_threads() * TrigramSet::bytes(masks);
    let sort = (budget - budget / 4).saturating_sub(tables).max(budget / 4);
    let builder = IndexWriterBuilder::new().memory_budget(sort);
    builder.spill_dir(dir).follow_masks(masks).build()
}

/// Consecutive ranges of items of `sizes` bytes, each holding at most an
/// eighth of `budget` (at least 1 MiB) unless one item is larger alone: the
/// batches extracted in parallel while the writer waits.
pub(crate) fn batches(sizes: &[u64], budget: usize) -> Vec<Range<usize>> {
    let max = (budget / BATCH_SHARE).max(1 << 20) as u64;
    let mut out = Vec::new();
    let mut start = 0;
    while start < sizes.len() {
        let (mut end, mut bytes) = (start, 0);
        while end < sizes.len() && (end == start || bytes + sizes[end] <= max) {
            bytes += sizes[end];
            end += 1;
        }
        out.push(start..end);
        start = end;
    }
    out
}

/// Publishes what `writer` holds into `storage`, checks the whole new
/// index (queries check only what they read) and records the `key` it is
/// filed under ([`location::key`]); an index that fails its check is
/// removed, so that searches scan.
pub(crate) fn publish(
    writer: IndexWriter,
    storage: &FsStorage,
    key: &Path,
) -> Result<IndexSummary, IndexError> {
    let summary = writer.finish_into(storage)?;
    if let Err(err) = IndexReader::load(storage).and_then(|r| r.verify()) {
        storage.withdraw()?;
        return Err(IndexError::Corrupt(format!(
            "the new index failed its check ({err}); removed it: searches will scan"
        )));
    }
    storage.record_key(key)?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_hold_an_eighth_of_the_budget_or_one_big_item() {
        let mb = 1u64 << 20;
        let sizes = [mb, mb, 3 * mb, 10 * mb, mb];
        assert_eq!(batches(&sizes, 32 << 20), vec![0..2, 2..3, 3..4, 4..5]);
        assert_eq!(batches(&sizes, 1 << 30), vec![0..5]);
        assert_eq!(batches(&[], 1 << 20), Vec::<Range<usize>>::new());
    }
}
