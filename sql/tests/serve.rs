//! Issue 28: `tg sql serve`, a warm process that answers `tg sql`. A
//! served query prints exactly what `tg-sql` run in the client's place
//! prints (output, errors, exit code), in the client's directory and with
//! the client's index directory; a server lost in the middle of a query
//! leaves no partial answer; a hostile client does not stop the server.
//! `tg sql` starts a server when none answers; a server leaves when
//! stopped, idle, or rebuilt, and turns away a client whose environment
//! would change an answer — every query still gets the cold answer.

mod util;

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use util::Fixture;

/// A `tg-sql serve` on a runtime directory of the fixture's own.
struct Server {
    child: Child,
    log: PathBuf,
    socket: PathBuf,
}

impl Server {
    /// Starts one (its own environment names another index directory,
    /// which no query may use) with `env`, and waits for its door.
    fn start(fx: &Fixture, env: &[(&str, &str)]) -> Server {
        Server::spawn(fx, &[], env)
    }

    /// Starts one with `args` after `serve`.
    fn start_with(fx: &Fixture, args: &[&str]) -> Server {
        Server::spawn(fx, args, &[])
    }

    fn spawn(fx: &Fixture, args: &[&str], env: &[(&str, &str)]) -> Server {
        let runtime = runtime_dir(fx);
        let log = fx.path("server.log");
        let child = Command::new(util::tg_sql())
            .arg("serve")
            .args(args)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("TG_INDEX_DIR", fx.path("not-the-clients-indexes"))
            .envs(env.iter().copied())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let socket = runtime.join("trigrep/sql.sock");
        let started = Instant::now();
        while UnixStream::connect(&socket).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no server at {}",
                socket.display()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Server { child, log, socket }
    }

    /// What it logged so far.
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The fixture's runtime directory (private, as the door requires).
fn runtime_dir(fx: &Fixture) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = fx.path("runtime");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

/// `tg sql ARGS` in `cwd`, as a client of the fixture's runtime directory
/// that starts no server of its own.
fn client(fx: &Fixture, cwd: &Path) -> Command {
    let path = std::env::join_paths(
        std::iter::once(util::tg_sql().parent().unwrap().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let mut cmd = Command::new(util::tg());
    cmd.arg("sql")
        .current_dir(cwd)
        .env("XDG_RUNTIME_DIR", runtime_dir(fx))
        .env("TG_INDEX_DIR", fx.index_dir())
        .env("TG_SQL_SERVE", "0")
        .env("PATH", path)
        .env("RUST_LOG", "warn");
    cmd
}

/// `tg-sql ARGS` itself in `cwd`: what a served query must print.
fn cold(fx: &Fixture, cwd: &Path, args: &[&str]) -> Output {
    Command::new(util::tg_sql())
        .args(args)
        .current_dir(cwd)
        .env("TG_INDEX_DIR", fx.index_dir())
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

/// A tree and a block-indexed log, queried by relative paths from `work`.
fn fixture() -> Fixture {
    let fx = Fixture::new();
    fx.write("work/tree/a.log", &util::log_text(2000, 1));
    fx.write("work/tree/b.txt", b"zebracorn in b\n");
    let mut big = util::log_text(20_000, 2);
    big.extend_from_slice(b"2024-04-01 FATAL XYZZY-NEEDLE-4242 planted\n");
    let log = fx.write("work/big.log", &big);
    fx.tg(&["index", "-q", "--block-size", "4K", log.to_str().unwrap()]);
    fx
}

#[test]
fn issue_0028_a_served_query_prints_what_tg_sql_prints() {
    let fx = fixture();
    let work = fx.path("work");
    let server = Server::start(&fx, &[]);
    let queries: &[&[&str]] = &[
        &[
            "--format",
            "json",
            "SELECT path, line_number, line FROM lines('tree') WHERE line LIKE '%zebracorn%' ORDER BY path, line_number",
        ],
        &["SELECT count(*) AS n FROM lines('big.log') WHERE line LIKE '%XYZZY-NEEDLE-4242%'"],
        &[
            "--format",
            "csv",
            "--table",
            "t=tree",
            "--table",
            "t=big.log",
            "SELECT substr(line, 1, 10) AS day, count(*) AS n FROM t WHERE line ILIKE '%error%' GROUP BY day ORDER BY day",
        ],
        &["SELEC nothing"],
        &["SELECT * FROM lines('missing/dir')"],
        &["--format", "yaml", "SELECT 1"],
        &[],
    ];
    for args in queries {
        let want = cold(&fx, &work, args);
        let got = client(&fx, &work).args(*args).output().unwrap();
        assert_eq!(
            (
                got.status.code(),
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&got.stderr)
            ),
            (
                want.status.code(),
                String::from_utf8_lossy(&want.stdout),
                String::from_utf8_lossy(&want.stderr)
            ),
            "{args:?}"
        );
    }
    let log = server.log();
    assert_eq!(
        log.matches("answered").count(),
        queries.len(),
        "not every query was served:\n{log}"
    );
    // The needle was read through the block index of the client's index
    // directory (the server's own names none).
    assert!(log.contains("big.log: part 0/"), "{log}");
    assert!(
        log.lines().any(|l| l.contains("big.log: part") && l.contains("reading 1 of")),
        "{log}"
    );
}

#[test]
fn issue_0028_a_server_lost_in_a_query_leaves_no_partial_answer() {
    let fx = fixture();
    let work = fx.path("work");
    let args = [
        "--format",
        "csv",
        "SELECT path, count(*) AS n FROM lines('tree') GROUP BY path ORDER BY path",
    ];
    let want = cold(&fx, &work, &args);
    assert!(want.status.success());
    // Each unit takes 2 s on the server: it is killed while it reads.
    let mut server = Server::start(&fx, &[("TG_SQL_TEST_UNIT_DELAY_MS", "2000")]);
    let query = client(&fx, &work)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !server.log().contains("partition") {
        assert!(started.elapsed() < Duration::from_secs(60), "the query never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    server.child.kill().unwrap();
    let got = query.wait_with_output().unwrap();
    // No output had come back: the client ran the query itself.
    assert_eq!(got.status.code(), Some(0), "{}", String::from_utf8_lossy(&got.stderr));
    assert_eq!(got.stdout, want.stdout);
}

#[test]
fn issue_0028_hostile_clients_do_not_stop_the_server() {
    let fx = fixture();
    let work = fx.path("work");
    let server = Server::start(&fx, &[]);
    let mut huge = b"TGSQL2\n".to_vec();
    huge.extend_from_slice(&4u32.to_le_bytes());
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    let old = b"TGSQL1\n\x03\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
    let cut = b"TGSQL2\n\x04\0\0\0\x05\0\0\0ab";
    for bytes in [&b"GET / HTTP/1.0\r\n\r\n"[..], &huge, old, cut, b""] {
        let mut s = UnixStream::connect(&server.socket).unwrap();
        let _ = s.write_all(bytes);
    }
    // One that connects and says nothing, then a real query behind it.
    let _silent = UnixStream::connect(&server.socket).unwrap();
    let args = ["SELECT count(*) AS n FROM lines('tree')"];
    let got = client(&fx, &work).args(args).output().unwrap();
    let want = cold(&fx, &work, &args);
    assert_eq!(got.stdout, want.stdout);
    assert!(server.log().contains("answered"), "{}", server.log());
    // A second server on the same door is refused, in one line.
    let second = Command::new(util::tg_sql())
        .arg("serve")
        .env("XDG_RUNTIME_DIR", runtime_dir(&fx))
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(2));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.starts_with("tg: sql: a SQL server already answers at ") && err.lines().count() == 1,
        "{err}"
    );
}

/// A directory holding `tg` and a `tg-sql` of its own (so that it can be
/// replaced without touching the one other tests run), as installed.
fn installed(fx: &Fixture) -> PathBuf {
    let bin = fx.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::hard_link(util::tg(), bin.join("tg")).unwrap();
    std::fs::copy(util::tg_sql(), bin.join("tg-sql")).unwrap();
    bin
}

/// `tg sql ARGS` from `bin`, in `cwd`, as a user runs it: it may start a
/// server.
fn user(fx: &Fixture, bin: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(bin.join("tg"))
        .arg("sql")
        .args(args)
        .current_dir(cwd)
        .env("XDG_RUNTIME_DIR", runtime_dir(fx))
        .env("TG_INDEX_DIR", fx.index_dir())
        .env_remove("TG_SQL_SERVE")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

/// `tg sql stop` from `bin`: its exit code and the pid it says it stopped.
fn stop(fx: &Fixture, bin: &Path) -> (Option<i32>, Option<u32>) {
    let out = Command::new(bin.join("tg"))
        .args(["sql", "stop"])
        .env("XDG_RUNTIME_DIR", runtime_dir(fx))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let pid = err.split("(pid ").nth(1).and_then(|p| p.trim_end().strip_suffix(')')?.parse().ok());
    (out.status.code(), pid)
}

/// Stops the fixture's server, if one runs, when dropped.
struct Stopper<'a>(&'a Fixture, &'a Path);

impl Drop for Stopper<'_> {
    fn drop(&mut self) {
        stop(self.0, self.1);
    }
}

/// Whether process `pid` runs (an exited one its parent has not reaped
/// yet does not: the server's parent is whoever adopted it).
fn runs(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z'))
}

/// Polls `done` for up to a minute.
fn eventually(what: &str, done: impl Fn() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < Duration::from_secs(60), "waited a minute for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn issue_0028_tg_sql_starts_a_server_and_a_rebuilt_one_leaves() {
    let fx = fixture();
    let (work, bin) = (fx.path("work"), installed(&fx));
    let socket = runtime_dir(&fx).join("trigrep/sql.sock");
    // Whatever happens below, no started server outlives the test.
    let _stop = Stopper(&fx, &bin);
    let args = [
        "--format",
        "csv",
        "SELECT count(*) AS n FROM lines('tree') WHERE line LIKE '%zebracorn%'",
    ];
    let want = cold(&fx, &work, &args);
    assert!(want.status.success() && want.stdout.starts_with(b"n\n"));
    // Nothing to stop yet: exit 1, said in one line.
    assert_eq!(stop(&fx, &bin), (Some(1), None));
    // The first query runs cold and starts a server; the next are its.
    assert_eq!(user(&fx, &bin, &work, &args).stdout, want.stdout);
    eventually("the started server's door", || UnixStream::connect(&socket).is_ok());
    for _ in 0..3 {
        assert_eq!(user(&fx, &bin, &work, &args).stdout, want.stdout);
    }
    let (code, first) = stop(&fx, &bin);
    assert_eq!(code, Some(0));
    let first = first.expect("tg sql stop names the pid");
    assert!(!runs(first), "pid {first} still runs");
    assert!(!socket.exists(), "the door was left behind");
    // A server whose program is rebuilt turns the next query away (its
    // client answers it cold) and leaves; the query after starts a new one.
    assert_eq!(user(&fx, &bin, &work, &args).stdout, want.stdout);
    eventually("a second server's door", || UnixStream::connect(&socket).is_ok());
    let rebuilt = bin.join("tg-sql.new");
    std::fs::copy(bin.join("tg-sql"), &rebuilt).unwrap();
    std::fs::rename(&rebuilt, bin.join("tg-sql")).unwrap();
    let got = user(&fx, &bin, &work, &args);
    assert_eq!((got.status.code(), got.stdout), (Some(0), want.stdout.clone()));
    eventually("the rebuilt server to leave", || UnixStream::connect(&socket).is_err());
    assert_eq!(user(&fx, &bin, &work, &args).stdout, want.stdout);
    eventually("a third server's door", || UnixStream::connect(&socket).is_ok());
    let (code, third) = stop(&fx, &bin);
    assert_eq!(code, Some(0));
    assert_ne!(third, Some(first));
}

#[test]
fn issue_0028_a_server_turns_away_another_environment_and_leaves_when_idle() {
    let fx = fixture();
    let work = fx.path("work");
    let mut server = Server::start(&fx, &[]);
    let args = ["SELECT count(*) AS n FROM lines('tree')"];
    let want = cold(&fx, &work, &args);
    // Another HOME may hold other ignore rules: answered, but not served.
    let elsewhere = fx.path("home");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let got = client(&fx, &work).args(args).env("HOME", &elsewhere).output().unwrap();
    assert_eq!((got.status.code(), &got.stdout), (Some(0), &want.stdout));
    assert!(server.log().contains("turned away a query"), "{}", server.log());
    assert!(!server.log().contains("answered"), "{}", server.log());
    drop(server);
    // With --idle-timeout 5 it answers, then leaves and takes its door.
    server = Server::start_with(&fx, &["--idle-timeout", "5"]);
    let got = client(&fx, &work).args(args).output().unwrap();
    assert_eq!(got.stdout, want.stdout);
    assert!(server.log().contains("answered"), "{}", server.log());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the idle server stayed");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    assert!(server.log().contains("leaving: idle"), "{}", server.log());
    assert!(!server.socket.exists(), "the door was left behind");
}

#[test]
fn issue_0028_a_query_never_waits_behind_another() {
    let fx = fixture();
    let work = fx.path("work");
    let slow_args = [
        "--format",
        "csv",
        "SELECT path, count(*) AS n FROM lines('tree') GROUP BY path ORDER BY path",
    ];
    let quick_args = ["SELECT count(*) AS n FROM lines('big.log') WHERE line LIKE '%XYZZY%'"];
    let (slow_want, quick_want) = (cold(&fx, &work, &slow_args), cold(&fx, &work, &quick_args));
    // Each unit takes 2 s on the server: the first query holds it.
    let server = Server::start(&fx, &[("TG_SQL_TEST_UNIT_DELAY_MS", "2000")]);
    let slow = client(&fx, &work).args(slow_args).stdout(Stdio::piped()).spawn().unwrap();
    eventually("the slow query to start", || server.log().contains("partition"));
    let started = Instant::now();
    let quick = client(&fx, &work).args(quick_args).output().unwrap();
    let took = started.elapsed();
    assert_eq!((quick.status.code(), &quick.stdout), (Some(0), &quick_want.stdout));
    let slow = slow.wait_with_output().unwrap();
    assert_eq!((slow.status.code(), &slow.stdout), (Some(0), &slow_want.stdout));
    let log = server.log();
    assert!(log.contains("turned away a query: another query is running"), "{log}");
    assert_eq!(log.matches("answered [").count(), 1, "{log}");
    assert!(took < Duration::from_secs(2), "the quick query took {took:?}");
}
