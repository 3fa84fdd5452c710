//! `lines()`'s `host` column: the host a BSD syslog line names (the word
//! after its time, lnav's `log_hostname`), null on a line that names
//! none (a continuation, a line whose word after the time is the
//! program's tag) and on every line of a text of another format. Each
//! line against the host the test wrote, on every kind of input (plain
//! and read through the searcher, huge with a block index, `.gz` with
//! and without its index, packed, `.bz2`), with and without pushdown,
//! in one partition and in four, and on a Ballista cluster; and the
//! aggregates users write on it (`count(DISTINCT host)`, `GROUP BY host`)
//! against the test's counts.

mod util;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use util::Fixture;
use util::cluster::Cluster;

/// The host each line names (`None`: it names none), one per line.
type Hosts = Vec<Option<String>>;

/// A syslog log of about `lines` lines, written by many hosts (plain
/// names, dotted ones, addresses, one not ASCII), with `<PRI>` prefixes,
/// fractions of a second, lines naming no host, continuation lines and a
/// token (`~kN~`) on some lines: its text and each line's host.
fn syslog(lines: usize, seed: u64) -> (Vec<u8>, Hosts) {
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut below = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let names = |i: u64| match i % 6 {
        0 => format!("web-{i:02}"),
        1 => format!("db{i}.example.org"),
        2 => format!("10.0.{i}.7"),
        3 => format!("höst-{i}"),
        4 => format!("fe80::{i}"),
        _ => format!("cache_{i}"),
    };
    let (mut text, mut hosts) = (Vec::new(), Vec::new());
    let mut line = |l: String, host: Option<String>| {
        text.extend_from_slice(l.as_bytes());
        text.push(b'\n');
        hosts.push(host);
    };
    for i in 0..lines {
        let (d, s) = (1 + i / 20_000, i % 86_400);
        let stamp = format!("Jan {d:>2} {:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
        let host = names(below(37));
        let tok = format!("~k{}~", below(7));
        match below(10) {
            0 => line(format!("<13>{stamp} {host} app[{i}]: pri {tok}"), Some(host)),
            1 => line(format!("{stamp}.{:03} {host} app: frac {tok}", i % 1000), Some(host)),
            // The program's tag where the host would be: no host.
            2 => line(format!("{stamp} sshd[{i}]: no host {tok}"), None),
            // Two spaces after the time: no word, no host.
            3 => line(format!("{stamp}  {host} odd {tok}"), None),
            4 => {
                line(format!("{stamp} {host} kernel: trace {tok}"), Some(host.clone()));
                for k in 0..below(4) {
                    line(format!("    at frame {k} {host} {tok}"), None);
                }
            }
            _ => line(format!("{stamp} {host} cron[{i}]: job {i} {tok}"), Some(host)),
        }
    }
    // The last line names its host and nothing after it: no host.
    line("Jan 30 00:00:00 lonely".into(), None);
    (text, hosts)
}

/// The fixture's logs under `logs/`: the syslog log of `lines` lines
/// plain, gzipped with and without an index, packed, bzipped, and huge
/// with a block index, and an ISO log (no hosts): each file's path and
/// its lines' hosts.
fn logs(fx: &Fixture, lines: usize) -> BTreeMap<String, Hosts> {
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let mut all = BTreeMap::new();
    let (text, hosts) = syslog(lines, 3);
    let plain = fx.write("logs/plain/sys.log", &text);
    fx.pack(&plain, &fx.path("logs/packed/sys.log.zst"));
    all.insert(s(&fx.path("logs/packed/sys.log.zst")), hosts.clone());
    for (dir, program) in [("gz", "gzip"), ("gzi", "gzip"), ("bz2", "bzip2")] {
        let f = fx.write(&format!("logs/{dir}/sys.log"), &text);
        util::run(program, &["-k", &s(&f)]);
        std::fs::remove_file(&f).unwrap();
        let ext = if program == "gzip" { "log.gz" } else { "log.bz2" };
        all.insert(s(&f.with_extension(ext)), hosts.clone());
    }
    let gzi = fx.path("logs/gzi/sys.log.gz");
    fx.tg(&["index", "-q", "--block-size", "4K", "--access-spacing", "64K", &s(&gzi)]);
    all.insert(s(&plain), hosts);
    // Over 1 MiB with a block index: read by spans, in parts.
    let (big, big_hosts) = syslog(30_000, 4);
    assert!(big.len() > 1 << 20);
    let huge = fx.write("logs/huge/sys.log", &big);
    fx.tg(&["index", "-q", "--block-size", "4K", &s(&huge)]);
    all.insert(s(&huge), big_hosts);
    let iso: String =
        (0..500).map(|i| format!("2026-01-03 10:00:{:02} web-1 x: {i}\n", i % 60)).collect();
    let f = fx.write("logs/plain/iso.log", iso.as_bytes());
    all.insert(s(&f), vec![None; 500]);
    all
}

/// The `(path, line number) → host` of the JSON rows `out`.
fn rows(out: &[serde_json::Value]) -> BTreeMap<(String, u64), Option<String>> {
    let mut rows = BTreeMap::new();
    for v in out {
        let key = (v["path"].as_str().unwrap().to_string(), v["line_number"].as_u64().unwrap());
        let dup = rows.insert(key.clone(), v["host"].as_str().map(str::to_string));
        assert!(dup.is_none(), "{key:?} twice");
    }
    rows
}

/// What the rows of the lines holding `token` (every line: `None`)
/// should be.
fn want(
    logs: &BTreeMap<String, Hosts>,
    token: Option<&str>,
) -> BTreeMap<(String, u64), Option<String>> {
    let mut want = BTreeMap::new();
    for (path, hosts) in logs {
        let plain = path.replace("/gzi/", "/plain/").replace("/gz/", "/plain/");
        let plain = plain.replace("/bz2/", "/plain/").replace("/packed/", "/plain/");
        let plain = plain.trim_end_matches(".gz").trim_end_matches(".bz2").trim_end_matches(".zst");
        let text = std::fs::read(plain).unwrap();
        for (i, line) in text.split(|&b| b == b'\n').take(hosts.len()).enumerate() {
            if token.is_none_or(|t| memchr::memmem::find(line, t.as_bytes()).is_some()) {
                want.insert((path.clone(), i as u64 + 1), hosts[i].clone());
            }
        }
    }
    want
}

/// The first few lines whose host `got` gives wrong, with `what`.
fn check(
    what: &str,
    got: &BTreeMap<(String, u64), Option<String>>,
    want: &BTreeMap<(String, u64), Option<String>>,
) {
    let wrong: Vec<String> = want
        .iter()
        .filter(|(k, w)| got.get(k) != Some(w))
        .map(|(k, w)| format!("{k:?}: {:?}, want {w:?}", got.get(k)))
        .chain(got.keys().filter(|k| !want.contains_key(k)).map(|k| format!("{k:?}: no such row")))
        .take(5)
        .collect();
    assert!(wrong.is_empty(), "{what}:\n{}", wrong.join("\n"));
}

#[test]
fn every_line_has_the_host_its_syslog_header_names_on_every_path() {
    let fx = Fixture::new();
    let logs = logs(&fx, 4000);
    let root = fx.path("logs");
    for (cond, token) in [("true", None), ("line LIKE '%~k3~%'", Some("~k3~"))] {
        let q =
            format!("SELECT path, line_number, host FROM lines('{}') WHERE {cond}", root.display());
        let want = want(&logs, token);
        assert!(want.values().filter(|h| h.is_some()).count() > 1000);
        let ways: [&[&str]; 3] = [
            &["--partitions", "4"],
            &["--no-pushdown", "--partitions", "4"],
            &["--partitions", "1"],
        ];
        for extra in ways {
            check(&format!("{extra:?} {cond}"), &rows(&fx.sql_json(&q, extra)), &want);
        }
    }
}

#[test]
fn count_distinct_and_group_by_host_count_what_the_lines_name() {
    let fx = Fixture::new();
    let logs = logs(&fx, 3000);
    let root = fx.path("logs");
    // Per file: how many hosts, and how many lines each.
    let mut per_file: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for (path, hosts) in &logs {
        let counts = per_file.entry(path.clone()).or_default();
        for h in hosts.iter().flatten() {
            *counts.entry(h.clone()).or_default() += 1;
        }
    }
    let distinct = per_file.values().flat_map(|c| c.keys()).collect::<BTreeSet<_>>().len();
    per_file.retain(|_, c| !c.is_empty());
    let q = format!("SELECT count(DISTINCT host) AS n FROM lines('{}')", root.display());
    let grouped = format!(
        "SELECT path, host, count(*) AS n FROM lines('{}') WHERE host IS NOT NULL GROUP BY path, host",
        root.display()
    );
    let cluster = Cluster::start(&fx, &[]);
    let remote = cluster.address();
    let ways: [&[&str]; 3] =
        [&["--partitions", "4"], &["--partitions", "1"], &["--scheduler", &remote]];
    for extra in ways {
        let n = fx.sql_json(&q, extra)[0]["n"].as_u64().unwrap();
        assert_eq!(n as usize, distinct, "{extra:?} {q}");
        let mut got: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        for v in fx.sql_json(&grouped, extra) {
            let (path, host) = (v["path"].as_str().unwrap(), v["host"].as_str().unwrap());
            let counts = got.entry(path.to_string()).or_default();
            assert!(counts.insert(host.to_string(), v["n"].as_u64().unwrap()).is_none());
        }
        assert_eq!(got, per_file, "{extra:?} {grouped}");
    }
    // The cluster's rows, line by line.
    let q = format!("SELECT path, line_number, host FROM lines('{}')", root.display());
    check("cluster", &rows(&fx.sql_json(&q, &["--scheduler", &remote])), &want(&logs, None));
}
