//! trigrep's own statistics of a run, as values (the command line prints
//! them for `--stats`).
//!
//! ripgrep's statistics block (matches, lines, bytes printed...) is search
//! output, printed by the drivers. [`RunStats`] adds what rg does not
//! report: time per phase, bytes read, files and chunks searched, the read
//! strategy chosen per file kind, page faults and memory. Parallel workers
//! each fill their own [`RunStats`] and [`RunStats::merge`] them.
//! [`MemorySampler`] samples private memory (RssAnon) on a light thread
//! while the run goes on.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Counters of one run (or one worker's share of it).
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    /// Wall time from the start of the run until the first file search began
    /// (flag resolution, matcher build, walker setup).
    pub setup: Duration,
    /// Wall time spent searching and printing (from the first file search to
    /// the last one's end).
    pub search: Duration,
    /// Bytes of file contents read: the size of every file searched whole
    /// through a map, what a search that reads a file read before it ended
    /// (a walked file's search quits at its first NUL, as ripgrep's does),
    /// the bytes of every chunk searched (chunks overlap by at most a line,
    /// so this may slightly exceed the file size), and what was read looking
    /// for a walked huge file's first NUL. Stdin is not counted.
    pub bytes_read: u64,
    /// Requests sent to object stores (remote paths; a retried request
    /// counts once).
    pub fetch_requests: u64,
    /// Bytes of object bodies received from object stores.
    pub fetched_bytes: u64,
    /// Files searched whole, on one thread.
    pub files_sequential: u64,
    /// Files searched as chunks on several threads.
    pub files_chunked: u64,
    /// Chunks searched (over all chunked files), including chunks searched
    /// but discarded after an earlier chunk stopped the file's search.
    pub chunks: u64,
    /// Bytes of chunked files the prefetcher read into the page cache ahead
    /// of the workers (`src/chunk/prefetch.rs`).
    pub prefetch_loaded: u64,
    /// Bytes of chunked files the prefetcher skipped as already cached.
    pub prefetch_resident: u64,
    /// Files at or above the chunk threshold searched on one thread, by reason.
    pub fallbacks: BTreeMap<&'static str, u64>,
    /// Files by kind ("chunked"/"sequential") and read strategy ("mmap"/"read").
    pub strategies: BTreeMap<(&'static str, &'static str), u64>,
    /// Huge files answered through a block index.
    pub block_indexes: u64,
    /// Blocks in those indexes.
    pub blocks_total: u64,
    /// Candidate blocks searched.
    pub blocks_searched: u64,
    /// Huge files (and big `.gz` files) read without an index because a
    /// build of their index was under way (`tg index`, or one started in
    /// the background by an earlier search): the search never waits for it.
    pub being_indexed: u64,
    /// Indexed bytes of grown files read to verify them unchanged (the
    /// trust rule, [`crate::index::trust`]).
    pub verified_bytes: u64,
    /// The time those verifications took.
    pub verify_time: Duration,
    /// Minor page faults of the whole process (getrusage, self), over the run.
    pub minor_faults: u64,
    /// Major page faults (faults that waited for the disk) of the process, over the run.
    pub major_faults: u64,
    /// The largest private resident memory ([`crate::sys::private_bytes`])
    /// seen by the sampler, which looks every 10 ms; bytes.
    pub peak_private: u64,
    /// The peak resident set size ([`crate::sys::peak_resident`], which
    /// counts mapped file pages as well as private memory) at the end; bytes.
    pub peak_resident: u64,
}

impl RunStats {
    /// Adds `other`'s counters to these (times and peaks: the larger one).
    pub fn merge(&mut self, other: &RunStats) {
        self.setup = self.setup.max(other.setup);
        self.search = self.search.max(other.search);
        self.bytes_read += other.bytes_read;
        self.fetch_requests += other.fetch_requests;
        self.fetched_bytes += other.fetched_bytes;
        self.files_sequential += other.files_sequential;
        self.files_chunked += other.files_chunked;
        self.chunks += other.chunks;
        self.prefetch_loaded += other.prefetch_loaded;
        self.prefetch_resident += other.prefetch_resident;
        for (k, v) in &other.fallbacks {
            *self.fallbacks.entry(k).or_default() += v;
        }
        for (k, v) in &other.strategies {
            *self.strategies.entry(*k).or_default() += v;
        }
        self.block_indexes += other.block_indexes;
        self.blocks_total += other.blocks_total;
        self.blocks_searched += other.blocks_searched;
        self.being_indexed += other.being_indexed;
        self.verified_bytes += other.verified_bytes;
        self.verify_time += other.verify_time;
        self.minor_faults += other.minor_faults;
        self.major_faults += other.major_faults;
        self.peak_private = self.peak_private.max(other.peak_private);
        self.peak_resident = self.peak_resident.max(other.peak_resident);
    }

    /// Records one file searched of `kind` with `strategy`.
    pub fn file(&mut self, kind: &'static str, strategy: &'static str) {
        *self.strategies.entry((kind, strategy)).or_default() += 1;
        if kind == "chunked" {
            self.files_chunked += 1;
        } else {
            self.files_sequential += 1;
        }
    }
}

/// Samples RssAnon every 10 ms on its own thread and keeps the maximum.
pub struct MemorySampler {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    handle: Option<JoinHandle<()>>,
}

impl MemorySampler {
    /// Starts sampling.
    pub fn start() -> MemorySampler {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicU64::new(crate::sys::private_bytes()));
        let (s, p) = (stop.clone(), peak.clone());
        let handle = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                p.fetch_max(crate::sys::private_bytes(), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        MemorySampler { stop, peak, handle: Some(handle) }
    }

    /// Stops sampling and returns the peak RssAnon in bytes (one last sample included).
    pub fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        self.peak.fetch_max(crate::sys::private_bytes(), Ordering::Relaxed);
        self.peak.load(Ordering::Relaxed)
    }
}

/// The process-wide clock and counters captured when the run starts.
pub struct RunClock {
    /// When the run started.
    pub started: Instant,
    faults: (u64, u64),
    sampler: Option<MemorySampler>,
}

impl RunClock {
    /// Starts the clock; samples memory only when `stats` is asked for.
    pub fn start(stats: bool) -> RunClock {
        RunClock {
            started: Instant::now(),
            faults: crate::sys::faults(),
            sampler: stats.then(MemorySampler::start),
        }
    }

    /// Fills the process-wide counters of `stats` (faults, memory).
    pub fn finish(self, stats: &mut RunStats) {
        let (minor, major) = crate::sys::faults();
        stats.minor_faults = minor.saturating_sub(self.faults.0);
        stats.major_faults = major.saturating_sub(self.faults.1);
        if let Some(s) = self.sampler {
            stats.peak_private = s.finish();
        }
        stats.peak_resident = crate::sys::peak_resident();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_counts_and_keeps_peaks() {
        let mut a = RunStats { bytes_read: 10, chunks: 2, peak_private: 5, ..Default::default() };
        a.file("chunked", "mmap");
        let mut b = RunStats { bytes_read: 7, chunks: 1, peak_private: 9, ..Default::default() };
        b.file("chunked", "mmap");
        b.file("sequential", "read");
        *b.fallbacks.entry("context").or_default() += 1;
        a.merge(&b);
        assert_eq!((a.bytes_read, a.chunks, a.peak_private), (17, 3, 9));
        assert_eq!((a.files_chunked, a.files_sequential), (2, 1));
        assert_eq!(a.strategies[&("chunked", "mmap")], 2);
        assert_eq!(a.fallbacks["context"], 1);
    }
}
