//! One huge file on every core: cut at line ends, searched in parallel,
//! printed in file order.
//!
//! [`ChunkEngine::search`] cuts a file into chunks of about `chunk_size`
//! bytes that end at a `\n`, searches them on `-j` threads with clones of
//! one [`SearchWorker`] (each writing into its own buffer), and a
//! [`Combiner`] writes the buffers to stdout in file order. Every chunk is
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
//! ([`Hold`]).
//!
//! Chunk bytes come from a memory map or from `pread` into large buffers
//! ([`Strategy`]); the choice changes speed, never output. Either way a
//! [`Prefetcher`] thread reads the file into the page cache in file order
//! ahead of the workers, and a worker starts a chunk only once the
//! prefetcher has passed its end (`src/cli/prefetch.rs`), so the kernel
//! sees one sequential reader.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use termcolor::{Buffer, WriteColor};

use super::config::{Config, Mode, SearchMode};
use super::io::{Strategy, advise_map_sequential, advise_sequential};
use super::nulguard::{Counted, Hold, Shape, Skip, Step};
use super::prefetch::{Front, Prefetcher};
use super::stats::RunStats;
use super::window::{PAGE, ReadBuf, Window};
use super::worker::{Haystack, Printer, SearchResult, SearchWorker};
use combine::Combiner;
use shared::Shared;

mod combine;
mod shared;

/// Extra bytes read past a chunk's nominal end to find its last line end.
const SLACK: u64 = 64 << 10;

/// How far ahead of the chunks being searched the prefetcher keeps the file
/// in the page cache (at least a chunk per thread more).
const PREFETCH_WINDOW: u64 = 128 << 20;

/// The prefetcher's unit of read-ahead.
const PREFETCH_STEP: u64 = 8 << 20;

/// How many leading bytes of a file [`fallback_reason`] wants to see: the
/// span ripgrep's memory-map path checks for binary data up front.
pub const HEAD_LEN: usize = 64 << 10;

/// Why a file cannot be searched in chunks with these flags, if it cannot.
///
/// `explicit` says the file was named on the command line; `head` holds the
/// file's first [`HEAD_LEN`] bytes (BOM sniffing, up-front binary check).
pub fn fallback_reason(config: &Config, explicit: bool, head: &[u8]) -> Option<&'static str> {
    use grep_searcher::BinaryDetection;
    let c = config;
    let binary = c.binary_detection(explicit);
    if c.multiline {
        Some("multiline")
    } else if c.context() != (0, 0) {
        Some("context")
    } else if c.passthru() {
        Some("passthru")
    } else if c.max_count.is_some() {
        Some("max-count")
    } else if c.null_data() {
        Some("null-data")
    } else if c.encoding.as_deref().is_some_and(|e| e != "none") {
        Some("encoding")
    } else if c.encoding.is_none() && has_bom(head) {
        Some("BOM")
    } else if c.prints_heading() || (c.file_separator().is_some() && !c.is_one_file) {
        Some("heading or file separators")
    } else if binary == BinaryDetection::none() {
        None
    } else if binary.quit_byte().is_some() {
        // Quit on rg's read path is searched in chunks that look for NUL
        // (see the module docs); on a map, rg looks for it in matched lines.
        // `--files-without-match` reads on past a match, so its answer
        // depends on a NUL anywhere in the file: not worth chunks.
        if c.rg_mmap() {
            Some("binary detection: quit on a memory map")
        } else if matches!(c.mode, Mode::Search(SearchMode::FilesWithoutMatch)) {
            Some("binary detection: quit with --files-without-match")
        } else {
            None
        }
    } else if !c.rg_mmap() {
        // rg's read path checks every buffer; chunks reproduce its map path.
        Some("binary detection of rg's read path")
    } else if memchr::memchr(0, head).is_some() {
        Some("binary data in the first 64 KiB")
    } else {
        None
    }
}

/// Whether `head` starts with a byte-order mark grep-searcher would sniff.
fn has_bom(head: &[u8]) -> bool {
    head.starts_with(b"\xEF\xBB\xBF")
        || head.starts_with(b"\xFF\xFE")
        || head.starts_with(b"\xFE\xFF")
}

/// Searches huge files in chunks; built once per run.
pub struct ChunkEngine<'c> {
    config: &'c Config,
    mode: SearchMode,
    template: SearchWorker<Buffer>,
    color: bool,
    threads: usize,
}

/// One chunk's outcome, as sent from a worker to the printing thread.
pub(super) struct ChunkOut {
    bytes: Vec<u8>,
    result: io::Result<SearchResult>,
    bytes_read: u64,
    /// Quit mode: what the chunk holds (see [`Hold`]).
    pub(super) shape: Option<Shape>,
}

impl<'c> ChunkEngine<'c> {
    /// Builds the engine: one worker that every thread clones.
    pub fn new(config: &'c Config, mode: SearchMode) -> anyhow::Result<ChunkEngine<'c>> {
        let proto = termcolor::BufferWriter::stdout(config.color()).buffer();
        let color = proto.supports_color();
        let printer = Printer::new(config, mode, proto, false);
        Ok(ChunkEngine {
            config,
            mode,
            template: SearchWorker::new(config, config.matcher()?, printer)?,
            color,
            threads: config.chunk_threads().max(1),
        })
    }

    /// Searches `file` (`size` bytes, printed as `path`) in chunks with
    /// `strategy`, writing results to `out` in file order.
    #[allow(clippy::too_many_arguments)]
    pub fn search(
        &self,
        path: &Path,
        explicit: bool,
        file: &File,
        size: u64,
        strategy: Strategy,
        out: &mut dyn Write,
        stats: &mut RunStats,
    ) -> io::Result<SearchResult> {
        let started = Instant::now();
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
        let s = self.config.chunk_size(size);
        let n = size.div_ceil(s).max(1) as usize;
        let searched_map = if strategy == Strategy::Mmap { map.as_deref() } else { None };
        let source = Source { file, map: searched_map, size, chunk_size: s };
        let window = PREFETCH_WINDOW.max(s * (self.threads as u64 + 2));
        let prefetcher = Prefetcher::new(file, map.as_deref(), size, window, PREFETCH_STEP);
        let front = Front::default();
        let shared = Shared::new(n, self.config.line_number(), 2 * self.threads + 2);
        let quit = self.config.binary_detection(explicit).quit_byte().is_some();
        let mut hold = quit.then(Hold::default);
        if let Some(h) = &hold {
            shared.set_window(h.window(s, self.threads));
        }
        let claim = AtomicUsize::new(0);
        let mut combiner = Combiner::new(self.mode);
        let mut out = Counted { inner: out, written: 0 };
        let mut error = None;
        let mut replay = false;
        let prefetched = std::thread::scope(|scope| {
            let prefetch = scope.spawn(|| prefetcher.run(&front));
            let (tx, rx) = mpsc::channel::<(usize, ChunkOut)>();
            for _ in 0..self.threads {
                let tx = tx.clone();
                let (source, shared, claim, front) = (&source, &shared, &claim, &front);
                let mut worker = self.template.clone();
                let color = self.color;
                scope.spawn(move || {
                    let mut buf = ReadBuf::default();
                    loop {
                        let i = claim.fetch_add(1, Ordering::Relaxed);
                        if i >= n || !shared.wait_window(i) {
                            break;
                        }
                        front.advance(i as u64 * s);
                        front.wait_loaded(((i as u64 + 1) * s + SLACK).min(size));
                        let job = Job { source, shared, i, path, explicit, color, quit };
                        let Some(out) = search_chunk(&mut worker, &mut buf, job) else {
                            break;
                        };
                        if tx.send((i, out)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut pending = BTreeMap::new();
            let mut next = 0;
            let mut going = true;
            for (i, chunk) in rx {
                if !going {
                    continue;
                }
                pending.insert(i, chunk);
                while pending.contains_key(&next) {
                    if let Some(h) = hold.as_mut() {
                        match h.decide(next, &pending, n) {
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
                    stats.bytes_read += chunk.bytes_read;
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
            prefetch.join().unwrap_or_default()
        });
        stats.prefetch_loaded += prefetched.loaded;
        stats.prefetch_resident += prefetched.resident;
        if let Some(e) = error {
            return Err(e);
        }
        if replay {
            *stats.fallbacks.entry("a NUL byte: searched again whole").or_default() += 1;
            stats.bytes_read += size;
            let written = out.written;
            return self.replay(path, explicit, file, out.inner, written);
        }
        combiner.finish(&mut out, started.elapsed())
    }

    /// Searches `file` whole, as ripgrep reads it, writing its output to
    /// `out` except for the first `skip` bytes (already written by chunks).
    fn replay(
        &self,
        path: &Path,
        explicit: bool,
        file: &File,
        out: &mut dyn Write,
        skip: u64,
    ) -> io::Result<SearchResult> {
        let rest = Skip { inner: out, skip };
        let wtr: Box<dyn WriteColor + '_> = if self.color {
            Box::new(termcolor::Ansi::new(rest))
        } else {
            Box::new(termcolor::NoColor::new(rest))
        };
        let printer = Printer::new(self.config, self.mode, wtr, true);
        let matcher = self.config.matcher().map_err(io::Error::other)?;
        let mut worker =
            SearchWorker::new(self.config, matcher, printer).map_err(io::Error::other)?;
        (&*file).seek(SeekFrom::Start(0))?;
        worker.search(path, explicit, false, Haystack::File(file))
    }
}

/// Loads, numbers and searches one chunk; `None` when the search was cancelled.
fn search_chunk(
    worker: &mut SearchWorker<Buffer>,
    buf: &mut ReadBuf,
    job: Job<'_>,
) -> Option<ChunkOut> {
    let Job { source, shared, i, path, explicit, color, quit } = job;
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
        Some(map) => &map[range],
        None => &buf.bytes()[range],
    };
    let shape = quit.then(|| Shape::of(data));
    let line = if shared.lines {
        shared.publish(i, memchr::memchr_iter(b'\n', data).count() as u64);
        1 + shared.wait_prefix(i)?
    } else {
        1
    };
    worker.set_start_position(line, start);
    let result = if quit {
        // ripgrep reads a walked file through its 64 KiB buffer, and some
        // regexes run far faster over such small haystacks than over a
        // whole chunk (a lazy DFA that gives up on big ones): search the
        // chunk the same way. Without a NUL, the output is the slice's.
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
    source: &'a Source<'a>,
    shared: &'a Shared,
    i: usize,
    path: &'a Path,
    explicit: bool,
    color: bool,
    /// Binary detection quits at a NUL: the chunk's [`Shape`] is needed.
    quit: bool,
}

/// Where chunk bytes come from, and how the file is cut.
struct Source<'a> {
    file: &'a File,
    map: Option<&'a [u8]>,
    size: u64,
    chunk_size: u64,
}

impl Source<'_> {
    /// Loads chunk `i`: returns its byte range (in the map, or in `buf`), its
    /// absolute start offset and the bytes read from the file.
    ///
    /// Chunk `i` spans `[boundary(i), boundary(i + 1))`, where `boundary(k)`
    /// is just past the first `\n` at or after `k * chunk_size - 1` (0 for
    /// the first chunk, the file size past the last).
    fn load(&self, i: usize, buf: &mut ReadBuf) -> io::Result<(std::ops::Range<usize>, u64, u64)> {
        let s = self.chunk_size;
        let k = i as u64;
        if let Some(map) = self.map {
            let start = boundary_in(map, k, s);
            let end = boundary_in(map, k + 1, s).max(start);
            return Ok((start as usize..end as usize, start, end - start));
        }
        // Read from the page holding the first byte that can hold the start
        // boundary: page-aligned reads copy twice as fast (docs/IO.md).
        let from = if k == 0 { 0 } else { k * s - 1 };
        let base = from / PAGE * PAGE;
        let mut reader = Window::new(self.file, buf, base, self.size);
        reader.fill_to(((k + 1) * s + SLACK).min(self.size))?;
        let start = if k == 0 { 0 } else { reader.line_end_from(from)? };
        let end = if (k + 1) * s >= self.size {
            reader.fill_to(self.size)?;
            self.size
        } else {
            reader.line_end_from((k + 1) * s - 1)?
        }
        .max(start);
        Ok(((start - base) as usize..(end - base) as usize, start, reader.filled() as u64))
    }
}

/// Boundary `k` in a whole-file slice (see [`Source::load`]).
fn boundary_in(data: &[u8], k: u64, s: u64) -> u64 {
    let size = data.len() as u64;
    if k == 0 {
        return 0;
    }
    let from = k * s - 1;
    if from >= size {
        return size;
    }
    match memchr::memchr(b'\n', &data[from as usize..]) {
        Some(j) => from + j as u64 + 1,
        None => size,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_end_at_line_ends() {
        let data = b"aa\nbbbb\nc\n\ndddddddddd\ne";
        let b: Vec<u64> = (0..8).map(|k| boundary_in(data, k, 4)).collect();
        assert_eq!(b, vec![0, 8, 8, 22, 22, 22, 23, 23]);
    }
}
