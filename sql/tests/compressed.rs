//! Issue 39: a file's rows do not depend on whether it has an index, nor
//! on which path answers. Every kind of file a table reads (plain, huge
//! with a block index, `.gz` with and without the index of its text, a
//! packed `.zst`, plain `.zst`, `.bz2`, `.xz` and `.lz4`, a binary file)
//! and a directory of them all gives the rows `rg -z` gives, and with
//! `'compression=none'` the rows `rg` gives without `-z`: without any
//! index, with every index `tg index` makes, and through a warm server;
//! a binary file is said once on stderr, never silently few rows.

mod util;

use std::path::Path;
use std::process::{Command, Output};

use util::served::Served;
use util::{Fixture, Row, rg_rows, rows_of};

/// Whether `stderr`, of a query over a kinds directory reading every
/// file (`all`) or not, is the one line that names its binary files: the
/// binary file, and when bytes are read (`raw`) the compressed files too
/// (those read: a tree index rules out those a condition cannot match).
fn says_binary(stderr: &str, raw: bool, all: bool) -> bool {
    let one = stderr.lines().count() == 1 && stderr.starts_with("tg: sql: warning: ");
    let files = match (raw, all) {
        (false, _) => stderr.contains("bin.dat is binary (a NUL byte at offset"),
        (true, true) => stderr.contains(" 8 files are binary") && stderr.contains("and 3 more"),
        (true, false) => stderr.contains(" files are binary") && stderr.contains("bin.dat"),
    };
    one && files
}

/// Runs `query` (JSON lines) cold and served: each path's name and output.
fn both(fx: &Fixture, server: &Served, query: &str) -> [(&'static str, Output); 2] {
    let args = ["--format", "json", query];
    [("cold", fx.sql_output(&args)), ("served", server.query(fx, fx.dir.path(), &args))]
}

#[test]
fn issue_0039_every_kind_of_file_gives_rgs_rows_with_or_without_indexes() {
    let fx = Fixture::new();
    let cold = util::kinds(&fx, "cold", false);
    let indexed = util::kinds(&fx, "indexed", true);
    let server = Served::start(&fx);
    let (mut failures, mut served) = (Vec::new(), 0);
    for dir in [&cold, &indexed] {
        for (option, raw) in [("", false), (", 'compression=none'", true)] {
            let table = |p: &Path| format!("lines('{}'{option})", p.display());
            let z: &[&str] = if raw { &[] } else { &["-z"] };
            let reference = |args: &[&str]| rg_rows(&[z, args].concat(), &[dir], &|p| p.into());
            let all = reference(&[""]);
            let needles = reference(&["-F", "XYZZY-MARK"]);
            let kinds = if raw { 3 } else { 10 };
            assert_eq!(needles.len(), kinds, "rg {z:?} finds a needle per kind: {needles:?}");
            let mut stderr_of = Vec::new();
            for (cond, want) in [("true", &all), ("line LIKE '%XYZZY-MARK%'", &needles)] {
                let q = format!("SELECT path, line_number, line FROM {} WHERE {cond}", table(dir));
                for (how, out) in both(&fx, &server, &q) {
                    served += usize::from(how == "served");
                    let (got, stderr) = rows_of(&out, &q);
                    if &got != want {
                        failures.push(diff(&format!("{how} {q}"), &got, want));
                    }
                    stderr_of.push((how, cond, stderr));
                }
            }
            for (how, cond, stderr) in &stderr_of {
                if !says_binary(stderr, raw, *cond == "true") {
                    failures.push(format!("{how} {} WHERE {cond}: stderr {stderr:?}", table(dir)));
                }
            }
            // Each file alone, through its own units (a text's parts).
            for entry in std::fs::read_dir(dir).unwrap() {
                let file = entry.unwrap().path();
                let name = file.to_str().unwrap();
                let want = all.iter().filter(|r| r.0 == name).count() as u64;
                let q = format!("SELECT count(*) AS n FROM {}", table(&file));
                for (how, out) in both(&fx, &server, &q) {
                    served += usize::from(how == "served");
                    let stderr = String::from_utf8_lossy(&out.stderr);
                    assert!(out.status.success(), "{how} {q}: {stderr}");
                    let line = String::from_utf8(out.stdout).unwrap();
                    let got: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
                    if got["n"].as_u64() != Some(want) {
                        failures.push(format!("{how} {q}: {} rows, rg {z:?} {want}", got["n"]));
                    }
                    let binary = name.ends_with("bin.dat") || (raw && !name.ends_with(".log"));
                    if stderr.is_empty() == binary {
                        failures.push(format!("{how} {q}: stderr {stderr:?}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(server.answered(), served, "not every query was served");
}

/// A short account of how `got` differs from `want`.
fn diff(what: &str, got: &[Row], want: &[Row]) -> String {
    let missing: Vec<_> = want.iter().filter(|r| !got.contains(r)).take(2).collect();
    let extra: Vec<_> = got.iter().filter(|r| !want.contains(r)).take(2).collect();
    let (n, m) = (got.len(), want.len());
    format!("{what}: {n} rows, rg {m}; missing {missing:?}; extra {extra:?}")
}

/// `count(*)` of `table` by `tg-sql` run in `cwd`, and its stderr.
fn count_in(fx: &Fixture, cwd: &Path, table: &str) -> (u64, String) {
    let q = format!("SELECT count(*) AS n FROM {table}");
    let out = Command::new(util::tg_sql())
        .args(["--format", "csv", &q])
        .current_dir(cwd)
        .env("TG_INDEX_DIR", fx.index_dir())
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{q}: {stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    (stdout.lines().nth(1).unwrap().parse().unwrap(), stderr)
}

/// The issue's own case: `seq 1 100000 | gzip > t.gz` counts 100,000
/// before and after `tg index t.gz`, and so does a copy without an
/// index; beside a 1,000-line text, the directory counts 101,000 both
/// ways; read as bytes, it is binary and says so.
#[test]
fn issue_0039_a_gz_counts_its_lines_before_and_after_its_index() {
    let fx = Fixture::new();
    let text: String = (1..=100_000).map(|i| format!("{i}\n")).collect();
    fx.write("work/d/t", text.as_bytes());
    util::run("gzip", &["-n", fx.path("work/d/t").to_str().unwrap()]);
    let small: String = (1..=1000).map(|i| format!("p {i}\n")).collect();
    fx.write("work/d/p.txt", small.as_bytes());
    let work = fx.path("work");
    assert_eq!(count_in(&fx, &work, "lines('d/t.gz')"), (100_000, String::new()), "no index");
    assert_eq!(count_in(&fx, &work, "lines('d')"), (101_000, String::new()), "no index");
    fx.tg(&["index", "-q", "--block-size", "4K", fx.path("work/d/t.gz").to_str().unwrap()]);
    std::fs::copy(fx.path("work/d/t.gz"), fx.path("work/u.gz")).unwrap();
    assert_eq!(count_in(&fx, &work, "lines('d/t.gz')"), (100_000, String::new()), "indexed");
    assert_eq!(count_in(&fx, &work, "lines('d')"), (101_000, String::new()), "indexed");
    assert_eq!(count_in(&fx, &work, "lines('u.gz')"), (100_000, String::new()), "a copy");
    let (n, stderr) = count_in(&fx, &work, "lines('u.gz', 'compression=none')");
    assert_eq!(n, 0, "gzip's bytes hold a NUL in their first buffer");
    assert_eq!(
        stderr,
        "tg: sql: warning: u.gz is binary (a NUL byte at offset 3): its lines stop there, \
         as rg reads a binary file\n"
    );
    let (n, _) = count_in(&fx, &work, "lines('d', 'compression=none')");
    assert_eq!(n, 1000, "the text beside it");
}

/// A table's options: after its paths, `'name=value'`, checked; a path
/// of that form that exists is a path.
#[test]
fn issue_0039_lines_options_are_checked() {
    let fx = Fixture::new();
    fx.write("a.txt", b"one\n");
    let a = fx.path("a.txt");
    let a = a.display();
    let cases = [
        (format!("lines('{a}', 'compression=zip')"), "'compression=zip': give 'compression=auto'"),
        (format!("lines('{a}', 'compresion=none')"), "no option compresion"),
        (format!("lines('compression=none', '{a}')"), "its paths come first"),
        (format!("lines('{a}', 'compression=auto', 'compression=none')"), "given twice"),
        ("lines('compression=none')".to_string(), "needs at least one path"),
        (format!("lines('{a}', 1)"), "as string literals, not"),
    ];
    for (table, want) in cases {
        let out = fx.sql_output(&[&format!("SELECT count(*) FROM {table}")]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{table}: {err}");
        assert!(err.starts_with("tg: sql: ") && err.contains(want), "{table}: {err}");
    }
    let q = format!("SELECT count(*) AS n FROM lines('{a}', 'COMPRESSION=Auto')");
    assert_eq!(fx.sql_json(&q, &[])[0]["n"], 1);
    fx.write("k=v", b"one\ntwo\n");
    let out = Command::new(util::tg_sql())
        .args(["--format", "csv", "SELECT count(*) AS n FROM lines('k=v')"])
        .current_dir(fx.dir.path())
        .env("TG_INDEX_DIR", fx.index_dir())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "n\n2\n", "{out:?}");
}
