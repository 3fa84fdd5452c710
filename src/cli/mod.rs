//! The `tg` command line: parse, resolve, dispatch.
//!
//! [`args`] mirrors the flags, [`config`] resolves them, [`scan`] searches
//! without an index, [`worker`] searches one haystack, [`messages`] reports.
//! Subcommands (`index`, `status`, ...) are recognised by the first argument
//! only, so `tg -e index` searches for the word.

pub mod args;
pub mod config;
pub mod messages;
pub mod scan;
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
    if let Some(sub) = argv.get(1).and_then(|a| a.to_str()) {
        if SUBCOMMANDS.contains(&sub) {
            anyhow::bail!(
                "the '{sub}' subcommand is not available yet (search for the word with: tg -e {sub})"
            );
        }
    }
    let args = match SearchArgs::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                e.print()?;
                return Ok((true, false));
            }
            return Err(ParseError(e).into());
        }
    };
    messages::set_quiet_errors(args.no_messages);
    let config = Config::from_args(args)?;
    let matched = match config.mode {
        Mode::Types => scan::type_list(&config)?,
        Mode::Files => scan::files(&config)?,
        Mode::Search(_) if !config.matches_possible() => false,
        Mode::Search(mode) if config.threads == 1 => scan::search(&config, mode)?,
        Mode::Search(mode) => scan::search_parallel(&config, mode)?,
    };
    Ok((matched, config.quiet))
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
