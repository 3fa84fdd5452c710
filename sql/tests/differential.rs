//! Issue 28: `SELECT path, line_number, line ... WHERE <condition on line>`
//! over a tree, a block-indexed huge log, an indexed `.gz` and a packed
//! log returns exactly the lines `rg -n` prints (same paths and numbers),
//! and `count(*)` equals `rg -c` summed: through the indexes (pushdown)
//! and with pushdown off (`--no-pushdown`), which reads every line.

mod util;

use std::path::Path;

use util::{Fixture, Row, rg_count, rg_rows};

/// Each SQL condition, the rg arguments that select the same lines, and
/// a literal the lines must also hold (rg has no AND of patterns).
/// DataFusion rewrites some conditions before the provider sees them
/// (`~ 'a|b'` arrives as two LIKEs joined by OR).
const CASES: &[(&str, &[&str], Option<&str>)] = &[
    ("line LIKE '%zebracorn%'", &["-F", "zebracorn"], None),
    ("line ~ 'user=9[0-9]+ request'", &["user=9[0-9]+ request"], None),
    ("line ILIKE '%timeout TALKING%'", &["-i", "-F", "timeout talking"], None),
    ("line ~* 'TIMEOUT talking to db[12]'", &["-i", "timeout talking to db[12]"], None),
    ("regexp_like(line, 'status=500 path=/api/v[34]')", &["status=500 path=/api/v[34]"], None),
    ("starts_with(line, '2024-02-01')", &["^2024-02-01"], None),
    ("line ~ 'zebracorn|Timeout'", &["zebracorn|Timeout"], None),
    ("line LIKE '%bytes%' AND line LIKE '%ERROR%'", &["-F", "bytes"], Some("ERROR")),
    ("line = ''", &["^$"], None),
    ("line ~ 'v[34]$'", &["v[34]$"], None),
    ("line ~ '^2024-01-0[1-5] (ERROR|WARN) zebra'", &["^2024-01-0[1-5] (ERROR|WARN) zebra"], None),
    ("line LIKE '2024-03-1_ ERROR%'", &["^2024-03-1. ERROR"], None),
    (
        "line LIKE '%needle at 1%' OR line ~ 'request 77[0-9] '",
        &["needle at 1|request 77[0-9] "],
        None,
    ),
];

/// Checks every case on `table` against rg on `paths`, rg's paths renamed
/// to the table's by `rename`. With `binary` files among them, `rg -c`
/// is not asked: it counts nothing in a binary file whose lines before
/// the NUL `rg -n` prints (and the table returns).
fn check_all(
    fx: &Fixture,
    table: &str,
    paths: &[&Path],
    binary: bool,
    rename: &dyn Fn(&str) -> String,
) {
    let mut failures = Vec::new();
    for (cond, rg_args, also) in CASES {
        let want: Vec<Row> = rg_rows(rg_args, paths, rename)
            .into_iter()
            .filter(|r| also.is_none_or(|a| r.2.contains(a)))
            .collect();
        if also.is_none() && !binary {
            let counted = rg_count(rg_args, paths);
            assert_eq!(want.len() as u64, counted, "{cond}: rg -n and rg -c disagree");
        }
        let want_count = want.len() as u64;
        for extra in [&[][..], &["--no-pushdown"][..], &["--partitions", "3"][..]] {
            let got = fx.sql_rows(table, cond, extra);
            if got != want {
                failures.push(diff(cond, extra, &got, &want));
            }
            let n = fx.sql_count(table, cond, extra);
            if n != want_count {
                failures.push(format!("{cond} {extra:?}: count(*) {n}, rg {want_count}"));
            }
        }
    }
    assert!(failures.is_empty(), "{table}:\n{}", failures.join("\n"));
}

/// A short account of how `got` differs from `want`.
fn diff(cond: &str, extra: &[&str], got: &[Row], want: &[Row]) -> String {
    let missing: Vec<_> = want.iter().filter(|r| !got.contains(r)).take(3).collect();
    let extra_rows: Vec<_> = got.iter().filter(|r| !want.contains(r)).take(3).collect();
    format!(
        "{cond} {extra:?}: {} rows, rg {}; missing {missing:?}; extra {extra_rows:?}",
        got.len(),
        want.len()
    )
}

fn same(p: &str) -> String {
    p.to_string()
}

#[test]
fn issue_0028_a_tree_reads_as_rg_walks_it() {
    let fx = Fixture::new();
    fx.write("tree/a.log", &util::log_text(3000, 1));
    fx.write("tree/sub/b.txt", b"zebracorn in b\nnothing\nTimeout talking to db1 x\n");
    fx.write("tree/.hidden", b"zebracorn hidden\n");
    fx.write("tree/.ignore", b"ignored.log\n");
    fx.write("tree/ignored.log", b"zebracorn ignored\n");
    fx.write("tree/small.bin", b"zebracorn before\n\0zebracorn after\n");
    let mut big_bin = util::log_text(3000, 2);
    big_bin.extend_from_slice(b"zebracorn before a NUL\n\0zebracorn after it\n");
    fx.write("tree/big.bin", &big_bin);
    fx.write("tree/nonl.txt", b"first\nzebracorn at the end");
    fx.write("tree/bom.txt", b"\xef\xbb\xbfzebracorn after a BOM\nsecond\n");
    fx.write("tree/crlf.txt", b"zebracorn crlf\r\n\r\nTimeout talking to db2\r\n");
    let tree = fx.path("tree");
    let table = format!("lines('{}')", tree.display());
    check_all(&fx, &table, &[&tree], true, &same);
    // With a tree index, unchanged files without a candidate are not read.
    fx.tg(&["index", "-q", tree.to_str().unwrap()]);
    fx.write("tree/sub/new.txt", b"zebracorn added after the index\n");
    check_all(&fx, &table, &[&tree], true, &same);
}

/// A log of ~4 MB with a block index of 4 KiB blocks, and its copies.
fn big_log(fx: &Fixture) -> std::path::PathBuf {
    let mut text = util::log_text(40_000, 3);
    text.extend_from_slice(b"2024-04-01 FATAL XYZZY-NEEDLE-4242 planted\n");
    text.extend_from_slice(&util::log_text(1_000, 4));
    fx.write("logs/big.log", &text)
}

#[test]
fn issue_0028_a_block_indexed_log_reads_candidate_blocks_and_a_grown_tail() {
    let fx = Fixture::new();
    let log = big_log(&fx);
    fx.tg(&["index", "-q", "--block-size", "4K", log.to_str().unwrap()]);
    let table = format!("lines('{}')", log.display());
    check_all(&fx, &table, &[&log], false, &same);
    // Grown: the tail (continuing the last line) is read directly.
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    std::io::Write::write_all(&mut f, b"more zebracorn\n2024-02-01 Timeout talking to db1\n")
        .unwrap();
    check_all(&fx, &table, &[&log], false, &same);
    // Rewritten at the same size: stale, read whole.
    let mut text = std::fs::read(&log).unwrap();
    text[..9].copy_from_slice(b"zebracorn");
    std::fs::write(&log, &text).unwrap();
    check_all(&fx, &table, &[&log], false, &same);
}

#[test]
fn issue_0028_an_indexed_gz_reads_candidate_blocks() {
    let fx = Fixture::new();
    let log = big_log(&fx);
    let status = std::process::Command::new("gzip").args(["-k", "-6"]).arg(&log).status().unwrap();
    assert!(status.success());
    let gz = fx.path("logs/big.log.gz");
    fx.tg(&["index", "-q", "--block-size", "4K", "--access-spacing", "64K", gz.to_str().unwrap()]);
    let table = format!("lines('{}')", gz.display());
    let name = gz.display().to_string();
    check_all(&fx, &table, &[&log], false, &|_| name.clone());
}

#[test]
fn issue_0028_a_packed_log_reads_only_candidate_frames() {
    let fx = Fixture::new();
    let log = big_log(&fx);
    let packed = fx.path("logs/big.log.zst");
    fx.pack(&log, &packed);
    let table = format!("lines('{}')", packed.display());
    let name = packed.display().to_string();
    check_all(&fx, &table, &[&log], false, &|_| name.clone());
    // Parts are cut by the text's length, not the container's.
    let (text_len, disk) = (log.metadata().unwrap().len(), packed.metadata().unwrap().len());
    assert!(disk * 2 < text_len, "the fixture compresses");
    let auto = trigrep_sql::text::Compression::Auto;
    let len = trigrep_sql::text::block_text_len(&packed, disk, &fx.index_dir(), auto);
    assert_eq!(len, Some(text_len));
    // The scan logs which frames it read: a needle reads few of them.
    let out = std::process::Command::new(util::tg_sql())
        .env("TG_INDEX_DIR", fx.index_dir())
        .env("RUST_LOG", "trigrep_sql=info")
        .args([
            "--partitions",
            "1",
            &format!("SELECT count(*) FROM {table} WHERE line LIKE '%XYZZY-NEEDLE%'"),
        ])
        .output()
        .unwrap();
    let log_text = String::from_utf8_lossy(&out.stderr);
    let read = log_text.lines().find(|l| l.contains("reading")).expect("a read is logged");
    let (n, total) = read_counts(read);
    assert!(n > 0 && n * 4 < total, "a needle read {n} of {total} frames: {read}");
}

/// `N` and `M` of a log line `... reading N of M packed blocks ...`.
fn read_counts(line: &str) -> (usize, usize) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "reading").unwrap();
    (words[at + 1].parse().unwrap(), words[at + 3].parse().unwrap())
}

#[test]
fn issue_0028_errors_are_one_line_and_exit_2() {
    let fx = Fixture::new();
    for q in ["SELEKT 1", "SELECT nope FROM lines('/')", "SELECT * FROM lines('/no/such/dir')"] {
        let out = fx.sql_output(&[q]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{q}: {err}");
        assert!(err.starts_with("tg: sql: ") && err.lines().count() == 1, "{q}: {err}");
    }
}

/// `(line_number, byte_offset, line)` of each line `rg -nb ARGS FILE` prints.
fn rg_offsets(args: &[&str], file: &Path) -> Vec<(u64, u64, String)> {
    let out = std::process::Command::new(util::rg())
        .args(["--no-config", "-n", "-b", "--no-filename", "--color", "never"])
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c < 2), "rg {args:?}");
    let mut rows: Vec<_> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let text = String::from_utf8_lossy(l);
            let mut it = text.splitn(3, ':');
            let number = it.next().unwrap().parse().unwrap();
            let offset = it.next().unwrap().parse().unwrap();
            (number, offset, it.next().unwrap().to_string())
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn issue_0028_a_byte_order_mark_is_dropped_as_rg_drops_it() {
    let fx = Fixture::new();
    let mut text = b"\xEF\xBB\xBF2024-01-01 INFO zebracorn on the first line\n".to_vec();
    text.extend_from_slice(&util::log_text(40_000, 5));
    let log = fx.write("logs/bom.log", &text);
    fx.tg(&["index", "-q", "--block-size", "4K", log.to_str().unwrap()]);
    let status = std::process::Command::new("gzip").args(["-k", "-6"]).arg(&log).status().unwrap();
    assert!(status.success());
    let gz = fx.path("logs/bom.log.gz");
    fx.tg(&["index", "-q", "--block-size", "4K", "--access-spacing", "64K", gz.to_str().unwrap()]);
    let packed = fx.path("logs/bom.log.zst");
    let (l, p) = (log.to_str().unwrap(), packed.to_str().unwrap());
    fx.tg(&["pack", "-q", "--frame-size", "4K", l, "-o", p]);
    // The same text without an index: a walked file.
    let walked = fx.write("walked/bom.log", &text);
    let want = rg_offsets(&["-F", "zebracorn"], &log);
    assert_eq!(want[0], (1, 0, "2024-01-01 INFO zebracorn on the first line".into()));
    let lines = rg_count(&[""], &[&log]);
    for text in [&log, &gz, &packed, &walked] {
        let table = format!("lines('{}')", text.display());
        for extra in [&[][..], &["--no-pushdown"][..], &["--partitions", "3"][..]] {
            let q = format!(
                "SELECT line_number, byte_offset, line FROM {table} WHERE line LIKE '%zebracorn%'"
            );
            let mut got: Vec<(u64, u64, String)> = fx
                .sql_json(&q, extra)
                .iter()
                .map(|v| {
                    let n = |k: &str| v[k].as_u64().unwrap();
                    (n("line_number"), n("byte_offset"), v["line"].as_str().unwrap().into())
                })
                .collect();
            got.sort();
            let first = got.iter().zip(&want).find(|(g, w)| g != w);
            assert!(
                got.len() == want.len() && first.is_none(),
                "{} {extra:?}: {} rows, rg {}; first difference (table, rg): {first:?}",
                text.display(),
                got.len(),
                want.len()
            );
            let q = format!("SELECT count(*) AS n FROM {table}");
            let n = fx.sql_json(&q, extra)[0]["n"].as_u64().unwrap();
            assert_eq!(n, lines, "{} {extra:?}: count(*)", text.display());
        }
    }
}

/// Conditions whose lines rg cannot select as DataFusion does (`.` on
/// an invalid byte, which the `line` column holds as U+FFFD, and so does
/// a small class holding U+FFFD, which trigrep's planner expands; anchors
/// to the text's ends): through the indexes (a packed log's frames, a tree
/// index) and the scan's own line test, the rows DataFusion returns
/// reading every line.
#[test]
fn issue_0028_the_scan_drops_no_line_datafusion_would_keep() {
    let fx = Fixture::new();
    let log = big_log(&fx);
    let packed = fx.path("logs/big.log.zst");
    let (log_s, packed_s) = (log.to_str().unwrap(), packed.to_str().unwrap());
    fx.tg(&["pack", "-q", "--frame-size", "4K", log_s, "-o", packed_s]);
    fx.write("tree/a.log", &util::log_text(3000, 5));
    fx.write("tree/b.log", b"bad\xff\xfebytes\nzebracorn\n");
    let tree = fx.path("tree");
    fx.tg(&["index", "-q", tree.to_str().unwrap()]);
    let conds = [
        "line ~ 'bad..bytes'",
        "line ~ 'bad[\\x{FFFC}-\\x{FFFE}]{2}bytes'",
        "line ~ '\\A2024-01-1'",
        "line ~ '(?-m)[0-9]$'",
        "line ~ '(?mR)ms\\r$'",
        "line ~ 'ms\\r(?mR:^)'",
        "line ILIKE '%ZEBRACORN%' AND line ~ 'needle at [0-9]+$'",
        "line ~ 'ms.$' OR line LIKE '%bad%'",
    ];
    for table in [packed_s, tree.to_str().unwrap()] {
        let table = format!("lines('{table}')");
        for cond in conds {
            let want = fx.sql_rows(&table, cond, &["--no-pushdown"]);
            assert!(!want.is_empty(), "{cond}: no line of {table} matches");
            for extra in [&[][..], &["--partitions", "3"][..]] {
                let got = fx.sql_rows(&table, cond, extra);
                assert!(got == want, "{}", diff(cond, extra, &got, &want));
            }
        }
    }
}

/// A tail longer than one span (16 MiB): cut into spans at line ends, read
/// by several partitions, with rg's line numbers past every cut.
#[test]
fn issue_0028_a_long_grown_tail_is_read_in_spans_with_rgs_line_numbers() {
    let fx = Fixture::new();
    let log = big_log(&fx);
    fx.tg(&["index", "-q", "--block-size", "4K", log.to_str().unwrap()]);
    let mut more = util::log_text(130_000, 5);
    more.extend_from_slice(b"2024-05-01 FATAL XYZZY-TAIL-NEEDLE at the end\n");
    more.extend_from_slice(&util::log_text(1_000, 6));
    assert!(more.len() > 20 << 20, "{} bytes", more.len());
    let indexed = log.metadata().unwrap().len();
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    std::io::Write::write_all(&mut f, &more).unwrap();
    drop(f);
    let table = format!("lines('{}')", log.display());
    // The scan logs the offsets it reads: a span starts past the index.
    let out = std::process::Command::new(util::tg_sql())
        .env("TG_INDEX_DIR", fx.index_dir())
        .env("RUST_LOG", "trigrep_sql=info")
        .args(["--partitions", "3", &format!("SELECT count(*) FROM {table}")])
        .output()
        .unwrap();
    let offsets: Vec<u64> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter_map(|l| l.split("at text offsets [").nth(1)?.split(']').next().map(str::to_string))
        .flat_map(|l| l.split(", ").filter_map(|o| o.parse().ok()).collect::<Vec<u64>>())
        .collect();
    let last = offsets.iter().max();
    assert!(last.is_some_and(|&o| o > indexed), "the tail is one span: last at {last:?}");
    let cases: [(&str, &[&str]); 3] = [
        ("line LIKE '%XYZZY%'", &["-F", "XYZZY"]),
        ("line ~ 'user=99[0-9] request'", &["user=99[0-9] request"]),
        ("line LIKE '%zebracorn needle at 1_%'", &["zebracorn needle at 1."]),
    ];
    for (cond, rg_args) in cases {
        let want = rg_rows(rg_args, &[&log], &same);
        assert!(want.iter().any(|r| r.1 > 150_000), "{cond}: no line past the first cut");
        for extra in [&[][..], &["--partitions", "3"][..]] {
            let got = fx.sql_rows(&table, cond, extra);
            assert!(got == want, "{}", diff(cond, extra, &got, &want));
        }
    }
    assert_eq!(fx.sql_count(&table, "true", &["--partitions", "3"]), rg_count(&[""], &[&log]));
}

/// A long result prints as several aligned tables, each with its header
/// (no table holds more than some 10,000 rows in memory), every row once
/// and in order; a short one as one table.
#[test]
fn issue_0028_a_long_table_prints_in_pieces_every_row_once() {
    let fx = Fixture::new();
    let text: String = (1..=25_000).map(|i| format!("row {i}\n")).collect();
    let file = fx.write("rows.txt", text.as_bytes());
    let table = |query: &str| {
        let out = fx.sql_output(&[&query.replace("{T}", &format!("lines('{}')", file.display()))]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let long = table("SELECT line_number FROM {T} ORDER BY line_number");
    let numbers: Vec<u64> = long
        .lines()
        .filter_map(|l| l.trim_matches(|c| c == '|' || c == ' ').parse().ok())
        .collect();
    assert_eq!(numbers, (1..=25_000).collect::<Vec<u64>>());
    assert!(long.matches("| line_number |").count() >= 2, "one table");
    let short = table("SELECT count(*) AS n FROM {T}");
    assert_eq!(short, "+-------+\n| n     |\n+-------+\n| 25000 |\n+-------+\n");
}

/// A regex holding a backslash matches as rg matches it: DataFusion's
/// simplifier wrote `line ~ '\\'` as `LIKE '%\%'` (a percent sign), so
/// such operators and calls reach it as `regexp_like(..., 'u')`.
#[test]
fn issue_0028_a_regex_holding_a_backslash_matches_as_rg() {
    let fx = Fixture::new();
    let mut text = util::log_text(3000, 7);
    text.extend_from_slice(b"C:\\temp\\x 50% off\nk\\s here\nks here\nback\\\nslash\n");
    let log = fx.write("logs/win.log", &text);
    fx.tg(&["index", "-q", "--block-size", "4K", log.to_str().unwrap()]);
    let table = format!("lines('{}')", log.display());
    let cases: [(&str, &[&str]); 5] = [
        (r"line ~ '\\'", &[r"\\"]),
        (r"line ~ 'k\\s'", &[r"k\\s"]),
        (r"line ~* 'C:\\TEMP'", &["-i", r"C:\\TEMP"]),
        (r"regexp_like(line, 'back\\$')", &[r"back\\$"]),
        (r"regexp_like(line, 'x 50%', 'i')", &["-i", "x 50%"]),
    ];
    for (cond, rg_args) in cases {
        let want = rg_rows(rg_args, &[&log], &same);
        assert!(!want.is_empty(), "{cond}");
        for extra in [&[][..], &["--no-pushdown"][..]] {
            let got = fx.sql_rows(&table, cond, extra);
            assert!(got == want, "{}", diff(cond, extra, &got, &want));
        }
    }
    let lines = rg_count(&[""], &[&log]);
    let not = fx.sql_count(&table, r"line !~ '\\'", &[]);
    assert_eq!(not, lines - rg_count(&[r"\\"], &[&log]), "line !~ '\\\\'");
}
