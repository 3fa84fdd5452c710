//! The `tg` command line: parse, resolve, dispatch, report.
//!
//! [`args`] mirrors the flags, [`config`] resolves them into the engine's
//! options, [`index_cmd`] runs `tg index` and `tg status`, [`stats`] prints
//! trigrep's `--stats`. The engine (the `trigrep` library) does the work.
//! Subcommands are recognised by the first argument only, so `tg -e index`
//! searches for the word.

pub mod args;
pub mod config;
pub mod index_cmd;
pub mod stats;

use std::ffi::OsString;

use clap::Parser;
use trigrep::report::{self, Messages};

use args::SearchArgs;

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
    match argv.get(1).and_then(|a| a.to_str()) {
        Some("index") => {
            if let Some(args) = parse::<index_cmd::IndexArgs>(&subcommand_argv(&argv))? {
                index_cmd::run_index(args)?;
            }
            Ok(Outcome::Matched)
        }
        Some("status") => {
            if let Some(args) = parse::<index_cmd::StatusArgs>(&subcommand_argv(&argv))? {
                index_cmd::run_status(args)?;
            }
            Ok(Outcome::Matched)
        }
        Some(sub) if SUBCOMMANDS.contains(&sub) => anyhow::bail!(
            "the '{sub}' subcommand is not available yet (search for the word with: tg -e {sub})"
        ),
        _ => search(&argv),
    }
}

/// Runs a search (or `--files`, `--type-list`).
fn search(argv: &[OsString]) -> anyhow::Result<Outcome> {
    let Some(args) = parse::<SearchArgs>(argv)? else { return Ok(Outcome::Matched) };
    let msgs = Messages::stderr(args.no_messages);
    let opts = config::resolve(args, config::Env::detect())?;
    let summary = trigrep::search::run(&opts, &msgs)?;
    index_cmd::index_in_background(&summary.unindexed_huge, &opts.index.base);
    if let Some(run) = &summary.run {
        let _ = stats::write_run(run, std::io::stderr().lock());
    }
    match &summary.index {
        Some(Ok(index)) => report::line(&stats::index_line(index)),
        Some(Err(why)) => report::line(&format!("index: not used: {why}")),
        None => {}
    }
    Ok(if summary.matched && (opts.print.quiet || !msgs.errored()) {
        Outcome::Matched
    } else if msgs.errored() {
        Outcome::Errored
    } else {
        Outcome::NoMatch
    })
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
