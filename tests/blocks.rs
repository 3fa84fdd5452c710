//! Huge files indexed as blocks: with a block index, `tg` reads
//! only candidate blocks of a huge file, and must still print exactly what
//! the pinned `rg` prints, byte for byte, with the same exit code — on
//! logs whose lines straddle block edges, a line longer than a block, CRLF,
//! no final newline, empty lines, NUL bytes and invalid UTF-8; after the
//! log grows, is rewritten in place, truncated or rotated; and after a
//! build killed at random points.
//!
//! Blocks are 4 KiB and chunks 16 KiB here, so a 1 MB fixture has hundreds
//! of blocks; `--chunk-threshold 1` makes every file "huge". `--stats`
//! tells whether the block index answered, and the tests check that it did
//! where it should (a fallback to scanning would also print rg's output).
//! The JSON statistics of a block search count only the bytes it read
//! (docs/COMPAT.md), so `bytes_searched` is blanked before comparing.

mod util;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use trigrep::index::blocks::{BlockIndex, build, cut};
use trigrep::index::build::Progress;
use trigrep::options::MatchOptions;
use trigrep::query::search_plan::query_for;
use util::logs::{QUERIES, log};
use util::{Case, Outcome, Tree};

const TG_OPTS: &[&str] = &["--chunk-threshold", "1", "--chunk-size", "16384", "-j", "4"];

/// Runs `program` with `args` in the root of `tree`.
fn run(program: &Path, tree: &Tree, args: &[&str]) -> Outcome {
    util::run(program, tree.root(), &Case::new(args.join(" "), args).no_sort())
}

/// Blanks the JSON `bytes_searched` counts, which a block search lowers.
fn normalise(out: &[u8]) -> Vec<u8> {
    let re = regex::bytes::Regex::new(r#""bytes_searched":[0-9]+"#).unwrap();
    re.replace_all(&util::normalize_stdout(out), &b"\"bytes_searched\":N"[..]).into_owned()
}

/// Checks `tg ARGS` against `rg ARGS` in the tree's root; returns tg's
/// `--stats` line on block indexes ("block indexes used: N").
fn check(tree: &Tree, args: &[&str]) -> String {
    let want = run(&util::rg_bin(), tree, args);
    let got = run(&util::tg_bin(), tree, &[TG_OPTS, args].concat());
    let (w, g) = (normalise(&want.stdout), normalise(&got.stdout));
    assert!(
        w == g && want.code == got.code,
        "tg {args:?}: exit {:?} vs rg {:?}; tg stderr: {}\nstdout diff (--- rg, +++ tg):\n{}",
        got.code,
        want.code,
        util::preview(&got.stderr, 400),
        util::diff::render(&w, &g, "  ")
    );
    let stats = run(&util::tg_bin(), tree, &[TG_OPTS, &["--stats", "-q"], args].concat());
    let err = String::from_utf8_lossy(&stats.stderr).into_owned();
    err.lines().find(|l| l.contains("block indexes used")).unwrap_or("").trim().to_string()
}

/// Builds the block index of `rel` (4 KiB blocks), as a user would.
fn index(tree: &Tree, rel: &str) {
    let out = util::tg_command(tree, tree.root())
        .args(["index", "-q", "--block-size", "4K", rel])
        .output()
        .unwrap();
    assert!(out.status.success(), "tg index {rel}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Runs every query on `file` (named) and returns how many used the index.
fn check_all(tree: &Tree, file: &str) -> usize {
    QUERIES
        .iter()
        .map(|q| check(tree, &[*q, &[file]].concat()))
        .filter(|s| s == "block indexes used: 1")
        .count()
}

#[test]
fn candidate_blocks_print_what_rg_prints() {
    let tree = Tree::new("blocks");
    let mut rng = StdRng::seed_from_u64(12);
    tree.write("app.log", log(&mut rng, 12_000, false));
    assert_eq!(check(&tree, &["-n", "RAREMARK", "app.log"]), "block indexes used: 0");
    index(&tree, "app.log");
    // Context, -m and -v are searched whole, and patterns found in most
    // blocks (the frequent events) are scanned: 9 of the 16 use the index.
    let used = check_all(&tree, "app.log");
    assert!(used >= 8, "only {used} of {} queries used the block index", QUERIES.len());
    // Walked: binary detection quits at a NUL; this log has none.
    let walked = check(&tree, &["-n", "RAREMARK"]);
    assert_eq!(walked, "block indexes used: 1");
}

#[test]
fn nul_bytes_and_walks() {
    let tree = Tree::new("blocks-nul");
    let mut rng = StdRng::seed_from_u64(7);
    tree.write("logs/app.log", log(&mut rng, 12_000, true));
    index(&tree, "logs/app.log");
    check_all(&tree, "logs/app.log");
    // A walked log with a NUL: rg quits at it; the index is not used.
    assert_eq!(check(&tree, &["-n", "needle", "logs"]), "block indexes used: 0");
    check(&tree, &["-c", "RAREMARK", "logs"]);
}

#[test]
fn growth_rewrite_truncation_and_rotation() {
    let tree = Tree::new("blocks-change");
    let mut rng = StdRng::seed_from_u64(99);
    let first = log(&mut rng, 8_000, false);
    tree.write("app.log", &first);
    index(&tree, "app.log");
    // Grown: the indexed part through the index, the tail directly; the
    // first bytes appended continue the last line, which had no newline.
    let mut f = std::fs::OpenOptions::new().append(true).open(tree.path("app.log")).unwrap();
    f.write_all(b" continued\nJan  9 00:00:00 web-01 appended RAREMARK line\n").unwrap();
    f.write_all(&log(&mut rng, 2_000, false)).unwrap();
    drop(f);
    assert_eq!(check(&tree, &["-n", "RAREMARK", "app.log"]), "block indexes used: 1");
    assert_eq!(check(&tree, &["-n", "RAREMARK continued$", "app.log"]), "block indexes used: 1");
    check_all(&tree, "app.log");
    // Rewritten in place, same size, same inode: stale, scanned.
    index(&tree, "app.log");
    let mut bytes = std::fs::read(tree.path("app.log")).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid..mid + 8].copy_from_slice(b"RAREMARK");
    std::thread::sleep(Duration::from_millis(30));
    std::fs::OpenOptions::new()
        .write(true)
        .open(tree.path("app.log"))
        .unwrap()
        .write_all(&bytes)
        .unwrap();
    assert_eq!(check(&tree, &["-c", "RAREMARK", "app.log"]), "block indexes used: 0");
    // Truncated: stale.
    index(&tree, "app.log");
    let f = std::fs::OpenOptions::new().write(true).open(tree.path("app.log")).unwrap();
    f.set_len(bytes.len() as u64 / 3).unwrap();
    assert_eq!(check(&tree, &["-n", "RAREMARK", "app.log"]), "block indexes used: 0");
    // Rotated: the old file moves away, a new one takes its name.
    index(&tree, "app.log");
    std::fs::rename(tree.path("app.log"), tree.path("app.log.1")).unwrap();
    tree.write("app.log", log(&mut rng, 3_000, false));
    assert_eq!(check(&tree, &["-n", "RAREMARK", "app.log"]), "block indexes used: 0");
    check(&tree, &["-n", "RAREMARK", "app.log.1"]);
    // Each log keeps its own index.
    index(&tree, "app.log");
    index(&tree, "app.log.1");
    assert_eq!(check(&tree, &["-n", "RAREMARK", "app.log"]), "block indexes used: 1");
    assert_eq!(check(&tree, &["-n", "RAREMARK", "app.log.1"]), "block indexes used: 1");
}

#[test]
fn killed_builds_never_give_a_wrong_answer() {
    let tree = Tree::new("blocks-kill");
    let mut rng = StdRng::seed_from_u64(5);
    tree.write("app.log", log(&mut rng, 30_000, false));
    for trial in 0..8u64 {
        if trial % 2 == 1 {
            // Change the log between trials, so an old index is stale or grown.
            let mut f =
                std::fs::OpenOptions::new().append(true).open(tree.path("app.log")).unwrap();
            f.write_all(format!("\nJan  9 trial {trial} RAREMARK\n").as_bytes()).unwrap();
        }
        let mut child = util::tg_command(&tree, tree.root())
            .args(["index", "-q", "--block-size", "4K", "app.log"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(rng.random_range(0..400)));
        let _ = child.kill();
        let _ = child.wait();
        check(&tree, &["-n", "RAREMARK", "app.log"]);
        check(&tree, &["-c", "Out of memory", "app.log"]);
    }
}

/// No progress report.
struct Quiet;

impl Progress for Quiet {
    fn start(&self, _: u64) {}
    fn advance(&self, _: u64) {}
}

#[test]
fn candidate_blocks_include_every_block_with_a_match() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = StdRng::seed_from_u64(2026);
    let patterns = [
        "RAREMARK",
        "page fault",
        "(?i)out of MEMORY",
        "ssh[d]\\[\\d+\\]: Failed",
        "EXT4-fs (error|warning)",
        "db-1 kernel",
        "\\d\\d:\\d\\d:5\\d web-0[12] nginx",
        "caf\\xe9|broken utf8",
        "java\\)$",
        "status=1/FAIL",
    ];
    for round in 0..4 {
        let path = dir.path().join(format!("r{round}.log"));
        let text = log(&mut rng, 4_000, round % 2 == 1);
        std::fs::write(&path, &text).unwrap();
        let base = dir.path().join("base");
        let block_size = [4096u64, 8192, 65536, 1 << 20][round];
        build(&path, &base, block_size, 16 << 20, &Quiet).unwrap();
        let index = BlockIndex::open(&base, &path).unwrap().expect("an index");
        for p in patterns {
            let m = MatchOptions::new(vec![p.to_string()]);
            // Exact, and stopping early at 8 blocks (what a search asks).
            let exact = index.candidates(&query_for(&m, true), 0).unwrap();
            let early = index.candidates(&query_for(&m, true), 8).unwrap();
            assert!(exact.iter().all(|b| early.contains(b)), "{p:?}: early stop lost a block");
            let re = regex::bytes::Regex::new(&format!("(?m){p}")).unwrap();
            for (offset, len) in cut(&text, block_size) {
                let block = &text[offset as usize..(offset + len) as usize];
                if re.is_match(block) {
                    assert!(
                        exact.iter().any(|b| b.offset == offset),
                        "round {round}: {p:?} matches the block at {offset}, not a candidate"
                    );
                }
            }
        }
    }
}

#[test]
fn z_keeps_a_plain_files_block_index_and_stats_say_so_once() {
    // `-z` leaves a plain file as it is, so its
    // block index still answers; `--stats` says in one sentence which
    // indexes answered, never "not used" beside a block index that was.
    let tree = Tree::new("blocks-z");
    let mut rng = StdRng::seed_from_u64(23);
    tree.write("app.log", log(&mut rng, 8_000, false));
    index(&tree, "app.log");
    assert_eq!(check(&tree, &["-z", "-c", "RAREMARK", "app.log"]), "block indexes used: 1");
    assert_eq!(check(&tree, &["-z", "-n", "page fault", "app.log"]), "block indexes used: 1");
    for args in [&["-z", "-c", "RAREMARK", "app.log"][..], &["-c", "RAREMARK", "app.log"]] {
        let stats = run(&util::tg_bin(), &tree, &[TG_OPTS, &["--stats"], args].concat());
        let err = String::from_utf8_lossy(&stats.stderr);
        let sentences: Vec<&str> = err.lines().filter(|l| l.starts_with("tg: index:")).collect();
        assert_eq!(sentences.len(), 1, "{args:?}: {err}");
        assert!(
            sentences[0].starts_with("tg: index: 1 block index used (")
                && sentences[0].contains("; tree index not used: "),
            "{args:?}: {}",
            sentences[0]
        );
    }
}
