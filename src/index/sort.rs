//! External sort of `(trigram, doc)` pairs within a memory budget.
//!
//! [`ExternalSorter`] fills a buffer of `budget / 8` pairs (each packed in a
//! `u64` as `trigram << 40 | doc << 8 | follow`, the trigram's 24 bits, the
//! doc's 32 and the follow mask's 8), sorts it and spills it as a *run* to an
//! anonymous temporary file in the spill directory. [`ExternalSorter::finish`]
//! then k-way merges the runs with a binary heap, into [`SortedPairs`]:
//! sorted, each pair once (the follow masks of a repeated pair joined).
//! The merge's read buffers are carved out of
//! the same budget, so peak memory stays near the budget whatever the
//! number of runs: the fan-in is `budget / 64 KiB` (at least 2), and with
//! more runs than that, groups of runs are first merged into longer runs
//! (multi-pass merge).
//!
//! Runs are unnamed temporary files (`O_TMPFILE` where the OS has it): they
//! disappear when dropped, and with the process if it is killed.
//!
//! ```
//! # fn main() -> std::io::Result<()> {
//! use trigrep::index::sort::ExternalSorter;
//! let dir = std::env::temp_dir();
//! let mut s = ExternalSorter::new(&dir, 64 << 10);
//! for (t, d, f) in [(3, 1, 1), (1, 2, 0), (3, 1, 4), (1, 0, 2)] {
//!     s.push(t, d, f)?;
//! }
//! let mut out = s.finish()?;
//! let mut all = Vec::new();
//! while let Some(p) = out.next_pair()? {
//!     all.push(p);
//! }
//! assert_eq!(all, vec![(1, 0, 2), (1, 2, 0), (3, 1, 5)]);
//! # Ok(()) }
//! ```

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Smallest read buffer a merge gives one run; the fan-in is the budget
/// divided by this.
pub const MERGE_READ_BUF: usize = 64 << 10;

/// Fewest pairs a sort buffer holds, however small the budget.
const MIN_BUFFER_PAIRS: usize = 1024;

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
}

/// A sorted run on disk: `len` packed pairs.
#[derive(Debug)]
struct Run {
    file: File,
    len: u64,
}

/// Sorts `(trigram, doc)` pairs and their follow masks in bounded memory;
/// see the module docs.
#[derive(Debug)]
pub struct ExternalSorter {
    dir: PathBuf,
    budget: usize,
    buf: Vec<u64>,
    cap: usize,
    runs: Vec<Run>,
    stats: SortStats,
}

impl ExternalSorter {
    /// A sorter spilling into `dir` with a memory budget of `budget` bytes.
    pub fn new(dir: &Path, budget: usize) -> Self {
        let cap = (budget / 8).max(MIN_BUFFER_PAIRS);
        ExternalSorter {
            dir: dir.to_path_buf(),
            budget,
            buf: Vec::new(),
            cap,
            runs: Vec::new(),
            stats: SortStats::default(),
        }
    }

    /// Adds one pair (`trigram` below 2^24) and the trigram's follow mask
    /// in the document, spilling a run when the buffer is full.
    #[inline]
    pub fn push(&mut self, trigram: u32, doc: u32, follow: u8) -> io::Result<()> {
        debug_assert!(trigram < 1 << 24, "a trigram has 24 bits");
        if self.buf.len() == self.cap {
            self.spill()?;
        }
        if self.buf.capacity() == 0 {
            self.buf.reserve_exact(self.cap);
        }
        self.buf.push((u64::from(trigram) << 40) | (u64::from(doc) << 8) | u64::from(follow));
        self.stats.pairs += 1;
        Ok(())
    }

    /// Counters so far.
    pub fn stats(&self) -> SortStats {
        self.stats
    }

    fn spill(&mut self) -> io::Result<()> {
        self.buf.sort_unstable();
        self.buf.dedup();
        let run = write_run(&self.dir, self.buf.iter().map(|&k| Ok(k)), self.budget / 4)?;
        self.stats.runs += 1;
        self.stats.spilled_bytes += run.len * 8;
        self.runs.push(run);
        self.buf.clear();
        Ok(())
    }

    /// Sorts what is left and returns the merged, deduplicated pairs.
    pub fn finish(mut self) -> io::Result<SortedPairs> {
        if self.runs.is_empty() {
            self.buf.sort_unstable();
            self.buf.dedup();
            let stats = self.stats;
            return Ok(SortedPairs {
                source: Source::Memory(std::mem::take(&mut self.buf).into_iter()),
                next: None,
                stats,
            });
        }
        if !self.buf.is_empty() {
            self.spill()?;
        }
        self.buf = Vec::new();
        let fan_in = (self.budget / MERGE_READ_BUF).max(2);
        let mut runs = std::mem::take(&mut self.runs);
        while runs.len() > fan_in {
            self.stats.merge_passes += 1;
            let buf_size = read_buf_size(self.budget, fan_in);
            let mut next = Vec::with_capacity(runs.len().div_ceil(fan_in));
            let mut rest = runs.into_iter();
            loop {
                let group: Vec<Run> = rest.by_ref().take(fan_in).collect();
                if group.is_empty() {
                    break;
                }
                let mut m = Merger::new(group, buf_size)?;
                let run =
                    write_run(&self.dir, std::iter::from_fn(|| m.next().transpose()), buf_size)?;
                self.stats.spilled_bytes += run.len * 8;
                next.push(run);
            }
            runs = next;
        }
        let buf_size = read_buf_size(self.budget, runs.len());
        let stats = self.stats;
        Ok(SortedPairs { source: Source::Merge(Merger::new(runs, buf_size)?), next: None, stats })
    }
}

/// Per-run read buffer when merging `k` runs (one share is kept for the
/// writer of an intermediate run).
fn read_buf_size(budget: usize, k: usize) -> usize {
    (budget / (k + 1)).clamp(8 << 10, 8 << 20)
}

fn write_run(
    dir: &Path,
    keys: impl Iterator<Item = io::Result<u64>>,
    buf_size: usize,
) -> io::Result<Run> {
    let file = tempfile::tempfile_in(dir)?;
    let mut w = BufWriter::with_capacity(buf_size.clamp(8 << 10, 8 << 20), file);
    let mut len = 0u64;
    for k in keys {
        w.write_all(&k?.to_le_bytes())?;
        len += 1;
    }
    let mut file = w.into_inner().map_err(|e| e.into_error())?;
    file.seek(SeekFrom::Start(0))?;
    Ok(Run { file, len })
}

/// Merges sorted runs with a binary heap; yields keys in order, duplicates
/// across runs included.
#[derive(Debug)]
struct Merger {
    readers: Vec<(BufReader<File>, u64)>,
    heap: BinaryHeap<Reverse<(u64, usize)>>,
}

impl Merger {
    fn new(runs: Vec<Run>, buf_size: usize) -> io::Result<Self> {
        let mut m = Merger {
            readers: runs
                .into_iter()
                .map(|r| (BufReader::with_capacity(buf_size, r.file), r.len))
                .collect(),
            heap: BinaryHeap::new(),
        };
        for i in 0..m.readers.len() {
            m.refill(i)?;
        }
        Ok(m)
    }

    fn refill(&mut self, i: usize) -> io::Result<()> {
        let (r, left) = &mut self.readers[i];
        if *left > 0 {
            let mut b = [0u8; 8];
            r.read_exact(&mut b)?;
            *left -= 1;
            self.heap.push(Reverse((u64::from_le_bytes(b), i)));
        }
        Ok(())
    }

    fn next(&mut self) -> io::Result<Option<u64>> {
        let Some(Reverse((k, i))) = self.heap.pop() else { return Ok(None) };
        self.refill(i)?;
        Ok(Some(k))
    }
}

#[derive(Debug)]
enum Source {
    Memory(std::vec::IntoIter<u64>),
    Merge(Merger),
}

/// The output of [`ExternalSorter::finish`]: `(trigram, doc, follow)` in
/// increasing order of `(trigram, doc)`, each pair once.
#[derive(Debug)]
pub struct SortedPairs {
    source: Source,
    /// The key read ahead: the next pair, its masks not all joined yet.
    next: Option<u64>,
    stats: SortStats,
}

impl SortedPairs {
    /// The next pair and its follow mask, or `None` at the end.
    #[inline]
    pub fn next_pair(&mut self) -> io::Result<Option<(u32, u32, u8)>> {
        let Some(mut k) = self.next.take().map_or_else(|| self.read(), |k| Ok(Some(k)))? else {
            return Ok(None);
        };
        // Keys of one pair are adjacent (sorted); their masks join.
        while let Some(n) = self.read()? {
            if n >> 8 != k >> 8 {
                self.next = Some(n);
                break;
            }
            k |= n;
        }
        Ok(Some(((k >> 40) as u32, (k >> 8) as u32, k as u8)))
    }

    fn read(&mut self) -> io::Result<Option<u64>> {
        match &mut self.source {
            Source::Memory(it) => Ok(it.next()),
            Source::Merge(m) => m.next(),
        }
    }

    /// Counters of the sort that produced these pairs.
    pub fn stats(&self) -> SortStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *seed >> 33
    }

    type Pairs = Vec<(u32, u32, u8)>;

    fn sort_with(budget: usize, n: usize, seed: u64) -> (Pairs, Pairs, SortStats) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = ExternalSorter::new(dir.path(), budget);
        let mut reference = std::collections::BTreeMap::new();
        let mut seed = seed;
        for _ in 0..n {
            let p = ((lcg(&mut seed) % 5000) as u32, (lcg(&mut seed) % 3000) as u32);
            let follow = 1 << (lcg(&mut seed) % 4);
            s.push(p.0, p.1, follow).unwrap();
            *reference.entry(p).or_insert(0) |= follow;
        }
        let reference: Pairs = reference.into_iter().map(|((t, d), f)| (t, d, f)).collect();
        let mut out = s.finish().unwrap();
        let mut got = Vec::new();
        while let Some(p) = out.next_pair().unwrap() {
            got.push(p);
        }
        let stats = out.stats();
        drop(out);
        // Runs are unnamed files: nothing is left in the directory.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        (got, reference, stats)
    }

    #[test]
    fn in_memory_when_it_fits() {
        let (got, want, stats) = sort_with(1 << 20, 10_000, 1);
        assert_eq!(got, want);
        assert_eq!(stats.runs, 0);
    }

    #[test]
    fn tiny_budget_forces_multi_pass_merge() {
        // 64 KiB: 8192 pairs per run, fan-in 2 → many runs, several passes.
        let (got, want, stats) = sort_with(64 << 10, 200_000, 7);
        assert_eq!(got, want);
        assert!(stats.runs >= 20, "{stats:?}");
        assert!(stats.merge_passes >= 3, "{stats:?}");
    }

    #[test]
    fn single_pass_merge() {
        let (got, want, stats) = sort_with(1 << 20, 300_000, 3);
        assert_eq!(got, want);
        assert!(stats.runs >= 2 && stats.merge_passes == 0, "{stats:?}");
    }

    #[test]
    fn empty_input() {
        let (got, _, stats) = sort_with(64 << 10, 0, 0);
        assert!(got.is_empty());
        assert_eq!(stats.pairs, 0);
    }
}
