//! `tg sql ...`: an external subcommand, the way git runs `git-foo`. The
//! SQL engine (DataFusion, Ballista) lives in the `trigrep-sql` crate's
//! `tg-sql` binary, so that building `tg` never builds it; `tg sql ARGS`
//! replaces itself with `tg-sql ARGS`, found beside `tg` or on `PATH`,
//! unless a warm SQL server (`tg sql serve`) answers: then the query goes
//! to it ([`sql_wire::ask`]) and its output comes back.

use std::ffi::OsString;
use std::path::PathBuf;

use trigrep::serve::sql_wire;

use crate::cli::config::Env;

/// The program `tg sql` runs.
const PROGRAM: &str = "tg-sql";

/// The subcommands of `tg-sql` that run on their own, never through a
/// warm SQL server.
const ON_THEIR_OWN: [&str; 3] = ["serve", "scheduler", "executor"];

/// Hands the arguments after `tg sql` to a warm SQL server (`tg sql
/// serve`) when one answers, else runs `tg-sql` with them; returns only
/// when neither can be done.
pub fn run(argv: &[OsString]) -> anyhow::Result<()> {
    let args = &argv[2.min(argv.len())..];
    if !args.first().is_some_and(|a| ON_THEIR_OWN.iter().any(|c| a == c)) {
        let bytes: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
        let base = Env::detect().base(None);
        match sql_wire::ask(&bytes, base.as_os_str().as_encoded_bytes()) {
            Some(Ok(code)) => std::process::exit(i32::from(code)),
            Some(Err(e)) => anyhow::bail!("sql: {e}"),
            None => {}
        }
    }
    let Some(program) = find() else {
        anyhow::bail!(
            "sql: {PROGRAM} is not installed (it is built by `cargo build -p trigrep-sql`; \
             put it beside tg or on PATH)"
        );
    };
    let err = trigrep::sys::exec(std::process::Command::new(&program).args(argv.iter().skip(2)));
    anyhow::bail!("sql: {}: {err}", program.display())
}

/// What `--help`, the man page and the completions say of `tg sql`: its
/// arguments are `tg-sql`'s, which documents them (`tg sql --help`).
pub fn command() -> clap::Command {
    clap::Command::new("tg sql")
        .about(
            "Runs SQL over logs and trees (lines(PATH): path, line_number, byte_offset, line, \
             modified) on Apache DataFusion, locally or on a Ballista cluster; tg-sql, built by \
             `cargo build -p trigrep-sql`, does the work (see docs/SQL.md)",
        )
        .arg(
            clap::Arg::new("args")
                .help("tg-sql's arguments: a query, --table NAME=PATH, --format, --scheduler")
                .num_args(0..)
                .trailing_var_arg(true)
                .allow_hyphen_values(true),
        )
}

/// `tg-sql` beside the running `tg`, else the first on `PATH`.
fn find() -> Option<PathBuf> {
    let name = format!("{PROGRAM}{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe().ok().and_then(|exe| Some(exe.parent()?.join(&name)));
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join(&name));
    beside.into_iter().chain(on_path).find(|p| p.is_file())
}
