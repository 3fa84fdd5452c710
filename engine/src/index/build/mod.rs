//! Building a tree's index: walk, extract, sort, publish.
//!
//! [`build`] walks the tree with the search's default filters
//! ([`walk`]) into a listing sorted by path (`listing`: each path held
//! once, in memory up to a limit and beyond it in a mapped temporary
//! file; file ids follow path order), reads each file's distinct
//! trigrams on every core ([`read`]), and feeds them in order
//! (`ordered`: a bounded window of files read ahead) to the
//! [`IndexWriter`], which spools its tables and sorts externally. A file
//! the index being replaced holds as it is now is not read: its document
//! keeps that index's lists (`unchanged`). Every
//! part's memory is set by the budget (`budget`), none by the tree. The
//! index is checked whole, then published atomically through
//! [`FsStorage`]: a build killed at any point leaves the previous index
//! answering.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::index::error::IndexError;
use crate::index::extract::TrigramSet;
use crate::index::location;
use crate::index::reader::IndexReader;
use crate::index::recorded::RACY_WINDOW_NS;
use crate::index::storage::FsStorage;
use crate::index::table::flags;
use crate::index::writer::{IndexSummary, IndexWriter, IndexWriterBuilder};
use crate::stats::MemorySampler;
use crate::sys::dirstat::DirStat;
use read::extract;
use read_ahead::{Frontier, ask, read_ahead};
use unchanged::Unchanged;
use walk::{WalkError, walk};

pub mod budget;
mod listing;
mod ordered;
mod paged;
pub mod read;
mod read_ahead;
mod unchanged;
pub mod walk;

/// The share of the memory budget given to extraction batches (input bytes
/// read per batch, whose trigram lists wait for the writer); the writer's
/// sort gets three quarters ([`writer_for`]).
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
    /// Of them, files kept from the index replaced, unchanged (not read).
    pub kept: u32,
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
    /// Where the time went.
    pub times: BuildTimes,
}

/// Where a build's time went: wall times of its phases, and the time its
/// threads spent reading files and collecting their trigrams (summed over
/// threads: with every core busy, more than the phase's wall time).
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildTimes {
    /// Wall time until the walk was done (its files listed and sorted).
    pub walk: Duration,
    /// Wall time of reading, extracting and sorting, overlapped.
    pub extracting: Duration,
    /// Thread time opening and reading files.
    pub read: Duration,
    /// Thread time collecting files' trigrams.
    pub extract: Duration,
    /// Time sorting full buffers of pairs (during `extracting`).
    pub sorting: Duration,
    /// Time encoding and writing sorted runs (during `extracting`, and
    /// intermediate merge passes after it).
    pub spilling: Duration,
    /// Wall time merging the runs into posting lists, on every core.
    pub merging: Duration,
    /// Wall time writing the index file after the merge.
    pub writing: Duration,
    /// Wall time checking the whole new index before publishing it.
    pub verifying: Duration,
    /// CPU time the process used during the build (user and system, all
    /// threads): over `Built::elapsed`, the cores kept busy on average.
    pub cpu: Duration,
}

/// Builds (or rebuilds) the index of the tree at `root` (a canonical
/// directory) under the index base `base`, with `budget` bytes of memory,
/// reading only the files that changed since the index it replaces (every
/// file again if keeping from that index fails: nothing of a damaged
/// index is carried over).
pub fn build(
    root: &Path,
    base: &Path,
    budget: usize,
    progress: &dyn Progress,
) -> Result<Built, IndexError> {
    match build_reading(root, base, budget, progress, Read::Changed) {
        Err(err) if !matches!(err, IndexError::Place { .. }) => {
            build_reading(root, base, budget, progress, Read::All).map_err(|_| err)
        }
        built => built,
    }
}

/// Which files a build reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// Those that changed since the index it replaces.
    Changed,
    /// Every one (`tg index --rebuild`).
    All,
}

/// [`build`], reading the files `read` says.
pub fn build_reading(
    root: &Path,
    base: &Path,
    budget: usize,
    progress: &dyn Progress,
    read: Read,
) -> Result<Built, IndexError> {
    let started = Instant::now();
    let cpu = crate::sys::cpu_time();
    let peak = MemorySampler::start();
    let storage = FsStorage::create(&location::index_dir_for(base, root))?;
    let out = storage.dir().to_path_buf();

    // Files changed just before the build would otherwise look racy (see
    // `walk::recorded_change`) and be re-read by every query until the next build.
    std::thread::sleep(Duration::from_nanos(RACY_WINDOW_NS as u64));
    let (unchanged, old) = match read {
        Read::Changed => Unchanged::of(&storage).unzip(),
        Read::All => (None, None),
    };
    let (files, walk_errors) = walk(root, &out, budget::listing_memory(budget))?;
    // What is read of entry `i`: a file's size, nothing of the others.
    let size = |i: usize| Some(files.seen(i)).filter(|s| s.flags & flags::NOT_A_FILE == 0);
    let size = |i: usize| size(i).map_or(0, |s| s.size);
    let total: u64 = (0..files.len()).map(size).sum();
    let n_files = (0..files.len()).filter(|&i| files.seen(i).flags & flags::NOT_A_FILE == 0);
    let n_files = n_files.count();
    progress.start(total);

    let threads = rayon::current_num_threads();
    let plan = budget::Plan::new(budget, threads, files.memory(), files.len());
    let mut writer = IndexWriterBuilder::new()
        .memory_budget(plan.sort)
        .spill_dir(&out)
        .follow_masks(true)
        .build();
    if let Some(old) = old {
        writer.keep_from(old);
    }
    let kept = |i: usize| unchanged.as_ref()?.kept(files.path(i), files.seen(i));
    let mut skipped = 0u64;
    let mut times = BuildTimes { walk: started.elapsed(), ..BuildTimes::default() };
    let (mut shown, mut unshown) = (0u64, 0u64);
    let extracting = Instant::now();
    let frontier = Frontier::default();
    let (wanted, path) = (|i| kept(i).is_none(), |i| files.path(i));
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut handles = DirStat::new(root);
            let asked = |i| ask(root, path(i), &mut handles);
            read_ahead(files.len(), size, wanted, &frontier, asked)
        });
        let extracted = ordered::in_order(
            files.len(),
            |i| budget::item_cost(size(i), files.path(i).len()),
            |e: &read::Extracted| budget::result_cost(e.trigrams.capacity(), e.meta.path.len()),
            plan.window,
            threads,
            || (TrigramSet::new(true), Vec::new(), DirStat::new(root)),
            |(set, buf, handles), i| {
                frontier.reach(i);
                let Some(k) = kept(i) else {
                    let e = extract(root, files.path(i), files.seen(i), set, buf, handles);
                    if e.waited {
                        frontier.waited();
                    }
                    return e;
                };
                read::kept(files.path(i), files.seen(i), k)
            },
            |i, e| -> Result<(), IndexError> {
                skipped += u64::from(e.meta.flags & flags::SKIPPED_ANY != 0);
                (times.read, times.extract) = (times.read + e.read, times.extract + e.extract);
                let is_file = e.meta.flags & flags::NOT_A_FILE == 0;
                let id = writer.add_file(e.meta)?;
                if is_file {
                    let doc = writer.add_document(id, 0, e.len, 1, &e.trigrams)?;
                    if let Some(old) = e.kept {
                        writer.keep(old, doc);
                    }
                }
                unshown += size(i);
                if unshown >= 1 << 20 || i + 1 == files.len() {
                    progress.advance(unshown);
                    (shown, unshown) = (shown + unshown, 0);
                }
                Ok(())
            },
        );
        frontier.finish();
        extracted
    })?;
    debug_assert_eq!(shown, total);
    drop((files, unchanged));
    times.extracting = extracting.elapsed();
    let kept = writer.kept();
    let docs = writer.documents() as usize;
    writer.set_merge_threads(budget::merge_threads(budget, threads, docs));
    let (summary, verifying) = timed_publish(writer, &storage, root)?;
    times.verifying = verifying;
    times.sorting = summary.sort.sorting;
    times.spilling = summary.sort.spilling;
    times.merging = summary.merging;
    times.writing = summary.writing;
    times.cpu = crate::sys::cpu_time().saturating_sub(cpu);
    Ok(Built {
        dir: out,
        files: n_files,
        kept,
        bytes: total,
        skipped,
        walk_errors,
        summary,
        elapsed: started.elapsed(),
        peak_private: peak.finish(),
        times,
    })
}

/// A writer whose external sort holds three quarters of `budget` less the
/// extraction threads' trigram table ([`TrigramSet::bytes`] each), at
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
    timed_publish(writer, storage, key).map(|(summary, _)| summary)
}

/// [`publish`], and how long the check took.
fn timed_publish(
    writer: IndexWriter,
    storage: &FsStorage,
    key: &Path,
) -> Result<(IndexSummary, Duration), IndexError> {
    let summary = writer.finish_into(storage)?;
    let started = Instant::now();
    let checked = IndexReader::load(storage).and_then(|r| r.verify_built());
    let verifying = started.elapsed();
    if let Err(err) = checked {
        storage.withdraw()?;
        return Err(IndexError::Corrupt(format!(
            "the new index failed its check ({err}); removed it: searches will scan"
        )));
    }
    storage.record_key(key)?;
    Ok((summary, verifying))
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
