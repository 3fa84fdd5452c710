//! Crash test of `tg index` ("the builder killed at random points
//! (at least 20 trials) leaves a usable index").
//!
//! A generated tree of 400 files (~1.9 MB of varied text, the same bytes on
//! every run) is indexed once, with a 256 KiB sort budget so the build
//! spills ~20 runs and merges in two passes. That is sized for a debug
//! build of `tg`, which indexes at ~1.5 MB/s on this 2-core machine: a full
//! build takes about 1.3 s (20 MB took 10–15 s). Then each trial changes some files
//! (appends, a same-size rewrite, a deletion, a new file), starts `tg index`
//! again and SIGKILLs it after a random delay. The delays are spread over
//! the whole measured build time (stratified: trial `i` of `n` dies in the
//! `i`-th slice of `0..1.2 × build`), so kills land in the walk and
//! extraction, while sort runs spill, in the merge and final write, and
//! around the publish. After each kill:
//!
//! * `tg status` succeeds;
//! * a few queries print exactly what `rg` prints on the current tree (the
//!   index may be the old or the new one; files changed since it was built
//!   are rescanned), with nothing on stderr;
//! * stray `.index.tg.*.tmp` files of killed builds do not pile up: a new
//!   build removes those whose writer is gone, so at most the one of the
//!   last kill remains.
//!
//! Each trial prints what the builder was doing when it died (read from
//! `/proc/PID/fd` and `/proc/PID/io` just before the kill). Knobs:
//! `TG_CRASH_SEED=<u64>` (default: from the clock; always printed) and
//! `TG_CRASH_TRIALS=<n>` (default 20 in the whole suite, 5 in the fast tier). `.config/nextest.toml` runs it with
//! both cores to itself, so build times (and kill points) are not skewed by
//! other tests.

mod util;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use util::faults::{inode, names_except, only_index_dir};
use util::{Case, Tree};

/// The indexed directory, relative to the tree root.
const DIR: &str = "src";
/// Files in the generated tree.
const FILES: usize = 400;
/// The sort budget of every build: small, so builds spill many runs and
/// merge in more than one pass.
const BUDGET: &str = "256K";

/// Words of the generated text: syllable soup, identifiers, numbers and a
/// few rare markers the queries look for.
fn word(rng: &mut StdRng, out: &mut String) {
    const SYL: [&str; 24] = [
        "ka", "lo", "mi", "tor", "en", "qua", "zi", "pre", "st", "ux", "ble", "gar", "fo", "nym",
        "dre", "wa", "pix", "el", "sho", "vi", "ro", "thi", "cu", "jo",
    ];
    match rng.random_range(0..100) {
        0..=14 => {
            for _ in 0..3 + rng.random_range(0..6) {
                out.push(char::from(b'a' + rng.random_range(0..26) as u8));
            }
        }
        15..=69 => {
            for _ in 0..1 + rng.random_range(0..3) {
                out.push_str(SYL[rng.random_range(0..SYL.len())]);
            }
        }
        70..=84 => {
            out.push_str(SYL[rng.random_range(0..SYL.len())]);
            out.push('_');
            out.push_str(SYL[rng.random_range(0..SYL.len())]);
            out.push_str(&rng.random_range(0..1000).to_string());
        }
        85..=97 => out.push_str(&rng.random::<u64>().to_string()[..1 + rng.random_range(0..8)]),
        _ => out.push_str(["Zebra_", "quux", "frobnicate"][rng.random_range(0..3)]),
    }
}

/// A file of about `len` bytes of lines of words.
fn text(rng: &mut StdRng, len: usize) -> String {
    let mut s = String::with_capacity(len + 100);
    while s.len() < len {
        for _ in 0..3 + rng.random_range(0..12) {
            word(rng, &mut s);
            s.push(' ');
        }
        s.push('\n');
    }
    s
}

/// Writes the tree: `FILES` files in nested directories, 0.5–8.5 KB each.
fn generate(tree: &Tree) -> Vec<PathBuf> {
    let mut rng = StdRng::seed_from_u64(0x0074_7269_6772_6570);
    let mut files = Vec::with_capacity(FILES);
    for i in 0..FILES {
        let rel = PathBuf::from(format!("{DIR}/d{:02}/e{}/f{i:05}.txt", i % 37, i % 5));
        let len = 500 + rng.random_range(0..8000);
        tree.write(&rel, text(&mut rng, len));
        files.push(rel);
    }
    files
}

/// Changes the tree behind the index's back; returns the new file list.
fn mutate(tree: &Tree, files: &mut Vec<PathBuf>, rng: &mut StdRng, trial: usize) {
    for _ in 0..2 {
        let p = tree.path(&files[rng.random_range(0..files.len())]);
        let mut s = std::fs::read(&p).unwrap();
        s.extend_from_slice(format!("crashmark {trial} Zebra_{trial} after build\n").as_bytes());
        std::fs::write(&p, s).unwrap();
    }
    // Same size, new content: only the modification time tells.
    let p = tree.path(&files[rng.random_range(0..files.len())]);
    let mut s = std::fs::read(&p).unwrap();
    let mark = b"crashmark";
    let n = mark.len().min(s.len());
    s[..n].copy_from_slice(&mark[..n]);
    std::fs::write(&p, s).unwrap();
    let gone = files.swap_remove(rng.random_range(0..files.len()));
    std::fs::remove_file(tree.path(gone)).unwrap();
    let rel = PathBuf::from(format!("{DIR}/new/t{trial:03}.txt"));
    tree.write(&rel, format!("crashmark new {trial}\nfrobnicate quux Zebra_{trial}\n"));
    files.push(rel);
}

/// `tg` with the harness's environment (HOME inside the tree).
fn tg(tree: &Tree, args: &[&str]) -> Command {
    let mut cmd = Command::new(util::tg_bin());
    cmd.args(args)
        .current_dir(tree.root())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", tree.path(".home"))
        .stdin(Stdio::null());
    cmd
}

/// Runs a build to the end and returns how long it took.
fn full_build(tree: &Tree) -> Duration {
    let t = Instant::now();
    let out = tg(tree, &["index", "-q", "--index-memory", BUDGET, DIR]).output().unwrap();
    assert!(out.status.success(), "tg index failed: {}", String::from_utf8_lossy(&out.stderr));
    t.elapsed()
}

/// The index directory of the tree.
fn index_dir(tree: &Tree) -> PathBuf {
    only_index_dir(&tree.path(".home/.cache/trigrep/indexes"))
}

/// Names in the index directory other than the published files.
fn strays(dir: &Path) -> Vec<String> {
    names_except(dir, &["index.tg", "ROOT"])
}

/// What a live builder is doing, from its open files and read counter.
fn phase(pid: u32, index_dir: &Path) -> String {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return "exited".into();
    };
    let (mut runs, mut writing) = (0, false);
    for fd in fds.flatten() {
        let Ok(target) = std::fs::read_link(fd.path()) else { continue };
        let t = target.to_string_lossy();
        if t.contains(".index.tg.") && t.contains(".tmp") {
            writing = true;
        } else if target.starts_with(index_dir) && t.ends_with("(deleted)") {
            runs += 1;
        }
    }
    let read = std::fs::read_to_string(format!("/proc/{pid}/io"))
        .ok()
        .and_then(|io| io.lines().find_map(|l| l.strip_prefix("rchar: ")?.parse::<u64>().ok()))
        .unwrap_or(0);
    let what = if writing {
        "merge/write".to_string()
    } else if runs > 0 {
        format!("extract+spill ({runs} temp files)")
    } else {
        "walk/extract".to_string()
    };
    format!("{what}, {:.1} MB read", read as f64 / 1e6)
}

#[test]
fn issue_0004_killed_builds_leave_a_usable_index() {
    let seed = std::env::var("TG_CRASH_SEED").ok().map_or_else(
        || {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
                as u64
        },
        |s| s.parse().expect("TG_CRASH_SEED must be a u64"),
    );
    // The fast tier kills five builds; the whole suite twenty.
    let default_trials = if util::whole_suite() { 20 } else { 5 };
    let trials: usize =
        std::env::var("TG_CRASH_TRIALS").map_or(default_trials, |s| s.parse().unwrap());
    eprintln!("crash test: seed {seed} (rerun with TG_CRASH_SEED={seed}), {trials} trials");
    let started = Instant::now();
    let tree = Tree::new("crash");
    let mut files = generate(&tree);
    // Time one full build: the kills are spread over this long.
    let build = full_build(&tree);
    let dir = index_dir(&tree);
    let index_file = dir.join("index.tg");
    let mut rng = StdRng::seed_from_u64(seed);
    eprintln!(
        "generated {} files in {:.2}s; a full build takes {:.2}s",
        files.len(),
        started.elapsed().as_secs_f64() - build.as_secs_f64(),
        build.as_secs_f64()
    );

    let queries: [&[&str]; 3] = [
        &["-n", "crashmark", DIR],
        &["-n", "-i", r"zebra_\d+", DIR],
        &["-n", "frobnicate|quux_", DIR],
    ];
    let mut failures = Vec::new();
    let (mut most_strays, mut killed) = (0, 0);
    for trial in 1..=trials {
        mutate(&tree, &mut files, &mut rng, trial);
        let slice = (trial - 1) as f64 + rng.random::<f64>();
        let delay = build.mul_f64(1.2 * slice / trials as f64);
        let before = inode(&index_file);
        let mut child = tg(&tree, &["index", "-q", "--index-memory", BUDGET, DIR])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let doing = match child.try_wait() {
            Ok(Some(_)) => None,
            _ => Some(phase(child.id(), &dir)),
        };
        let _ = child.kill();
        let finished = child.wait().unwrap().success();
        let what = match doing {
            Some(doing) if !finished => {
                killed += 1;
                format!("killed during {doing}")
            }
            _ => "finished before the kill".to_string(),
        };
        let published = if inode(&index_file) != before { ", new index published" } else { "" };
        let left = strays(&dir);
        most_strays = most_strays.max(left.len());
        eprintln!(
            "trial {trial:2}: at {:4} ms {what}{published}; strays {left:?}",
            delay.as_millis()
        );

        let status = tg(&tree, &["status"]).arg(DIR).output().unwrap();
        if !status.status.success() {
            failures.push(format!(
                "trial {trial}: tg status failed ({:?}): {}",
                status.status.code(),
                String::from_utf8_lossy(&status.stderr)
            ));
        }
        for (i, q) in queries.iter().enumerate() {
            let case = Case::new(format!("crash/trial{trial}/q{i}"), q.iter());
            if let Err(report) = util::compare(tree.root(), &case) {
                failures.push(format!("trial {trial} (killed at {delay:?}):\n{report}"));
            }
        }
        // A killed build may leave its own temp file; the next build removes it.
        if left.len() > 1 {
            failures
                .push(format!("trial {trial}: temp files pile up in {}: {left:?}", dir.display()));
        }
    }

    // A build that runs to the end cleans up after every killed one.
    full_build(&tree);
    let left = strays(&dir);
    if !left.is_empty() {
        failures.push(format!("after a full build, {} still holds {left:?}", dir.display()));
    }
    for (i, q) in queries.iter().enumerate() {
        if let Err(report) =
            util::compare(tree.root(), &Case::new(format!("crash/final/q{i}"), q.iter()))
        {
            failures.push(report);
        }
    }
    eprintln!(
        "crash test: {trials} trials ({killed} killed mid-build) in {:.1}s, at most \
         {most_strays} stray file(s) at once",
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "seed {seed}:\n{}", failures.join("\n"));
}

/// An interrupted `tg index` (SIGINT, SIGTERM) removes its own
/// temporary file before it exits, leaving the previous index as it was.
/// The temporary file lives only while the index is written, so the test
/// polls for it and interrupts the build as soon as it appears; a build
/// that finished first is started again (the tree is rebuilt each time).
#[test]
fn issue_0010_interrupted_build_leaves_no_temporary_file() {
    let tree = Tree::new("interrupt");
    generate(&tree);
    full_build(&tree);
    let dir = index_dir(&tree);
    let mut before = std::fs::read(dir.join("index.tg")).unwrap();
    let mut interrupted = 0;
    for (attempt, signal) in [SIGINT, SIGTERM].into_iter().cycle().take(12).enumerate() {
        let mut child = tg(&tree, &["index", "-q", "--index-memory", BUDGET, DIR]).spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut seen = false;
        while Instant::now() < deadline {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if strays(&dir).iter().any(|n| n.ends_with(".tmp")) {
                seen = true;
                let _ = Command::new("kill")
                    .arg(format!("-{signal}"))
                    .arg(child.id().to_string())
                    .status();
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let status = child.wait().unwrap();
        if !seen || status.success() {
            // The build finished before its temporary file was seen.
            before = std::fs::read(dir.join("index.tg")).unwrap();
            continue;
        }
        interrupted += 1;
        assert_eq!(status.code(), Some(128 + signal), "attempt {attempt}: exit code");
        assert_eq!(strays(&dir), Vec::<String>::new(), "attempt {attempt}: files left behind");
        assert_eq!(std::fs::read(dir.join("index.tg")).unwrap(), before, "the old index stays");
        if interrupted >= 2 {
            break;
        }
    }
    assert!(interrupted >= 1, "no build was interrupted while writing its index");
}

/// The signals' numbers on Linux.
const SIGINT: i32 = 2;
const SIGTERM: i32 = 15;
