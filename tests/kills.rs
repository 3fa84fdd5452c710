//! Processes killed at random points: a live server SIGKILLed at
//! random moments of its overlay merge, and `tg pack -f` SIGKILLed at
//! random moments of a pack. (`tests/index_crash.rs` does the same to
//! `tg index`.) The kill delays are stratified over a measured merge or
//! pack time, 1.2 times over (trial `i` of `n` dies in the `i`-th slice),
//! so they land from the first read to the rename.
//!
//! After each killed merge: queries without a server answer as `rg`, a
//! restarted server answers as `rg` (and says it did), at most the killed
//! build's temporary file is left in the index directory, and the next
//! build succeeds and leaves none. After each killed pack: the packed file
//! is the previous one byte for byte, or the complete new one (it unpacks
//! to the new text, checksum verified), never a truncated file; at most
//! the killed pack's temporary file is left, the next pack removes it;
//! `tg PATTERN LOG.zst` prints what `rg` prints on the text it holds.
//!
//! Knobs: `TG_KILL_TRIALS=<n>` (default 6 merges, 12 packs; `.ci/slow`
//! runs 100 of each) and `TG_KILL_SEED=<u64>` (default from the clock,
//! always printed).

mod util;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use util::faults::{inode, names_except, only_index_dir};
use util::serve::{Served, wait_for};
use util::{Case, Tree};

/// The number of trials (`TG_KILL_TRIALS`, else `default`), the seed and
/// its generator.
fn knobs(default: usize) -> (usize, u64, StdRng) {
    let trials =
        std::env::var("TG_KILL_TRIALS").map_or(default, |s| s.parse().expect("TG_KILL_TRIALS"));
    let seed = std::env::var("TG_KILL_SEED").map_or_else(
        |_| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
                as u64
        },
        |s| s.parse().expect("TG_KILL_SEED must be a u64"),
    );
    eprintln!("seed {seed} (rerun with TG_KILL_SEED={seed}), {trials} trials");
    (trials, seed, StdRng::seed_from_u64(seed))
}

/// The kill delay of trial `i` (from 1) of `n`: in the `i`-th slice of
/// `0..1.2 × span`.
fn delay(rng: &mut StdRng, i: usize, n: usize, span: Duration) -> Duration {
    span.mul_f64(1.2 * ((i - 1) as f64 + rng.random::<f64>()) / n as f64)
}

/// Whether `name` is a temporary file of a writer (index build or pack).
fn is_temp(name: &str) -> bool {
    name.ends_with(".tmp")
}

/// Queries of the served tree, run in `repo`.
const QUERIES: [&[&str]; 3] = [&["-n", "needle"], &["-c", "burst\\d+"], &["-l", "-i", "KILLMARK"]];

/// The queries against rg; mismatches go to `failures`.
fn check(t: &Tree, tag: &str, failures: &mut Vec<String>) {
    for (i, q) in QUERIES.iter().enumerate() {
        let case = Case::new(format!("{tag}/q{i}"), q.iter()).cwd("repo");
        if let Err(r) = util::compare(t.root(), &case) {
            failures.push(r);
        }
    }
}

/// Whether a query in `repo` was answered by the server.
fn served(t: &Tree) -> bool {
    let out = util::tg_command(t, t.path("repo")).args(["--stats", "-l", "needle"]).output();
    String::from_utf8_lossy(&out.unwrap().stderr).contains("told by the server")
}

/// Changes 30 paths of a watched directory: files added, rewritten, one
/// deleted.
fn burst(t: &Tree, trial: usize) {
    for i in 0..24 {
        t.write(format!("repo/bulk/n{trial}_{i:02}.txt"), format!("burst{trial} {i} needle\n"));
    }
    for i in 0..5 {
        let k = (trial * 7 + i * 53) % 400;
        t.write(format!("repo/bulk/f{k:03}.txt"), format!("KILLMARK {trial}\nneedle {k}\n"));
    }
    let _ = std::fs::remove_file(t.path(format!("repo/bulk/f{:03}.txt", (trial * 31) % 400)));
}

/// Polls `tg status` until a merge runs or `merges` merges are done;
/// returns when it saw the merge start, `None` if it was over already.
fn merge_started(t: &Tree, merges: usize) -> Option<Instant> {
    let done = format!(" {merges} merges");
    let st = wait_for(t, "a merge", |st| st.contains("merging now") || st.contains(&done));
    st.contains("merging now").then(Instant::now)
}

/// The files a live server keeps in its index directory, with the index.
const KEEP: &[&str] = &["index.tg", "ROOT", ".building", ".takeover", "server", "serve.auto"];

#[test]
fn servers_killed_while_merging_restart_correct() {
    let (trials, seed, mut rng) = knobs(6);
    let started = Instant::now();
    let t = Tree::new("kill_merge");
    t.git_init("repo");
    for i in 0..400 {
        t.write(format!("repo/bulk/f{i:03}.txt"), util::fixtures::numbered_lines(40, "needle"));
    }
    util::tg_index(&t, "repo");
    let dir = only_index_dir(&t.path(".home/.cache/trigrep/indexes"));
    // Time one merge, from its start as `tg status` sees it to the publish
    // of its index.
    let s = Served::start(&t, &["--merge-at", "20"]);
    let first = inode(&dir.join("index.tg"));
    burst(&t, 0);
    let t0 = merge_started(&t, 1).unwrap_or_else(Instant::now);
    while inode(&dir.join("index.tg")) == first {
        assert!(t0.elapsed() < Duration::from_secs(60), "the first merge never published");
        std::thread::sleep(Duration::from_millis(1));
    }
    let merge = t0.elapsed();
    wait_for(&t, "the first merge", |st| st.contains(" 1 merges"));
    drop(s);
    eprintln!("a merge publishes about {:.0} ms in", merge.as_secs_f64() * 1e3);

    let mut failures = Vec::new();
    let (mut killed, mut most_strays) = (0, 0);
    for trial in 1..=trials {
        let s = Served::start(&t, &["--merge-at", "20"]);
        check(&t, &format!("restarted{trial}"), &mut failures);
        if !served(&t) {
            failures.push(format!("trial {trial}: the restarted server did not answer"));
        }
        burst(&t, trial);
        let wait = delay(&mut rng, trial, trials, merge);
        let before = inode(&dir.join("index.tg"));
        let seen = merge_started(&t, 1);
        if let Some(at) = seen {
            std::thread::sleep(wait.saturating_sub(at.elapsed()));
        }
        s.kill(libc::SIGKILL);
        let what = if seen.is_none() || inode(&dir.join("index.tg")) != before {
            "after the new index was published"
        } else {
            killed += 1;
            "during the merge"
        };
        let left = names_except(&dir, KEEP);
        most_strays = most_strays.max(left.len());
        eprintln!("trial {trial:3}: killed {:4} ms in, {what}; left {left:?}", wait.as_millis());
        if left.len() > 1 || left.iter().any(|n| !is_temp(n)) {
            failures.push(format!("trial {trial}: left in the index directory: {left:?}"));
        }
        check(&t, &format!("killed{trial}"), &mut failures);
    }
    let s = Served::start(&t, &[]);
    check(&t, "final", &mut failures);
    drop(s);
    let out = util::tg_command(&t, t.root()).args(["index", "-q", "repo"]).output().unwrap();
    if !out.status.success() {
        failures.push(format!("the next build failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let left = names_except(&dir, KEEP);
    if !left.is_empty() {
        failures.push(format!("after a full build, left: {left:?}"));
    }
    check(&t, "rebuilt", &mut failures);
    eprintln!(
        "merge kills: {trials} trials, {killed} killed mid-merge, all restarted correct, \
         at most {most_strays} stray file(s), in {:.1}s",
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "seed {seed}:\n{}", failures.join("\n"));
}

/// `tg pack` of the tree's `big.log` (replacing `big.log.zst`).
fn pack(t: &Tree) -> Command {
    let mut cmd = util::tg_command(t, t.root());
    cmd.args(["pack", "-q", "-f", "--frame-size", "16K", "--index-memory", "256K", "big.log"]);
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    cmd
}

/// `tg` on `big.log.zst` answers as `rg` on `held.log` (the text it holds).
fn check_packed(t: &Tree, tag: &str, failures: &mut Vec<String>) {
    if let Err(e) = util::logs::packed_like_rg(t, "big.log.zst", "held.log") {
        failures.push(format!("{tag}: {e}"));
    }
}

/// The text `tg unpack` restores from `packed` (`None`: it cannot).
fn unpacked(t: &Tree, packed: &Path) -> Option<Vec<u8>> {
    let out = util::tg_command(t, t.root()).args(["unpack", "-c"]).arg(packed).output().unwrap();
    out.status.success().then_some(out.stdout)
}

#[test]
fn packs_killed_at_random_moments_leave_the_old_file_or_the_new() {
    let (trials, seed, mut rng) = knobs(12);
    let started = Instant::now();
    let t = Tree::new("kill_pack");
    let mut text = util::logs::log(&mut StdRng::seed_from_u64(7), 20_000, false);
    std::fs::write(t.path("big.log"), &text).unwrap();
    let t0 = Instant::now();
    assert!(pack(&t).status().unwrap().success(), "the first pack");
    let span = t0.elapsed();
    std::fs::write(t.path("held.log"), &text).unwrap();
    eprintln!("a pack of {} bytes takes {:.0} ms", text.len(), span.as_secs_f64() * 1e3);
    let packed = t.path("big.log.zst");
    let keep = &["big.log", "big.log.zst", "held.log", ".home"];
    let mut failures = Vec::new();
    let (mut killed, mut replaced, mut most_strays) = (0, 0, 0);
    for trial in 1..=trials {
        let before = std::fs::read(&packed).unwrap();
        text.extend_from_slice(format!("\ntrial {trial} RAREMARK needle").as_bytes());
        std::fs::write(t.path("big.log"), &text).unwrap();
        let wait = delay(&mut rng, trial, trials, span);
        let mut child = pack(&t).spawn().unwrap();
        std::thread::sleep(wait);
        let finished = matches!(child.try_wait(), Ok(Some(_)));
        let _ = child.kill();
        let _ = child.wait();
        killed += usize::from(!finished);
        let now = std::fs::read(&packed).unwrap();
        let what = if now == before {
            "old file intact"
        } else if unpacked(&t, &packed).as_deref() == Some(&text[..]) {
            replaced += 1;
            std::fs::write(t.path("held.log"), &text).unwrap();
            "new file complete"
        } else {
            failures.push(format!("trial {trial}: big.log.zst is neither the old nor the new"));
            "torn"
        };
        let left = names_except(t.root(), keep);
        most_strays = most_strays.max(left.len());
        let when = if finished { "finished first" } else { "killed" };
        eprintln!("trial {trial:3}: {:4} ms, {when}: {what}; left {left:?}", wait.as_millis());
        if left.len() > 1 || left.iter().any(|n| !is_temp(n)) {
            failures.push(format!("trial {trial}: left behind: {left:?}"));
        }
        check_packed(&t, &format!("trial{trial}"), &mut failures);
    }
    assert!(pack(&t).status().unwrap().success(), "the last pack");
    std::fs::write(t.path("held.log"), &text).unwrap();
    let left = names_except(t.root(), keep);
    if !left.is_empty() {
        failures.push(format!("after a full pack, left: {left:?}"));
    }
    check_packed(&t, "final", &mut failures);
    eprintln!(
        "pack kills: {trials} trials, {killed} killed mid-pack, {replaced} new files complete, \
         never a torn one, at most {most_strays} stray file(s), in {:.1}s",
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "seed {seed}:\n{}", failures.join("\n"));
}
