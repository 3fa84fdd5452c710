//! The finished sort: runs merged, a range of trigram partitions at a
//! time, into pairs in `(trigram, doc)` order.
//!
//! [`SortedRuns::ranges`] cuts the partitions into ranges of about equal
//! bytes; [`SortedRuns::merge`] streams one range's pairs. Ranges are
//! independent, so a writer merges several on several threads and joins
//! their outputs in order.

use std::io;
use std::ops::Range;
use std::path::Path;
use std::time::Duration;

use super::run::{PARTITIONS, Run, RunList, RunLists};

/// Counters of one sort.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SortStats {
    /// Pairs pushed (duplicates included).
    pub pairs: u64,
    /// Runs spilled to disk by the fill phase.
    pub runs: u64,
    /// Intermediate merge passes (0 when the final merge reads the runs
    /// directly).
    pub merge_passes: u64,
    /// Bytes written to run files, intermediate passes included.
    pub spilled_bytes: u64,
    /// Time spent sorting full buffers (all threads).
    pub sorting: Duration,
    /// Time spent encoding and writing runs, intermediate passes included.
    pub spilling: Duration,
}

/// The runs of a finished sort (see the module docs).
pub(crate) struct SortedRuns {
    runs: Vec<Run>,
    stats: SortStats,
}

impl SortedRuns {
    /// The runs `runs` (covering increasing ranges of documents), sorted
    /// with `stats`.
    pub(super) fn new(runs: Vec<Run>, stats: SortStats) -> Self {
        SortedRuns { runs, stats }
    }

    /// Counters of the sort.
    pub fn stats(&self) -> SortStats {
        self.stats
    }

    /// Consecutive ranges of partitions, together all of them, each
    /// holding about `1 / n` of the runs' bytes and of `more` (bytes each
    /// partition holds elsewhere, when not empty), fewer ranges when they
    /// are small: a range holds at least `min_bytes`.
    pub fn ranges(&self, n: usize, min_bytes: u64, more: &[u64]) -> Vec<Range<usize>> {
        let bytes = |p: usize| -> u64 {
            let runs: u64 = self.runs.iter().map(|r| r.partitions(p..p + 1).len() as u64).sum();
            runs + more.get(p).copied().unwrap_or(0)
        };
        let total = self.runs.iter().map(Run::len).sum::<u64>() + more.iter().sum::<u64>();
        let target = (total / n.max(1) as u64).max(min_bytes).max(1);
        let (mut out, mut start, mut acc) = (Vec::new(), 0, 0);
        for p in 0..PARTITIONS {
            acc += bytes(p);
            if acc >= target {
                out.push(start..p + 1);
                (start, acc) = (p + 1, 0);
            }
        }
        if start < PARTITIONS || out.is_empty() {
            out.push(start..PARTITIONS);
        }
        out
    }

    /// Calls `f` with the lists of partitions `parts`, in `(trigram, doc)`
    /// order: each run's list of a trigram, its docs and their follow
    /// masks. A pair is given twice (ending one list and starting the
    /// next) only when a spill cut its document: its masks are then to be
    /// joined.
    pub fn merge(
        &self,
        parts: Range<usize>,
        mut f: impl FnMut(u32, &[(u32, u8)]) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut lists: Vec<(u32, usize, RunList<'_>)> = Vec::new();
        let mut pairs = Vec::new();
        for p in parts {
            lists.clear();
            for (r, run) in self.runs.iter().enumerate() {
                let mut it = RunLists::new(run.partitions(p..p + 1));
                while let Some(l) = it.next_list()? {
                    lists.push((l.trigram, r, l));
                }
            }
            // Per trigram, the runs' lists in run order: their documents.
            lists.sort_unstable_by_key(|&(t, r, _)| (t, r));
            for (t, _, l) in &lists {
                pairs.clear();
                l.decode_into(&mut pairs)?;
                f(*t, &pairs)?;
            }
        }
        Ok(())
    }
}

/// Merges `runs` (consecutive runs of one sort) into one run, a temporary
/// file in `dir`.
pub(super) fn merge_runs(runs: Vec<Run>, dir: &Path) -> io::Result<Run> {
    let group = SortedRuns::new(runs, SortStats::default());
    Run::in_file(dir, |enc| {
        group.merge(0..PARTITIONS, |t, pairs| enc.push_list(t, pairs.iter().copied()))
    })
}
