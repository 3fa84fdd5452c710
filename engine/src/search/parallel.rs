//! The parallel driver: subjects searched on several threads, each file's
//! output buffered and printed whole (ripgrep's parallel walk). Files that
//! reach the chunk threshold are handed over and searched after the rest,
//! one at a time, in chunks on every core ([`super::huge`]).

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use grep_printer::Stats;

use super::driven::{Driven, Run};
use super::huge::{Capped, Huge, is_too_big, search_whole};
use super::reading::{Direct, Reading, Readings};
use super::subject::{Source, Subject, Visit};
use super::summary::{nothing_searched, print_rg_stats};
use crate::chunk::HugeFile;
use crate::error::Result;
use crate::options::{OutputMode, SearchOptions};
use crate::report::Messages;
use crate::stats::{RunClock, RunStats};
use crate::worker::{Haystack, Printer, SearchResult, SearchWorker};

/// Searches what `source` yields on `opts.run.threads` threads; returns
/// whether anything matched, and trigrep's statistics of the run.
pub fn search(search: Run<'_>, source: &dyn Source) -> Result<Driven> {
    let Run { opts, mode, msgs, .. } = search;
    let clock = RunClock::start(opts.run.stats);
    let started = clock.started;
    let mut bufwtr = termcolor::BufferWriter::stdout(opts.print.color);
    bufwtr.separator(opts.print.file_separator.clone());
    let printer = Printer::new(opts, mode, bufwtr.buffer(), false);
    let worker = SearchWorker::new(opts, printer)?;
    let shared = Parallel {
        search,
        opts,
        msgs,
        bufwtr,
        mmap: opts.rg_mmap(),
        readings: Readings::new(search)?,
        stats: opts.print.stats.then(|| Mutex::new(Stats::new())),
        run: Mutex::new(RunStats::default()),
        matched: AtomicBool::new(false),
        stopped: AtomicBool::new(false),
        handed_over: Mutex::new(Vec::new()),
    };
    shared.run.lock().unwrap().setup = started.elapsed();
    let search_started = Instant::now();
    let mut make = || {
        let (shared, mut worker) = (&shared, worker.clone());
        Box::new(move |subject: &Subject| shared.search_one(&mut worker, subject)) as Box<Visit<'_>>
    };
    let found = source.visit_parallel(opts.run.threads, &mut make)?;
    let handed_over = std::mem::take(&mut *shared.handed_over.lock().unwrap());
    let mut unindexed_huge = Vec::new();
    if !handed_over.is_empty() && !shared.stopped.load(Ordering::Relaxed) {
        unindexed_huge = shared.search_huge(mode, worker, handed_over)?;
    }
    let Parallel { bufwtr, stats, run, matched, .. } = shared;
    if opts.walk.implicit_path && !found {
        nothing_searched(msgs);
    }
    if let Some(stats) = stats {
        let mut buf = bufwtr.buffer();
        let _ = print_rg_stats(mode, &stats.into_inner().unwrap(), started, &mut buf);
        let _ = bufwtr.print(&buf);
    }
    let mut run = run.into_inner().unwrap();
    run.search = search_started.elapsed();
    if opts.run.stats {
        let _ = io::stdout().flush();
        clock.finish(&mut run);
    }
    Ok(Driven { matched: matched.load(Ordering::Relaxed), run, unindexed_huge })
}

/// What the threads of [`search_parallel`] share.
struct Parallel<'o> {
    search: Run<'o>,
    opts: &'o SearchOptions,
    msgs: &'o Messages,
    bufwtr: termcolor::BufferWriter,
    mmap: bool,
    /// How each subject is read.
    readings: Readings<'o>,
    stats: Option<Mutex<Stats>>,
    run: Mutex<RunStats>,
    matched: AtomicBool,
    /// A search asked to stop (a closed pipe, or `-q` matched).
    stopped: AtomicBool,
    /// Files searched after the walk, on every core: those at or above the
    /// chunk threshold, and gzip files an index may describe.
    handed_over: Mutex<Vec<(Subject, Reading)>>,
}

impl Parallel<'_> {
    /// Searches one subject into the worker's buffer and prints it whole;
    /// a huge file is handed over to [`Parallel::search_huge`] instead.
    /// Returns `false` when the search should stop (a closed pipe, or `-q` matched).
    fn search_one(&self, worker: &mut SearchWorker<termcolor::Buffer>, subject: &Subject) -> bool {
        worker.printer().get_mut().clear();
        // Per-file bookkeeping only when `--stats` asked for it: it costs a
        // syscall and a lock per file.
        let result = if self.opts.run.stats {
            let mut mine = RunStats::default();
            let result = self.search_or_hand_over(worker, subject, Some(&mut mine));
            self.run.lock().unwrap().merge(&mine);
            result
        } else {
            self.search_or_hand_over(worker, subject, None)
        };
        match result {
            Ok(Some(result)) => self.print(worker, subject, result),
            Ok(None) => true,
            Err(err) => {
                self.msgs.error(format!("{}: {}", subject.path().display(), err));
                true
            }
        }
    }

    /// Searches `subject` now, as [`Readings::of`] says (a file whole, with
    /// ripgrep's map-or-read rule); `None` when it was handed over to after
    /// the walk: a gzip file an index may describe, or a file that reached
    /// the chunk threshold (its partial output is dropped; see [`super::huge`]).
    fn search_or_hand_over(
        &self,
        worker: &mut SearchWorker<termcolor::Buffer>,
        subject: &Subject,
        mut run: Option<&mut RunStats>,
    ) -> io::Result<Option<SearchResult>> {
        let hand_over = |reading| {
            self.handed_over.lock().unwrap().push((subject.detached(), reading));
            Ok(None)
        };
        match self.readings.of(subject)? {
            Reading::Now(direct) => {
                return self.readings.search(worker, subject, direct, run).map(Some);
            }
            compressed @ Reading::Compressed(_) => return hand_over(compressed),
            Reading::Bytes => {}
        }
        let (path, explicit) = (subject.path(), subject.is_explicit());
        let file = File::open(path)?;
        let threshold = self.opts.run.chunk_threshold;
        // Maps stat the file anyway, and `--stats` wants its size.
        let md = if run.is_some() || self.mmap { Some(file.metadata()?) } else { None };
        let size = md.as_ref().map(|m| m.len());
        if md.is_some_and(|m| m.is_file() && m.len() >= threshold) {
            return hand_over(Reading::Bytes);
        }
        let whole = self.mmap || self.opts.matcher.multiline;
        if let Some(run) = run.as_deref_mut() {
            run.file("sequential", if self.mmap { "mmap" } else { "read" });
            run.bytes_read += if whole { size.unwrap_or(0) } else { 0 };
        }
        if whole {
            // Multi-line search reads the whole file first; chunks refuse it.
            return worker.search(path, explicit, self.mmap, Haystack::File(&file)).map(Some);
        }
        let mut capped = Capped::new(&file, threshold);
        let result = worker.search_read(path, explicit, &mut capped);
        // What was read: a walked file's search quits at its first NUL.
        if let Some(run) = run {
            run.bytes_read += capped.bytes_read();
        }
        match result {
            Err(e) if is_too_big(&e) => {
                worker.printer().get_mut().clear();
                hand_over(Reading::Bytes)
            }
            result => result.map(Some),
        }
    }

    /// Prints a searched file's buffered output and counts it; `false`
    /// when the search should stop.
    fn print(
        &self,
        worker: &mut SearchWorker<termcolor::Buffer>,
        subject: &Subject,
        result: SearchResult,
    ) -> bool {
        if result.has_match {
            self.matched.store(true, Ordering::Relaxed);
        }
        if let (Some(total), Some(s)) = (self.stats.as_ref(), result.stats.as_ref()) {
            *total.lock().unwrap() += s;
        }
        if let Err(err) = self.bufwtr.print(worker.printer().get_mut()) {
            if err.kind() == io::ErrorKind::BrokenPipe {
                self.stopped.store(true, Ordering::Relaxed);
                return false;
            }
            self.msgs.error(format!("{}: {}", subject.path().display(), err));
        }
        let go_on = !(self.matched.load(Ordering::Relaxed) && self.opts.print.quit_after_match());
        if !go_on {
            self.stopped.store(true, Ordering::Relaxed);
        }
        go_on
    }

    /// Searches the handed-over huge files one at a time, each in chunks on
    /// every core straight to stdout (chunks never need separators between
    /// files), or whole through the buffer when its flags refuse chunks.
    fn search_huge(
        &self,
        mode: OutputMode,
        mut worker: SearchWorker<termcolor::Buffer>,
        subjects: Vec<(Subject, Reading)>,
    ) -> Result<Vec<PathBuf>> {
        let opts = self.opts;
        let stdout = opts.print.stdout();
        let printer = Printer::new(opts, mode, stdout, true);
        let mut direct = SearchWorker::new(opts, printer)?;
        let mut huge = Huge::new(self.search);
        for (subject, reading) in subjects {
            let (path, explicit) = (subject.path(), subject.is_explicit());
            let mut run = RunStats::default();
            worker.printer().get_mut().clear();
            let result = match reading {
                Reading::Now(direct) => {
                    self.readings.search(&mut worker, &subject, direct, Some(&mut run))
                }
                Reading::Compressed(format) => {
                    match huge.search_compressed(&mut direct, &subject, format, &mut run) {
                        Some(r) => r.and_then(|r| direct.printer().get_mut().flush().map(|()| r)),
                        None => {
                            let whole = Direct::decompressed(format);
                            self.readings.search(&mut worker, &subject, whole, Some(&mut run))
                        }
                    }
                }
                Reading::Bytes => {
                    huge.open(path, explicit, &mut run).and_then(|(file, chunk)| match chunk {
                        Some(size) => {
                            let target = HugeFile { path, explicit, file: &file, size };
                            let r = huge.search_chunked(&mut direct, &target, &mut run);
                            direct.printer().get_mut().flush()?;
                            r
                        }
                        None => {
                            search_whole(&mut worker, path, explicit, &file, self.mmap, &mut run)
                        }
                    })
                }
            };
            if opts.run.stats {
                self.run.lock().unwrap().merge(&run);
            }
            let go_on = match result {
                Ok(result) => self.print(&mut worker, &subject, result),
                Err(err) if err.kind() == io::ErrorKind::BrokenPipe => {
                    // ripgrep's walker threads search a file whole into a
                    // buffer and count its match before printing fails; in
                    // these modes, a write into the closed pipe means a match.
                    let wrote_a_match = matches!(
                        mode,
                        OutputMode::Standard | OutputMode::Json | OutputMode::FilesWithMatches
                    );
                    if wrote_a_match {
                        self.matched.store(true, Ordering::Relaxed);
                    }
                    false
                }
                Err(err) => {
                    self.msgs.error(format!("{}: {}", path.display(), err));
                    true
                }
            };
            if !go_on {
                break;
            }
        }
        Ok(huge.take_unindexed())
    }
}
