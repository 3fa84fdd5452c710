//! External sort of `(trigram, doc)` pairs within a memory budget.
//!
//! Pairs come in document order (an index's documents are numbered as
//! they are added), each document's in any order. `ExternalSorter`
//! fills a buffer of keys (`trigram << 40 | doc << 8 | follow`: the
//! trigram's 24 bits, the doc's 32, the follow mask's 8); a full buffer
//! is sorted by trigram with a stable radix sort (`radix`: the documents
//! are already in order) and spilled as a compact *run* (`run`) to an
//! unnamed temporary file in the spill directory, mapped back for the
//! merge. Runs cover increasing ranges of documents, so a trigram's
//! merged list is its lists in run order: no heap of pairs, and the merge
//! (`SortedRuns`) reads any range of trigram partitions alone, several
//! ranges on several threads.
//!
//! A full buffer is sorted and written on a thread of its own while the
//! next one fills (`spiller`), unless the budget is small. Memory: the buffer filling, the buffer
//! being written and the radix sort's second buffer take the budget
//! between them (a run's mapped file, its partition table included, is
//! page cache, not private memory); each run to merge costs the entries
//! of its lists in a partition being merged (`MERGE_RUN_BYTES` counted)
//! on each thread merging, so with more runs than the budget allows on
//! every core, groups of runs are first merged into longer runs (a
//! multi-pass merge).

use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::query::trigram::Gram;

mod merge;
mod radix;
mod run;
mod spiller;

pub use merge::SortStats;
pub(crate) use merge::SortedRuns;
use run::Run;
pub(crate) use run::{PARTITIONS, partition};
use spiller::{Spiller, Taken};

/// What a merge counts against the budget for each run it reads; the
/// fan-in is the budget divided by this.
pub(crate) const MERGE_RUN_BYTES: usize = 64 << 10;

/// The least budget whose full buffers are written on a thread of their
/// own (`spiller`): below it a third buffer would leave the others too
/// small (a 520,000-file build at `--index-memory 64M` then wrote 1,084
/// runs instead of 642, and took 133 s instead of 99).
const BACKGROUND_SPILL_MIN: usize = 64 << 20;

/// Fewest pairs a sort buffer holds, however small the budget.
const MIN_BUFFER_PAIRS: usize = 1024;

/// Sorts `(trigram, doc)` pairs and their follow masks in bounded memory;
/// see the module docs.
#[derive(Debug)]
pub(crate) struct ExternalSorter {
    dir: PathBuf,
    budget: usize,
    buf: Vec<u64>,
    spiller: Spiller,
    cap: usize,
    runs: Vec<Run>,
    last_doc: u32,
    stats: SortStats,
}

impl ExternalSorter {
    /// A sorter spilling into `dir` with a memory budget of `budget` bytes.
    pub fn new(dir: &Path, budget: usize) -> Self {
        // The buffer filling, the one being written (when written on a
        // thread of its own) and the radix sort's scratch: 8 bytes a pair
        // each.
        let background = budget >= BACKGROUND_SPILL_MIN;
        let cap = (budget / if background { 24 } else { 16 }).max(MIN_BUFFER_PAIRS);
        ExternalSorter {
            dir: dir.to_path_buf(),
            budget,
            buf: Vec::new(),
            spiller: Spiller::new(dir.to_path_buf(), background),
            cap,
            runs: Vec::new(),
            last_doc: 0,
            stats: SortStats::default(),
        }
    }

    /// The same sorter, its full buffers written on a thread of their own
    /// or not, whatever its budget (the tests try both).
    #[cfg(test)]
    fn in_background(mut self, on: bool) -> Self {
        self.cap = (self.budget / if on { 24 } else { 16 }).max(MIN_BUFFER_PAIRS);
        self.spiller = Spiller::new(self.dir.clone(), on);
        self
    }

    /// Adds the pairs of document `doc` and each of its `grams` (a
    /// trigram and its follow mask in the document, [`Gram`]), spilling a
    /// run whenever the buffer is full. Documents come in order: a `doc`
    /// below an earlier one is an error.
    pub fn push_document(&mut self, doc: u32, grams: &[Gram]) -> io::Result<()> {
        if doc < self.last_doc {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "pairs out of document order"));
        }
        self.last_doc = doc;
        let (doc, mut rest) = (u64::from(doc) << 8, grams);
        while !rest.is_empty() {
            if self.buf.len() == self.cap {
                self.spill()?;
            }
            if self.buf.capacity() == 0 {
                self.buf.reserve_exact(self.cap);
            }
            let (now, later) = rest.split_at(rest.len().min(self.cap - self.buf.len()));
            // A gram is its trigram's 24 bits over its mask's 8.
            self.buf.extend(
                now.iter().map(|&g| ((u64::from(g) >> 8) << 40) | doc | u64::from(g & 0xff)),
            );
            self.stats.pairs += now.len() as u64;
            rest = later;
        }
        Ok(())
    }

    /// Hands the full buffer to the spiller and fills the one it gives
    /// back (or a new one, the first time).
    fn spill(&mut self) -> io::Result<()> {
        let full = std::mem::take(&mut self.buf);
        if let Some(taken) = self.spiller.send(full)? {
            self.buf = self.record(taken);
        }
        Ok(())
    }

    /// Counts a run the spiller wrote and keeps it; returns its buffer.
    fn record(&mut self, taken: Taken) -> Vec<u64> {
        self.stats.sorting += taken.sorting;
        self.stats.spilling += taken.spilling;
        self.stats.runs += 1;
        self.stats.spilled_bytes += taken.run.len();
        self.runs.push(taken.run);
        taken.buf
    }

    /// Waits for the run being written, if any, and keeps it.
    fn take_pending(&mut self) -> io::Result<()> {
        if let Some(taken) = self.spiller.take()? {
            drop(self.record(taken));
        }
        Ok(())
    }

    /// Sorts what is left and returns the runs, ready to merge.
    pub fn finish(mut self) -> io::Result<SortedRuns> {
        self.take_pending()?;
        if self.runs.is_empty() {
            let started = Instant::now();
            // The scratch is freed at once, before the run is encoded.
            radix::sort_by_trigram(&mut self.buf, &mut Vec::new());
            self.stats.sorting += started.elapsed();
            let run = Run::in_memory(|enc| enc.push_keys(&self.buf))?;
            return Ok(SortedRuns::new(vec![run], self.stats));
        }
        if !self.buf.is_empty() {
            self.spill()?;
            self.take_pending()?;
        }
        self.buf = Vec::new();
        self.spiller.release();
        // Each run merged costs its lists of a partition on each thread
        // merging (`MERGE_RUN_BYTES` counted): groups merge on every core
        // at once, and so do the ranges of the final merge.
        let fan_in = (self.budget / MERGE_RUN_BYTES / rayon::current_num_threads()).max(2);
        let mut runs = std::mem::take(&mut self.runs);
        while runs.len() > fan_in {
            self.stats.merge_passes += 1;
            let started = Instant::now();
            let mut groups = Vec::new();
            let mut rest = runs.into_iter();
            while rest.len() > 0 {
                groups.push(rest.by_ref().take(fan_in).collect::<Vec<Run>>());
            }
            let dir = &self.dir;
            runs = groups
                .into_par_iter()
                .map(|g| merge::merge_runs(g, dir))
                .collect::<io::Result<Vec<Run>>>()?;
            self.stats.spilled_bytes += runs.iter().map(Run::len).sum::<u64>();
            self.stats.spilling += started.elapsed();
        }
        Ok(SortedRuns::new(runs, self.stats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::trigram::gram;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *seed >> 33
    }

    type Pairs = Vec<(u32, u32, u8)>;

    #[test]
    fn pairs_come_out_by_trigram_and_a_repeated_pairs_masks_join() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = ExternalSorter::new(dir.path(), 64 << 10);
        for (t, d, f) in [(3, 1, 1), (1, 1, 2), (3, 1, 4), (1, 2, 0)] {
            s.push_document(d, &[gram(t, f)]).unwrap();
        }
        let out = s.finish().unwrap();
        let mut all = Vec::new();
        for range in out.ranges(4, 0, &[]) {
            out.merge(range, |t, pairs| {
                all.extend(pairs.iter().map(|&(d, f)| (t, d, f)));
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(all, vec![(1, 1, 2), (1, 2, 0), (3, 1, 5)]);
    }

    /// Sorts `n` random pairs (documents in order, a few pairs each, some
    /// repeated) with `budget`, merged in `ranges` ranges, and returns
    /// what came out and what should have.
    fn sort_with(budget: usize, n: usize, seed: u64, ranges: usize) -> (Pairs, Pairs, SortStats) {
        sort_in(budget, budget >= BACKGROUND_SPILL_MIN, n, seed, ranges)
    }

    /// [`sort_with`], its full buffers written on a thread of their own or
    /// not (`background`).
    fn sort_in(
        budget: usize,
        background: bool,
        n: usize,
        seed: u64,
        ranges: usize,
    ) -> (Pairs, Pairs, SortStats) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = ExternalSorter::new(dir.path(), budget).in_background(background);
        let mut reference = std::collections::BTreeMap::new();
        let mut seed = seed;
        let mut doc = 0;
        for _ in 0..n {
            doc += u32::from(lcg(&mut seed).is_multiple_of(4));
            let t = if lcg(&mut seed).is_multiple_of(2) {
                lcg(&mut seed) % 5000
            } else {
                lcg(&mut seed)
            };
            let p = ((t % (1 << 24)) as u32, doc);
            let follow = 1 << (lcg(&mut seed) % 4);
            s.push_document(p.1, &[gram(p.0, follow)]).unwrap();
            *reference.entry(p).or_insert(0) |= follow;
        }
        let reference: Pairs = reference.into_iter().map(|((t, d), f)| (t, d, f)).collect();
        let out = s.finish().unwrap();
        let mut got: Pairs = Vec::new();
        for range in out.ranges(ranges, 0, &[]) {
            out.merge(range, |t, pairs| {
                for &(d, f) in pairs {
                    match got.last_mut() {
                        Some(last) if (last.0, last.1) == (t, d) => last.2 |= f,
                        _ => got.push((t, d, f)),
                    }
                }
                Ok(())
            })
            .unwrap();
        }
        let stats = out.stats();
        drop(out);
        // Runs are unnamed files: nothing is left in the directory.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        (got, reference, stats)
    }

    #[test]
    fn in_memory_when_it_fits() {
        let (got, want, stats) = sort_with(1 << 20, 10_000, 1, 1);
        assert_eq!(got, want);
        assert_eq!(stats.runs, 0);
    }

    #[test]
    fn tiny_budget_forces_multi_pass_merge() {
        // 128 KiB: 8192 pairs per run, fan-in 2: many runs, several passes.
        let (got, want, stats) = sort_with(128 << 10, 200_000, 7, 3);
        assert_eq!(got, want);
        assert!(stats.runs >= 20, "{stats:?}");
        assert!(stats.merge_passes >= 3, "{stats:?}");
    }

    #[test]
    fn single_pass_merge_in_ranges() {
        let (got, want, stats) = sort_with(4 << 20, 300_000, 3, 7);
        assert_eq!(got, want);
        assert!(stats.runs >= 2 && stats.merge_passes == 0, "{stats:?}");
    }

    #[test]
    fn runs_written_on_their_own_thread_sort_alike() {
        for ranges in [1, 5] {
            let (got, want, stats) = sort_in(256 << 10, true, 120_000, 11, ranges);
            assert_eq!(got, want);
            assert!(stats.runs >= 10, "{stats:?}");
        }
    }

    #[test]
    fn empty_input() {
        let (got, _, stats) = sort_with(64 << 10, 0, 0, 2);
        assert!(got.is_empty());
        assert_eq!(stats.pairs, 0);
    }

    #[test]
    fn documents_out_of_order_are_refused() {
        let mut s = ExternalSorter::new(&std::env::temp_dir(), 64 << 10);
        s.push_document(5, &[gram(1, 0)]).unwrap();
        assert!(s.push_document(4, &[gram(1, 0)]).is_err());
    }
}
