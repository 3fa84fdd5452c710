//! Indexes built in the background and the index directory's upkeep:
//! `tg index FILE` while another build of the file
//! runs (a background build gives way, another build is waited for,
//! `--no-wait` returns at once); a query while a build holds the lock reads
//! the file itself, prints rg's lines, says so under `--stats` and starts
//! no other build; `TG_AUTO_INDEX_MIN` read with rg's size suffixes (and a
//! bad value said on stderr); `tg status --prune`; `tg status` saying how
//! many files it counts through symbolic links.

mod util;

use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::StdRng;
use trigrep::index::blocks::BlockIndex;
use trigrep::index::location::index_dir_for;
use trigrep::index::storage::FsStorage;
use util::logs::log;
use util::{Case, Tree};

/// Every file is "huge" (searched in chunks, looked up for a block index).
const HUGE: &[&str] = &["--chunk-threshold", "1", "--chunk-size", "16384"];

/// `tg` in the tree's root with its index directory under the tree.
fn tg(tree: &Tree) -> Command {
    let mut cmd = util::tg_command(tree, tree.root());
    cmd.env("TG_INDEX_DIR", tree.path(".idx")).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd
}

/// The storage of the block index of `rel` (created).
fn storage_of(tree: &Tree, rel: &str) -> FsStorage {
    let canonical = tree.path(rel).canonicalize().unwrap();
    FsStorage::create(&index_dir_for(&tree.path(".idx"), &canonical)).unwrap()
}

/// A generated log of about `lines` lines at `rel`.
fn write_log(tree: &Tree, rel: &str, lines: usize) {
    tree.write(rel, log(&mut StdRng::seed_from_u64(lines as u64), lines, false));
}

/// Runs `cmd` to its end (at most two minutes); its exit code, stdout, stderr.
fn finish(mut child: Child) -> (Option<i32>, String, String) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "still running after two minutes");
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

/// Checks `tg ARGS` (plus [`HUGE`]) against `rg ARGS`; returns tg's
/// stderr, and that of the same search with `--stats`.
fn same_as_rg(tree: &Tree, env: &[(&str, &str)], args: &[&str]) -> (String, String) {
    let want = util::run(&util::rg_bin(), tree.root(), &Case::new("rg", args).no_sort());
    let tg_with = |more: &[&str]| {
        let mut cmd = tg(tree);
        cmd.envs(env.iter().copied()).args(HUGE).args(more).args(args);
        finish(cmd.spawn().unwrap())
    };
    let (code, stdout, stderr) = tg_with(&[]);
    // Both search named files in parallel: their order is not fixed.
    let (got, rg) = (util::sorted_lines(stdout.as_bytes()), util::sorted_lines(&want.stdout));
    assert!(
        got == rg && code == want.code,
        "tg {args:?}: exit {code:?} vs rg {:?}; stdout {stdout:?} vs rg {:?}; stderr: {stderr}",
        want.code,
        String::from_utf8_lossy(&want.stdout)
    );
    (stderr, tg_with(&["--stats"]).2)
}

/// Waits until a query of `rel` is answered through its block index.
fn wait_for_index(tree: &Tree, rel: &str) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (_, _, err) =
            finish(tg(tree).args(HUGE).args(["--stats", "-q", "RAREMARK", rel]).spawn().unwrap());
        if err.contains("block indexes used: 1") {
            return;
        }
        assert!(Instant::now() < deadline, "{rel} never got an index: {err}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Waits until no process runs with the tree's root in its command line
/// (the builds a query started in the background), Linux's `/proc`.
fn wait_for_builds(tree: &Tree) {
    let root = tree.root().to_string_lossy().into_owned();
    let deadline = Instant::now() + Duration::from_secs(120);
    while std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        std::fs::read(e.path().join("cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&root))
    }) {
        assert!(Instant::now() < deadline, "background builds still running");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_query_during_a_build_reads_the_file_says_so_and_waits_for_nothing() {
    let tree = Tree::new("during-build");
    write_log(&tree, "big.log", 20_000);
    let env = [("TG_AUTO_INDEX_MIN", "1K")];
    let lock = storage_of(&tree, "big.log").try_lock_build().unwrap().expect("free");
    let started = Instant::now();
    for _ in 0..3 {
        let (_, err) = same_as_rg(&tree, &env, &["-n", "RAREMARK", "big.log"]);
        assert!(err.contains("files read without their index, still being built: 1"), "{err}");
    }
    // Nothing waited for the lock: three small searches, not a timeout.
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    wait_for_builds(&tree);
    drop(lock);
    assert!(!storage_of(&tree, "big.log").has_index(), "a build started while one ran");
    // Once the lock is free, the next search starts a build (1K: every file).
    same_as_rg(&tree, &env, &["-n", "RAREMARK", "big.log"]);
    wait_for_index(&tree, "big.log");
    same_as_rg(&tree, &env, &["-n", "RAREMARK", "big.log"]);
}

#[test]
fn tg_index_file_takes_over_from_a_background_build() {
    let tree = Tree::new("take-over");
    write_log(&tree, "big.log", 120_000);
    // Small batches: the background build looks for a request between them.
    let background = tg(&tree)
        .args(["index", "--background", "--index-memory", "256K", "--block-size", "4K", "big.log"])
        .spawn()
        .unwrap();
    let storage = storage_of(&tree, "big.log");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !storage.build_under_way() {
        assert!(Instant::now() < deadline, "the background build never took its lock");
        std::thread::sleep(Duration::from_millis(1));
    }
    // Stopped mid-build (as a busy machine would leave it), asked to give way.
    signal(&background, libc::SIGSTOP);
    let asked = tg(&tree).args(["index", "--block-size", "8K", "big.log"]).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let mut asked = asked;
    assert!(asked.try_wait().unwrap().is_none(), "tg index returned without an index");
    signal(&background, libc::SIGCONT);
    let (code, _, err) = finish(asked);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("being indexed already: waiting"), "{err}");
    let (bg_code, _, bg_err) = finish(background);
    assert_eq!(bg_code, Some(0), "{bg_err}");
    assert!(bg_err.contains("gave way"), "the background build finished instead: {bg_err}");
    let index = BlockIndex::open(&tree.path(".idx"), &tree.path("big.log")).unwrap().unwrap();
    assert_eq!(index.source.text.block_size, 8192, "not the asked-for build's index");
    let (_, err) = same_as_rg(&tree, &[], &["-n", "RAREMARK", "big.log"]);
    assert!(err.contains("block indexes used: 1"), "{err}");
}

#[test]
fn tg_index_waits_for_another_build_and_no_wait_does_not() {
    let tree = Tree::new("wait");
    write_log(&tree, "big.log", 5_000);
    let lock = storage_of(&tree, "big.log").try_lock_build().unwrap().expect("free");
    let (code, _, err) = finish(tg(&tree).args(["index", "--no-wait", "big.log"]).spawn().unwrap());
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("is being indexed already"), "{err}");
    assert!(!storage_of(&tree, "big.log").has_index());
    let mut waiting = tg(&tree).args(["index", "big.log"]).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(waiting.try_wait().unwrap().is_none(), "tg index did not wait for the build");
    drop(lock);
    let (code, _, err) = finish(waiting);
    assert_eq!(code, Some(0), "{err}");
    assert!(storage_of(&tree, "big.log").has_index(), "{err}");
}

#[test]
fn the_auto_index_floor_is_read_with_suffixes_and_a_bad_one_is_said() {
    let tree = Tree::new("floor");
    write_log(&tree, "small.log", 10_000);
    write_log(&tree, "big.log", 30_000);
    let (small, big) = (len(&tree.path("small.log")), len(&tree.path("big.log")));
    assert!(small < 1 << 20 && big > 1 << 20 && big < 4 << 20, "{small} {big}");
    let env = [("TG_AUTO_INDEX_MIN", "1M")];
    same_as_rg(&tree, &env, &["-c", "RAREMARK", "small.log", "big.log"]);
    wait_for_index(&tree, "big.log");
    wait_for_builds(&tree);
    assert!(!storage_of(&tree, "small.log").has_index(), "a file under 1M was indexed");
    for bad in ["500MB", "lots"] {
        let env = [("TG_AUTO_INDEX_MIN", bad)];
        let (err, _) = same_as_rg(&tree, &env, &["-c", "RAREMARK", "small.log"]);
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{err}");
        assert!(lines[0].starts_with("tg: TG_AUTO_INDEX_MIN=") && lines[0].contains(bad), "{err}");
    }
    wait_for_builds(&tree);
    assert!(!storage_of(&tree, "small.log").has_index(), "a bad floor was read as a number");
}

#[test]
fn status_prune_removes_indexes_of_gone_files_only() {
    let tree = Tree::new("prune");
    for name in ["kept.log", "gone.log", "busy.log"] {
        write_log(&tree, name, 2_000);
        let (code, _, err) = finish(tg(&tree).args(["index", "-q", name]).spawn().unwrap());
        assert_eq!(code, Some(0), "{err}");
    }
    tree.write("src/a.txt", "RAREMARK\n");
    let (code, _, err) = finish(tg(&tree).args(["index", "-q", "src"]).spawn().unwrap());
    assert_eq!(code, Some(0), "{err}");
    let dirs = |name: &str| storage_of(&tree, name).dir().to_path_buf();
    let (gone, busy, kept) = (dirs("gone.log"), dirs("busy.log"), dirs("kept.log"));
    let busy_lock = FsStorage::new(&busy).try_lock_build().unwrap().unwrap();
    std::fs::remove_file(tree.path("gone.log")).unwrap();
    std::fs::remove_file(tree.path("busy.log")).unwrap();
    let (code, out, err) = finish(tg(&tree).args(["status", "--prune"]).spawn().unwrap());
    assert_eq!(code, Some(0), "{err}");
    assert!(!gone.exists(), "{out}");
    assert!(busy.join("index.tg").exists() && kept.join("index.tg").exists(), "{out}");
    assert!(out.contains("removed") && out.contains("gone.log (gone)"), "{out}");
    assert!(out.contains("busy.log (gone): a build of it runs"), "{out}");
    assert!(out.contains("1 index of gone trees and files removed"), "{out}");
    let (_, all, _) = finish(tg(&tree).args(["status", "--all"]).spawn().unwrap());
    assert!(!all.contains("gone.log") && all.contains("kept.log") && all.contains("src"), "{all}");
    drop(busy_lock);
    let (_, out, _) = finish(tg(&tree).args(["status", "--prune"]).spawn().unwrap());
    assert!(!busy.exists() && kept.exists(), "{out}");
}

#[test]
fn status_says_which_files_it_counts_through_symbolic_links() {
    let tree = Tree::new("links");
    for i in 0..3 {
        tree.write(format!("t/real/f{i}.txt"), "x\n");
    }
    tree.write("t/.hidden.txt", "x\n");
    tree.symlink("real", "t/link");
    let (code, _, err) = finish(tg(&tree).args(["index", "-q", "t"]).spawn().unwrap());
    assert_eq!(code, Some(0), "{err}");
    let (code, out, err) = finish(tg(&tree).args(["status", "t"]).spawn().unwrap());
    assert_eq!(code, Some(0), "{err}");
    let files = out.lines().find(|l| l.starts_with("files:")).unwrap_or_default();
    assert!(files.starts_with("files:      7 "), "{out}");
    assert!(files.contains("3 reached through symbolic links"), "{out}");
    assert!(files.contains("a plain search walks 3"), "{out}");
    let plain = util::run(&util::rg_bin(), &tree.path("t"), &Case::new("rg", ["--files"]));
    assert_eq!(String::from_utf8_lossy(&plain.stdout).lines().count(), 3);
}

/// The size of the file at `path`.
fn len(path: &Path) -> u64 {
    File::open(path).unwrap().metadata().unwrap().len()
}

/// Sends `sig` to `child`.
fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}
