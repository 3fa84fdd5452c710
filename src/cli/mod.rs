//! The `tg` command line: parse, resolve, dispatch, report.
//!
//! [`parse`] reads the config file and the arguments into [`args::LowArgs`]
//! through the flag table in [`flags`] ([`rcfile`] reads the file);
//! [`config`] resolves them into the engine's options; [`help`] prints
//! help, versions, the man page ([`man`]) and completions; [`index_cmd`]
//! runs `tg index` and `tg status` ([`auto_index`]: the builds nobody asked for); [`serve_cmd`] runs `tg serve` and
//! `tg stop`; [`pack_cmd`] `tg pack` and `tg unpack`; [`view_cmd`] reads `tg view`'s
//! flags for the viewer (`crate::view`); [`sql_cmd`] hands `tg sql` to `tg-sql`; [`subcommands`] is
//! the table of them all; [`stats`] prints trigrep's `--stats`, and
//! [`done_line`] what a build or pack made. The engine (the `trigrep`
//! library) does the work. Subcommands are recognised by the first argument
//! only, so `tg -e index` searches for the word.

pub mod args;
pub mod auto_index;
pub mod config;
pub mod done_line;
pub mod flags;
pub mod help;
pub mod index_cmd;
pub mod man;
mod outcome;
pub mod pack_cmd;
pub mod packed_status;
pub mod parse;
pub mod progress;
pub mod rcfile;
#[cfg(feature = "remote")]
pub mod remote_cmd;
pub mod serve_cmd;
pub mod sql_cmd;
pub mod stats;
pub mod status_all;
pub mod subcommands;
pub mod view_cmd;

use std::ffi::OsString;

use trigrep::options::Mode;
use trigrep::report::{self, Messages};

use args::LowMode;
pub use outcome::Outcome;

/// Runs `tg` with `argv` and says how it ended.
pub fn run(argv: Vec<OsString>) -> anyhow::Result<Outcome> {
    match argv.get(1).and_then(|a| a.to_str()).and_then(subcommands::find) {
        Some(sub) => (sub.run)(&argv).map_err(index_cmd::with_place_hint),
        None => search(argv.into_iter().skip(1).collect()),
    }
}

/// Runs a search (or `--files`, `--type-list`, help, `--generate`).
fn search(cli: Vec<OsString>) -> anyhow::Result<Outcome> {
    let parsed = parse::parse(cli)?;
    let low = parsed.low;
    if let Some(special) = low.special {
        let ok = help::special(special)?;
        return Ok(if ok { Outcome::Matched } else { Outcome::NoMatch });
    }
    if low.logging.is_some() {
        report::line(&rcfile::debug_line(&parsed.config));
    }
    if let LowMode::Generate(kind) = low.mode {
        help::generate(kind)?;
        return Ok(Outcome::Matched);
    }
    let msgs = Messages::stderr(low.no_messages);
    let (no_messages, no_ignore_messages) = (low.no_messages, low.no_ignore_messages);
    let mut opts = config::resolve(low, &config::Env::detect())?.opts;
    let searching = matches!(opts.mode, Mode::Search(_)) && opts.matches_possible();
    if searching {
        // `--engine auto` is decided once, so that planning and matching agree.
        opts.matcher.engine = trigrep::search::engine_of(&opts)?;
    }
    let opts = &opts;
    if (searching || opts.mode == Mode::Files) && !no_messages && !no_ignore_messages {
        for err in opts.walk.filters.ignore_file_errors() {
            report::line(&err.to_string());
        }
    }
    let summary = trigrep::search::run(opts, &msgs)?;
    if !summary.unindexed_huge.is_empty() {
        auto_index::AutoIndex::from_env().start(&summary.unindexed_huge, &opts.index.base);
    }
    if let Some(root) = &summary.serve_wanted {
        serve_cmd::start_on_demand(root, &opts.index.base);
    }
    if let Some(run) = &summary.run {
        let _ = stats::write_run(run, std::io::stderr().lock());
    }
    if let Some(line) = stats::index_sentence(summary.index.as_ref(), summary.run.as_ref()) {
        report::line(&line);
    }
    Ok(if summary.matched && (opts.print.quiet || !msgs.errored()) {
        Outcome::Matched
    } else if msgs.errored() {
        Outcome::Errored
    } else {
        Outcome::NoMatch
    })
}
