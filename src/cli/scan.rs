//! The scan path: walk the given paths and search every file, like ripgrep.
//!
//! [`search`] runs on one thread (in walk order, or sorted); [`search_parallel`]
//! runs the walker's threads and prints each file's buffered output whole.
//! Both report per-file errors through [`super::messages`] and go on.

use std::io::{self, Write};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use grep_printer::Stats;
use ignore::{DirEntry, WalkState};

use super::args::SortBy;
use super::config::{Config, SearchMode};
use super::indexed::IndexFilter;
use super::messages;
use super::worker::{Printer, SearchWorker};

/// One thing to search: a walked entry with the display rules applied.
pub struct Subject {
    dent: DirEntry,
    strip_dot_prefix: bool,
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
        let subject = Subject { dent, strip_dot_prefix: strip };
        if subject.is_explicit() || subject.dent.file_type().is_some_and(|t| t.is_file()) {
            Some(subject)
        } else {
            None
        }
    }

    /// The path as printed.
    pub fn path(&self) -> &Path {
        let p = self.dent.path();
        if self.strip_dot_prefix { p.strip_prefix("./").unwrap_or(p) } else { p }
    }

    /// Whether this is stdin.
    pub fn is_stdin(&self) -> bool {
        self.dent.is_stdin()
    }

    /// Named on the command line (binary files are then searched, not skipped).
    pub fn is_explicit(&self) -> bool {
        self.is_stdin() || (self.dent.depth() == 0 && !self.is_dir())
    }

    /// Whether this subject must be read, given an index (always, without one).
    pub fn needs_search(&self, filter: Option<&IndexFilter>) -> bool {
        match filter {
            Some(f) if !self.is_stdin() => {
                f.should_search(self.dent.path(), self.dent.metadata().ok())
            }
            _ => true,
        }
    }

    fn is_dir(&self) -> bool {
        match self.dent.file_type() {
            None => false,
            Some(t) if t.is_dir() => true,
            Some(_) => self.dent.path_is_symlink() && self.dent.path().is_dir(),
        }
    }
}

/// Searches `subject` with `worker`, choosing the read strategy.
fn search_subject<W: termcolor::WriteColor>(
    config: &Config,
    worker: &mut SearchWorker<W>,
    subject: &Subject,
    mmap: bool,
) -> io::Result<super::worker::SearchResult> {
    if subject.is_stdin() {
        worker.search_stdin()
    } else {
        let _ = config;
        worker.search_path(subject.path(), subject.is_explicit(), mmap)
    }
}

/// Searches on one thread, in walk (or sorted) order. Returns whether anything matched.
/// With `filter`, files the index rules out are skipped unread.
pub fn search(
    config: &Config,
    mode: SearchMode,
    filter: Option<&IndexFilter>,
) -> anyhow::Result<bool> {
    let started = Instant::now();
    let stdout = grep_cli::stdout(config.color());
    let printer = Printer::new(config, mode, stdout, true);
    let mut worker = SearchWorker::new(config, config.matcher()?, printer)?;
    let mmap = config.default_mmap();
    let mut stats = config.stats.then(Stats::new);
    let (mut matched, mut searched) = (false, false);
    for subject in subjects(config)? {
        searched = true;
        if !subject.needs_search(filter) {
            continue;
        }
        let result = match search_subject(config, &mut worker, &subject, mmap) {
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
    if config.has_implicit_path && !searched {
        nothing_searched();
    }
    if let Some(stats) = stats {
        let _ = print_stats(mode, &stats, started, worker.printer().get_mut());
    }
    Ok(matched)
}

/// Searches on the walker's threads; each file's output is buffered and printed whole.
/// With `filter`, files the index rules out are skipped unread.
pub fn search_parallel(
    config: &Config,
    mode: SearchMode,
    filter: Option<&IndexFilter>,
) -> anyhow::Result<bool> {
    let started = Instant::now();
    let mut bufwtr = termcolor::BufferWriter::stdout(config.color());
    bufwtr.separator(config.file_separator());
    let printer = Printer::new(config, mode, bufwtr.buffer(), false);
    let worker = SearchWorker::new(config, config.matcher()?, printer)?;
    let mmap = config.default_mmap();
    let stats = config.stats.then(|| Mutex::new(Stats::new()));
    let matched = AtomicBool::new(false);
    let searched = AtomicBool::new(false);
    let strip = config.has_implicit_path;
    config.walk_builder()?.build_parallel().run(|| {
        let (bufwtr, stats, matched, searched) = (&bufwtr, &stats, &matched, &searched);
        let mut worker = worker.clone();
        Box::new(move |result| {
            let Some(subject) = Subject::from_walk(result, strip) else {
                return WalkState::Continue;
            };
            searched.store(true, Ordering::Relaxed);
            if !subject.needs_search(filter) {
                return WalkState::Continue;
            }
            worker.printer().get_mut().clear();
            let result = match search_subject(config, &mut worker, &subject, mmap) {
                Ok(r) => r,
                Err(err) => {
                    messages::error(format!("{}: {}", subject.path().display(), err));
                    return WalkState::Continue;
                }
            };
            if result.has_match {
                matched.store(true, Ordering::Relaxed);
            }
            if let (Some(total), Some(s)) = (stats.as_ref(), result.stats.as_ref()) {
                *total.lock().unwrap() += s;
            }
            if let Err(err) = bufwtr.print(worker.printer().get_mut()) {
                if err.kind() == io::ErrorKind::BrokenPipe {
                    return WalkState::Quit;
                }
                messages::error(format!("{}: {}", subject.path().display(), err));
            }
            if matched.load(Ordering::Relaxed) && config.quit_after_match() {
                WalkState::Quit
            } else {
                WalkState::Continue
            }
        })
    });
    if config.has_implicit_path && !searched.load(Ordering::Relaxed) {
        nothing_searched();
    }
    if let Some(stats) = stats {
        let mut buf = bufwtr.buffer();
        let _ = print_stats(mode, &stats.into_inner().unwrap(), started, &mut buf);
        let _ = bufwtr.print(&buf);
    }
    Ok(matched.load(Ordering::Relaxed))
}

/// The subjects to search on one thread, in walk or sorted order.
fn subjects(config: &Config) -> anyhow::Result<Box<dyn Iterator<Item = Subject>>> {
    let strip = config.has_implicit_path;
    let walk = config.walk_builder()?.build().filter_map(move |r| Subject::from_walk(r, strip));
    let Some((kind, reverse)) = config.sort else { return Ok(Box::new(walk)) };
    if kind == SortBy::Path && !reverse {
        return Ok(Box::new(walk));
    }
    let mut keyed: Vec<(Option<std::time::SystemTime>, Subject)> = walk
        .map(|s| {
            let md = s.dent.path().metadata().ok();
            let t = md.and_then(|m| match kind {
                SortBy::Modified => m.modified().ok(),
                SortBy::Accessed => m.accessed().ok(),
                SortBy::Created => m.created().ok(),
                SortBy::Path | SortBy::None => None,
            });
            (t, s)
        })
        .collect();
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
