//! Faults where state is written: a write that fails half-way
//! (disk full, file too large) during `tg index DIR`, `tg index FILE`, the
//! server's overlay merge, `tg pack` and `tg unpack` ends in one clear
//! `tg: ` line and exit 2 (the server: a merge error in `tg status`), with
//! the previous index or output file byte for byte as it was, no temporary
//! file left behind, queries still answering exactly as `rg`, and the next
//! write succeeding once space returns.
//!
//! Two injections, both real errors from the kernel (no failpoint in tg):
//!
//! * `RLIMIT_FSIZE` set in the child (`SIGXFSZ` ignored), swept over
//!   `TG_FAULT_POINTS` limits (default 10) spread over the size of the file
//!   being written: each write past the limit fails with `EFBIG`, so the
//!   sweep fails the index, its sort runs, the packed file or the unpacked
//!   text at that many offsets;
//! * a small tmpfs mounted by the test (root only: anyone else fails the
//!   test, never skips it) filled until only so many bytes are free (4
//!   points for `tg index`, 3 for pack and unpack, 1 for the server's merge
//!   by default), for a real `ENOSPC` wherever tg writes next.
//!
//! `.ci/slow` sweeps 100 points (10 for the merge, which needs a server
//! per point).

mod util;

use std::path::Path;
use std::process::{Command, Output};

use rand::SeedableRng;
use rand::rngs::StdRng;
use util::faults::{
    SmallFs, limit_file_size, names_except, one_error_line, only_index_dir, points,
};
use util::serve::{Served, wait_for};
use util::{Case, Tree};

/// The sort budget of the directory builds: small, so they spill runs.
const BUDGET: &str = "256K";

/// Queries of the generated tree.
const TREE_QUERIES: [&[&str]; 3] =
    [&["-n", "needle", "repo"], &["-c", "plain", "repo"], &["-n", "-i", "FRESH\\w+", "repo"]];

/// A tree of 120 files (~250 KB) under `repo`.
fn tree(name: &str) -> Tree {
    let t = Tree::new(name);
    t.git_init("repo");
    for i in 0..120 {
        t.write(
            format!("repo/d{}/f{i:03}.txt", i % 7),
            util::fixtures::numbered_lines(60 + i, "needle"),
        );
    }
    t
}

/// Changes the tree so that the next index differs (and is larger): 40
/// files added to watched directories (enough to start a merge), one
/// rewritten.
fn grow(t: &Tree, n: usize) {
    for i in 0..40 {
        let body = format!("freshword{n} {i} needle\nxyz{i}{n}\n");
        t.write(format!("repo/d{}/new{n}_{i:03}.txt", i % 7), body);
    }
    t.write("repo/d0/f000.txt", format!("rewritten {n} needle\n"));
}

/// `tg ARGS` in the tree's root, with its environment.
fn tg(t: &Tree, args: &[&str]) -> Command {
    let mut cmd = util::tg_command(t, t.root());
    cmd.args(args);
    cmd
}

/// Runs `cmd`, which must succeed.
fn ok(what: &str, mut cmd: Command) -> Output {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{what} failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Every query of `queries` against rg; mismatches go to `failures`.
fn check_queries(t: &Tree, tag: &str, queries: &[&[&str]], failures: &mut Vec<String>) {
    for (i, q) in queries.iter().enumerate() {
        if let Err(r) = util::compare(t.root(), &Case::new(format!("{tag}/q{i}"), q.iter())) {
            failures.push(r);
        }
    }
}

/// The published files of an index directory (the rest must not stay).
const PUBLISHED: &[&str] = &["index.tg", "ROOT", ".building", ".takeover"];

/// What a faulted write must leave: exit 2 and one line, the old `file`
/// as it was, nothing else new in `dir`; returns the error line, `None`
/// when the write did not fail (the limit was past what it writes).
fn faulted(
    what: &str,
    out: &Output,
    file: &Path,
    before: &[u8],
    dir: &Path,
    keep: &[&str],
) -> Result<Option<String>, String> {
    if out.status.success() {
        return Ok(None);
    }
    let line = one_error_line(what, out)?;
    if std::fs::read(file).ok().as_deref() != Some(before) {
        return Err(format!("{what}: {} changed ({line})", file.display()));
    }
    let left = names_except(dir, keep);
    if !left.is_empty() {
        return Err(format!("{what}: left behind in {}: {left:?} ({line})", dir.display()));
    }
    eprintln!("{what}: {line}");
    Ok(Some(line))
}

/// The limits of a sweep: `n` points spread over `0..size` (the first is
/// 0: the very first write fails), nudged by 0–2 bytes so that they fall
/// at different alignments.
fn limits(size: u64, n: usize) -> Vec<u64> {
    (0..n as u64).map(|k| size * k / n as u64 + k % 3).collect()
}

/// `tg index DIR` failing at many offsets of every file it writes: the
/// previous index stays, nothing is left, queries answer as rg's.
#[test]
fn index_builds_failing_to_write_keep_the_previous_index() {
    let t = tree("fault_index");
    ok("tg index", tg(&t, &["index", "-q", "--index-memory", BUDGET, "repo"]));
    let dir = only_index_dir(&t.path(".home/.cache/trigrep/indexes"));
    let index = dir.join("index.tg");
    let mut before = std::fs::read(&index).unwrap();
    let n = points(10);
    let (mut failed, mut failures) = (0, Vec::new());
    for (k, limit) in limits(before.len() as u64, n).into_iter().enumerate() {
        grow(&t, k);
        let mut cmd = tg(&t, &["index", "-q", "--index-memory", BUDGET, "repo"]);
        let out = limit_file_size(&mut cmd, limit).output().unwrap();
        match faulted(&format!("limit {limit}"), &out, &index, &before, &dir, PUBLISHED) {
            Ok(Some(_)) => failed += 1,
            Ok(None) => before = std::fs::read(&index).unwrap(),
            Err(e) => failures.push(e),
        }
        check_queries(&t, &format!("fsize{limit}"), &TREE_QUERIES, &mut failures);
    }
    ok("tg index after the faults", tg(&t, &["index", "-q", "repo"]));
    check_queries(&t, "after", &TREE_QUERIES, &mut failures);
    eprintln!("index build: {failed} of {n} writes failed (RLIMIT_FSIZE), all recovered");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(failed * 10 >= n * 9, "only {failed} of {n} limits made the build fail");
}

/// `tg index DIR` on a full disk (a real ENOSPC): the same promises.
#[test]
fn index_builds_on_a_full_disk_keep_the_previous_index() {
    if !util::require_root("mounting a small tmpfs") {
        return;
    }
    let t = tree("fault_index_full");
    let fs = SmallFs::mount(&t.path(".home/.cache/trigrep"), 8 << 20);
    ok("tg index", tg(&t, &["index", "-q", "--index-memory", BUDGET, "repo"]));
    let dir = only_index_dir(&t.path(".home/.cache/trigrep/indexes"));
    let index = dir.join("index.tg");
    let before = std::fs::read(&index).unwrap();
    let mut failures = Vec::new();
    let n = points(4);
    for (k, leave) in limits(before.len() as u64, n).into_iter().enumerate() {
        grow(&t, k);
        fs.fill(leave);
        let out = tg(&t, &["index", "-q", "--index-memory", BUDGET, "repo"]).output().unwrap();
        let what = format!("{leave} bytes free");
        match faulted(&what, &out, &index, &before, &dir, PUBLISHED) {
            Ok(Some(_)) => {}
            Ok(None) => failures.push(format!("{what}: the build succeeded")),
            Err(e) => failures.push(e),
        }
        check_queries(&t, &format!("full{k}"), &TREE_QUERIES, &mut failures);
    }
    fs.unfill();
    ok("tg index once space returned", tg(&t, &["index", "-q", "repo"]));
    check_queries(&t, "after", &TREE_QUERIES, &mut failures);
    eprintln!("index build: {n} writes failed (ENOSPC), all recovered");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A generated log of about `lines` lines at `path`; returns its bytes.
fn write_log(path: &Path, lines: usize, seed: u64) -> Vec<u8> {
    let text = util::logs::log(&mut StdRng::seed_from_u64(seed), lines, false);
    std::fs::write(path, &text).unwrap();
    text
}

/// `tg index FILE` (a block index) failing at many offsets: the previous
/// block index stays and queries answer as rg's.
#[test]
fn block_index_builds_failing_to_write_keep_the_previous_index() {
    let t = Tree::new("fault_blocks");
    write_log(&t.path("big.log"), 8000, 1);
    let build = ["index", "-q", "--block-size", "4K", "big.log"];
    ok("tg index FILE", tg(&t, &build));
    let dir = only_index_dir(&t.path(".home/.cache/trigrep/indexes"));
    let index = dir.join("index.tg");
    let before = std::fs::read(&index).unwrap();
    let queries: Vec<Vec<&str>> =
        util::logs::QUERIES.iter().take(6).map(|q| [*q, &["big.log"]].concat()).collect();
    let queries: Vec<&[&str]> = queries.iter().map(Vec::as_slice).collect();
    let n = points(10);
    let (mut failed, mut failures) = (0, Vec::new());
    for limit in limits(before.len() as u64, n) {
        // New contents, an eighth longer: the new index outgrows every limit.
        write_log(&t.path("big.log"), 9000, 2 + limit);
        let out = limit_file_size(&mut tg(&t, &build), limit).output().unwrap();
        match faulted(&format!("limit {limit}"), &out, &index, &before, &dir, PUBLISHED) {
            Ok(Some(_)) => failed += 1,
            Ok(None) => failures.push(format!("limit {limit}: the build succeeded")),
            Err(e) => failures.push(e),
        }
        check_queries(&t, &format!("fsize{limit}"), &queries, &mut failures);
    }
    eprintln!("block index build: {failed} of {n} writes failed (RLIMIT_FSIZE), all recovered");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `tg` on `packed` answers as `rg` on `text`; mismatches go to `failures`.
fn packed_answers(t: &Tree, packed: &str, text: &str, failures: &mut Vec<String>) {
    failures.extend(util::logs::packed_like_rg(t, packed, text).err());
}

/// What a pack's output directory may hold: the log, the packed file, and
/// the file being unpacked into.
const OUTPUTS: &[&str] = &["big.log", "old.log", "big.log.zst", "text.out", ".home"];

/// `tg pack -f` failing at many offsets of the packed file (and of its
/// sort runs): the old packed file stays, nothing is left, and it still
/// answers as rg on its text.
#[test]
fn packs_failing_to_write_keep_the_previous_output() {
    let t = Tree::new("fault_pack");
    write_log(&t.path("old.log"), 8000, 1);
    ok("tg pack", tg(&t, &["pack", "-q", "--frame-size", "4K", "old.log", "-o", "big.log.zst"]));
    let out_path = t.path("big.log.zst");
    let before = std::fs::read(&out_path).unwrap();
    write_log(&t.path("big.log"), 9000, 2);
    let pack = ["pack", "-q", "-f", "--frame-size", "4K", "--index-memory", "256K", "big.log"];
    let n = points(10);
    let mut failures = Vec::new();
    for limit in limits(before.len() as u64, n) {
        let out = limit_file_size(&mut tg(&t, &pack), limit).output().unwrap();
        match faulted(&format!("limit {limit}"), &out, &out_path, &before, t.root(), OUTPUTS) {
            Ok(Some(_)) => {}
            Ok(None) => failures.push(format!("limit {limit}: the pack succeeded")),
            Err(e) => failures.push(e),
        }
    }
    packed_answers(&t, "big.log.zst", "old.log", &mut failures);
    ok("tg pack", tg(&t, &pack));
    packed_answers(&t, "big.log.zst", "big.log", &mut failures);
    eprintln!("pack: {n} writes failed (RLIMIT_FSIZE), all recovered");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `tg pack -f` and `tg unpack -f` on a full disk: the same promises.
#[test]
fn packs_and_unpacks_on_a_full_disk_keep_the_previous_output() {
    if !util::require_root("mounting a small tmpfs") {
        return;
    }
    let t = Tree::new("fault_pack_full");
    let fs = SmallFs::mount(&t.path("out"), 8 << 20);
    let old = write_log(&t.path("old.log"), 8000, 1);
    write_log(&t.path("big.log"), 9000, 2);
    ok("tg pack", tg(&t, &["pack", "-q", "--frame-size", "4K", "old.log", "-o", "out/p.zst"]));
    std::fs::write(t.path("out/text.out"), b"an older text\n").unwrap();
    let (packed, text) = (t.path("out/p.zst"), t.path("out/text.out"));
    let before = (std::fs::read(&packed).unwrap(), std::fs::read(&text).unwrap());
    let keep = &["p.zst", "text.out", ".filler"];
    let mut failures = Vec::new();
    let n = points(3);
    for leave in limits(before.0.len() as u64, n) {
        fs.fill(leave);
        let out = tg(&t, &["pack", "-q", "-f", "--frame-size", "4K", "big.log", "-o", "out/p.zst"])
            .output()
            .unwrap();
        let what = format!("pack with {leave} bytes free");
        match faulted(&what, &out, &packed, &before.0, &t.path("out"), keep) {
            Ok(Some(_)) => {}
            Ok(None) => failures.push(format!("{what}: succeeded")),
            Err(e) => failures.push(e),
        }
        let out =
            tg(&t, &["unpack", "-q", "-f", "out/p.zst", "-o", "out/text.out"]).output().unwrap();
        let what = format!("unpack with {leave} bytes free");
        match faulted(&what, &out, &text, &before.1, &t.path("out"), keep) {
            Ok(Some(_)) => {}
            Ok(None) => failures.push(format!("{what}: succeeded")),
            Err(e) => failures.push(e),
        }
    }
    fs.unfill();
    packed_answers(&t, "out/p.zst", "old.log", &mut failures);
    ok("tg unpack", tg(&t, &["unpack", "-q", "-f", "out/p.zst", "-o", "out/text.out"]));
    assert!(std::fs::read(&text).unwrap() == old, "the unpacked text is the old log's");
    ok(
        "tg pack",
        tg(&t, &["pack", "-q", "-f", "--frame-size", "4K", "big.log", "-o", "out/p.zst"]),
    );
    packed_answers(&t, "out/p.zst", "big.log", &mut failures);
    eprintln!("pack and unpack: {} writes failed (ENOSPC), all recovered", 2 * n);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `tg unpack -f` failing at many offsets of the text: the old output
/// stays and nothing is left.
#[test]
fn unpacks_failing_to_write_keep_the_previous_output() {
    let t = Tree::new("fault_unpack");
    let text = write_log(&t.path("big.log"), 8000, 3);
    ok("tg pack", tg(&t, &["pack", "-q", "--frame-size", "4K", "big.log"]));
    std::fs::write(t.path("text.out"), b"an older text\n").unwrap();
    let out_path = t.path("text.out");
    let before = std::fs::read(&out_path).unwrap();
    let n = points(10);
    let mut failures = Vec::new();
    for limit in limits(text.len() as u64, n) {
        let mut cmd = tg(&t, &["unpack", "-q", "-f", "big.log.zst", "-o", "text.out"]);
        let out = limit_file_size(&mut cmd, limit).output().unwrap();
        match faulted(&format!("limit {limit}"), &out, &out_path, &before, t.root(), OUTPUTS) {
            Ok(Some(_)) => {}
            Ok(None) => failures.push(format!("limit {limit}: the unpack succeeded")),
            Err(e) => failures.push(e),
        }
    }
    ok("tg unpack", tg(&t, &["unpack", "-q", "-f", "big.log.zst", "-o", "text.out"]));
    assert!(std::fs::read(&out_path).unwrap() == text, "the unpacked text is the log's");
    eprintln!("unpack: {n} writes failed (RLIMIT_FSIZE), all recovered");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The server's overlay merge on a full disk: the merge fails and says so
/// in `tg status`, the server keeps answering as rg from the old index and
/// its overlay, no temporary file stays; once space returns, the same
/// server's next merge succeeds. The free space left is swept over a tenth
/// as many points as the other sweeps (each needs its own server, whose
/// first merge fails); the last server sees space return.
#[test]
fn merges_on_a_full_disk_fail_cleanly_and_succeed_later() {
    if !util::require_root("mounting a small tmpfs") {
        return;
    }
    let t = tree("fault_merge");
    let fs = SmallFs::mount(&t.path(".home/.cache/trigrep"), 8 << 20);
    ok("tg index", tg(&t, &["index", "-q", "repo"]));
    let dir = only_index_dir(&t.path(".home/.cache/trigrep/indexes"));
    let before = std::fs::read(dir.join("index.tg")).unwrap();
    let n = (points(10) / 10).max(1);
    let mut failures = Vec::new();
    let mut server = None;
    for (k, leave) in limits(before.len() as u64, n).into_iter().enumerate() {
        drop(server.take());
        let s = Served::start(&t, &["--merge-at", "5"]);
        fs.fill(leave);
        grow(&t, k);
        let st = wait_for(&t, "a failed merge", |st| st.contains("last merge: failed"));
        eprintln!("{leave} bytes free: {}", st.lines().last().unwrap_or_default());
        if !st.contains(" 0 merges") {
            failures.push(format!("a merge succeeded with {leave} bytes free:\n{st}"));
        }
        check_served(&t, &format!("full{k}"), &mut failures);
        if std::fs::read(dir.join("index.tg")).unwrap() != before {
            failures.push(format!("{leave} bytes free: the index changed"));
        }
        let left = names_except(&dir, &[PUBLISHED, SERVER_FILES].concat());
        if !left.is_empty() {
            failures.push(format!("{leave} bytes free: left behind: {left:?}"));
        }
        server = Some(s);
    }
    fs.unfill();
    let st = wait_for(&t, "a merge once space returned", |st| st.contains(" 1 merges"));
    if st.contains("last merge: failed") {
        failures.push(format!("the error stays after a merge succeeded:\n{st}"));
    }
    grow(&t, n);
    check_served(&t, "after", &mut failures);
    eprintln!("server merge: {n} merges failed (ENOSPC), all recovered");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The files a live server keeps in its index directory.
const SERVER_FILES: &[&str] = &["server", "serve.auto"];

/// The tree's queries, which the server must have answered.
fn check_served(t: &Tree, tag: &str, failures: &mut Vec<String>) {
    let queries: Vec<Vec<&str>> = TREE_QUERIES.iter().map(|q| q[..q.len() - 1].to_vec()).collect();
    for (i, q) in queries.iter().enumerate() {
        let case = Case::new(format!("{tag}/served{i}"), q.iter()).cwd("repo");
        if let Err(r) = util::compare(t.root(), &case) {
            failures.push(r);
        }
    }
    let err = tg(t, &["--stats", "-l", "needle"]).current_dir(t.path("repo")).output().unwrap();
    if !String::from_utf8_lossy(&err.stderr).contains("told by the server") {
        failures.push(format!("{tag}: the server did not answer"));
    }
}
