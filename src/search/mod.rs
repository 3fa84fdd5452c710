//! Searching: one entry point, [`run`], for every way a search is answered.
//!
//! [`run`] picks where the subjects come from ([`open_source`]: an index's
//! file table, a walk pruned by an index, or a plain walk; each a
//! [`Source`]) and hands them to a driver: `sequential` (one thread, walk
//! or sorted order) or `parallel` (several threads, each file's output
//! printed whole). Both search each file with the same
//! `crate::worker::SearchWorker` and printer, and huge files in chunks on
//! every core (`huge`, `crate::chunk`). Results and statistics come back
//! as a [`Summary`]; printing them (beyond the search output itself) is the
//! caller's business.

mod blocks;
pub mod decode;
mod driven;
mod gz;
mod huge;
mod listed;
mod listing;
mod packed;
mod parallel;
mod reading;
mod select;
mod sequential;
mod served;
mod subject;
mod summary;
mod walk;

use crate::error::Result;
use crate::index::fresh::changes::Changes;
use crate::index::fresh::sweep::Swept;
use crate::index::fresh::{IndexFilter, IndexReport, Located, Reads, Rules};
use crate::options::{Engine, Mode, OutputMode, SearchOptions};
use crate::query::search_plan::{Plans, Unused, lists_misses, reads_binary_whole, unusable_for};
use crate::report::Messages;
use crate::stats::RunStats;
use driven::{Driven, Run};
pub use served::Answer as ServerAnswer;
pub use subject::{Source, Subject};
use walk::Walk;

/// What a run found and measured.
#[derive(Debug, Default)]
pub struct Summary {
    /// Something matched (with `--files`/`--type-list`: something was listed).
    pub matched: bool,
    /// trigrep's statistics of the search (filled when `--stats` asked).
    pub run: Option<RunStats>,
    /// Huge files searched without a block index that describes them.
    pub unindexed_huge: Vec<std::path::PathBuf>,
    /// For `--stats`: what the index did, or why none was used (`None`:
    /// not a search, or no statistics asked for).
    pub index: Option<std::result::Result<IndexReport, Unused>>,
    /// The root of a tree whose index asks for a server on demand (`tg
    /// index --serve`) and none ran: the caller may start one.
    pub serve_wanted: Option<std::path::PathBuf>,
}

/// The regex engine `opts` runs with: `--engine auto` decided as rg
/// decides it (the default engine unless it cannot compile the patterns,
/// else PCRE2; both engines' errors when neither can), any other the one
/// asked for. The command line decides it once, before [`run`], so that
/// the plan of an index and the matcher agree.
pub fn engine_of(opts: &SearchOptions) -> Result<Engine> {
    crate::matcher::PatternMatcher::engine_of(opts)
}

/// Runs `opts` to the end, printing results to stdout and per-file errors
/// through `msgs`.
pub fn run(opts: &SearchOptions, msgs: &Messages) -> Result<Summary> {
    // The trigram queries of this search, planned (on first use) once for
    // every index it reads.
    let plans = Plans::new(&opts.matcher);
    let mode = match opts.mode {
        Mode::Types => {
            return Ok(Summary { matched: listing::type_list(opts)?, ..Summary::default() });
        }
        Mode::Files => {
            let matched = match listed_files(opts, &plans, msgs) {
                Some(files) => listing::files_of(opts, &files)?,
                None => listing::files(opts, msgs)?,
            };
            return Ok(Summary { matched, ..Summary::default() });
        }
        Mode::Search(_) if !opts.matches_possible() => return Ok(Summary::default()),
        Mode::Search(mode) => mode,
    };
    let rules = fresh_rules(opts);
    let located = match unusable_for(opts) {
        Some(why) => Err(why),
        None => IndexFilter::locate(&rules, &plans),
    };
    // A server lists the files to read when it can; else it says what
    // changed. Asked before the index is opened: what it says holds for
    // the index published when it answered, or any later one.
    let served = match &located {
        Ok(found) if opts.index.server => match served::list(&rules, msgs, found) {
            Ok((files, any_file, report)) => {
                let listed = served::listed(files, any_file);
                let driven = drive(opts, &plans, mode, &listed, msgs)?;
                return Ok(summary(opts, driven, || Ok(report), None));
            }
            Err(answer) => Some(answer),
        },
        _ => None,
    };
    let mut filter = located.and_then(|found| IndexFilter::open_at(&rules, &plans, msgs, found));
    let (changes, serve_wanted) = match (served, filter.as_mut()) {
        (Some(answer), Ok(f)) => {
            let answer = answer.for_table(f.table_id());
            f.set_served(answer.from.clone());
            (answer.changes, answer.start_one.then(|| f.root().to_path_buf()))
        }
        _ => (Changes::Unknown, None),
    };
    let source = open_source(opts, &rules, msgs, filter.as_ref().ok(), &changes);
    let driven = drive(opts, &plans, mode, source.as_ref(), msgs)?;
    let index = || filter.as_ref().map(IndexFilter::report).map_err(|e| *e);
    Ok(summary(opts, driven, index, serve_wanted))
}

/// The files of the walk of `rules` that can hold a match of the query
/// `found` holds, as the server (`tg serve`) of that index lists them,
/// with what the index did; when no server runs or it cannot list them,
/// what it says changed since the build, for the caller's own sweep of
/// the index it opens ([`ServerAnswer::for_table`]). For a caller that
/// plans its own query ([`IndexFilter::locate_planned`]: the SQL crate).
pub fn files_from_server(
    rules: &Rules<'_>,
    msgs: &Messages,
    found: &Located,
) -> std::result::Result<(Vec<Swept>, IndexReport), ServerAnswer> {
    served::list(rules, msgs, found).map(|(files, _, report)| (files, report))
}

/// The files a walk would list (`--files`), from the index's table when
/// it can stand in for the walk (told by a server when one runs), else
/// `None`.
fn listed_files(opts: &SearchOptions, plans: &Plans<'_>, msgs: &Messages) -> Option<Vec<Swept>> {
    if !opts.index.enabled {
        return None;
    }
    let rules = fresh_rules(opts);
    let found = IndexFilter::locate_listing(&rules).ok()?;
    let answer = if opts.index.server {
        match served::list(&rules, msgs, &found) {
            Ok((files, _, _)) => return Some(files),
            Err(answer) => Some(answer),
        }
    } else {
        None
    };
    let filter = IndexFilter::open_at(&rules, plans, msgs, found).ok()?;
    let changes = match answer {
        Some(answer) => answer.for_table(filter.table_id()).changes,
        None => Changes::Unknown,
    };
    filter.sweep(&rules, msgs, &changes).map(|(files, _)| files)
}

/// What the index's freshness check needs of the search `opts`.
fn fresh_rules(opts: &SearchOptions) -> Rules<'_> {
    Rules {
        walk: &opts.walk,
        base: &opts.index.base,
        threads: opts.run.threads,
        skip_stdout: matches!(opts.mode, Mode::Search(_)),
        reads: Reads {
            binary_whole: reads_binary_whole(opts),
            misses: lists_misses(opts),
            zip: opts.read.search_zip,
        },
    }
}

/// Searches the subjects of `source` with the driver `opts` asks for,
/// through the indexes `plans` query.
fn drive(
    opts: &SearchOptions,
    plans: &Plans<'_>,
    mode: OutputMode,
    source: &dyn Source,
    msgs: &Messages,
) -> Result<Driven> {
    let search = Run { opts, plans, mode, msgs };
    if opts.run.threads == 1 {
        sequential::search(search, source)
    } else {
        parallel::search(search, source)
    }
}

/// A run's summary; `index` says what the index did (asked only under `--stats`).
fn summary(
    opts: &SearchOptions,
    driven: Driven,
    index: impl FnOnce() -> std::result::Result<IndexReport, Unused>,
    serve_wanted: Option<std::path::PathBuf>,
) -> Summary {
    let Driven { matched, run, unindexed_huge } = driven;
    let index = opts.run.stats.then(index);
    Summary { matched, run: opts.run.stats.then_some(run), unindexed_huge, index, serve_wanted }
}

/// Where this search's subjects come from: the index's file table when it
/// can stand in for the walk (see [`IndexFilter::sweep`]), else a walk,
/// pruned by the index when there is one. `changes` says which entries of
/// the table may differ from the tree (a server's account, or everything);
/// `rules` are the search's as freshness reads them.
pub fn open_source<'a>(
    opts: &'a SearchOptions,
    rules: &Rules<'_>,
    msgs: &'a Messages,
    filter: Option<&'a IndexFilter>,
    changes: &Changes,
) -> Box<dyn Source + 'a> {
    let Some(filter) = filter else { return Box::new(Walk::new(opts, msgs)) };
    match filter.sweep(rules, msgs, changes) {
        Some((files, found)) => Box::new(served::listed(files, found)),
        None => Box::new(Walk::pruned_by(opts, msgs, filter)),
    }
}
