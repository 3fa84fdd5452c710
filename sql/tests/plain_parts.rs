//! A huge plain file without a block index is read by parts (each
//! partition its share of the file's spans, cut once at line ends), with
//! the rows `rg` reads: every line, its number and byte offset, a last
//! line without its `\n`, a UTF-8 byte-order mark dropped; its `time`
//! (carried across spans: long continuation runs), `level` and `host` as
//! the whole file read in one partition gives them; a file holding a NUL
//! (rg stops at the buffer that holds it) or starting with a UTF-16 mark
//! is read whole instead. `TG_SQL_TEST_PART_BYTES` makes small files
//! huge, in parts of several spans.

mod util;

use std::path::Path;
use std::process::Command;

use util::Fixture;
use util::stamped;

/// Bytes per part in the test: its logs (of about 3 MB) get four parts,
/// and their cut (at 1 MiB windows) three spans or more.
const PART: &str = "500000";

/// `tg-sql --format json ARGS QUERY` with `env`: its JSON lines, sorted,
/// and its log (`RUST_LOG=info`).
fn run(fx: &Fixture, args: &[&str], env: &[(&str, &str)], query: &str) -> (Vec<String>, String) {
    let out = Command::new(util::tg_sql())
        .args(["--format", "json"])
        .args(args)
        .arg(query)
        .env("TG_INDEX_DIR", fx.index_dir())
        .env("RUST_LOG", "info")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?} {query}: {stderr}");
    let mut rows: Vec<String> =
        String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect();
    rows.sort();
    (rows, stderr)
}

/// The files under `logs/`: a Java log with continuation runs crossing
/// spans (its last line without a `\n`), a syslog log starting with a
/// UTF-8 byte-order mark, one holding a NUL and one marked UTF-16.
fn logs(fx: &Fixture) -> Vec<std::path::PathBuf> {
    let mut java = stamped::java_with_long_runs(3_000_000, 300_000, 5).text;
    java.extend_from_slice(b"2026-01-03 10:00:00,000 ERROR [w1] the end, no line end");
    let mut syslog = b"\xEF\xBB\xBF".to_vec();
    syslog.extend(stamped::generate("syslog", 80_000, 6).text);
    let mut binary = stamped::generate("iso_plain", 50_000, 7).text;
    binary.splice(300_000..300_000, *b"\0");
    let mut utf16 = b"\xFF\xFE".to_vec();
    utf16.extend("2\x000\x002\x006\x00\n\x00".as_bytes().repeat(250_000));
    vec![
        fx.write("logs/java/java.log", &java),
        fx.write("logs/syslog/syslog.log", &syslog),
        fx.write("logs/binary/binary.log", &binary),
        fx.write("logs/utf16/utf16.log", &utf16),
    ]
}

#[test]
fn a_huge_plain_file_is_read_by_parts_with_the_rows_rg_and_one_partition_read() {
    let fx = Fixture::new();
    let files = logs(&fx);
    let parts = [("TG_SQL_TEST_PART_BYTES", PART)];
    for file in &files {
        let f = file.display();
        let big = std::fs::metadata(file).unwrap().len() > 4 * PART.parse::<u64>().unwrap();
        assert!(big, "{f}: not four parts");
        let q = format!(
            "SELECT path, line_number, byte_offset, line, CAST(time AS BIGINT) AS t, level, host FROM lines('{f}')"
        );
        let (whole, _) = run(&fx, &["--partitions", "1"], &[], &q);
        let (by_parts, log) = run(&fx, &["--partitions", "4"], &parts, &q);
        assert_eq!(by_parts.len(), whole.len(), "{f}");
        assert!(by_parts == whole, "{f}: the rows by parts differ from one partition's");
        let name = file.file_name().unwrap().to_str().unwrap();
        // Every part read its share of the same spans, three or more.
        let spans: Vec<u64> = (0..4)
            .filter_map(|p| {
                let said = format!("{name}: part {p}/4: reading ");
                let rest = &log[log.find(&said)? + said.len()..];
                let of = &rest[rest.find(" of ")? + 4..];
                of[..of.find(' ')?].parse().ok()
            })
            .collect();
        match name {
            "binary.log" | "utf16.log" => assert!(!log.contains("spans"), "{f}: cut\n{log}"),
            _ => {
                assert!(spans.len() == 4 && spans.iter().all(|&n| n >= 3), "{f}: {spans:?}\n{log}")
            }
        }
        // rg's lines and numbers, and a condition pushed down, as rg
        // walks the file's directory (a file named is read otherwise).
        let dir = file.parent().unwrap();
        let rows = |cond: &str| {
            let q = format!("SELECT path, line_number, line FROM lines('{f}') WHERE {cond}");
            util::json_rows(run(&fx, &["--partitions", "4"], &parts, &q).0.iter().map(|s| &s[..]))
        };
        let same = |p: &str| p.to_string();
        assert_eq!(rows("true"), util::rg_rows(&[""], &[dir], &same), "{f}");
        let rg = util::rg_rows(&["~k3~"], &[dir], &same);
        assert_eq!(rows("line LIKE '%~k3~%'"), rg, "{f}");
        // Byte offsets as `rg -b` gives them: checked on the first lines
        // of each span through the sums (rg's rows carry no offsets here).
        let offsets = |args: &[&str], env: &[(&str, &str)]| {
            let q = format!("SELECT sum(byte_offset) AS s, count(*) AS n FROM lines('{f}')");
            run(&fx, args, env, &q).0
        };
        assert_eq!(offsets(&["--partitions", "4"], &parts), offsets(&["--partitions", "1"], &[]));
        assert_eq!(offsets(&["--partitions", "4"], &parts)[0], rg_offsets(dir), "{f}");
    }
}

/// The sum of the byte offsets and the number of the lines `rg -b` gives
/// the file in `dir`, walked, as the JSON row of `SELECT sum(byte_offset)
/// AS s, count(*) AS n`.
fn rg_offsets(dir: &Path) -> String {
    let out = Command::new(util::rg())
        .args(["--no-config", "-b", "--no-filename", "--no-heading", "--color", "never", "-o", "^"])
        .arg(dir)
        .output()
        .unwrap();
    let (mut s, mut n) = (0u64, 0u64);
    for l in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let colon = l.iter().position(|&b| b == b':').unwrap();
        // rg's note on a binary file it stopped reading is no line.
        match std::str::from_utf8(&l[..colon]).unwrap().parse::<u64>() {
            Ok(at) => (s, n) = (s + at, n + 1),
            Err(_) => assert!(String::from_utf8_lossy(l).contains("binary file"), "{l:?}"),
        }
    }
    format!("{{\"s\":{s},\"n\":{n}}}")
}
