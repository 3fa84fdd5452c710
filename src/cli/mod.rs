//! The `tg` command line: parse, resolve, dispatch.
//!
//! [`args`] mirrors the flags, [`config`] resolves them, [`scan`] searches
//! without an index, [`worker`] searches one haystack, [`chunked`] searches
//! one huge file on every core, [`io`] chooses how its bytes are read,
//! [`prefetch`] reads them into the page cache ahead of the workers,
//! [`stats`] counts what trigrep's `--stats` prints, [`messages`] reports.
//! Subcommands (`index`, `status`, ...) are recognised by the first argument
//! only, so `tg -e index` searches for the word.

pub mod args;
pub mod chunked;
pub mod config;
pub mod fstat;
pub mod huge;
pub mod index_cmd;
pub mod indexed;
pub mod io;
pub mod messages;
pub mod nulguard;
pub mod prefetch;
pub mod scan;
pub mod stats;
pub mod sweep;
pub mod window;
pub mod worker;

use std::ffi::OsString;

use clap::Parser;

use args::SearchArgs;
use config::{Config, Mode};

/// The names reserved for subcommands; a pattern with such a name needs `-e`.
const SUBCOMMANDS: &[&str] = &["index", "status", "serve", "pack", "unpack"];

/// How a run ended, before it becomes an exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Something matched and nothing failed (or `-q` found a match): exit 0.
    Matched,
    /// Nothing matched and nothing failed: exit 1.
    NoMatch,
    /// Some file or step failed: exit 2.
    Errored,
}

/// Runs `tg` with `argv` and says how it ended.
pub fn run(argv: Vec<OsString>) -> anyhow::Result<Outcome> {
    let (matched, quiet) = dispatch(argv)?;
    Ok(if matched && (quiet || !messages::errored()) {
        Outcome::Matched
    } else if messages::errored() {
        Outcome::Errored
    } else {
        Outcome::NoMatch
    })
}

/// Parses and runs; returns whether anything matched and whether `-q` was given.
fn dispatch(argv: Vec<OsString>) -> anyhow::Result<(bool, bool)> {
    match argv.get(1).and_then(|a| a.to_str()) {
        Some("index") => {
            if let Some(args) = parse::<index_cmd::IndexArgs>(&subcommand_argv(&argv))? {
                index_cmd::run_index(args)?;
            }
            return Ok((true, false));
        }
        Some("status") => {
            if let Some(args) = parse::<index_cmd::StatusArgs>(&subcommand_argv(&argv))? {
                index_cmd::run_status(args)?;
            }
            return Ok((true, false));
        }
        Some(sub) if SUBCOMMANDS.contains(&sub) => {
            anyhow::bail!(
                "the '{sub}' subcommand is not available yet (search for the word with: tg -e {sub})"
            );
        }
        _ => {}
    }
    let Some(args) = parse::<SearchArgs>(&argv)? else { return Ok((true, false)) };
    messages::set_quiet_errors(args.no_messages);
    let config = Config::from_args(args)?;
    let matched = match config.mode {
        Mode::Types => scan::type_list(&config)?,
        Mode::Files => scan::files(&config)?,
        Mode::Search(_) if !config.matches_possible() => false,
        Mode::Search(mode) => {
            let filter = indexed::IndexFilter::open(&config);
            let source = match filter.as_ref().and_then(|f| f.sweep(&config)) {
                Some((list, any)) => scan::Source::List(list, any),
                None => scan::Source::Walk(filter.as_ref()),
            };
            let matched = if config.threads == 1 {
                scan::search(&config, mode, source)?
            } else {
                scan::search_parallel(&config, mode, source)?
            };
            if let Some(f) = filter.as_ref().filter(|_| config.stats_requested()) {
                f.print_stats();
            }
            matched
        }
    };
    Ok((matched, config.quiet))
}

/// `tg SUB ARGS...` as `["tg SUB", ARGS...]`, so usage lines name the subcommand.
fn subcommand_argv(argv: &[OsString]) -> Vec<OsString> {
    let mut name = OsString::from("tg ");
    name.push(&argv[1]);
    std::iter::once(name).chain(argv[2..].iter().cloned()).collect()
}

/// Parses `argv` as `T`; `None` when help or the version was printed instead.
fn parse<T: Parser>(argv: &[OsString]) -> anyhow::Result<Option<T>> {
    match T::try_parse_from(argv) {
        Ok(a) => Ok(Some(a)),
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                e.print()?;
                return Ok(None);
            }
            Err(ParseError(e).into())
        }
    }
}

/// A command-line parse error, printed by clap in its own format.
#[derive(Debug)]
pub struct ParseError(pub clap::Error);

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.to_string().trim_end().trim_start_matches("error: "))
    }
}

impl std::error::Error for ParseError {}
