//! A failed query is one `tg: sql:` line naming the cause in terms of the
//! query, exit 2, embedded and on a Ballista cluster: an invalid regex
//! (simplified away by DataFusion's optimizer, or compiled by a function
//! as rows arrive, from the query's text or from the rows themselves),
//! and a failure on an executor (a damaged packed file, a `.gz` cut
//! short) that comes back with its reason. Without `--verbose` no log line of
//! DataFusion or Ballista stands beside it; with it, the whole chain of
//! causes follows the line.

mod util;

use std::process::Output;

use util::Fixture;
use util::cluster::Cluster;

/// `tg-sql ARGS` as a user runs it: no `RUST_LOG` of the test's.
fn run(fx: &Fixture, args: &[&str]) -> Output {
    std::process::Command::new(util::tg_sql())
        .args(args)
        .env("TG_INDEX_DIR", fx.index_dir())
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

/// The one `tg: sql:` line a failed run printed (it must have failed so).
fn one_line(out: &Output, what: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert!(out.stdout.is_empty(), "{what}: {}", String::from_utf8_lossy(&out.stdout));
    assert!(err.starts_with("tg: sql: ") && err.lines().count() == 1, "{what}: {err}");
    err.trim_end().to_string()
}

/// A cluster and the `--scheduler` flag of a query sent to it.
fn cluster(fx: &Fixture) -> (Cluster, String) {
    let cluster = Cluster::start(fx, &[]);
    let addr = cluster.address();
    (cluster, addr)
}

#[test]
fn issue_0039_a_bad_regex_is_one_line_about_the_regex_embedded_and_on_a_cluster() {
    let fx = Fixture::new();
    let log = fx.write("app.log", b"vol-1a2b ok\nvol-3c4d failed\n");
    let t = format!("lines('{}')", log.display());
    let simplified = format!(r"SELECT count(*) FROM {t} WHERE line ~ 'vol-(\w'");
    let compiled = format!(r"SELECT regexp_match(line, 'vol-(\w') FROM {t}");
    let (_cluster, remote) = cluster(&fx);
    for query in [&simplified, &compiled] {
        for extra in [&[][..], &["--scheduler", &remote]] {
            let mut args = extra.to_vec();
            args.push(query);
            let line = one_line(&run(&fx, &args), &format!("{extra:?} {query}"));
            assert_eq!(
                line, r"tg: sql: invalid regex 'vol-(\w': unclosed group",
                "{extra:?} {query}"
            );
        }
    }
    // --verbose: the same line first, then the chain DataFusion gave
    // (here arrow's: the regex operators reach it, not the simplifier).
    let out = run(&fx, &["--verbose", &simplified]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("tg: sql: invalid regex 'vol-(\\w': unclosed group\n"), "{err}");
    assert!(err.contains("regex parse error"), "{err}");
}

#[test]
fn issue_0039_an_executor_failure_reaches_the_client_with_its_reason() {
    let fx = Fixture::new();
    let text = util::log_text(3_000, 7);
    let log = fx.write("text/app.log", &text);
    let packed = fx.path("packed/app.log.zst");
    fx.pack(&log, &packed);
    // Damage one byte in the middle of the frames: the container check
    // fails where the file is opened, on an executor.
    let mut bytes = std::fs::read(&packed).unwrap();
    let middle = bytes.len() / 3;
    bytes[middle] ^= 0x55;
    std::fs::write(&packed, &bytes).unwrap();
    let query = format!(
        "SELECT count(*) FROM lines('{}') WHERE line LIKE '%status=500%'",
        packed.display()
    );
    let embedded = one_line(&run(&fx, &[&query]), "embedded");
    let path = packed.display().to_string();
    assert!(embedded.starts_with(&format!("tg: sql: {path}: ")), "{embedded}");
    let (_cluster, remote) = cluster(&fx);
    let distributed = one_line(&run(&fx, &["--scheduler", &remote, &query]), "cluster");
    assert!(distributed.starts_with(&format!("tg: sql: {path}: ")), "{distributed}");
    assert!(!distributed.contains("could not be prepared"), "{distributed}");
}

#[test]
fn issue_0039_a_file_an_executor_cannot_read_and_a_regex_failing_at_execution_are_one_line() {
    let fx = Fixture::new();
    // A .gz cut short: read (decompressed) where a task reads it.
    let text = util::log_text(2_000, 3);
    let mut gz = gzipped(&fx, &text);
    gz.truncate(gz.len() / 2);
    let cut = fx.write("cut/app.log.gz", &gz);
    let unreadable = format!("SELECT count(*) FROM lines('{}')", cut.display());
    // A pattern taken from the rows: compiled, and failing, as rows arrive.
    let patterns = fx.write("patterns.txt", b"ok\nvol-(\\w\n");
    let from_rows = format!(
        "SELECT count(*) FROM lines('{}') WHERE regexp_like('vol-1', line)",
        patterns.display()
    );
    let (_cluster, remote) = cluster(&fx);
    let path = cut.display().to_string();
    for extra in [&[][..], &["--scheduler", &remote]] {
        let mut args = extra.to_vec();
        args.push(&unreadable);
        let line = one_line(&run(&fx, &args), &format!("{extra:?} {unreadable}"));
        assert!(line.starts_with(&format!("tg: sql: {path}: ")), "{extra:?}: {line}");
        assert!(line.ends_with(": unexpected end of file"), "{extra:?}: {line}");
        assert!(!line.contains("---"), "{extra:?}: {line}");
        let mut args = extra.to_vec();
        args.push(&from_rows);
        let line = one_line(&run(&fx, &args), &format!("{extra:?} {from_rows}"));
        assert_eq!(line, r"tg: sql: invalid regex 'vol-(\w': unclosed group", "{extra:?}");
    }
}

/// `text` gzipped by the system's `gzip`.
fn gzipped(fx: &Fixture, text: &[u8]) -> Vec<u8> {
    let plain = fx.write("gzip-input", text);
    let out = std::process::Command::new("gzip").arg("-c").arg(&plain).output().unwrap();
    assert!(out.status.success(), "gzip: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}
