//! The subcommands of `tg`, in one table: the first argument that names
//! one runs it, and `--help`, the man page and the shell completions
//! ([`super::help`]) list every entry, so a subcommand added here appears
//! in all of them.

use std::ffi::OsString;

use clap::{CommandFactory, Parser};

use super::index_cmd::{self, IndexArgs, StatusArgs};
use super::outcome::Outcome;
use super::pack_cmd::{self, PackArgs, UnpackArgs};
use super::serve_cmd::{self, ServeArgs, StopArgs};
use super::sql_cmd;
use super::view_cmd::{self, ViewCommand};

/// One subcommand: its name, its clap definition and how it runs.
pub struct Subcommand {
    /// The word that names it (the first argument).
    pub name: &'static str,
    /// Its flags and arguments, for help, the man page and completions.
    pub command: fn() -> clap::Command,
    /// Parses `["tg NAME", ARGS...]` and runs it.
    pub run: fn(&[OsString]) -> anyhow::Result<Outcome>,
}

/// Every subcommand, in the order help lists them.
pub const SUBCOMMANDS: &[Subcommand] = &[
    Subcommand {
        name: "index",
        command: IndexArgs::command,
        run: |argv| parsed(argv, |a| index_cmd::run_index(a).map(done)),
    },
    Subcommand {
        name: "status",
        command: StatusArgs::command,
        run: |argv| parsed(argv, |a| index_cmd::run_status(a).map(done)),
    },
    Subcommand {
        name: "serve",
        command: ServeArgs::command,
        run: |argv| parsed(argv, |a| serve_cmd::run_serve(a).map(done)),
    },
    Subcommand {
        name: "stop",
        command: StopArgs::command,
        run: |argv| parsed(argv, |a| Ok(stopped(serve_cmd::run_stop(a)?))),
    },
    Subcommand {
        name: "pack",
        command: PackArgs::command,
        run: |argv| parsed(argv, |a| pack_cmd::run_pack(a).map(done)),
    },
    Subcommand {
        name: "unpack",
        command: UnpackArgs::command,
        run: |argv| parsed(argv, |a| pack_cmd::run_unpack(a).map(done)),
    },
    Subcommand { name: "sql", command: sql_cmd::command, run: |argv| sql_cmd::run(argv).map(done) },
    Subcommand {
        name: "view",
        command: ViewCommand::command,
        run: |argv| parsed(argv, |a| view_cmd::run(a).map(done)),
    },
];

/// The subcommand `word` names, if any.
pub fn find(word: &str) -> Option<&'static Subcommand> {
    SUBCOMMANDS.iter().find(|s| s.name == word)
}

/// A subcommand that did its work.
fn done((): ()) -> Outcome {
    Outcome::Matched
}

/// `tg stop`: 0 when it stopped a server, 1 when none ran (nothing to stop).
fn stopped(any: bool) -> Outcome {
    if any { Outcome::Matched } else { Outcome::NoMatch }
}

/// Parses `argv` (`tg SUB ARGS...`) as `T` and runs it; help or the
/// version printed instead is success.
fn parsed<T: Parser>(
    argv: &[OsString],
    run: impl FnOnce(T) -> anyhow::Result<Outcome>,
) -> anyhow::Result<Outcome> {
    match parse_sub::<T>(&subcommand_argv(argv))? {
        Some(args) => run(args),
        None => Ok(Outcome::Matched),
    }
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
