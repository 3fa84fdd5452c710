//! `lines()`'s `time` and `level` columns give every line the
//! time and level `tg view` reads (a continuation line the time of the
//! last line before it with one), on every kind of input, through every
//! path: twelve logs of every timestamp format, plain, `.gz` with and
//! without the index of its text, packed, `.bz2`, and a block-indexed
//! log that grew after its index, with long continuation runs crossing
//! blocks; embedded, with and without pushdown, through a warm server
//! and on a Ballista cluster, each line against the reference the test
//! computed as it wrote the logs. Without the times an index records
//! per block, no block is skipped by time unless the table says its
//! times go up.

mod util;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use util::Fixture;
use util::cluster::Cluster;
use util::served::Served;
use util::stamped::{self, LOGS, Log, Want};

/// Sets the modification time of `path`.
fn set_modified(path: &Path, t: std::time::SystemTime) {
    std::fs::File::options().write(true).open(path).unwrap().set_modified(t).unwrap();
}

/// The fixture's logs under `logs/`: each of [`LOGS`] plain, gzipped
/// (with and without an index of its text), packed and bzipped, and a
/// block-indexed log (also packed and gzipped with an index) that grew
/// after its index: each file's path and what its lines should read as.
fn logs(fx: &Fixture) -> BTreeMap<String, Vec<Want>> {
    let mut all = BTreeMap::new();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let mut add = |name: &str, log: Log, modified: Option<std::time::SystemTime>| {
        let plain = fx.write(&format!("logs/plain/{name}.log"), &log.text);
        let gz = fx.write(&format!("logs/gzi/{name}.log"), &log.text);
        let packed = fx.path(&format!("logs/packed/{name}.log.zst"));
        fx.pack(&plain, &packed);
        util::run("gzip", &["-n", "-k", &s(&gz)]);
        std::fs::create_dir_all(fx.path("logs/gz")).unwrap();
        let (gzi, gz) = (gz.with_extension("log.gz"), fx.path(&format!("logs/gz/{name}.log.gz")));
        std::fs::copy(&gzi, &gz).unwrap();
        std::fs::remove_file(gzi.with_extension("")).unwrap();
        let bz2 = fx.write(&format!("logs/bz2/{name}.log"), &log.text);
        util::run("bzip2", &[&s(&bz2)]);
        let bz2 = bz2.with_extension("log.bz2");
        let files = [plain, gz, gzi.clone(), packed, bz2];
        if let Some(t) = modified {
            files.iter().for_each(|f| set_modified(f, t));
        }
        fx.tg(&["index", "-q", "--block-size", "4K", "--access-spacing", "64K", &s(&gzi)]);
        for f in files {
            all.insert(s(&f), log.want.clone());
        }
    };
    for (i, name) in LOGS.iter().enumerate() {
        let modified = (*name == "syslog").then(stamped::syslog_modified);
        add(name, stamped::generate(name, 1500, i as u64 + 1), modified);
    }
    // Over 1 MiB, continuation runs of 150 KB: parts of the text start
    // deep inside one and must look back past many blocks.
    add("big", stamped::java_with_long_runs(1_500_000, 150_000, 99), None);
    let mut big = stamped::java_with_long_runs(1_500_000, 150_000, 99);
    let huge = fx.write("logs/huge/big.log", &big.text);
    fx.tg(&["index", "-q", "--block-size", "4K", &s(&huge)]);
    // It grows: continuation lines first (they carry the indexed part's
    // last time), then more lines.
    let more = stamped::java_with_long_runs(200_000, 50_000, 100);
    let len = big.text.len();
    for _ in 0..3 {
        big.bare("\tat com.example.Grown.frame(Grown.java:1) ~k3~", None);
    }
    std::fs::OpenOptions::new()
        .append(true)
        .open(&huge)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &big.text[len..]))
        .unwrap();
    let mut grown = std::fs::OpenOptions::new().append(true).open(&huge).unwrap();
    std::io::Write::write_all(&mut grown, &more.text).unwrap();
    big.want.extend(more.want);
    all.insert(s(&huge), big.want);
    all
}

/// The rows of `query`'s JSON lines: (path, line number) → (time, level).
fn rows(lines: &str, query: &str) -> BTreeMap<(String, u64), Want> {
    let mut rows = BTreeMap::new();
    for l in lines.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        let key = (v["path"].as_str().unwrap().to_string(), v["line_number"].as_u64().unwrap());
        let level = v["level"].as_str().map(|l| &*String::leak(l.to_string()));
        let dup = rows.insert(key.clone(), (v["t"].as_i64(), level));
        assert!(dup.is_none(), "{query}: {key:?} twice");
    }
    rows
}

/// How the rows of `query` (`what` names the path) differ from what the
/// logs should read as, for the lines holding `token` (every line: `None`).
fn differences(
    what: &str,
    got: &BTreeMap<(String, u64), Want>,
    logs: &BTreeMap<String, Vec<Want>>,
    token: Option<&str>,
) -> Vec<String> {
    let mut failures = Vec::new();
    for (path, wants) in logs {
        // The lines as written, to pick those holding the token.
        let text = std::fs::read(plain_of(path)).unwrap();
        let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        let mut wrong = 0;
        for (i, want) in wants.iter().enumerate() {
            let key = (path.clone(), i as u64 + 1);
            let picked =
                token.is_none_or(|tok| memchr::memmem::find(lines[i], tok.as_bytes()).is_some());
            match (picked, got.get(&key)) {
                (true, Some(row)) if row == want => {}
                (false, None) => {}
                (picked, row) => {
                    wrong += 1;
                    if wrong <= 3 {
                        failures.push(format!(
                            "{what}: {path}:{}: {row:?}, want {want:?} (picked {picked})",
                            i + 1
                        ));
                    }
                }
            }
        }
    }
    let known = |k: &(String, u64)| logs.get(&k.0).is_some_and(|w| k.1 as usize <= w.len());
    if let Some(k) = got.keys().find(|k| !known(k)) {
        failures.push(format!("{what}: a row of no line: {k:?}"));
    }
    failures
}

/// The plain file holding the text of the file at `path`.
fn plain_of(path: &str) -> String {
    let mut plain = path.to_string();
    for dir in ["/gzi/", "/gz/", "/bz2/", "/packed/"] {
        plain = plain.replace(dir, "/plain/");
    }
    let plain = plain.trim_end_matches(".gz").trim_end_matches(".zst").trim_end_matches(".bz2");
    plain.to_string()
}

/// `tg-sql ARGS` in the fixture: its stdout (it must succeed) and stderr.
fn sql(fx: &Fixture, args: &[&str], log: &str) -> (String, String) {
    let out = Command::new(util::tg_sql())
        .args(args)
        .env("TG_INDEX_DIR", fx.index_dir())
        .env("RUST_LOG", log)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {stderr}");
    (String::from_utf8(out.stdout).unwrap(), stderr)
}

/// The query of every line's time (in ms) and level under `root`.
fn query(root: &Path, cond: &str) -> String {
    let root = root.display();
    format!(
        "SELECT path, line_number, CAST(time AS BIGINT) AS t, level FROM lines('{root}') WHERE {cond}"
    )
}

#[test]
fn issue_0035_every_line_has_the_time_and_level_tg_view_reads_on_every_path() {
    let fx = Fixture::new();
    let logs = logs(&fx);
    let root = fx.path("logs");
    let server = Served::start(&fx);
    let mut failures = Vec::new();
    for (cond, token) in [("true", None), ("line LIKE '%~k3~%'", Some("~k3~"))] {
        let q = query(&root, cond);
        // Pushed down, not, and in one partition (every line of every
        // file: no condition, nothing to push down).
        let p4 = ["--partitions", "4"];
        let ways: [&[&str]; 3] =
            [&p4, &["--no-pushdown", "--partitions", "4"], &["--partitions", "1"]];
        for &extra in &ways[..if token.is_some() { 3 } else { 1 }] {
            let head: &[&str] = &["--format", "json"];
            let args = [head, extra, &[&q[..]]].concat();
            let (out, _) = sql(&fx, &args, "warn");
            let what = format!("{extra:?} {cond}");
            failures.extend(differences(&what, &rows(&out, &q), &logs, token));
        }
        let out = server.query(&fx, fx.dir.path(), &["--format", "json", &q]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "served {q}: {stderr}");
        let got = rows(&String::from_utf8(out.stdout).unwrap(), &q);
        failures.extend(differences(&format!("served {cond}"), &got, &logs, token));
    }
    assert_eq!(server.answered(), 2, "not every query was served");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The issue's query: errors by the hour, against the reference.
    let syslog = fx.path("logs/packed/syslog.log.zst");
    let q = format!(
        "SELECT CAST(date_trunc('hour', time) AS BIGINT) AS h, count(*) AS n \
         FROM lines('{}') WHERE level = 'ERROR' GROUP BY 1 ORDER BY 1",
        syslog.display()
    );
    let mut want = BTreeMap::new();
    for (t, level) in &logs[syslog.to_str().unwrap()] {
        if *level == Some("ERROR") {
            *want.entry(t.unwrap().div_euclid(3_600_000) * 3_600_000).or_insert(0) += 1;
        }
    }
    let (out, _) = sql(&fx, &["--format", "json", &q], "warn");
    let got: BTreeMap<i64, u64> = out
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| (v["h"].as_i64().unwrap(), v["n"].as_u64().unwrap()))
        .collect();
    assert!(want.len() > 5, "{want:?}");
    assert_eq!(got, want);
}

#[test]
fn issue_0035_a_cluster_reads_the_same_times_and_levels() {
    let fx = Fixture::new();
    let logs = logs(&fx);
    let root = fx.path("logs");
    let cluster = Cluster::start(&fx, &[]);
    let remote = cluster.address();
    let mut failures = Vec::new();
    for (cond, token) in [("true", None), ("line LIKE '%~k3~%'", Some("~k3~"))] {
        let q = query(&root, cond);
        let args = ["--format", "json", "--partitions", "4", "--scheduler", &remote, &q];
        let (out, _) = sql(&fx, &args, "warn");
        failures.extend(differences(&format!("cluster {cond}"), &rows(&out, &q), &logs, token));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `ms` as a literal SQL reads as a time.
fn at(ms: i64) -> String {
    format!("'{}.{:03}Z'", stamped::iso(ms, 'T'), ms.rem_euclid(1000))
}

#[test]
fn a_line_written_late_is_never_lost_by_default() {
    let fx = Fixture::new();
    let log = stamped::late_in_every_block(300);
    let path = fx.write("late.log", &log.text);
    let p = path.to_str().unwrap();
    fx.tg(&["index", "-q", "--block-size", "4K", p]);
    // The fourth line of block 100, written 15 ms late: its time is
    // before that of its block's first line, and no other line's.
    let late = 100 * 64 + 3;
    let t = log.want[late].0.unwrap();
    assert!(t < log.want[100 * 64].0.unwrap());
    assert_eq!(log.want.iter().filter(|w| w.0 == Some(t)).count(), 1);
    let row = |table: &str| {
        let q = format!(
            "SELECT line_number, CAST(time AS BIGINT) AS t, line FROM {table} \
             WHERE time BETWEEN {} AND {}",
            at(t),
            at(t)
        );
        let (out, _) = sql(&fx, &["--format", "json", "--partitions", "4", &q], "warn");
        out.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).collect::<Vec<_>>()
    };
    let text = String::from_utf8(log.text.clone()).unwrap();
    let line = text.lines().nth(late).unwrap();
    let want = serde_json::json!({"line_number": late + 1, "t": t, "line": line});
    assert_eq!(row(&format!("lines('{p}')")), std::slice::from_ref(&want));
    // The index recorded each block's times: a false promise that times
    // go up costs nothing.
    assert_eq!(row(&format!("lines('{p}', 'times=ascending')")), std::slice::from_ref(&want));
    // An index as an older tg wrote it has none: told that times go up
    // (which they do not), the table skips the block, what the promise
    // costs when it is false; without the promise the row is there.
    assert_eq!(util::forget_times(&fx), 1);
    assert_eq!(row(&format!("lines('{p}', 'times=ascending')")), Vec::<Value>::new());
    assert_eq!(row(&format!("lines('{p}')")), [want]);
}

#[test]
fn issue_0035_ascending_times_bisect_blocks_and_keep_every_row() {
    let fx = Fixture::new();
    let log = stamped::java_with_long_runs(1_500_000, 150_000, 5);
    let path = fx.write("up.log", &log.text);
    let p = path.to_str().unwrap();
    fx.tg(&["index", "-q", "--block-size", "4K", p]);
    // Blocks are bisected for an index without recorded times (an older
    // tg's; with them, tests/pruned_by_time.rs).
    assert_eq!(util::forget_times(&fx), 1);
    // A range beginning inside the long continuation run and one
    // starting before the log and ending in it.
    let times: Vec<i64> = log.want.iter().map(|w| w.0.unwrap()).collect();
    let run = (0..log.want.len()).find(|&i| log.want[i..i + 1000].iter().all(|w| w.1.is_none()));
    let run = run.unwrap();
    let mid = times.len() / 2;
    for (lo, hi) in [(times[mid], times[mid + 500]), (times[0] - 1000, times[run + 10])] {
        let cond = format!("time BETWEEN {} AND {}", at(lo), at(hi));
        let want = times.iter().filter(|&&t| t >= lo && t <= hi).count();
        let q = |opt: &str| format!("SELECT count(*) AS n FROM lines('{p}'{opt}) WHERE {cond}");
        let (any, _) = sql(&fx, &["--format", "csv", &q("")], "warn");
        assert_eq!(any, format!("n\n{want}\n"), "{cond}");
        let up_q = q(", 'times=ascending'");
        let (up, stderr) = sql(&fx, &["--format", "csv", &up_q], "trigrep_sql=info");
        assert_eq!(up, any, "{cond}");
        let said = stderr.lines().find(|l| l.contains("times in order: blocks")).unwrap_or("");
        let w: Vec<&str> = said.split_whitespace().collect();
        let pos = w.iter().position(|x| *x == "blocks").expect(&stderr);
        let (range, of) = (w[pos + 1], w[pos + 3].parse::<usize>().unwrap());
        let (a, b) = range.split_once("..").unwrap();
        let kept = b.parse::<usize>().unwrap() - a.parse::<usize>().unwrap();
        assert!(kept * 4 < of, "{cond}: kept {kept} of {of} blocks");
    }
    let bad = sql_err(&fx, &format!("SELECT 1 FROM lines('{p}', 'times=up')"));
    assert!(bad.contains("'times=ascending'"), "{bad}");
}

/// The one line a failing query prints.
fn sql_err(fx: &Fixture, q: &str) -> String {
    let out = fx.sql_output(&[q]);
    assert_eq!(out.status.code(), Some(2));
    String::from_utf8_lossy(&out.stderr).into_owned()
}
