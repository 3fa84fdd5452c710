//! The two wrong answers: a text with an index is answered from
//! it only while the rule of `trigrep::index::trust` holds.
//!
//! - A block-indexed log changed by any sequence of writes, truncations,
//!   renames and appends prints exactly what rg prints; only a log that
//!   just grew (or did not change) is answered through its index.
//! - A packed file whose bytes changed since `tg pack` wrote it is reported
//!   by every search (one `tg:` line, exit 2), whichever frames the search
//!   would read, and by `tg status`; the verdict is kept per stamp, and a
//!   repaired file is searched again.
//!
//! Blocks are 4 KiB and every file is "huge" (`--chunk-threshold 1`).

mod util;

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Duration;

use util::{Case, Outcome, Tree};

const TG_OPTS: &[&str] = &["--chunk-threshold", "1", "--chunk-size", "16384", "-j", "2"];

/// A log of `lines` numbered lines, about 27 bytes each.
fn numbered(lines: usize) -> Vec<u8> {
    (1..=lines).flat_map(|i| format!("line {i:08} of the log\n").into_bytes()).collect()
}

fn run(program: &Path, tree: &Tree, args: &[&str]) -> Outcome {
    util::run(program, tree.root(), &Case::new(args.join(" "), args).no_sort())
}

/// `tg ARGS` prints what `rg ARGS` prints, with rg's exit code; returns
/// tg's `--stats` line on block indexes.
fn same_as_rg(tree: &Tree, what: &str, args: &[&str]) -> String {
    let want = run(&util::rg_bin(), tree, args);
    let got = run(&util::tg_bin(), tree, &[TG_OPTS, args].concat());
    assert!(
        want.stdout == got.stdout && want.code == got.code,
        "{what}: tg {args:?}: exit {:?} vs rg {:?}; tg stderr: {}\nstdout diff (--- rg, +++ tg):\n{}",
        got.code,
        want.code,
        util::preview(&got.stderr, 400),
        util::diff::render(&want.stdout, &got.stdout, "  ")
    );
    let stats = run(&util::tg_bin(), tree, &[TG_OPTS, &["--stats", "-q"], args].concat());
    let err = String::from_utf8_lossy(&stats.stderr).into_owned();
    err.lines().find(|l| l.contains("block indexes used")).unwrap_or("").trim().to_string()
}

fn tg_ok(tree: &Tree, args: &[&str]) -> Outcome {
    let out = run(&util::tg_bin(), tree, args);
    assert_eq!(out.code, Some(0), "tg {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn append(tree: &Tree, rel: &str, bytes: &[u8]) {
    OpenOptions::new().append(true).open(tree.path(rel)).unwrap().write_all(bytes).unwrap();
}

fn write_at(tree: &Tree, rel: &str, at: u64, bytes: &[u8]) {
    OpenOptions::new().write(true).open(tree.path(rel)).unwrap().write_all_at(bytes, at).unwrap();
}

/// Each way a log can change after its index was built, as steps on the
/// file `app.log` of `len` bytes. Each plants `XXXXXXXX` where the index
/// cannot know it; all but one leave indexed bytes changed.
type Change = fn(&Tree, u64);

const CHANGES: &[(&str, Change)] = &[
    ("a write in the middle, then an append", |t, len| {
        write_at(t, "app.log", len / 2, b"XXXXXXXX");
        append(t, "app.log", b"one more line\n");
    }),
    ("an append, then a write in the middle", |t, len| {
        append(t, "app.log", b"one more line\n");
        write_at(t, "app.log", len / 3, b"XXXXXXXX");
    }),
    ("a write in the first block, then an append", |t, _| {
        write_at(t, "app.log", 100, b"XXXXXXXX");
        append(t, "app.log", b"one more line\n");
    }),
    ("a write in the last indexed block, then an append", |t, len| {
        write_at(t, "app.log", len - 20, b"XXXXXXXX");
        append(t, "app.log", b"one more line\n");
    }),
    ("a newline written in the middle, then an append", |t, len| {
        write_at(t, "app.log", len / 2 + 3, b"\nXXXXXXXX");
        append(t, "app.log", b"one more line\n");
    }),
    ("truncated to half, then appended past its old size", |t, len| {
        OpenOptions::new().write(true).open(t.path("app.log")).unwrap().set_len(len / 2).unwrap();
        append(t, "app.log", &numbered(60_000)[..len as usize]);
        append(t, "app.log", b"XXXXXXXX\n");
    }),
    ("emptied, then written anew and longer", |t, len| {
        OpenOptions::new().write(true).open(t.path("app.log")).unwrap().set_len(0).unwrap();
        append(t, "app.log", &[b"XXXXXXXX\n", &numbered(60_000)[..len as usize]].concat());
    }),
    ("a longer copy with a change renamed over it", |t, len| {
        let mut bytes = std::fs::read(t.path("app.log")).unwrap();
        bytes[len as usize / 2..len as usize / 2 + 8].copy_from_slice(b"XXXXXXXX");
        bytes.extend_from_slice(b"one more line\n");
        t.write("app.log.new", &bytes);
        std::fs::rename(t.path("app.log.new"), t.path("app.log")).unwrap();
    }),
    ("rotated: moved away, a longer log in its place", |t, len| {
        std::fs::rename(t.path("app.log"), t.path("app.log.1")).unwrap();
        t.write("app.log", [&numbered(60_000)[..len as usize], b"XXXXXXXX\n"].concat());
    }),
    ("the same size, written in the middle", |t, len| {
        write_at(t, "app.log", len / 2, b"XXXXXXXX");
    }),
];

#[test]
fn a_changed_log_is_never_answered_from_a_stale_index() {
    let tree = Tree::new("trust-blocks");
    let text = numbered(40_000);
    let len = text.len() as u64;
    for (what, change) in CHANGES {
        tree.write("app.log", &text);
        let _ = std::fs::remove_file(tree.path("app.log.1"));
        tg_ok(&tree, &["index", "-q", "--block-size", "4K", "app.log"]);
        let first = same_as_rg(&tree, what, &["-n", "line 00020000 ", "app.log"]);
        assert_eq!(first, "block indexes used: 1", "{what}: the fresh index");
        // Past the racy window, as a later query would be.
        std::thread::sleep(Duration::from_millis(30));
        change(&tree, len);
        let used = same_as_rg(&tree, what, &["-n", "XXXXXXXX", "app.log"]);
        assert_eq!(used, "block indexes used: 0", "{what}: the index was trusted");
        for args in [&["-c", "line"][..], &["-n", "line 000[0-9]{4}1 o"], &["-n", "more line$"]] {
            same_as_rg(&tree, what, &[args, &["app.log"]].concat());
        }
    }
}

#[test]
fn the_rule_is_the_bytes_not_the_times() {
    // The middle written and written back, then an append: every indexed
    // byte is as indexed, so the index answers (with the tail).
    let tree = Tree::new("trust-same-bytes");
    let text = numbered(40_000);
    tree.write("app.log", &text);
    tg_ok(&tree, &["index", "-q", "--block-size", "4K", "app.log"]);
    std::thread::sleep(Duration::from_millis(30));
    let mid = text.len() as u64 / 2;
    write_at(&tree, "app.log", mid, b"XXXXXXXX");
    write_at(&tree, "app.log", mid, &text[mid as usize..mid as usize + 8]);
    append(&tree, "app.log", b"XXXXXXXX appended\n");
    let used = same_as_rg(&tree, "same bytes", &["-n", "XXXXXXXX", "app.log"]);
    assert_eq!(used, "block indexes used: 1");
}

#[test]
fn a_log_that_only_grew_is_still_answered_from_its_index() {
    let tree = Tree::new("trust-grown");
    tree.write("app.log", numbered(40_000));
    tg_ok(&tree, &["index", "-q", "--block-size", "4K", "app.log"]);
    std::thread::sleep(Duration::from_millis(30));
    for round in 0..3 {
        append(&tree, "app.log", format!("appended XXXXXXXX {round}\n").as_bytes());
        let used = same_as_rg(&tree, "grown", &["-n", "XXXXXXXX", "app.log"]);
        assert_eq!(used, "block indexes used: 1", "round {round}");
        same_as_rg(&tree, "grown", &["-n", "line 00039999 ", "app.log"]);
    }
}

/// `tg pack`s a numbered log into `app.log.zst` (4 KiB frames).
fn packed(tree: &Tree) -> Vec<u8> {
    tree.write("app.log", numbered(40_000));
    tg_ok(tree, &["pack", "-q", "-f", "--frame-size", "4K", "app.log"]);
    std::fs::read(tree.path("app.log.zst")).unwrap()
}

/// `tg ARGS` fails for `app.log.zst` with one `tg:` line naming it, and
/// prints nothing.
fn reported(tree: &Tree, what: &str, args: &[&str]) {
    let out = run(&util::tg_bin(), tree, args);
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(out.code, Some(2), "{what}: tg {args:?}: {err}");
    assert!(
        lines.len() == 1 && lines[0].starts_with("tg: app.log.zst: "),
        "{what}: tg {args:?}: one line naming the file: {err}"
    );
    assert!(out.stdout.is_empty(), "{what}: tg {args:?} printed {:?}", out.stdout);
}

/// `tg -c` of a line of `app.log.zst` prints what `rg -c` prints of `app.log`.
fn as_rg_on_the_text(tree: &Tree, what: &str) {
    let want = run(&util::rg_bin(), tree, &["-c", "line 00000001 ", "app.log"]);
    let got = run(&util::tg_bin(), tree, &["-c", "line 00000001 ", "app.log.zst"]);
    assert_eq!((got.stdout, got.code), (want.stdout, want.code), "{what}");
}

#[test]
fn a_damaged_packed_file_is_reported_by_every_search_and_by_status() {
    let tree = Tree::new("trust-packed");
    let good = packed(&tree);
    let status = tg_ok(&tree, &["status", "app.log.zst"]);
    assert!(String::from_utf8_lossy(&status.stdout).contains("integrity:  sound"));
    as_rg_on_the_text(&tree, "sound");
    // The case: eight bytes in the middle, a frame no query of the
    // first line reads; then a flipped byte in the first, a middle and the
    // last data frame.
    let len = good.len();
    for (what, at, bytes) in [
        ("0xff x8 at the middle", len / 2, &[0xff; 8][..]),
        ("a byte of the first data frame", 40, &[0x5a]),
        ("a byte of a middle data frame", len / 3, &[0x5a]),
        ("a byte of the last data frame", len * 9 / 10, &[0x5a]),
    ] {
        let mut bad = good.clone();
        for (i, b) in bytes.iter().enumerate() {
            bad[at + i] ^= b;
        }
        std::thread::sleep(Duration::from_millis(30));
        std::fs::write(tree.path("app.log.zst"), &bad).unwrap();
        for args in [
            &["-z", "-c", "line 00000001 ", "app.log.zst"][..],
            &["-c", "line 00000001 ", "app.log.zst"],
            &["-n", "line 00039999 ", "app.log.zst"],
            &["-l", "XYZZY", "app.log.zst"],
        ] {
            reported(&tree, what, args);
            // Twice: the second answer comes from the kept verdict.
            reported(&tree, what, args);
        }
        let out = run(&util::tg_bin(), &tree, &["status", "app.log.zst"]);
        assert_eq!(out.code, Some(2), "{what}: tg status");
        assert!(String::from_utf8_lossy(&out.stdout).contains("integrity:  damaged"), "{what}");
        // Repaired: the verdict was for other bytes; searched again.
        std::thread::sleep(Duration::from_millis(30));
        std::fs::write(tree.path("app.log.zst"), &good).unwrap();
        as_rg_on_the_text(&tree, what);
    }
    // A change that keeps the modification time is still a change.
    let f = OpenOptions::new().write(true).open(tree.path("app.log.zst")).unwrap();
    let mtime = f.metadata().unwrap().modified().unwrap();
    std::thread::sleep(Duration::from_millis(30));
    f.write_all_at(&[good[len / 2] ^ 0x5a], len as u64 / 2).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    reported(&tree, "mtime kept", &["-c", "line 00000001 ", "app.log.zst"]);
}

#[test]
fn a_grown_log_is_verified_only_when_its_index_will_be_used() {
    // Verifying reads every indexed byte: a search that scans the file
    // anyway (a query most blocks can match) must not pay for it first.
    let tree = Tree::new("trust-verify-when-used");
    tree.write("app.log", numbered(40_000));
    tg_ok(&tree, &["index", "-q", "--block-size", "4K", "app.log"]);
    std::thread::sleep(Duration::from_millis(30));
    append(&tree, "app.log", b"appended XXXXXXXX\n");
    let verified = |args: &[&str]| {
        let out = run(&util::tg_bin(), &tree, &[TG_OPTS, &["--stats", "-q"], args].concat());
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        let line = err.lines().find(|l| l.contains("indexed bytes of grown files verified"));
        line.map(|l| l.trim().to_string()).unwrap_or_default()
    };
    let len = numbered(40_000).len();
    let selective = verified(&["XXXXXXXX", "app.log"]);
    assert!(selective.contains(&format!("verified: {len} in")), "{selective}");
    let dense = verified(&["line", "app.log"]);
    assert!(dense.contains("verified: 0 in"), "{dense}");
    same_as_rg(&tree, "dense", &["-c", "line", "app.log"]);
}
