//! One huge file on every core: cut at line ends, searched in parallel,
//! printed in file order.
//!
//! [`ChunkEngine::search`] cuts a file into chunks of about `chunk_size`
//! bytes that end at a `\n`, searches them on `-j` threads with clones of
//! one [`SearchWorker`] (each writing into its own buffer), and a
//! `Combiner` writes the buffers to stdout in file order. Every chunk is
//! searched as a *slice* that starts at its true line number and byte offset
//! (the vendored grep-searcher's `set_start_position`), so grep-printer
//! prints exactly what it prints for a search of the whole mapped file —
//! ripgrep's memory-map semantics, including its binary rule (NUL looked for
//! in the first 64 KiB of the file, then only in matched lines).
//!
//! What cannot be split is refused up front ([`fallback_reason`]): context
//! lines, `-m`, `-U`, `--passthru`, forced encodings and BOMs, `--null-data`,
//! per-file headings and separators between files, and binary detection
//! that converts NUL bytes where ripgrep itself would *read* the file (its
//! read path checks every buffer). Such files are searched whole on one
//! thread, and `--stats` says why.
//!
//! A walked file (ripgrep *quits* at its first NUL, after printing the
//! matches of the read buffers before it) is searched in chunks that also
//! look for NUL bytes. Without one, the output is ripgrep's. With one, the
//! file is searched again whole, the way ripgrep reads it, and the bytes
//! already written are skipped: they are a prefix of that output, because
//! a chunk is written only once enough NUL-free bytes follow it that
//! ripgrep's read buffer holding the NUL cannot reach back into it
//! ([`Hold`]). The prefetcher looks for the NUL too, and no chunk past it
//! is read ([`Prefetcher::stopping_at_nul`]): the file is read about as
//! far as ripgrep reads it.
//!
//! Chunk bytes come from a memory map or from `pread` into large buffers
//! ([`Strategy`]); the choice changes speed, never output. Either way a
//! [`Prefetcher`] thread reads the file into the page cache in file order
//! ahead of the workers, and a worker starts a chunk only once the
//! prefetcher has passed its end ([`prefetch`]), so the kernel
//! sees one sequential reader.
//!
//! The parts: [`fallback`] (what is refused), [`cut`] (chunk boundaries and
//! bytes), `shared` (how workers and the printing thread keep in step),
//! `combine` (chunk outputs in file order as one file's output),
//! [`nulguard`] (the quit-at-NUL rule), [`prefetch`], [`window`] and
//! [`strategy`] (how bytes are read).

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use termcolor::{Buffer, WriteColor};

use crate::error::Result;
use crate::options::{IoChoice, OutputMode, SearchOptions};
use crate::stats::RunStats;
use crate::worker::{Haystack, Printer, SearchResult, SearchWorker};
use combine::{ChunkOut, Combiner};
use cut::Chunks;
pub use cut::{Piece, PieceSource};
use nulguard::{Counted, Hold, Replay, Shape, Step};
use prefetch::{Front, Prefetcher};
use shared::Shared;
use strategy::{
    Strategy, advise_map_sequential, advise_sequential, advise_willneed, io_choice, mem_available,
};
use window::ReadBuf;

mod combine;
pub mod cut;
pub mod fallback;
pub mod nulguard;
pub mod prefetch;
mod shared;
pub mod strategy;
pub mod window;

pub use fallback::{HEAD_LEN, fallback_reason};

/// How far ahead of the chunks being searched the prefetcher keeps the file
/// in the page cache (at least a chunk per thread more).
const PREFETCH_WINDOW: u64 = 128 << 20;

/// The prefetcher's unit of read-ahead.
const PREFETCH_STEP: u64 = 8 << 20;

/// Searches huge files in chunks; built once per run.
pub struct ChunkEngine<'o> {
    opts: &'o SearchOptions,
    mode: OutputMode,
    template: SearchWorker<Buffer>,
    color: bool,
    threads: usize,
    /// `MemAvailable`, read once, for `--io auto`.
    mem_available: OnceCell<Option<u64>>,
    /// The patterns are better searched through read buffers.
    buffer_regex: bool,
}

/// A text made piece by piece (a packed file's), searched in chunks.
#[derive(Clone, Copy)]
pub struct DecodedText<'a> {
    /// The path as printed.
    pub path: &'a Path,
    /// Named on the command line.
    pub explicit: bool,
    /// The text's length in bytes.
    pub size: u64,
}

/// One huge file to search in chunks.
pub struct HugeFile<'a> {
    /// The path as printed.
    pub path: &'a Path,
    /// Named on the command line (binary files are then searched whole).
    pub explicit: bool,
    /// The open file.
    pub file: &'a File,
    /// Its size in bytes.
    pub size: u64,
}

impl<'o> ChunkEngine<'o> {
    /// Builds the engine: one worker that every thread clones.
    pub fn new(opts: &'o SearchOptions, mode: OutputMode) -> Result<ChunkEngine<'o>> {
        let proto = termcolor::BufferWriter::stdout(opts.print.color).buffer();
        let color = proto.supports_color();
        let printer = Printer::new(opts, mode, proto, false);
        Ok(ChunkEngine {
            opts,
            mode,
            template: SearchWorker::new(opts, printer)?,
            color,
            threads: opts.run.chunk_threads.max(1),
            mem_available: OnceCell::new(),
            buffer_regex: opts.matcher.repeats_large_classes(),
        })
    }

    /// The read strategy for a file of `size` bytes (`--io`).
    fn strategy(&self, size: u64) -> Strategy {
        match self.opts.run.io {
            IoChoice::Mmap => Strategy::Mmap,
            IoChoice::Read => Strategy::Read,
            IoChoice::Auto => io_choice(size, *self.mem_available.get_or_init(mem_available)),
        }
    }

    /// Searches `huge` in chunks, writing results to `out` in file order;
    /// with `pieces`, only those ranges (in file order) are searched.
    pub fn search(
        &self,
        huge: &HugeFile<'_>,
        pieces: Option<&[Piece]>,
        out: &mut dyn Write,
        stats: &mut RunStats,
    ) -> io::Result<SearchResult> {
        let started = Instant::now();
        let HugeFile { file, size, .. } = *huge;
        let strategy = self.strategy(size);
        // SAFETY: like ripgrep, we accept that a file truncated while
        // mapped may raise SIGBUS; the map is read-only. With `--io read` the
        // map is only handed to `mincore` by the prefetcher, never read.
        // A file that cannot be mapped is read, as ripgrep does.
        let map = unsafe { memmap2::Mmap::map(file) }.ok();
        let strategy = if map.is_some() { strategy } else { Strategy::Read };
        stats.file("chunked", strategy.name());
        match (strategy, &map) {
            (Strategy::Mmap, Some(map)) => advise_map_sequential(map),
            _ => advise_sequential(file),
        }
        let s = self.opts.run.chunk_size(size);
        let searched_map = if strategy == Strategy::Mmap { map.as_deref() } else { None };
        let source = Chunks {
            file: Some(file),
            map: searched_map,
            size,
            chunk_size: s,
            pieces,
            decoded: None,
        };
        let window = PREFETCH_WINDOW.max(s * (self.threads as u64 + 2));
        let quit = self.opts.binary_detection(huge.explicit).quit_byte().is_some();
        // A whole file streams through the prefetcher. Pieces are a few
        // ranges here and there: no prefetcher (its front is finished, so
        // workers never wait for it), and the kernel is asked for every range
        // up front, so that cold reads overlap instead of one fault (and its
        // small read-ahead) at a time.
        let front = Front::default();
        let prefetcher = match pieces {
            None => {
                let p = Prefetcher::new(file, map.as_deref(), size, window, PREFETCH_STEP);
                Some(if quit { p.stopping_at_nul() } else { p })
            }
            Some(pieces) => {
                front.finish();
                pieces.iter().for_each(|p| advise_willneed(file, p.offset, p.len));
                None
            }
        };
        let who = (huge.path, huge.explicit, Some(huge.file));
        self.drive(who, &source, prefetcher.as_ref(), &front, out, stats, started)
    }

    /// Searches the pieces `decoded` makes (the text of the packed file
    /// `huge`, pieces of about `piece_size` bytes), writing results to `out`
    /// in text order. The caller sees to it that a walked file's text holds
    /// no NUL (it could not be searched again whole).
    pub fn search_decoded(
        &self,
        text: &DecodedText<'_>,
        decoded: &dyn PieceSource,
        piece_size: u64,
        out: &mut dyn Write,
        stats: &mut RunStats,
    ) -> io::Result<SearchResult> {
        let started = Instant::now();
        stats.file("chunked", "decompressed");
        let DecodedText { path, explicit, size } = *text;
        let chunk_size = piece_size.max(1);
        let source = Chunks {
            file: None,
            map: None,
            size,
            chunk_size,
            pieces: None,
            decoded: Some(decoded),
        };
        let front = Front::default();
        front.finish();
        self.drive((path, explicit, None), &source, None, &front, out, stats, started)
    }

    /// Searches the chunks of `source` on every thread and prints them in
    /// order (see [`ChunkEngine::search`]).
    #[allow(clippy::too_many_arguments)]
    fn drive(
        &self,
        (path, explicit, file): (&Path, bool, Option<&File>),
        source: &Chunks<'_>,
        prefetcher: Option<&Prefetcher<'_>>,
        front: &Front,
        out: &mut dyn Write,
        stats: &mut RunStats,
        started: Instant,
    ) -> io::Result<SearchResult> {
        let (s, n) = (source.chunk_size, source.count());
        let quit = self.opts.binary_detection(explicit).quit_byte().is_some();
        // A text made piece by piece holds no NUL (see `search_decoded`):
        // no chunk needs holding back.
        let mut hold = (quit && source.decoded.is_none()).then(Hold::default);
        // Small pieces are handed out in groups (one claim, one message):
        // a hand-off per 64 KiB block costs more than searching it. Holding
        // back decides chunk by chunk, so it keeps groups of one.
        let groups = source.groups(hold.is_none());
        let widest = groups.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(1).max(1);
        let shared = Shared::new(n, self.opts.read.line_number, (2 * self.threads + 2) * widest);
        let buffer_regex = self.buffer_regex;
        if let Some(h) = &hold {
            shared.set_window(h.window(s, self.threads));
        }
        let claim = AtomicUsize::new(0);
        let mut combiner = Combiner::new(self.mode, self.opts.print.stats);
        let mut out = Counted { inner: out, written: 0 };
        let mut error = None;
        let mut replay = false;
        let prefetched = std::thread::scope(|scope| {
            let prefetch = prefetcher.map(|p| scope.spawn(|| p.run(front)));
            let (tx, rx) = mpsc::channel::<Vec<(usize, ChunkOut)>>();
            for _ in 0..self.threads {
                let tx = tx.clone();
                let (shared, claim, groups) = (&shared, &claim, &groups);
                let mut worker = self.template.clone();
                let color = self.color;
                scope.spawn(move || {
                    let mut buf = ReadBuf::default();
                    loop {
                        let g = claim.fetch_add(1, Ordering::Relaxed);
                        if g + 1 >= groups.len() || !shared.wait_window(groups[g]) {
                            break;
                        }
                        let mut batch = Vec::with_capacity(groups[g + 1] - groups[g]);
                        for i in groups[g]..groups[g + 1] {
                            front.advance(i as u64 * s);
                            if !front.wait_loaded(source.end_bound(i)) {
                                // Past the first NUL: replayed, never read.
                                shared.publish(i, 0);
                                batch.push((i, ChunkOut::past_nul()));
                                continue;
                            }
                            let job = Job {
                                source,
                                shared,
                                i,
                                path,
                                explicit,
                                color,
                                quit,
                                buffer_regex,
                            };
                            let Some(out) = search_chunk(&mut worker, &mut buf, job) else {
                                return;
                            };
                            batch.push((i, out));
                        }
                        if tx.send(batch).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut pending = BTreeMap::new();
            let mut next = 0;
            let mut going = true;
            for (i, chunk) in rx.into_iter().flatten() {
                stats.bytes_read += chunk.bytes_read;
                if !going {
                    continue;
                }
                pending.insert(i, chunk);
                while pending.contains_key(&next) {
                    if let Some(h) = hold.as_mut() {
                        match h.decide(next, n, |i| pending.get(&i).map(|c: &ChunkOut| c.shape)) {
                            Step::Write => {}
                            Step::Wait => {
                                shared.set_window(h.window(s, self.threads));
                                break;
                            }
                            Step::Replay => {
                                replay = true;
                                going = false;
                                shared.cancel();
                                break;
                            }
                        }
                    }
                    let Some(chunk) = pending.remove(&next) else { break };
                    next += 1;
                    stats.chunks += 1;
                    match combiner.take(chunk, &mut out) {
                        Ok(true) => shared.emitted(next),
                        Ok(false) => {
                            going = false;
                            shared.cancel();
                            break;
                        }
                        Err(e) => {
                            error = Some(e);
                            going = false;
                            shared.cancel();
                            break;
                        }
                    }
                }
                if !going {
                    front.finish();
                }
            }
            front.finish();
            prefetch.map(|p| p.join().unwrap_or_default()).unwrap_or_default()
        });
        stats.prefetch_loaded += prefetched.loaded;
        stats.prefetch_resident += prefetched.resident;
        if let Some(e) = error {
            return Err(e);
        }
        // A text made piece by piece is never held back, so never replayed.
        if let (true, Some(file)) = (replay, file) {
            *stats.fallbacks.entry("a NUL byte: searched again whole").or_default() += 1;
            let (opts, mode, color) = (self.opts, self.mode, self.color);
            let replay = Replay { opts, mode, color, path, explicit, file };
            return replay.search(out.inner, out.written, stats);
        }
        combiner.finish(&mut out, started.elapsed())
    }
}

/// Loads, numbers and searches one chunk; `None` when the search was cancelled.
fn search_chunk(
    worker: &mut SearchWorker<Buffer>,
    buf: &mut ReadBuf,
    job: Job<'_>,
) -> Option<ChunkOut> {
    let Job { source, shared, i, path, explicit, color, quit, buffer_regex } = job;
    let (range, start, bytes_read) = match source.load(i, buf) {
        Ok(loaded) => loaded,
        Err(e) => {
            shared.publish(i, 0);
            return Some(ChunkOut {
                bytes: Vec::new(),
                result: Err(e),
                bytes_read: 0,
                shape: None,
            });
        }
    };
    let data: &[u8] = match source.map {
        _ if source.decoded.is_some() => &buf.text[range],
        Some(map) => &map[range],
        None => &buf.bytes()[range],
    };
    let shape = quit.then(|| Shape::of(data));
    let line = if let Some(line) = source.first_line(i) {
        line
    } else if shared.lines {
        shared.publish(i, memchr::memchr_iter(b'\n', data).count() as u64);
        1 + shared.wait_prefix(i)?
    } else {
        1
    };
    worker.set_start_position(line, start);
    // Regexes with large Unicode classes run far faster over small
    // haystacks than over a whole chunk (`options::classes`): search them
    // through the searcher's 64 KiB read buffer, as ripgrep reads a walked
    // file. The output is the slice's (ripgrep's map semantics) unless the
    // chunk holds a NUL, whose binary handling differs between the two
    // paths: such a chunk is searched as a slice, unless it is a walked
    // file's (rg reads those; see `nulguard`).
    let buffered = quit
        || (buffer_regex
            && !shape.map_or_else(|| memchr::memchr(0, data).is_some(), |s| s.has_nul()));
    let result = if buffered {
        worker.search(path, explicit, false, Haystack::Reader(&mut &data[..]))
    } else {
        worker.search(path, explicit, true, Haystack::Slice(data))
    };
    let fresh = if color { Buffer::ansi() } else { Buffer::no_color() };
    let bytes = std::mem::replace(worker.printer().get_mut(), fresh).into_inner();
    Some(ChunkOut { bytes, result, bytes_read, shape })
}

/// What a worker needs to search chunk `i`.
struct Job<'a> {
    source: &'a Chunks<'a>,
    shared: &'a Shared,
    i: usize,
    path: &'a Path,
    explicit: bool,
    color: bool,
    /// Binary detection quits at a NUL: the chunk's [`Shape`] is needed.
    quit: bool,
    /// Search through read buffers (see [`crate::options::classes`]).
    buffer_regex: bool,
}
