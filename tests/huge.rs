//! Huge-file search (issue 3): `tg` with a tiny chunk threshold, so that
//! multi-megabyte fixtures are cut into dozens of chunks, must print exactly
//! what the pinned `rg` prints, byte for byte, with the same exit code —
//! for every `--io` strategy and with one and four threads.
//!
//! The pinned rg is `$TG_TEST_RG`, else `/root/.cache/trigrep-ci/rg-15.2.0/bin/rg`;
//! the tests fail loudly when it is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Chunk size used by the tests: small, so chunk edges fall everywhere.
const CHUNK: &str = "65536";

fn rg() -> PathBuf {
    let p = std::env::var_os("TG_TEST_RG")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/root/.cache/trigrep-ci/rg-15.2.0/bin/rg"));
    assert!(p.exists(), "pinned rg not found at {} (set TG_TEST_RG)", p.display());
    p
}

/// Output of one run: stdout and exit code.
fn run(cmd: &mut Command) -> (Vec<u8>, i32) {
    let out = cmd.output().expect("command runs");
    (out.stdout, out.status.code().unwrap_or(-1))
}

/// Replaces JSON `elapsed` objects, which differ from run to run.
fn normalise(out: &[u8]) -> String {
    let text = String::from_utf8_lossy(out);
    let mut s = String::with_capacity(text.len());
    let mut rest: &str = &text;
    while let Some(i) = rest.find("\"elapsed") {
        s.push_str(&rest[..i]);
        let j = rest[i..].find('}').map_or(rest.len(), |j| i + j + 1);
        s.push_str("\"elapsed\"");
        rest = &rest[j..];
    }
    s.push_str(rest);
    s
}

/// First differing line of two outputs, for a readable failure.
fn first_diff(a: &str, b: &str) -> String {
    for (n, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n  rg: {x:.200}\n  tg: {y:.200}", n + 1);
        }
    }
    format!("lengths differ: rg {} lines, tg {} lines", a.lines().count(), b.lines().count())
}

/// Checks `tg ARGS FILE` against `rg ARGS FILE` for every strategy and thread count.
fn check(file: &Path, args: &[&str]) {
    let dir = file.parent().unwrap();
    let name = file.file_name().unwrap();
    let (want, want_code) = run(Command::new(rg()).current_dir(dir).args(args).arg(name));
    let want = normalise(&want);
    for io in ["auto", "mmap", "read"] {
        for j in ["1", "4"] {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_tg"));
            cmd.current_dir(dir)
                .args(["--chunk-threshold", "1", "--chunk-size", CHUNK, "--io", io, "-j", j])
                .args(args)
                .arg(name);
            let (got, code) = run(&mut cmd);
            let got = normalise(&got);
            assert!(
                got == want && code == want_code,
                "tg {args:?} {name:?} --io {io} -j{j}: exit {code} vs rg {want_code}; {}",
                first_diff(&want, &got)
            );
        }
    }
}

/// Checks `tg ARGS` against `rg ARGS` run in the directory holding only
/// `file`: a walked file, whose binary detection quits at the first NUL. With
/// one thread the walk's own loop meets the huge file; with four, a walker
/// thread reads up to the threshold and hands it over.
fn check_walk(file: &Path, args: &[&str]) {
    let dir = file.parent().unwrap();
    let (want, want_code) = run(Command::new(rg()).current_dir(dir).args(args));
    let want = normalise(&want);
    for io in ["auto", "read"] {
        for j in ["1", "4"] {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_tg"));
            cmd.current_dir(dir)
                .args(["--chunk-threshold", "200000", "--chunk-size", CHUNK, "--io", io, "-j", j])
                .args(args);
            let (got, code) = run(&mut cmd);
            let got = normalise(&got);
            assert!(
                got == want && code == want_code,
                "walk: tg {args:?} in {dir:?} --io {io} -j{j}: exit {code} vs rg {want_code}; {}",
                first_diff(&want, &got)
            );
        }
    }
}

/// The flags the walked cases run with.
const WALK_FLAG_SETS: &[&[&str]] = &[
    &["-n", "needle"],
    &["-b", "-o", "needle"],
    &["-c", "needle"],
    &["--count-matches", "needle"],
    &["-l", "needle"],
    &["--files-without-match", "needle"],
    &["-q", "needle"],
    &["--json", "needle"],
    &["-n", "binary"],
    &["-v", "-n", "x"],
    &["-n", "nothing-here"],
];

/// A deterministic log of about `lines` lines, with "needle" on some lines.
fn log_text(lines: usize, eol: &str) -> String {
    let mut s = String::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..lines {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let level = ["INFO", "WARN", "ERROR", "DEBUG"][(x % 4) as usize];
        let pad = "x".repeat((x >> 8) as usize % 120);
        let needle = if x.is_multiple_of(37) { " needle" } else { "" };
        s.push_str(&format!("{i:08} {level} app-{} took {}ms{needle} {pad}{eol}", x % 50, x % 997));
    }
    s
}

/// Inserts `line` at the first line start at or after `num/den` of `text`.
fn insert_line(text: &mut Vec<u8>, num: usize, den: usize, line: &[u8]) {
    let pos = num * text.len() / den;
    let at = text[pos..].iter().position(|&b| b == b'\n').map_or(text.len(), |i| pos + i + 1);
    text.splice(at..at, line.iter().copied());
}

struct Fixture {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

fn fixture(name: &str, bytes: &[u8]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    Fixture { _dir: dir, path }
}

const FLAG_SETS: &[&[&str]] = &[
    &["-n", "needle"],
    &["-b", "needle"],
    &["-n", "-b", "ERROR.*needle"],
    &["-c", "needle"],
    &["-c", "--include-zero", "nothing-here"],
    &["--count-matches", "x{10}"],
    &["-o", "-n", "[0-9]+ms"],
    &["-v", "-n", "x"],
    &["-A2", "-n", "needle"],
    &["-B3", "needle"],
    &["-C5", "-n", "needle"],
    &["-m", "3", "-n", "needle"],
    &["--json", "needle"],
    &["-l", "needle"],
    &["-l", "nothing-here"],
    &["--files-without-match", "needle"],
    &["--files-without-match", "nothing-here"],
    &["-q", "needle"],
    &["-q", "nothing-here"],
    &["--heading", "-n", "needle"],
    &["-H", "--heading", "-n", "needle"],
    &["-U", "-n", "needle[^\\n]*\\n[0-9]+ WARN"],
    &["-n", "--column", "-w", "INFO"],
    &["-F", "-n", "app-7 took"],
    &["-n", "nothing-here"],
];

#[test]
fn plain_log_matches_rg() {
    let f = fixture("plain.log", log_text(40_000, "\n").as_bytes());
    for args in FLAG_SETS {
        check(&f.path, args);
    }
}

#[test]
fn crlf_log_matches_rg() {
    let f = fixture("crlf.log", log_text(20_000, "\r\n").as_bytes());
    for args in
        [&["-n", "needle"][..], &["--crlf", "-n", "needle$"], &["-c", "ms"], &["-v", "-b", "x"]]
    {
        check(&f.path, args);
    }
}

#[test]
fn no_trailing_newline_matches_rg() {
    let mut text = log_text(20_000, "\n");
    text.push_str("last line needle without newline");
    let f = fixture("tail.log", text.as_bytes());
    for args in
        [&["-n", "needle"][..], &["-c", "needle"], &["-v", "-n", "x"], &["--json", "without"]]
    {
        check(&f.path, args);
    }
}

#[test]
fn empty_file_matches_rg() {
    let f = fixture("empty.log", b"");
    for args in [
        &["-n", "x"][..],
        &["-c", "--include-zero", "x"],
        &["--files-without-match", "x"],
        &["-v", "x"],
    ] {
        check(&f.path, args);
    }
}

#[test]
fn late_nul_matches_rg() {
    // A NUL on a line that does not match, and later one on a line that does.
    let mut text = log_text(30_000, "\n").into_bytes();
    insert_line(&mut text, 1, 3, b"binary \0 here\n");
    insert_line(&mut text, 2, 3, b"needle \0 in a match\n");
    let f = fixture("late-nul.log", &text);
    for args in [
        &["-n", "needle"][..],
        &["-c", "needle"],
        &["--count-matches", "needle"],
        &["-l", "needle"],
        &["--json", "needle"],
        &["-n", "binary"],
        &["-a", "-n", "needle"],
        &["-v", "-n", "x"],
    ] {
        check(&f.path, args);
    }
}

#[test]
fn early_nul_matches_rg() {
    let mut text = b"head \0 binary\n".to_vec();
    text.extend_from_slice(log_text(20_000, "\n").as_bytes());
    let f = fixture("early-nul.log", &text);
    for args in [&["-n", "needle"][..], &["-c", "needle"], &["-a", "-c", "needle"]] {
        check(&f.path, args);
    }
}

#[test]
fn bom_file_matches_rg() {
    let mut text = b"\xEF\xBB\xBF".to_vec();
    text.extend_from_slice(log_text(10_000, "\n").as_bytes());
    let f = fixture("bom.log", &text);
    check(&f.path, &["-n", "needle"]);
}

#[test]
fn walked_log_without_nul_matches_rg() {
    let f = fixture("walked.log", log_text(40_000, "\n").as_bytes());
    for args in WALK_FLAG_SETS {
        check_walk(&f.path, args);
    }
}

#[test]
fn walked_log_with_nul_matches_rg() {
    // ripgrep prints the matches of the read buffers before the first NUL,
    // then a warning; the NUL lies many chunks into the file.
    for at in [1, 2, 5, 9] {
        let mut text = log_text(30_000, "\n").into_bytes();
        insert_line(&mut text, at, 10, b"binary needle \0 here\n");
        let f = fixture("walked-nul.log", &text);
        for args in WALK_FLAG_SETS {
            check_walk(&f.path, args);
        }
    }
}

#[test]
fn walked_log_with_long_lines_before_a_nul_matches_rg() {
    // Lines longer than ripgrep's 64 KiB buffer make it grow, so the buffer
    // that finds the NUL starts further back.
    let mut text = log_text(10_000, "\n").into_bytes();
    for k in 0..4 {
        let long = format!("needle {}\n", "y".repeat(300_000 * (k + 1)));
        insert_line(&mut text, 3 + k, 10, long.as_bytes());
    }
    insert_line(&mut text, 8, 10, b"late \0 nul\n");
    let f = fixture("walked-long.log", &text);
    for args in [&["-n", "needle"][..], &["-c", "needle"], &["-b", "needle"]] {
        check_walk(&f.path, args);
    }
}

#[test]
fn walked_huge_file_into_a_closed_pipe_exits_like_rg() {
    // More output than a pipe holds, so that closing the read end makes the
    // writer fail: ripgrep's walker has counted the match by then (exit 0).
    let f = fixture("walked-pipe.log", log_text(40_000, "\n").as_bytes());
    let dir = f.path.parent().unwrap();
    let exit = |cmd: &mut Command| {
        let mut child = cmd
            .current_dir(dir)
            .args(["-n", "-j2", "needle|INFO"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut out = child.stdout.take().unwrap();
        let mut first = [0u8; 16];
        std::io::Read::read_exact(&mut out, &mut first).unwrap();
        drop(out);
        child.wait().unwrap().code()
    };
    let want = exit(&mut Command::new(rg()));
    let mut tg = Command::new(env!("CARGO_BIN_EXE_tg"));
    tg.args(["--chunk-threshold", "200000", "--chunk-size", CHUNK]);
    assert_eq!(exit(&mut tg), want);
}
