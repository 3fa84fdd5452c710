//! Issue 28: `tg sql serve`, a warm process that answers `tg sql`. A
//! served query prints exactly what `tg-sql` run in the client's place
//! prints (output, errors, exit code), in the client's directory and with
//! the client's index directory; a server lost in the middle of a query
//! leaves no partial answer; a hostile client does not stop the server.

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
        let runtime = runtime_dir(fx);
        let log = fx.path("server.log");
        let child = Command::new(util::tg_sql())
            .arg("serve")
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

/// `tg sql ARGS` in `cwd`, as a client of the fixture's runtime directory.
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
    let mut huge = b"TGSQL1\n".to_vec();
    huge.extend_from_slice(&3u32.to_le_bytes());
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    for bytes in [&b"GET / HTTP/1.0\r\n\r\n"[..], &huge, b"TGSQL1\n\x03\0\0\0\x05\0\0\0ab", b""] {
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
