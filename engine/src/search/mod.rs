//! Searching: one entry point, [`run`], for every way a search is answered.
//!
//! [`run`] asks freshness where the subjects come from ([`files_to_read`]:
//! a server's list, an index's file table, a walk pruned by an index, or a
//! plain walk; each made a [`Source`]) and hands them to a driver: `sequential` (one thread, walk
//! or sorted order) or `parallel` (several threads, each file's output
//! printed whole). Both search each file with the same
//! `crate::worker::SearchWorker` and printer, and huge files in chunks on
//! every core (`huge`, `crate::chunk`). Results and statistics come back
//! as a [`Summary`]; printing them (beyond the search output itself) is the
//! caller's business.

mod blocks;
mod compressed;
pub mod decode;
mod driven;
#[cfg(feature = "remote")]
mod fetched;
mod freshness;
mod huge;
mod index_rules;
mod list_only;
mod listed;
mod packed;
mod parallel;
mod reading;
#[cfg(feature = "remote")]
mod remote;
mod select;
mod sequential;
mod served;
mod subject;
mod summary;
mod walk;

use crate::error::Result;
use crate::index::fresh::IndexReport;
use crate::index::fresh::sweep::Swept;
use crate::options::{Engine, Mode, OutputMode, SearchOptions};
use crate::query::search_plan::{Plans, Unused};
use crate::report::Messages;
use crate::stats::RunStats;
use driven::{Driven, Run};
pub use freshness::{Plan, TreeFiles, TreeIndex, files_to_read};
use index_rules::{fresh_rules, unusable_for};
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
            return Ok(Summary { matched: list_only::type_list(opts)?, ..Summary::default() });
        }
        Mode::Files => {
            let matched = match listed_files(opts, msgs) {
                Some(files) => list_only::files_of(opts, &files)?,
                None => list_only::files(opts, msgs)?,
            };
            return Ok(Summary { matched, ..Summary::default() });
        }
        Mode::Search(_) if !opts.matches_possible() => return Ok(Summary::default()),
        Mode::Search(mode) => mode,
    };
    #[cfg(feature = "remote")]
    if remote::any_remote(opts) {
        // No index or server describes a bucket: the objects are listed
        // and read, packed ones through the block index they carry.
        let source = remote::RemoteSource::list(opts, msgs);
        let opts = &source.options(opts);
        let driven = drive(opts, &plans, mode, &source, msgs)?;
        return Ok(summary(opts, driven, || Err(Unused::Remote), None));
    }
    let rules = fresh_rules(opts);
    let tree = match unusable_for(opts) {
        Some(why) => TreeFiles::walk(why),
        None => files_to_read(&rules, Plan::Search(&plans), msgs, opts.index.server),
    };
    let TreeFiles { listed, index, serve_wanted } = tree;
    let opened = index.as_ref().ok().and_then(TreeIndex::opened);
    let source: Box<dyn Source> = match (listed, opened) {
        (Some((files, any_file)), _) => Box::new(served::listed(files, any_file)),
        (None, Some(index)) => Box::new(Walk::pruned_by(opts, msgs, index)),
        (None, None) => Box::new(Walk::new(opts, msgs)),
    };
    let driven = drive(opts, &plans, mode, source.as_ref(), msgs)?;
    let index = || index.as_ref().map(TreeIndex::report).map_err(|why| *why);
    Ok(summary(opts, driven, index, serve_wanted))
}

/// The files a walk would list (`--files`), from the index's table when
/// it can stand in for the walk (told by a server when one runs), else
/// `None`.
fn listed_files(opts: &SearchOptions, msgs: &Messages) -> Option<Vec<Swept>> {
    if !opts.index.enabled {
        return None;
    }
    let rules = fresh_rules(opts);
    let listed = files_to_read(&rules, Plan::Listing, msgs, opts.index.server).listed;
    listed.map(|(files, _)| files)
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
    #[cfg(feature = "remote")]
    let run = {
        let traffic = crate::remote::client::traffic();
        RunStats { fetch_requests: traffic.requests, fetched_bytes: traffic.bytes, ..run }
    };
    let index = opts.run.stats.then(index);
    Summary { matched, run: opts.run.stats.then_some(run), unindexed_huge, index, serve_wanted }
}
