//! `tg serve`, `tg stop`, the server lines of `tg status`, and starting a
//! server on demand for a query ([`start_on_demand`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use trigrep::index::location;
use trigrep::index::storage::FsStorage;
use trigrep::serve::Rendezvous;
use trigrep::serve::client::{self, Client, NoServer};
use trigrep::serve::{self, ServeOptions};
use trigrep::sys::ExitWatch;

use super::config::parse_size;
use super::flags::trigrep::IndexDirArg;

/// `tg serve [DIR]`: keep DIR's index open, watch DIR, and answer queries.
#[derive(Debug, Parser)]
#[command(name = "tg serve")]
pub struct ServeArgs {
    /// The root of the tree to serve (default: the current directory).
    pub dir: Option<PathBuf>,
    /// Detach: run in the background, and return once the server answers.
    #[arg(long = "daemon")]
    pub daemon: bool,
    /// Also answer on this loopback TCP address (e.g. 127.0.0.1:7000); a
    /// client must present the token the server writes to a 0600 file.
    #[arg(long = "listen", value_name = "ADDR")]
    pub listen: Option<std::net::SocketAddr>,
    /// Exit after this many seconds without a query (0: never).
    #[arg(long = "idle-timeout", value_name = "SECONDS", default_value_t = 0)]
    pub idle_timeout: u64,
    /// Keep private memory under this (suffixes K, M, G); above it the
    /// changes seen are merged into the index on disk.
    #[arg(long = "max-memory", value_name = "SIZE", default_value = "256M")]
    pub max_memory: String,
    /// Rebuild the index once this many paths changed since it was built.
    #[arg(long = "merge-at", value_name = "N", default_value_t = 2000)]
    pub merge_at: usize,
    /// Where indexes live.
    #[command(flatten)]
    pub index_base: IndexDirArg,
}

/// `tg stop [DIR]`: stop the server of DIR's index.
///
/// Returns once the server's process has exited. Exit status: 0 when it
/// stopped a server, 1 when none ran (nothing to stop), 2 on an error.
#[derive(Debug, Parser)]
#[command(name = "tg stop")]
pub struct StopArgs {
    /// Where to look (default: the current directory).
    pub dir: Option<PathBuf>,
    /// Where indexes live.
    #[command(flatten)]
    pub index_base: IndexDirArg,
}

/// How long an on-demand server waits for queries before it exits.
pub const ON_DEMAND_IDLE: Duration = Duration::from_secs(30 * 60);

/// Runs `tg serve`.
pub fn run_serve(args: ServeArgs) -> anyhow::Result<()> {
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let root = dir.canonicalize().with_context(|| format!("{}", dir.display()))?;
    anyhow::ensure!(root.is_dir(), "{}: not a directory", dir.display());
    let base = args.index_base.base();
    if args.daemon {
        return daemonize(&args, &root, &base);
    }
    let opts = ServeOptions {
        root: root.clone(),
        base: base.clone(),
        listen: args.listen,
        idle_timeout: (args.idle_timeout > 0).then(|| Duration::from_secs(args.idle_timeout)),
        max_memory: parse_size(&args.max_memory, "--max-memory")?,
        merge_at: args.merge_at.max(1),
    };
    let index_dir = location::index_dir_for(&base, &root);
    withdraw_on_signal(index_dir)?;
    serve::serve(opts, |rv| {
        eprintln!(
            "tg: serving {} on {} (pid {})",
            root.display(),
            rv.socket.display(),
            std::process::id()
        );
    })?;
    Ok(())
}

/// Starts this command again without `--daemon`, detached, and waits until
/// its server answers (or it exits).
fn daemonize(args: &ServeArgs, root: &Path, base: &Path) -> anyhow::Result<()> {
    let index_dir = location::index_dir_for(base, root);
    let mut child = spawn_server(root, base, args.idle_timeout, &args.max_memory, args.listen)?;
    loop {
        if let Some(pid) = serve::client::live_server(&index_dir) {
            eprintln!("tg: serving {} (pid {pid})", root.display());
            return Ok(());
        }
        if let Some(status) = child.try_wait()? {
            anyhow::bail!("the server exited ({status}); run tg serve without --daemon to see why");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Spawns `tg serve ROOT` in its own session, stdio detached.
fn spawn_server(
    root: &Path,
    base: &Path,
    idle: u64,
    max_memory: &str,
    listen: Option<std::net::SocketAddr>,
) -> anyhow::Result<std::process::Child> {
    let exe = std::env::current_exe()?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("serve").arg("--index-dir").arg(base).arg("--idle-timeout").arg(idle.to_string());
    cmd.arg("--max-memory").arg(max_memory);
    if let Some(l) = listen {
        cmd.arg("--listen").arg(l.to_string());
    }
    cmd.arg(root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    trigrep::sys::detach(&mut cmd);
    Ok(cmd.spawn()?)
}

/// Starts a server for the tree at `root` (as the query found its index)
/// in the background, for a query that found none although the index asks
/// for one (`tg index --serve`); it exits after [`ON_DEMAND_IDLE`] without
/// queries.
pub fn start_on_demand(root: &Path, base: &Path) {
    let _ = spawn_server(root, base, ON_DEMAND_IDLE.as_secs(), "256M", None);
}

/// Removes the server's record and socket when it is interrupted.
fn withdraw_on_signal(index_dir: PathBuf) -> anyhow::Result<()> {
    trigrep::sys::on_stop(move |sig| {
        if let Ok(rv) = Rendezvous::for_index(&index_dir) {
            rv.withdraw();
        }
        // A merge may be writing its index.
        FsStorage::new(&index_dir).remove_own_temp_files();
        std::process::exit(128 + sig);
    })?;
    Ok(())
}

/// Runs `tg stop`: asks the server of DIR's index to stop and returns once
/// its process has exited; `false` (said on stderr) when no server runs
/// for DIR, so there was nothing to stop.
pub fn run_stop(args: StopArgs) -> anyhow::Result<bool> {
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    if let Err(err) = dir.metadata() {
        anyhow::bail!("{}: {err}", dir.display());
    }
    let found = location::find(&args.index_base.base(), &dir);
    let record = found.as_ref().and_then(|f| trigrep::serve::read_record(&f.dir));
    let (Some(found), Some(record)) = (found, record) else {
        return Ok(nothing_to_stop(&dir));
    };
    let pid = record.pid;
    let exit = ExitWatch::new(pid);
    match Client::connect(&found.dir).and_then(|mut c| c.stop()) {
        Ok(()) => {}
        Err(NoServer::Absent) => return Ok(nothing_to_stop(&found.root)),
        Err(e) => {
            // A server that refuses the request or hangs up (one of another
            // protocol version, left running across an upgrade) is sent the
            // signal it withdraws on, once its socket shows it is the
            // server recorded.
            if client::peer_pid(&record.socket) != Some(pid) {
                anyhow::bail!("stopping pid {pid}: {e}");
            }
            // `pid` is the live process at the other end of the server's socket.
            if let Err(err) = trigrep::sys::terminate(pid) {
                anyhow::bail!("stopping pid {pid}: {e}; and it could not be signalled: {err}");
            }
        }
    }
    // Return once the process is gone, so that a `tg serve` right after
    // does not find it still there, nor a user its pid.
    let gone = match exit {
        Some(exit) => exit.wait(STOP_WAIT),
        None => lock_freed(&found.dir)?,
    };
    anyhow::ensure!(gone, "pid {pid} was asked to stop and still runs after {STOP_WAIT:?}");
    eprintln!("tg: stopped the server of {} (pid {pid})", found.root.display());
    Ok(true)
}

/// How long `tg stop` waits for the server's process to exit.
const STOP_WAIT: Duration = Duration::from_secs(10);

/// Says that no server runs for `dir`; `false`.
fn nothing_to_stop(dir: &Path) -> bool {
    eprintln!("tg: {}: {} (nothing to stop)", dir.display(), NoServer::Absent);
    false
}

/// Waits until the server lock of the index in `index_dir` is free (where
/// a process cannot be watched); whether it became free in time.
fn lock_freed(index_dir: &Path) -> anyhow::Result<bool> {
    let rv = Rendezvous::for_index(index_dir)?;
    let deadline = std::time::Instant::now() + STOP_WAIT;
    while rv.lock()?.is_none() {
        if std::time::Instant::now() >= deadline {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(true)
}

/// Writes the server lines of `tg status` for the index in `index_dir`.
pub fn write_status(out: &mut impl Write, index_dir: &Path) -> anyhow::Result<()> {
    let auto = trigrep::serve::auto_start(index_dir);
    let on_demand = if auto { "on demand (tg index --serve)" } else { "off" };
    let status = Client::connect(index_dir).and_then(|mut c| c.status());
    let Ok(s) = status else {
        writeln!(out, "server:     none (start: tg serve; auto-start {on_demand})")?;
        return Ok(());
    };
    let mib = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0) / f64::from(1 << 20);
    writeln!(out, "server:     pid {} (auto-start {on_demand})", s["pid"])?;
    writeln!(
        out,
        "uptime:     {:.0} s, idle {:.0} s",
        s["uptime_s"].as_f64().unwrap_or(0.0),
        s["idle_s"].as_f64().unwrap_or(0.0)
    )?;
    writeln!(
        out,
        "memory:     {:.1} MiB private (budget {:.0} MiB)",
        mib(&s["private_bytes"]),
        mib(&s["max_memory"])
    )?;
    writeln!(out, "pending:    {} changed paths since the index was built", s["pending"])?;
    let resent = s["listings_resent"].as_u64().unwrap_or(0);
    writeln!(
        out,
        "queries:    {} served ({resent} listings sent again), {} clients now",
        s["queries"], s["clients"]
    )?;
    let unwatched = s["unwatched_dirs"].as_u64().unwrap_or(0);
    writeln!(out, "watching:   {} directories", s["watched_dirs"])?;
    if unwatched > 0 {
        writeln!(
            out,
            "watch limit: reached (fs.inotify.max_user_watches): {unwatched} directories \
             unwatched, checked by every query"
        )?;
    }
    writeln!(
        out,
        "events:     {} ({} overflows, {} reconciles), {} merges{}",
        s["events"],
        s["overflows"],
        s["reconciles"],
        s["merges"],
        if s["merging"] == true { ", merging now" } else { "" }
    )?;
    if let Some(e) = s["merge_error"].as_str() {
        writeln!(out, "last merge: failed: {e}")?;
    }
    Ok(())
}
