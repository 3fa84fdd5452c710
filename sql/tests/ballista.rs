//! Issue 28: one Ballista scheduler and two executors (`tg-sql scheduler`,
//! `tg-sql executor`) on loopback, over a directory of packed logs: the
//! distributed answers equal the embedded ones, and the executors read
//! exactly the candidate frames the embedded run read (their logs say
//! which), both of them reading; an executor killed in the middle of a
//! query gives an error or the right answer, never a partial one.

mod util;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use util::Fixture;

/// Processes killed (and reaped) when the test ends, however it ends.
struct Cluster {
    children: Vec<Child>,
    logs: Vec<PathBuf>,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A loopback port that is free, with the next one free too (an
/// executor's Flight service takes it).
fn free_pair() -> u16 {
    loop {
        let a = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = a.local_addr().unwrap().port();
        if port < u16::MAX && TcpListener::bind(("127.0.0.1", port + 1)).is_ok() {
            return port;
        }
    }
}

/// Waits until something listens on `port`.
fn wait_listening(port: u16, child: &mut Child, log: &Path) {
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let started = Instant::now();
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("exited ({status}): {}", std::fs::read_to_string(log).unwrap_or_default());
        }
        assert!(started.elapsed() < Duration::from_secs(60), "nothing listens on {port}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

impl Cluster {
    /// Starts `tg-sql ARGS`, its stderr in `NAME.log`, and waits until it
    /// listens on `port`.
    fn spawn(
        &mut self,
        fx: &Fixture,
        name: &str,
        args: &[String],
        port: u16,
        env: &[(&str, &str)],
    ) {
        let log = fx.path(&format!("{name}.log"));
        let mut child = Command::new(util::tg_sql())
            .args(args)
            .envs(env.iter().copied())
            .env("TG_INDEX_DIR", fx.index_dir())
            .env("RUST_LOG", "warn,trigrep_sql=info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        wait_listening(port, &mut child, &log);
        self.children.push(child);
        self.logs.push(log);
    }

    /// A scheduler and two executors of one slot each, the executors
    /// run with `env`.
    fn start(fx: &Fixture, env: &[(&str, &str)]) -> (Cluster, u16) {
        let mut cluster = Cluster { children: Vec::new(), logs: Vec::new() };
        let scheduler = free_pair();
        let args = ["scheduler".into(), "--bind".into(), format!("127.0.0.1:{scheduler}")];
        cluster.spawn(fx, "scheduler", &args, scheduler, &[]);
        for name in ["executor1", "executor2"] {
            let port = free_pair();
            let work = fx.path(&format!("{name}-work"));
            std::fs::create_dir_all(&work).unwrap();
            let args = [
                "executor".into(),
                "--scheduler".into(),
                format!("127.0.0.1:{scheduler}"),
                "--bind".into(),
                format!("127.0.0.1:{port}"),
                "--slots".into(),
                "1".into(),
                "--work-dir".into(),
                work.display().to_string(),
            ];
            cluster.spawn(fx, name, &args, port, env);
        }
        // Executors register with their first heartbeat.
        std::thread::sleep(Duration::from_secs(2));
        (cluster, scheduler)
    }

    /// The frames the executors' logs say they read: (read, of).
    fn frames_read(&self) -> Vec<(usize, usize)> {
        self.logs[1..]
            .iter()
            .map(|log| {
                let text = std::fs::read_to_string(log).unwrap();
                reads(&text)
            })
            .collect()
    }
}

/// Sums the `reading N of M` lines of a log.
fn reads(log: &str) -> (usize, usize) {
    log.lines().filter(|l| l.contains(" reading ")).fold((0, 0), |(n, m), l| {
        let w: Vec<&str> = l.split_whitespace().collect();
        let at = w.iter().position(|x| *x == "reading").unwrap();
        (n + w[at + 1].parse::<usize>().unwrap(), m + w[at + 3].parse::<usize>().unwrap())
    })
}

/// Sorted JSON lines of `query` run with `extra`.
fn answer(fx: &Fixture, query: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["--format", "json", "--partitions", "4"];
    args.extend_from_slice(extra);
    args.push(query);
    let out = fx.sql_output(&args);
    assert!(out.status.success(), "{extra:?} {query}: {}", String::from_utf8_lossy(&out.stderr));
    let mut lines: Vec<String> =
        String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect();
    lines.sort();
    lines
}

/// A directory `packed/` of `n` packed logs of 4 KiB frames, each with
/// one needle line.
fn packed_logs(fx: &Fixture, n: u64) -> PathBuf {
    for i in 0..n {
        let mut text = util::log_text(12_000, 10 + i);
        text.extend_from_slice(
            format!("2024-04-01 FATAL XYZZY-NEEDLE-4242 in app{i}\n").as_bytes(),
        );
        text.extend_from_slice(&util::log_text(500, 20 + i));
        text.extend_from_slice(format!("2024-04-02 WARN spool C:\\app{i}\\out\n").as_bytes());
        let log = fx.write(&format!("text/app{i}.log"), &text);
        let packed = fx.path(&format!("packed/app{i}.log.zst"));
        std::fs::create_dir_all(packed.parent().unwrap()).unwrap();
        fx.tg(&[
            "pack",
            "-q",
            "--frame-size",
            "4K",
            log.to_str().unwrap(),
            "-o",
            packed.to_str().unwrap(),
        ]);
    }
    fx.path("packed")
}

#[test]
fn issue_0028_two_executors_answer_as_the_embedded_engine() {
    let fx = Fixture::new();
    let dir = packed_logs(&fx, 4);
    let table = format!("lines('{}')", dir.display());
    let queries = [
        format!("SELECT path, line_number, line FROM {table} WHERE line LIKE '%XYZZY-NEEDLE%'"),
        format!("SELECT count(*) AS n FROM {table} WHERE line ~ 'user=9[0-9]+ request'"),
        format!(
            "SELECT substr(line, 12, 5) AS level, count(*) AS n FROM {table} \
             WHERE line LIKE '%status=500%' GROUP BY level ORDER BY level"
        ),
        format!("SELECT count(*) AS n FROM {table}"),
        // A backslash: the scheduler plans it as the embedded engine does.
        format!(r"SELECT count(*) AS n FROM {table} WHERE line ~ 'C:\\app[0-9]\\out$'"),
    ];
    let (cluster, scheduler) = Cluster::start(&fx, &[]);
    let remote = format!("127.0.0.1:{scheduler}");
    // The needle first, alone: the executors' logs then hold its reads.
    let embedded = answer(&fx, &queries[0], &[]);
    assert!(!embedded.is_empty(), "no needle found");
    let distributed = answer(&fx, &queries[0], &["--scheduler", &remote]);
    assert_eq!(distributed.len(), embedded.len(), "{}", queries[0]);
    assert_eq!(distributed, embedded, "{}", queries[0]);
    let per_executor = cluster.frames_read();
    // The scan's partitions (one packed log each here) spread: both
    // executors read, and together exactly what the embedded run read.
    let readers = per_executor.iter().filter(|&&(n, _)| n > 0).count();
    assert_eq!(readers, 2, "executors' reads: {per_executor:?}");
    let out = Command::new(util::tg_sql())
        .env("TG_INDEX_DIR", fx.index_dir())
        .env("RUST_LOG", "trigrep_sql=info")
        .args(["--format", "json", "--partitions", "4", &queries[0]])
        .output()
        .unwrap();
    let embedded_reads = reads(&String::from_utf8_lossy(&out.stderr));
    let together = per_executor.iter().fold((0, 0), |a, r| (a.0 + r.0, a.1 + r.1));
    assert_eq!(together, embedded_reads, "executors {per_executor:?}, embedded {embedded_reads:?}");
    assert!(together.0 * 4 < together.1, "the needle read {} of {} frames", together.0, together.1);
    assert_eq!(answer(&fx, &queries[4], &[]), answer(&fx, "SELECT 4 AS n", &[]), "a backslash");
    for q in &queries[1..] {
        let embedded = answer(&fx, q, &[]);
        assert!(!embedded.is_empty(), "{q}: no rows");
        let distributed = answer(&fx, q, &["--scheduler", &remote]);
        assert_eq!(distributed.len(), embedded.len(), "{q}");
        assert_eq!(distributed, embedded, "{q}");
    }
}

#[test]
fn issue_0028_an_executor_killed_mid_query_never_gives_a_partial_answer() {
    let fx = Fixture::new();
    let dir = packed_logs(&fx, 8);
    let query = format!(
        "SELECT count(*) AS n FROM lines('{}') WHERE line LIKE '%status=500%'",
        dir.display()
    );
    let embedded = answer(&fx, &query, &[]);
    // Each unit (a packed log) takes the executors 1.5 s: the query lasts
    // long enough to kill one of them while it reads.
    let (mut cluster, scheduler) = Cluster::start(&fx, &[("TG_SQL_TEST_UNIT_DELAY_MS", "1500")]);
    let remote = format!("127.0.0.1:{scheduler}");
    let client = Command::new(util::tg_sql())
        .args(["--format", "json", "--partitions", "8", "--scheduler", &remote, &query])
        .env("TG_INDEX_DIR", fx.index_dir())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let victim = &cluster.logs[1];
    while !std::fs::read_to_string(victim).unwrap().contains(" units") {
        assert!(started.elapsed() < Duration::from_secs(60), "executor1 never read");
        std::thread::sleep(Duration::from_millis(50));
    }
    cluster.children[1].kill().unwrap();
    cluster.children[1].wait().unwrap();
    // The client must end (Ballista declares the executor lost after 20 s
    // without a heartbeat), with the right answer or an error.
    let client = Killed(Some(client));
    let out = client.wait(Duration::from_secs(240));
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => {
            let mut got: Vec<String> =
                String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect();
            got.sort();
            assert_eq!(got, embedded, "a retried query answered otherwise: {stderr}");
            eprintln!("retried: the right answer after {:?}", started.elapsed());
        }
        Some(2) => {
            assert!(stderr.starts_with("tg: sql: ") && stderr.lines().count() == 1, "{stderr}");
            eprintln!("failed as it must: {stderr}");
        }
        other => panic!("exit {other:?}: {stderr}"),
    }
}

/// A child process killed if the test ends before it does.
struct Killed(Option<Child>);

impl Killed {
    /// Its output, once it ends within `limit` (else the test fails).
    fn wait(mut self, limit: Duration) -> std::process::Output {
        let started = Instant::now();
        let child = self.0.as_mut().unwrap();
        while child.try_wait().unwrap().is_none() {
            assert!(started.elapsed() < limit, "the client still runs after {limit:?}");
            std::thread::sleep(Duration::from_millis(100));
        }
        self.0.take().unwrap().wait_with_output().unwrap()
    }
}

impl Drop for Killed {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
