//! Huge-file search: `tg` with a tiny chunk threshold, so that
//! multi-megabyte fixtures are cut into dozens of chunks, must print exactly
//! what the pinned `rg` prints, byte for byte, with the same exit code —
//! for every `--io` strategy and with one and four threads.
//!
//! rg and tg run through the shared harness in `util`: the pinned rg
//! ([`util::rg_bin`]), `tg` ([`util::tg_bin`]), the cases' environment and
//! temp trees ([`util::Tree`]), and its stdout normalisation
//! ([`util::normalize_stdout`]). A missing rg fails the tests loudly.

mod util;

use std::path::Path;
use std::process::{Command, Stdio};

use util::{Case, Outcome, Tree};

/// Chunk size used by the tests: small, so chunk edges fall everywhere.
const CHUNK: &str = "65536";

/// Runs `program` with `args` in the root of `tree`, without `--sort path`.
fn run(program: &Path, tree: &Tree, args: &[&str]) -> Outcome {
    util::run(program, tree.root(), &Case::new(args.join(" "), args).no_sort())
}

/// Fails unless tg's outcome `got` (run as `what`) matches rg's `want`:
/// the same normalised stdout and the same exit code.
fn assert_same(what: &str, want: &Outcome, got: &Outcome) {
    let (want_out, got_out) =
        (util::normalize_stdout(&want.stdout), util::normalize_stdout(&got.stdout));
    assert!(
        got_out == want_out && got.code == want.code,
        "{what}: exit {:?} vs rg {:?}; tg stderr: {}\nstdout diff (--- rg, +++ tg):\n{}",
        got.code,
        want.code,
        util::preview(&got.stderr, 400),
        util::diff::render(&want_out, &got_out, "  ")
    );
}

/// Checks `tg ARGS FILE` against `rg ARGS FILE` for every strategy and
/// thread count; `file` is the name of the file at the root of `tree`.
fn check(tree: &Tree, file: &str, args: &[&str]) {
    let want = run(&util::rg_bin(), tree, &[args, &[file]].concat());
    for io in ["auto", "mmap", "read"] {
        for j in ["1", "4"] {
            let opts = ["--chunk-threshold", "1", "--chunk-size", CHUNK, "--io", io, "-j", j];
            let got = run(&util::tg_bin(), tree, &[&opts, args, &[file]].concat());
            assert_same(&format!("tg {args:?} {file:?} --io {io} -j{j}"), &want, &got);
        }
    }
}

/// Checks `tg ARGS` against `rg ARGS` run in the root of `tree`, which
/// holds only the huge file: a walked file, whose binary detection quits at
/// the first NUL. With one thread the walk's own loop meets the huge file;
/// with four, a walker thread reads up to the threshold and hands it over.
fn check_walk(tree: &Tree, args: &[&str]) {
    let want = run(&util::rg_bin(), tree, args);
    for io in ["auto", "read"] {
        for j in ["1", "4"] {
            let opts = ["--chunk-threshold", "200000", "--chunk-size", CHUNK, "--io", io, "-j", j];
            let got = run(&util::tg_bin(), tree, &[&opts, args].concat());
            let root = tree.root();
            assert_same(&format!("walk: tg {args:?} in {root:?} --io {io} -j{j}"), &want, &got);
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

/// A fresh tree holding only the file `name`.
fn fixture(name: &str, bytes: &[u8]) -> Tree {
    let t = Tree::new(name);
    t.write(name, bytes);
    t
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
    let t = fixture("plain.log", log_text(40_000, "\n").as_bytes());
    for args in FLAG_SETS {
        check(&t, "plain.log", args);
    }
}

#[test]
fn crlf_log_matches_rg() {
    let t = fixture("crlf.log", log_text(20_000, "\r\n").as_bytes());
    for args in
        [&["-n", "needle"][..], &["--crlf", "-n", "needle$"], &["-c", "ms"], &["-v", "-b", "x"]]
    {
        check(&t, "crlf.log", args);
    }
}

#[test]
fn no_trailing_newline_matches_rg() {
    let mut text = log_text(20_000, "\n");
    text.push_str("last line needle without newline");
    let t = fixture("tail.log", text.as_bytes());
    for args in
        [&["-n", "needle"][..], &["-c", "needle"], &["-v", "-n", "x"], &["--json", "without"]]
    {
        check(&t, "tail.log", args);
    }
}

#[test]
fn empty_file_matches_rg() {
    let t = fixture("empty.log", b"");
    for args in [
        &["-n", "x"][..],
        &["-c", "--include-zero", "x"],
        &["--files-without-match", "x"],
        &["-v", "x"],
    ] {
        check(&t, "empty.log", args);
    }
}

#[test]
fn late_nul_matches_rg() {
    // A NUL on a line that does not match, and later one on a line that does.
    let mut text = log_text(30_000, "\n").into_bytes();
    insert_line(&mut text, 1, 3, b"binary \0 here\n");
    insert_line(&mut text, 2, 3, b"needle \0 in a match\n");
    let t = fixture("late-nul.log", &text);
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
        check(&t, "late-nul.log", args);
    }
}

#[test]
fn early_nul_matches_rg() {
    let mut text = b"head \0 binary\n".to_vec();
    text.extend_from_slice(log_text(20_000, "\n").as_bytes());
    let t = fixture("early-nul.log", &text);
    for args in [&["-n", "needle"][..], &["-c", "needle"], &["-a", "-c", "needle"]] {
        check(&t, "early-nul.log", args);
    }
}

#[test]
fn bom_file_matches_rg() {
    let mut text = b"\xEF\xBB\xBF".to_vec();
    text.extend_from_slice(log_text(10_000, "\n").as_bytes());
    let t = fixture("bom.log", &text);
    check(&t, "bom.log", &["-n", "needle"]);
}

#[test]
fn walked_log_without_nul_matches_rg() {
    let t = fixture("walked.log", log_text(40_000, "\n").as_bytes());
    for args in WALK_FLAG_SETS {
        check_walk(&t, args);
    }
}

#[test]
fn walked_log_with_nul_matches_rg() {
    // ripgrep prints the matches of the read buffers before the first NUL,
    // then a warning; the NUL lies many chunks into the file.
    for at in [1, 2, 5, 9] {
        let mut text = log_text(30_000, "\n").into_bytes();
        insert_line(&mut text, at, 10, b"binary needle \0 here\n");
        let t = fixture("walked-nul.log", &text);
        for args in WALK_FLAG_SETS {
            check_walk(&t, args);
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
    let t = fixture("walked-long.log", &text);
    for args in [&["-n", "needle"][..], &["-c", "needle"], &["-b", "needle"]] {
        check_walk(&t, args);
    }
}

#[test]
fn walked_huge_file_into_a_closed_pipe_exits_like_rg() {
    // More output than a pipe holds, so that closing the read end makes the
    // writer fail: ripgrep's walker has counted the match by then (exit 0).
    let t = fixture("walked-pipe.log", log_text(40_000, "\n").as_bytes());
    let exit = |cmd: &mut Command| {
        let mut child =
            cmd.args(["-n", "-j2", "needle|INFO"]).stdout(Stdio::piped()).spawn().expect("spawn");
        let mut out = child.stdout.take().unwrap();
        let mut first = [0u8; 16];
        std::io::Read::read_exact(&mut out, &mut first).unwrap();
        drop(out);
        child.wait().unwrap().code()
    };
    let want = exit(&mut util::rg_command(&t, t.root()));
    let mut tg = util::tg_command(&t, t.root());
    tg.args(["--chunk-threshold", "200000", "--chunk-size", CHUNK]);
    assert_eq!(exit(&mut tg), want);
}

/// A number from tg's `--stats` report on stderr (`  LABEL: N`).
fn stat(stderr: &[u8], label: &str) -> u64 {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().find_map(|l| l.trim_start().strip_prefix(label));
    line.and_then(|n| n.trim_start_matches(':').trim().parse().ok())
        .unwrap_or_else(|| panic!("no {label:?} in tg's stats: {text}"))
}

/// Huge walked files that turn binary past their first 64 KiB
/// (Rust `.rlib` archives, debug executables) are read about as far as rg
/// reads them, its first NUL and a buffer, not whole (they were read whole,
/// searched in chunks, then searched again whole); named on the command
/// line, they are searched to the end in "convert" mode, as rg does. Each
/// way prints what rg prints, sequentially with `--sort path`, in parallel,
/// with the NUL in the first chunk and many chunks in.
#[test]
fn issue_23_walked_binaries_are_read_only_to_their_first_nul() {
    let t = Tree::new("binaries");
    let text_len = |i: usize| 300_000 + 150_000 * i;
    let names: Vec<String> = (0..3).map(|i| format!("lib{i}.rlib")).collect();
    for (i, name) in names.iter().enumerate() {
        let mut bytes = log_text(30_000, "\n").into_bytes();
        let cut = bytes[..text_len(i)].iter().rposition(|&b| b == b'\n').unwrap() + 1;
        bytes.truncate(cut);
        // Binary: a NUL in every 97 bytes, and text with needles between.
        bytes.extend(
            (0..2_000_000u32).map(|k| if k % 97 == 0 { 0 } else { b"needle\n"[k as usize % 7] }),
        );
        t.write(name, &bytes);
    }
    let text: u64 = (0..3).map(|i| text_len(i) as u64).sum();
    let check_walk = |chunk: &str, walk: &[&str], pattern: &str| {
        let opts = ["--chunk-threshold", "200000", "--chunk-size", chunk];
        let args = [walk, &["-n", pattern]].concat();
        let name = format!("tg {opts:?} {args:?}");
        let want = util::run(&util::rg_bin(), t.root(), &Case::new(&name, &args).unordered());
        let tg = |extra: &[&str]| {
            let all = [&opts[..], &args, extra].concat();
            util::run(&util::tg_bin(), t.root(), &Case::new(&name, all).unordered())
        };
        let got = tg(&[]);
        // The parallel walk prints files in any order.
        let sorted = |o: &Outcome| match walk.contains(&"--sort") {
            true => o.clone(),
            false => Outcome { stdout: util::sorted_lines(&o.stdout), ..o.clone() },
        };
        assert_same(&name, &sorted(&want), &sorted(&got));
        // rg reads each file to its first NUL and at most a buffer more; tg
        // may look as far again (a page-cache read), and its prefetcher no
        // further than that.
        let stats = tg(&["--stats"]).stderr;
        let read = stat(&stats, "bytes read");
        let reached =
            stat(&stats, "bytes prefetched") + stat(&stats, "bytes found cached by the prefetcher");
        let bound = 2 * text + 3 * (256 << 10);
        assert!(read <= bound, "{name}: {read} bytes read, rg reads ~{text}");
        assert!(reached <= bound, "{name}: {reached} bytes prefetched");
    };
    // The NUL many chunks in (the prefetcher finds it), and in the first.
    for chunk in [CHUNK, "4194304"] {
        for walk in [&["-u", "--sort", "path"][..], &["-u", "-j2"]] {
            for pattern in ["needle", "ERROR.*needle"] {
                check_walk(chunk, walk, pattern);
            }
        }
    }
    // With block indexes: a file that holds a NUL is scanned, as above.
    util::tg_index(&t, "lib0.rlib");
    util::tg_index(&t, "lib2.rlib");
    check_walk(CHUNK, &["-u", "--sort", "path"], "needle");
    // Named files: rg's "convert" mode searches them to the end.
    for args in [&["-n", "needle"][..], &["-c", "needle"], &["-n", "ERROR.*needle"]] {
        check(&t, "lib1.rlib", args);
    }
}
