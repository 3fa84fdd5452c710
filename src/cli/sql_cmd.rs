//! `tg sql ...`: an external subcommand, the way git runs `git-foo`. The
//! SQL engine (DataFusion, Ballista) lives in the `trigrep-sql` crate's
//! `tg-sql` binary, so that building `tg` never builds it; `tg sql ARGS`
//! replaces itself with `tg-sql ARGS`, found beside `tg` or on `PATH`.

use std::ffi::OsString;
use std::path::PathBuf;

/// The program `tg sql` runs.
const PROGRAM: &str = "tg-sql";

/// Runs `tg-sql` with the arguments after `tg sql`; returns only when it
/// cannot be run.
pub fn run(argv: &[OsString]) -> anyhow::Result<()> {
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
