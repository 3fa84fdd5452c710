//! `tg sql ...`: an external subcommand, the way git runs `git-foo`. The
//! SQL engine (DataFusion, Ballista) lives in the `trigrep-sql` crate's
//! `tg-sql` binary, so that building `tg` never builds it; `tg sql ARGS`
//! replaces itself with `tg-sql ARGS`, found beside `tg` or on `PATH`,
//! unless a warm SQL server (`tg sql serve`) answers: then the query goes
//! to it ([`sql_wire::ask`]) and its output comes back. When none answers,
//! a query also starts one in the background (unless `TG_SQL_SERVE=0`),
//! which leaves after [`AUTO_IDLE`] without queries: the first query pays
//! for DataFusion's start, the ones after it do not.

use std::ffi::OsString;
use std::path::PathBuf;

use trigrep::serve::sql_wire::{self, Asked};

use crate::cli::config::Env;

/// The program `tg sql` runs.
const PROGRAM: &str = "tg-sql";

/// How to install [`PROGRAM`]: into the directory `cargo install` put `tg`
/// in (`~/.cargo/bin`, on `PATH`), where `tg sql` finds it.
const INSTALL: &str = "cargo install --locked --path sql";

/// The subcommands of `tg-sql` that run on their own, never through a
/// warm SQL server.
const ON_THEIR_OWN: [&str; 4] = ["serve", "stop", "scheduler", "executor"];

/// How long a server a query started waits for the next query before it
/// leaves.
pub const AUTO_IDLE: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// The environment variable that, set to `0`, keeps `tg sql` from starting
/// a server.
const AUTO_SERVE_ENV: &str = "TG_SQL_SERVE";

/// Hands the arguments after `tg sql` to a warm SQL server (`tg sql
/// serve`) when one answers, else runs `tg-sql` with them; returns only
/// when neither can be done.
pub fn run(argv: &[OsString]) -> anyhow::Result<()> {
    let args = &argv[2.min(argv.len())..];
    let mut start_server = false;
    if !args.first().is_some_and(|a| ON_THEIR_OWN.iter().any(|c| a == c)) {
        let bytes: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
        let base = Env::detect().base(None);
        match sql_wire::ask(&bytes, base.as_os_str().as_encoded_bytes()) {
            Asked::Answered(code) => std::process::exit(i32::from(code)),
            Asked::Failed(e) => anyhow::bail!("sql: {e}"),
            Asked::NoServer => start_server = runs_a_query(args),
            Asked::Declined => {}
        }
    }
    let Some(program) = find() else {
        if args.iter().any(|a| a == "-h" || a == "--help") {
            // The usage stands without the program; it says how to get it.
            print!("{}", command().render_long_help());
            return Ok(());
        }
        anyhow::bail!(
            "sql: {PROGRAM} is not installed: in trigrep's source run `{INSTALL}` (it goes \
             beside a tg installed by cargo), or put a release build's tg-sql \
             (`cargo build --release -p trigrep-sql`) beside tg or on PATH"
        );
    };
    if start_server {
        start(&program);
    }
    let err = trigrep::sys::exec(std::process::Command::new(&program).args(argv.iter().skip(2)));
    anyhow::bail!("sql: {}: {err}", program.display())
}

/// What `--help`, the man page and the completions say of `tg sql`: its
/// arguments are `tg-sql`'s, which documents them (`tg sql --help`).
pub fn command() -> clap::Command {
    clap::Command::new("tg sql")
        .about(
            "Runs SQL over logs and trees (lines(PATH): path, line_number, byte_offset, line, \
             modified) on Apache DataFusion, locally or on a Ballista cluster; tg-sql does the \
             work (see docs/SQL.md)",
        )
        .override_usage("tg sql [OPTIONS] QUERY\n       tg sql <serve|stop|scheduler|executor> ...")
        .after_long_help(USAGE)
        .arg(
            clap::Arg::new("args")
                .help("tg-sql's arguments: a query, --table NAME=PATH, --format, --scheduler")
                .num_args(0..)
                .trailing_var_arg(true)
                .allow_hyphen_values(true),
        )
}

/// The short usage `tg sql --help` prints when `tg-sql` is missing
/// (`tg-sql --help` has the whole of it).
const USAGE: &str = "\
Examples:
  tg sql \"SELECT count(*) FROM lines('/var/log/app') WHERE line LIKE '%timeout%'\"
  tg sql --table app=/var/log/app --format csv \\
    \"SELECT substr(line, 1, 10) AS day, count(*) FROM app GROUP BY day\"

Options (tg-sql's):
  --table NAME=PATH        a table over PATH (repeat a NAME for more paths)
  --format table|csv|json  how results print (default: table)
  --scheduler HOST:PORT    run the query on a Ballista cluster
  --partitions N           partitions a scan is split into
  --no-pushdown            read every line, using no index
  --verbose                Ballista's and DataFusion's logs, an error's whole chain

Subcommands: serve, stop (a warm server), scheduler, executor (a cluster).

tg sql runs tg-sql, found beside tg or on PATH. Install it from trigrep's
source with `cargo install --locked --path sql` (beside a tg installed by
`cargo install --locked --path .`).";

/// Whether `args` run a query (not only ask for help or the version), and
/// the user lets queries start a server.
fn runs_a_query(args: &[OsString]) -> bool {
    let asks_only = |a: &OsString| ["-h", "--help", "-V", "--version"].iter().any(|f| a == f);
    !args.is_empty()
        && !args.iter().any(asks_only)
        && std::env::var_os(AUTO_SERVE_ENV).is_none_or(|v| v != "0")
}

/// Starts `program serve` in the background, detached, leaving after
/// [`AUTO_IDLE`] without queries. A server that finds another already
/// answering exits at once, so two queries racing here start one.
fn start(program: &std::path::Path) {
    let mut cmd = std::process::Command::new(program);
    cmd.arg("serve")
        .arg("--idle-timeout")
        .arg(AUTO_IDLE.as_secs().to_string())
        .current_dir(std::env::temp_dir())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    trigrep::sys::detach(&mut cmd);
    let _ = cmd.spawn();
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
