//! Issue 28: one Ballista scheduler and two executors (`tg-sql scheduler`,
//! `tg-sql executor`) on loopback, over a directory of packed logs: the
//! distributed answers equal the embedded ones, and the executors read
//! exactly the candidate frames the embedded run read (their logs say
//! which), both of them reading; an executor killed in the middle of a
//! query gives an error or the right answer, never a partial one.

mod util;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use util::Fixture;
use util::cluster::Cluster;

/// The frames the executors' logs say they read: (read, of).
fn frames_read(cluster: &Cluster) -> Vec<(usize, usize)> {
    cluster.logs[1..]
        .iter()
        .map(|log| {
            let text = std::fs::read_to_string(log).unwrap();
            reads(&text)
        })
        .collect()
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
    answer_in(fx, fx.dir.path(), query, extra)
}

/// [`answer`], the client working in `cwd`.
fn answer_in(fx: &Fixture, cwd: &Path, query: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["--format", "json", "--partitions", "4"];
    args.extend_from_slice(extra);
    args.push(query);
    let out = Command::new(util::tg_sql())
        .args(&args)
        .current_dir(cwd)
        .env("TG_INDEX_DIR", fx.index_dir())
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
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
        fx.pack(&log, &fx.path(&format!("packed/app{i}.log.zst")));
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
            "SELECT substr(line, 12, 5) AS lvl, count(*) AS n FROM {table} \
             WHERE line LIKE '%status=500%' GROUP BY lvl ORDER BY lvl"
        ),
        format!("SELECT count(*) AS n FROM {table}"),
        // A backslash: the scheduler plans it as the embedded engine does.
        format!(r"SELECT count(*) AS n FROM {table} WHERE line ~ 'C:\\app[0-9]\\out$'"),
    ];
    let cluster = Cluster::start(&fx, &[]);
    let remote = cluster.address();
    // The needle first, alone: the executors' logs then hold its reads.
    let embedded = answer(&fx, &queries[0], &[]);
    assert!(!embedded.is_empty(), "no needle found");
    let distributed = answer(&fx, &queries[0], &["--scheduler", &remote]);
    assert_eq!(distributed.len(), embedded.len(), "{}", queries[0]);
    assert_eq!(distributed, embedded, "{}", queries[0]);
    let per_executor = frames_read(&cluster);
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
    let mut cluster = Cluster::start(&fx, &[("TG_SQL_TEST_UNIT_DELAY_MS", "1500")]);
    let remote = cluster.address();
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

/// Issue 39: a relative path means what it means to the client. The
/// scheduler and executors work in another directory, which holds a
/// decoy of the same name; they read the client's files, every kind of
/// them (compressed ones as their text, as rg -z reads them), and the
/// answers are the embedded ones, rows named as the client named them.
#[test]
fn issue_0039_a_cluster_reads_the_clients_relative_paths() {
    let fx = Fixture::new();
    let kinds = util::kinds(&fx, "work/kinds", true);
    fx.write("elsewhere/kinds/plain.log", b"a decoy zebracorn\n");
    fx.write("elsewhere/kinds/t.log.gz", b"a decoy zebracorn, not gzip\n");
    let (work, elsewhere) = (fx.path("work"), fx.path("elsewhere"));
    let cluster = Cluster::start_in(&fx, &[], &elsewhere);
    let remote = cluster.address();
    let prefix = format!("{}/", work.display());
    let relative = |p: &str| p.strip_prefix(&prefix).unwrap().to_string();
    let needles = util::rg_rows(&["-z", "-F", "XYZZY-MARK"], &[&kinds], &relative);
    assert_eq!(needles.len(), 10, "{needles:?}");
    let queries = [
        "SELECT path, line_number, line FROM lines('kinds') WHERE line LIKE '%XYZZY-MARK%'",
        "SELECT path, line_number, line FROM lines('./kinds/*') WHERE line ~ 'XYZZY-MARK'",
        "SELECT path, count(*) AS n FROM lines('kinds') GROUP BY path",
        "SELECT count(*) AS n FROM lines('kinds/t.log.gz', 'kinds/p.log.zst')",
        "SELECT count(*) AS n FROM k WHERE line LIKE '%XYZZY-MARK%'",
    ];
    for (i, q) in queries.iter().enumerate() {
        let table = ["--table", "k=kinds"];
        let embedded = answer_in(&fx, &work, q, &table);
        if i == 0 {
            let rows = util::json_rows(embedded.iter().map(String::as_str));
            assert_eq!(rows, needles, "embedded: {q}");
        }
        let distributed =
            answer_in(&fx, &work, q, &[&table[..], &["--scheduler", remote.as_str()]].concat());
        assert_eq!(distributed, embedded, "{q}");
    }
}
