//! The `tg` command line: parse, resolve, dispatch, report.
//!
//! [`parse`] reads the config file and the arguments into [`args::LowArgs`]
//! through the flag table in [`flags`] ([`rcfile`] reads the file);
//! [`config`] resolves them into the engine's options; [`help`] prints
//! help, versions, the man page and completions; [`index_cmd`] runs
//! `tg index` and `tg status`; [`serve_cmd`] runs `tg serve` and `tg stop`; [`pack_cmd`]
//! `tg pack` and `tg unpack`; [`sql_cmd`] hands `tg sql` to `tg-sql`; [`stats`] prints trigrep's `--stats`. The
//! engine (the `trigrep` library) does the work. Subcommands are recognised
//! by the first argument only, so `tg -e index` searches for the word.

pub mod args;
pub mod config;
pub mod flags;
pub mod help;
pub mod index_cmd;
pub mod pack_cmd;
pub mod parse;
pub mod rcfile;
pub mod serve_cmd;
pub mod sql_cmd;
pub mod stats;

use std::ffi::OsString;

use clap::Parser;
use trigrep::options::Mode;
use trigrep::report::{self, Messages};

use args::{Engine, LowMode};

/// The names reserved for subcommands; a pattern with such a name needs `-e`.
const SUBCOMMANDS: &[&str] = &["index", "status", "serve", "stop", "pack", "unpack", "sql"];

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
            if let Some(args) = parse_sub::<index_cmd::IndexArgs>(&subcommand_argv(&argv))? {
                index_cmd::run_index(args)?;
            }
            Ok(Outcome::Matched)
        }
        Some("status") => {
            if let Some(args) = parse_sub::<index_cmd::StatusArgs>(&subcommand_argv(&argv))? {
                index_cmd::run_status(args)?;
            }
            Ok(Outcome::Matched)
        }
        Some("sql") => {
            sql_cmd::run(&argv)?;
            Ok(Outcome::Matched)
        }
        Some("pack") => sub(&argv, pack_cmd::run_pack),
        Some("unpack") => sub(&argv, pack_cmd::run_unpack),
        Some("serve") => {
            if let Some(args) = parse_sub::<serve_cmd::ServeArgs>(&subcommand_argv(&argv))? {
                serve_cmd::run_serve(args)?;
            }
            Ok(Outcome::Matched)
        }
        Some("stop") => {
            if let Some(args) = parse_sub::<serve_cmd::StopArgs>(&subcommand_argv(&argv))? {
                serve_cmd::run_stop(args)?;
            }
            Ok(Outcome::Matched)
        }
        Some(sub) if SUBCOMMANDS.contains(&sub) => anyhow::bail!(
            "the '{sub}' subcommand is not available yet (search for the word with: tg -e {sub})"
        ),
        _ => search(argv.into_iter().skip(1).collect()),
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
    let resolved = config::resolve(low, &config::Env::detect())?;
    let opts = &resolved.opts;
    let searching = matches!(opts.mode, Mode::Search(_)) && opts.matches_possible();
    if searching && resolved.engine == Engine::Pcre2 {
        anyhow::bail!("PCRE2 is not available in this build of trigrep");
    }
    if (searching || opts.mode == Mode::Files) && !no_messages && !no_ignore_messages {
        for err in opts.walk.filters.ignore_file_errors() {
            report::line(&err.to_string());
        }
    }
    let summary = match trigrep::search::run(opts, &msgs) {
        Err(trigrep::error::Error::Pattern(msg)) if resolved.engine == Engine::Auto => {
            anyhow::bail!(hybrid_error(&msg))
        }
        other => other?,
    };
    index_cmd::index_in_background(&summary.unindexed_huge, &opts.index.base);
    if let Some(dir) = &summary.serve_wanted {
        serve_cmd::start_on_demand(dir, &opts.index.base);
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

/// rg's error when `--engine auto` fails: the default engine's error, then PCRE2's.
fn hybrid_error(default_error: &str) -> String {
    let divider = "~".repeat(79);
    format!(
        "regex could not be compiled with either the default regex engine or with PCRE2.\n\n\
         default regex engine error:\n{divider}\n{default_error}\n{divider}\n\n\
         PCRE2 regex engine error:\nPCRE2 is not available in this build of trigrep"
    )
}

/// Parses and runs a subcommand that succeeds or fails.
fn sub<T: Parser>(argv: &[OsString], run: fn(T) -> anyhow::Result<()>) -> anyhow::Result<Outcome> {
    if let Some(args) = parse_sub::<T>(&subcommand_argv(argv))? {
        run(args)?;
    }
    Ok(Outcome::Matched)
}

/// `tg SUB ARGS...` as `["tg SUB", ARGS...]`, so usage lines name the subcommand.
fn subcommand_argv(argv: &[OsString]) -> Vec<OsString> {
    let mut name = OsString::from("tg ");
    name.push(&argv[1]);
    std::iter::once(name).chain(argv[2..].iter().cloned()).collect()
}

/// Parses a subcommand's `argv` as `T`; `None` when help or the version was
/// printed instead.
fn parse_sub<T: Parser>(argv: &[OsString]) -> anyhow::Result<Option<T>> {
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

/// A subcommand's parse error, printed by clap in its own format.
#[derive(Debug)]
pub struct ParseError(pub clap::Error);

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.to_string().trim_end().trim_start_matches("error: "))
    }
}

impl std::error::Error for ParseError {}
