//! The scan path: walk the given paths and search every file, like ripgrep.
//!
//! [`search`] runs on one thread (in walk order, or sorted); [`search_parallel`]
//! runs the walker's threads and prints each file's buffered output whole.
//! Both search huge files in chunks on every core ([`super::huge`]), and
//! report per-file errors through [`super::messages`] and go on.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use grep_printer::Stats;
use ignore::{DirEntry, WalkState};

use super::args::SortBy;
use super::config::{Config, SearchMode};
use super::huge::{Capped, Huge, is_too_big, search_whole};
use super::indexed::IndexFilter;
use super::messages;
use super::stats::{RunClock, RunStats};
use super::worker::{Haystack, Printer, SearchResult, SearchWorker};

/// One thing to search: a walked entry, or a file listed from an index,
/// with the display rules applied.
pub struct Subject {
    path: PathBuf,
    explicit: bool,
    stdin: bool,
    dent: Option<DirEntry>,
}

impl Subject {
    /// Turns a walk result into a subject, reporting errors; `None` for directories and such.
    pub fn from_walk(result: Result<DirEntry, ignore::Error>, strip: bool) -> Option<Subject> {
        let dent = match result {
            Ok(d) => d,
            Err(err) => {
                messages::error(err);
                return None;
            }
        };
        let stdin = dent.is_stdin();
        let explicit = stdin || (dent.depth() == 0 && !is_dir(&dent));
        if !explicit && !dent.file_type().is_some_and(|t| t.is_file()) {
            return None;
        }
        let p = dent.path();
        let path = if strip { p.strip_prefix("./").unwrap_or(p) } else { p }.to_path_buf();
        Some(Subject { path, explicit, stdin, dent: Some(dent) })
    }

    /// A file found below a search path without walking (from an index's file table).
    pub fn listed(path: PathBuf) -> Subject {
        Subject { path, explicit: false, stdin: false, dent: None }
    }

    /// The path as printed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether this is stdin.
    pub fn is_stdin(&self) -> bool {
        self.stdin
    }

    /// Named on the command line (binary files are then searched, not skipped).
    pub fn is_explicit(&self) -> bool {
        self.explicit
    }

    /// The same subject without its walk entry (for searching it later).
    fn detached(&self) -> Subject {
        Subject { path: self.path.clone(), explicit: self.explicit, stdin: self.stdin, dent: None }
    }

    /// Whether this subject must be read, given an index (always, without one).
    pub fn needs_search(&self, filter: Option<&IndexFilter>) -> bool {
        match (filter, &self.dent) {
            (Some(f), Some(dent)) if !self.stdin => {
                f.should_search(dent.path(), dent.metadata().ok(), self.explicit)
            }
            _ => true,
        }
    }

    /// The time `kind` of the file, for `--sort modified` and the like.
    fn time(&self, kind: SortBy) -> Option<std::time::SystemTime> {
        let md = self.path.metadata().ok()?;
        match kind {
            SortBy::Modified => md.modified().ok(),
            SortBy::Accessed => md.accessed().ok(),
            SortBy::Created => md.created().ok(),
            SortBy::Path | SortBy::None => None,
        }
    }
}

fn is_dir(dent: &DirEntry) -> bool {
    match dent.file_type() {
        None => false,
        Some(t) if t.is_dir() => true,
        Some(_) => dent.path_is_symlink() && dent.path().is_dir(),
    }
}

/// Where the subjects of a search come from.
pub enum Source<'a> {
    /// Walk the search paths; with an index filter, files it rules out are skipped unread.
    Walk(Option<&'a IndexFilter>),
    /// A list made from an index's file table (already filtered), in output
    /// order, and whether a walk would have found any file at all.
    List(Vec<Subject>, bool),
}

/// Searches on one thread, in walk (or sorted) order; huge files are
/// searched in chunks on every core. Returns whether anything matched.
pub fn search(config: &Config, mode: SearchMode, source: Source<'_>) -> anyhow::Result<bool> {
    let clock = RunClock::start(config.stats_requested());
    let started = clock.started;
    let stdout = grep_cli::stdout(config.color());
    let printer = Printer::new(config, mode, stdout, true);
    let mut worker = SearchWorker::new(config, config.matcher()?, printer)?;
    let mmap = config.rg_mmap();
    let mut huge = Huge::new(config, mode);
    let mut run = RunStats::default();
    let mut stats = config.stats.then(Stats::new);
    let (mut matched, mut searched) = (false, false);
    let (subjects, filter): (Box<dyn Iterator<Item = Subject>>, _) = match source {
        Source::Walk(filter) => (subjects(config)?, filter),
        Source::List(list, any) => {
            searched = any;
            (Box::new(list.into_iter()), None)
        }
    };
    run.setup = started.elapsed();
    let search_started = Instant::now();
    for subject in subjects {
        searched = true;
        if !subject.needs_search(filter) {
            continue;
        }
        let result = match huge.search(&mut worker, &subject, mmap, &mut run) {
            Ok(r) => r,
            Err(err) if err.kind() == io::ErrorKind::BrokenPipe => break,
            Err(err) => {
                messages::error(format!("{}: {}", subject.path().display(), err));
                continue;
            }
        };
        matched |= result.has_match;
        if let (Some(total), Some(s)) = (stats.as_mut(), result.stats.as_ref()) {
            *total += s;
        }
        if matched && config.quit_after_match() {
            break;
        }
    }
    run.search = search_started.elapsed();
    if config.has_implicit_path && !searched {
        nothing_searched();
    }
    if let Some(stats) = stats {
        let _ = print_stats(mode, &stats, started, worker.printer().get_mut());
    }
    finish_run_stats(config, clock, run, worker.printer().get_mut());
    Ok(matched)
}

/// Prints trigrep's own statistics on stderr, after flushing the results.
fn finish_run_stats<W: Write>(config: &Config, clock: RunClock, mut run: RunStats, out: &mut W) {
    if !config.stats_requested() {
        return;
    }
    let _ = out.flush();
    clock.finish(&mut run);
    let _ = run.write(io::stderr().lock());
}

/// Searches on several threads; each file's output is buffered and printed
/// whole. Walks with the walker's threads, or spreads a list over rayon's.
pub fn search_parallel(
    config: &Config,
    mode: SearchMode,
    source: Source<'_>,
) -> anyhow::Result<bool> {
    let clock = RunClock::start(config.stats_requested());
    let started = clock.started;
    let mut bufwtr = termcolor::BufferWriter::stdout(config.color());
    bufwtr.separator(config.file_separator());
    let printer = Printer::new(config, mode, bufwtr.buffer(), false);
    let worker = SearchWorker::new(config, config.matcher()?, printer)?;
    let shared = Parallel {
        config,
        bufwtr,
        mmap: config.rg_mmap(),
        stats: config.stats.then(|| Mutex::new(Stats::new())),
        run: Mutex::new(RunStats::default()),
        matched: AtomicBool::new(false),
        searched: AtomicBool::new(false),
        stopped: AtomicBool::new(false),
        handed_over: Mutex::new(Vec::new()),
    };
    shared.run.lock().unwrap().setup = started.elapsed();
    let search_started = Instant::now();
    let strip = config.has_implicit_path;
    match source {
        Source::Walk(filter) => config.walk_builder()?.build_parallel().run(|| {
            let (shared, mut worker) = (&shared, worker.clone());
            Box::new(move |result| {
                let Some(subject) = Subject::from_walk(result, strip) else {
                    return WalkState::Continue;
                };
                shared.searched.store(true, Ordering::Relaxed);
                if !subject.needs_search(filter) || shared.search_one(&mut worker, &subject) {
                    WalkState::Continue
                } else {
                    WalkState::Quit
                }
            })
        }),
        Source::List(list, any) => {
            shared.searched.store(any, Ordering::Relaxed);
            let (next, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
            std::thread::scope(|scope| {
                for _ in 0..config.threads {
                    let (shared, list, next, stop) = (&shared, &list, &next, &stop);
                    let mut worker = worker.clone();
                    scope.spawn(move || {
                        while !stop.load(Ordering::Relaxed) {
                            let Some(subject) = list.get(next.fetch_add(1, Ordering::Relaxed))
                            else {
                                break;
                            };
                            if !shared.search_one(&mut worker, subject) {
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    });
                }
            });
        }
    }
    let handed_over = std::mem::take(&mut *shared.handed_over.lock().unwrap());
    if !handed_over.is_empty() && !shared.stopped.load(Ordering::Relaxed) {
        shared.search_huge(mode, worker, handed_over)?;
    }
    let Parallel { bufwtr, stats, run, matched, searched, .. } = shared;
    if config.has_implicit_path && !searched.load(Ordering::Relaxed) {
        nothing_searched();
    }
    if let Some(stats) = stats {
        let mut buf = bufwtr.buffer();
        let _ = print_stats(mode, &stats.into_inner().unwrap(), started, &mut buf);
        let _ = bufwtr.print(&buf);
    }
    let mut run = run.into_inner().unwrap();
    run.search = search_started.elapsed();
    finish_run_stats(config, clock, run, &mut io::stdout());
    Ok(matched.load(Ordering::Relaxed))
}

/// What the threads of [`search_parallel`] share.
struct Parallel<'c> {
    config: &'c Config,
    bufwtr: termcolor::BufferWriter,
    mmap: bool,
    stats: Option<Mutex<Stats>>,
    run: Mutex<RunStats>,
    matched: AtomicBool,
    searched: AtomicBool,
    /// A search asked to stop (a closed pipe, or `-q` matched).
    stopped: AtomicBool,
    /// Files at or above the chunk threshold, searched after the walk.
    handed_over: Mutex<Vec<Subject>>,
}

impl Parallel<'_> {
    /// Searches one subject into the worker's buffer and prints it whole;
    /// a huge file is handed over to [`Parallel::search_huge`] instead.
    /// Returns `false` when the search should stop (a closed pipe, or `-q` matched).
    fn search_one(&self, worker: &mut SearchWorker<termcolor::Buffer>, subject: &Subject) -> bool {
        worker.printer().get_mut().clear();
        // Per-file bookkeeping only when `--stats` asked for it: it costs a
        // syscall and a lock per file.
        let result = if self.config.stats_requested() {
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
                messages::error(format!("{}: {}", subject.path().display(), err));
                true
            }
        }
    }

    /// Searches `subject` whole, with ripgrep's map-or-read rule; `None`
    /// when it reached the chunk threshold and was handed over (its partial
    /// output is dropped; see [`super::huge`]).
    fn search_or_hand_over(
        &self,
        worker: &mut SearchWorker<termcolor::Buffer>,
        subject: &Subject,
        run: Option<&mut RunStats>,
    ) -> io::Result<Option<SearchResult>> {
        if subject.is_stdin() {
            return worker.search_stdin().map(Some);
        }
        let (path, explicit) = (subject.path(), subject.is_explicit());
        let file = File::open(path)?;
        let threshold = self.config.chunk_threshold();
        // Maps stat the file anyway, and `--stats` wants its size.
        let md = if run.is_some() || self.mmap { Some(file.metadata()?) } else { None };
        let size = md.as_ref().map(|m| m.len());
        let hand_over = || {
            self.handed_over.lock().unwrap().push(subject.detached());
            Ok(None)
        };
        if md.is_some_and(|m| m.is_file() && m.len() >= threshold) {
            return hand_over();
        }
        if let Some(run) = run {
            run.file("sequential", if self.mmap { "mmap" } else { "read" });
            run.bytes_read += size.unwrap_or(0);
        }
        if self.mmap || self.config.multiline {
            // Multi-line search reads the whole file first; chunks refuse it.
            return worker.search(path, explicit, self.mmap, Haystack::File(&file)).map(Some);
        }
        let mut capped = Capped::new(&file, threshold);
        match worker.search(path, explicit, false, Haystack::Reader(&mut capped)) {
            Err(e) if is_too_big(&e) => {
                worker.printer().get_mut().clear();
                hand_over()
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
            messages::error(format!("{}: {}", subject.path().display(), err));
        }
        let go_on = !(self.matched.load(Ordering::Relaxed) && self.config.quit_after_match());
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
        mode: SearchMode,
        mut worker: SearchWorker<termcolor::Buffer>,
        subjects: Vec<Subject>,
    ) -> anyhow::Result<()> {
        let config = self.config;
        let stdout = grep_cli::stdout(config.color());
        let printer = Printer::new(config, mode, stdout, true);
        let mut direct = SearchWorker::new(config, config.matcher()?, printer)?;
        let mut huge = Huge::new(config, mode);
        for subject in subjects {
            let (path, explicit) = (subject.path(), subject.is_explicit());
            let mut run = RunStats::default();
            worker.printer().get_mut().clear();
            let result =
                huge.open(path, explicit, &mut run).and_then(|(file, chunk)| match chunk {
                    Some(size) => {
                        let r =
                            huge.search_chunked(&mut direct, path, explicit, &file, size, &mut run);
                        direct.printer().get_mut().flush()?;
                        r
                    }
                    None => search_whole(&mut worker, path, explicit, &file, self.mmap, &mut run),
                });
            if config.stats_requested() {
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
                        SearchMode::Standard | SearchMode::Json | SearchMode::FilesWithMatches
                    );
                    if wrote_a_match {
                        self.matched.store(true, Ordering::Relaxed);
                    }
                    false
                }
                Err(err) => {
                    messages::error(format!("{}: {}", path.display(), err));
                    true
                }
            };
            if !go_on {
                break;
            }
        }
        Ok(())
    }
}

/// The subjects to search on one thread, in walk or sorted order.
fn subjects(config: &Config) -> anyhow::Result<Box<dyn Iterator<Item = Subject>>> {
    let strip = config.has_implicit_path;
    let walk = config.walk_builder()?.build().filter_map(move |r| Subject::from_walk(r, strip));
    let Some((kind, reverse)) = config.sort else { return Ok(Box::new(walk)) };
    if kind == SortBy::Path && !reverse {
        return Ok(Box::new(walk));
    }
    let mut keyed: Vec<(Option<std::time::SystemTime>, Subject)> =
        walk.map(|s| (s.time(kind), s)).collect();
    if kind == SortBy::Path {
        keyed.sort_by(|a, b| b.1.path().cmp(a.1.path()));
    } else {
        keyed.sort_by(|a, b| {
            let o = match (a.0, b.0) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            };
            if reverse { o.reverse() } else { o }
        });
    }
    Ok(Box::new(keyed.into_iter().map(|(_, s)| s)))
}

/// Lists the files that would be searched (`--files`).
pub fn files(config: &Config) -> anyhow::Result<bool> {
    let mut printer = config.path_printer(grep_cli::stdout(config.color()));
    let mut matched = false;
    for subject in subjects(config)? {
        matched = true;
        if config.quit_after_match() {
            break;
        }
        if let Err(err) = printer.write(subject.path()) {
            if err.kind() == io::ErrorKind::BrokenPipe {
                break;
            }
            return Err(err.into());
        }
    }
    Ok(matched)
}

/// Prints every file type and its globs (`--type-list`).
pub fn type_list(config: &Config) -> anyhow::Result<bool> {
    let types = config.types()?;
    let mut out = grep_cli::stdout(termcolor::ColorChoice::Never);
    let mut any = false;
    for def in types.definitions() {
        any = true;
        writeln!(out, "{}: {}", def.name(), def.globs().join(", "))?;
    }
    Ok(any)
}

fn nothing_searched() {
    messages::error(
        "No files were searched, which means trigrep probably applied a filter you didn't expect.",
    );
}

/// Writes ripgrep's statistics block (or JSON summary) to `wtr`.
fn print_stats<W: Write>(
    mode: SearchMode,
    stats: &Stats,
    started: Instant,
    mut wtr: W,
) -> io::Result<()> {
    let elapsed = started.elapsed();
    if mode == SearchMode::Json {
        let summary = serde_json::json!({
            "type": "summary",
            "data": {
                "stats": stats,
                "elapsed_total": {
                    "secs": elapsed.as_secs(),
                    "nanos": elapsed.subsec_nanos(),
                    "human": format!("{:0.6}s", elapsed.as_secs_f64()),
                },
            }
        });
        serde_json::to_writer(&mut wtr, &summary)?;
        writeln!(wtr)
    } else {
        write!(
            wtr,
            "\n{} matches\n{} matched lines\n{} files contained matches\n{} files searched\n\
             {} bytes printed\n{} bytes searched\n{:0.6} seconds spent searching\n\
             {:0.6} seconds total\n",
            stats.matches(),
            stats.matched_lines(),
            stats.searches_with_match(),
            stats.searches(),
            stats.bytes_printed(),
            stats.bytes_searched(),
            stats.elapsed().as_secs_f64(),
            elapsed.as_secs_f64(),
        )
    }
}
