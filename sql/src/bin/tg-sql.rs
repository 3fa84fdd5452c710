//! `tg-sql`: SQL over logs and trees (`tg sql` runs it). Embedded
//! DataFusion by default; `--scheduler HOST:PORT` runs the query on a
//! Ballista cluster started by `tg-sql scheduler` and `tg-sql executor`.

use std::ffi::OsString;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use datafusion::error::DataFusionError;
use tokio::runtime::Runtime;
use trigrep_sql::cluster::{self, ExecutorOptions};
use trigrep_sql::notes::Notes;
use trigrep_sql::printing::{self, Format};
use trigrep_sql::serve;
use trigrep_sql::session::{self, SessionOptions};
use trigrep_sql::{errors, headers};

/// SQL over logs and trees: `lines(PATH)` has one row per line (path,
/// line_number, byte_offset, line, modified) of every file under PATH,
/// read as tg reads it; conditions on `line` are answered through
/// trigrep's indexes (block indexes, indexed .gz, packed .zst, tree
/// indexes), reading only what can match.
#[derive(Parser, Debug)]
#[command(name = "tg sql", version, args_conflicts_with_subcommands = true)]
struct Cli {
    /// The query, e.g. "SELECT count(*) FROM lines('/var/log') WHERE line LIKE '%panic%'".
    query: Option<String>,
    /// Registers a table: NAME=PATH (repeat a NAME to give it more paths).
    #[arg(long = "table", value_name = "NAME=PATH")]
    tables: Vec<String>,
    /// How results print.
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    format: FormatArg,
    /// Runs the query on the Ballista scheduler at HOST:PORT.
    #[arg(long, value_name = "HOST:PORT")]
    scheduler: Option<String>,
    /// Where indexes live (as tg's --index-dir).
    #[arg(long = "index-dir", value_name = "DIR", env = "TG_INDEX_DIR")]
    index_dir: Option<PathBuf>,
    /// Partitions a scan is split into (default: one per core; 4 on a cluster).
    #[arg(long)]
    partitions: Option<usize>,
    /// Reads every line, using no index (to compare with the pruned answer).
    #[arg(long)]
    no_pushdown: bool,
    /// Shows DataFusion's and Ballista's logs, and an error's whole chain
    /// of causes under its one line.
    #[arg(long)]
    verbose: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

/// How results print.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormatArg {
    /// An aligned table.
    Table,
    /// CSV with a header row.
    Csv,
    /// One JSON object per line.
    Json,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Answers `tg sql` queries from a warm process (one at a time, each
    /// in the client's directory), until stopped: a short query then
    /// costs what it reads, not DataFusion's start. (`tg sql` starts one
    /// by itself, leaving after 10 idle minutes, unless TG_SQL_SERVE=0.)
    Serve {
        /// Leave after this many seconds without a query (0: never).
        #[arg(long = "idle-timeout", value_name = "SECONDS", default_value_t = 0)]
        idle_timeout: u64,
    },
    /// Stops the warm SQL server, if one runs (exit 1 when none does).
    Stop,
    /// Runs a Ballista scheduler that knows lines tables.
    Scheduler {
        /// Where it listens.
        #[arg(long, default_value = "127.0.0.1:50050")]
        bind: SocketAddr,
    },
    /// Runs a Ballista executor that reads lines tables.
    Executor {
        /// The scheduler.
        #[arg(long, default_value = "127.0.0.1:50050")]
        scheduler: SocketAddr,
        /// Where it listens (its Flight service takes the next port).
        #[arg(long, default_value = "127.0.0.1:50051")]
        bind: SocketAddr,
        /// Tasks run at once.
        #[arg(long, default_value_t = 2)]
        slots: usize,
        /// Where shuffle files go.
        #[arg(long)]
        work_dir: Option<String>,
    },
}

fn main() -> ExitCode {
    let started = Instant::now();
    let cli = Cli::parse();
    // A query's output is its rows and at most one `tg: sql:` line: the
    // engine's own logs (Ballista's ERROR lines among them) only when asked.
    let level = if cli.command.is_some() || cli.verbose {
        "warn,trigrep_sql=info"
    } else {
        "off,trigrep_sql=warn"
    };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(level))
        .format_timestamp_micros()
        .init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => return fail(&e.to_string()),
    };
    log::debug!("runtime ready after {:?}", started.elapsed());
    let done = match cli.command {
        Some(Command::Serve { idle_timeout }) => {
            let idle = (idle_timeout > 0).then(|| Duration::from_secs(idle_timeout));
            serve::run(idle, &mut |q, out, err| answer(&runtime, q, out, err))
                .map_err(|e| e.to_string())
        }
        Some(Command::Stop) => match serve::stop() {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(1),
            Err(e) => Err(e),
        },
        Some(Command::Scheduler { bind }) => {
            runtime.block_on(cluster::run_scheduler(bind)).map_err(|e| e.to_string())
        }
        Some(Command::Executor { scheduler, bind, slots, work_dir }) => {
            // What it fetches of remote objects it keeps on its own disk,
            // whatever index directory the plans it runs name.
            let base = cli.index_dir.unwrap_or_else(trigrep::index::location::default_base);
            trigrep_sql::remote::keep_in(base);
            let opts = ExecutorOptions { scheduler, bind, slots, work_dir };
            runtime.block_on(cluster::run_executor(opts)).map_err(|e| e.to_string())
        }
        None => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            runtime.block_on(query(cli, &mut out, &mut std::io::stderr(), started))
        }
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

/// `why` as one `tg:` line; the lines after its first (`--verbose`'s
/// detail) follow it as they are.
fn one_line(why: &str) -> String {
    let (first, rest) = why.split_once('\n').unwrap_or((why, ""));
    let first = first.split_whitespace().collect::<Vec<_>>().join(" ");
    if rest.is_empty() { format!("tg: sql: {first}") } else { format!("tg: sql: {first}\n{rest}") }
}

/// Prints `why` as one `tg:` line; exit 2.
fn fail(why: &str) -> ExitCode {
    eprintln!("{}", one_line(why));
    ExitCode::from(2)
}

/// Answers a query sent to `tg sql serve`, as `tg-sql` run in the
/// client's place would: its output to `out`, its errors to `err`; the
/// exit code.
fn answer(runtime: &Runtime, q: serve::Query, out: &mut dyn Write, err: &mut Vec<u8>) -> u8 {
    let started = Instant::now();
    if let Err(e) = std::env::set_current_dir(&q.cwd) {
        let _ = writeln!(err, "{}", one_line(&format!("{}: {e}", q.cwd.display())));
        return 2;
    }
    let args = std::iter::once(OsString::from("tg sql")).chain(q.args);
    let parsed = Cli::command()
        .try_get_matches_from(args)
        .and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let (mut cli, matches) = match parsed {
        Ok(p) => p,
        Err(e) => {
            let text = e.to_string();
            let _ = if e.use_stderr() {
                err.write_all(text.as_bytes())
            } else {
                out.write_all(text.as_bytes())
            };
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    // The client's index directory, unless its command line names one
    // (the server's own environment is not the client's).
    if matches.value_source("index_dir") != Some(ValueSource::CommandLine) {
        cli.index_dir = Some(q.index_dir).filter(|d| !d.as_os_str().is_empty());
    }
    if cli.command.is_some() {
        let why = "serve, scheduler and executor run on their own, not through a SQL server";
        let _ = writeln!(err, "{}", one_line(why));
        return 2;
    }
    match runtime.block_on(query(cli, out, err, started)) {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(err, "{}", one_line(&e));
            2
        }
    }
}

/// Runs the query `cli` holds, printing its results to `out`, then its
/// notes ([`Notes`]: the files read as binary) to `err`.
async fn query(
    cli: Cli,
    out: &mut dyn Write,
    err: &mut dyn Write,
    started: Instant,
) -> Result<(), String> {
    let query = cli.query.ok_or("give a query: tg sql \"SELECT ... FROM lines('PATH')\"")?;
    let mut tables: Vec<(String, Vec<PathBuf>)> = Vec::new();
    for t in &cli.tables {
        let (name, path) = t.split_once('=').ok_or(format!("--table {t}: expected NAME=PATH"))?;
        match tables.iter_mut().find(|(n, _)| n == name) {
            Some((_, paths)) => paths.push(path.into()),
            None => tables.push((name.to_string(), vec![path.into()])),
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let default_partitions = if cli.scheduler.is_some() { 4 } else { cores };
    let opts = SessionOptions {
        base: cli.index_dir.unwrap_or_else(trigrep::index::location::default_base),
        pushdown: !cli.no_pushdown,
        partitions: cli.partitions.unwrap_or(default_partitions).max(1),
        tables,
        scheduler: cli.scheduler,
    };
    let format = match cli.format {
        FormatArg::Table => Format::Table,
        FormatArg::Csv => Format::Csv,
        FormatArg::Json => Format::Json,
    };
    let verbose = cli.verbose;
    let failed = |e: DataFusionError| describe(&e, verbose);
    let ctx = session::context(&opts).await.map_err(failed)?;
    log::debug!("session ready after {:?}", started.elapsed());
    let df = ctx.sql(&query).await.and_then(|df| session::sendable(df, &opts)).map_err(failed)?;
    log::debug!("query planned after {:?}", started.elapsed());
    let names = headers::written(&query);
    let printed = printing::print(df, format, names.as_deref(), out).await;
    let _ = out.flush();
    for line in Notes::of(&ctx).map(|n| n.take()).unwrap_or_default() {
        let _ = writeln!(err, "{line}");
    }
    match printed {
        Ok(()) => {
            log::debug!("results printed after {:?}", started.elapsed());
            Ok(())
        }
        // A closed pipe (`| head`) is not an error.
        Err(e) if is_broken_pipe(&e) => Ok(()),
        Err(e) => Err(describe(&e, verbose)),
    }
}

/// What the user is told of `e`: one sentence, and with `verbose` the
/// whole chain of causes after it.
fn describe(e: &DataFusionError, verbose: bool) -> String {
    let sentence = errors::sentence(e);
    if verbose { format!("{sentence}\n{}", errors::detail(e)) } else { sentence }
}

/// Whether `e` is a write to a closed pipe.
fn is_broken_pipe(e: &DataFusionError) -> bool {
    e.to_string().contains("Broken pipe")
}
