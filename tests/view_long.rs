//! `tg view` over a line of 2 GiB in the middle of a file, in
//! a real terminal (tmux): `N%` landing in it, `k` and `G` crossing it
//! backward, Right while it is read. Each move is right when it completes
//! (the screen against `tail | head | cut`, which stream the line where
//! sed would hold it whole); the viewer answers keys meanwhile (Ctrl-C
//! stops the move within [`ANSWER`], a key typed during it is shown
//! waiting); keys typed during the move apply after it, in order.
//! main's binary read the line on its UI thread: no key was read for
//! seconds (debug build; 0.1-0.4 s per GiB in a release build).

mod util;

use std::time::{Duration, Instant};

use util::Tree;
use util::tmux::Tmux;
use util::view::*;

/// The long line's length.
const LONG: u64 = 2 << 30;

/// Short lines before it: it is line `BEFORE + 1`.
const BEFORE: u64 = 100;

/// How soon a key typed during a move over the long line is answered:
/// generous for a loaded machine, far below reading 2 GiB in a debug build.
const ANSWER: Duration = Duration::from_millis(1500);

/// How long the slow steps may take: counting 2 GiB, moves reading it
/// whole, in a debug build on a loaded machine.
const SLOW: Duration = Duration::from_secs(120);

/// The viewer on `long.log` of `tree`, its lines counted (`total`).
fn counted(tree: &Tree, total: u64) -> Tmux {
    let t = launch(tree, "long.log", &[]);
    let want = cut_lines(tree, "long.log", 1, 39, 0);
    t.wait_up_to(SLOW, "the first screen, every line counted", |s| {
        rows(s, 120) == want && s.last().is_some_and(|l| l.contains(&format!("lines 1-39/{total}")))
    });
    t
}

/// Types `keys` (a move over the long line), then Ctrl-C at once: within
/// [`ANSWER`] the viewer says the move stopped, and the screen is where
/// it was (line `top` at the top). The time is to the first change of
/// the screen, whatever it is: main's binary showed the move done (it
/// could not read Ctrl-C before), once the line was read.
fn stop_move(t: &Tmux, keys: &str, top: u64) {
    t.send(keys);
    let start = Instant::now();
    t.key("C-c");
    let stopped = |s: &[String]| s.last().is_some_and(|l| l.contains("move stopped"));
    let screen = t.wait(&format!("{keys}: an answer to Ctrl-C"), |s| stopped(s) || !at_top(s, top));
    let took = start.elapsed();
    assert!(took < ANSWER, "{keys}: Ctrl-C answered after {took:?}: {screen:?}");
    assert!(stopped(&screen) && at_top(&screen, top), "{keys}: stopped where it was: {screen:?}");
}

/// Waits until the screen shows `want` from its top, and the status line says so.
fn shows(t: &Tmux, what: &str, want: &[(u64, String)]) {
    t.wait_up_to(SLOW, what, |s| at_top(s, want[0].0) && rows(s, 120) == want);
}

/// Quits; the viewer left cleanly.
fn quit(tree: &Tree, t: &Tmux) {
    t.send("q");
    let (rc, err) = after_exit(tree, t, "long.log", "q");
    assert_eq!((rc.as_str(), err.as_str()), ("0", ""));
}

/// `50%` lands in the long line: its start is found off the UI thread
/// (Ctrl-C stops that at once); `jj` typed with it go down from there
/// once it is found; `50%` alone shows the line's start and the lines below.
#[test]
fn a_percent_landing_in_a_long_line() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-long-percent");
    long_line_file(&tree, "long.log", BEFORE, LONG, 200);
    let t = counted(&tree, BEFORE + 201);
    stop_move(&t, "50%", 1);
    t.send("50%jj");
    let want = cut_lines(&tree, "long.log", BEFORE + 3, BEFORE + 41, 0);
    shows(&t, "50%jj: two lines below the long one", &want);
    t.send("50%");
    let want = cut_lines(&tree, "long.log", BEFORE + 1, BEFORE + 39, 0);
    shows(&t, "50%: the long line's start at the top, the lines below", &want);
    quit(&tree, &t);
}

/// `G` and `k` read back over the long line off the UI thread (Ctrl-C
/// stops them at once); `kk` typed with either apply after it, in order.
#[test]
fn k_and_g_crossing_a_long_line() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-long-back");
    long_line_file(&tree, "long.log", BEFORE, LONG, 20);
    let total = BEFORE + 21;
    // G: the last screen holds the long line, 20 lines above the end.
    let t = counted(&tree, total);
    stop_move(&t, "G", 1);
    t.send("Gkk");
    let top = total - 38 - 2;
    shows(
        &t,
        "Gkk: the last screen, two lines up",
        &cut_lines(&tree, "long.log", top, top + 38, 0),
    );
    quit(&tree, &t);
    // k from the line after the long one (a new viewer: the first knows
    // where the long line starts now).
    let t = counted(&tree, total);
    top_after(&t, &format!("{}G", BEFORE + 2), BEFORE + 2, "the line after the long one");
    stop_move(&t, "k", BEFORE + 2);
    t.send("kk");
    let want = cut_lines(&tree, "long.log", BEFORE, total, 0);
    shows(&t, "kk: over the long line and one more", &want);
    quit(&tree, &t);
}

/// Right typed while `k` reads back over the long line waits, said on the
/// status line at once, and shifts the screen the move reached; Right
/// while the long line's end is looked for shifts it at once.
#[test]
fn right_during_a_move_over_a_long_line() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-long-right");
    long_line_file(&tree, "long.log", BEFORE, LONG, 200);
    let total = BEFORE + 201;
    let t = counted(&tree, total);
    let after = BEFORE + 2;
    top_after(&t, &format!("{after}G"), after, "the line after the long one");
    t.send("k");
    let start = Instant::now();
    t.key("Right");
    let waiting = |s: &[String]| {
        s.last().is_some_and(|l| {
            l.contains("reading back over a long line…") && l.contains("1 waiting")
        })
    };
    // The first change of the screen, whatever it is (main's binary: k done).
    let screen = t.wait("an answer to Right", |s| waiting(s) || !at_top(s, after));
    let took = start.elapsed();
    assert!(took < ANSWER, "Right answered after {took:?}: {screen:?}");
    assert!(waiting(&screen), "Right waits behind k, said on the status line: {screen:?}");
    let want = cut_lines(&tree, "long.log", BEFORE + 1, BEFORE + 39, 60);
    shows(&t, "k then Right: the long line on top, shifted", &want);
    quit(&tree, &t);
    // Right while a thread looks for the long line's end.
    let t = counted(&tree, total);
    top_after(&t, &format!("{}G", BEFORE + 1), BEFORE + 1, "the long line");
    t.key("Right");
    let start = Instant::now();
    let long = want[0].clone();
    t.wait("Right while the end is looked for", |s| {
        rows(s, 120).first() == Some(&long)
            && s.last().is_some_and(|l| l.contains("finding where a long line ends…"))
    });
    let took = start.elapsed();
    assert!(took < ANSWER, "Right answered after {took:?}");
    shows(&t, "the lines below, once the end is found, shifted", &want);
    quit(&tree, &t);
}

/// The private memory a search adds at most, whatever the line's length.
const BOUND: u64 = 64 << 20;

/// `/` finding a match in the long line (where rg finds it) maps the line
/// instead of reading it: the viewer's private memory stays under
/// [`BOUND`] while it searches and counts matches over the line for the
/// density bar (main's binary read the 2 GiB line into memory).
#[test]
fn a_search_in_a_long_line_keeps_memory_bounded() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-long-search");
    long_line_file(&tree, "long.log", BEFORE, LONG, 200);
    // "9abc" is only in the long line (digits then letters, no space).
    let out = std::process::Command::new(util::rg_bin())
        .args(["-n", "--max-columns", "20", "9abc", "long.log"])
        .current_dir(tree.root())
        .output()
        .unwrap();
    let found = String::from_utf8(out.stdout).unwrap();
    assert_eq!(found, format!("{}:[Omitted long matching line]\n", BEFORE + 1), "rg");
    let t = view(&tree, "long.log", &[]);
    let shell = t.pane_pid().to_string();
    let out = std::process::Command::new("pgrep").args(["-P", &shell]).output().unwrap();
    let pid: u32 = String::from_utf8(out.stdout).unwrap().trim().parse().unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let stop = std::sync::Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut peak = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(util::private_bytes(pid).unwrap_or(0));
                std::thread::sleep(Duration::from_millis(5));
            }
            peak
        })
    };
    t.send_line("/9abc");
    let want = cut_lines(&tree, "long.log", BEFORE + 1, BEFORE + 39, 0);
    shows(&t, "/9abc: the long line at the top", &want);
    // The density bar's count goes on over the line meanwhile.
    std::thread::sleep(Duration::from_secs(3));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak = sampler.join().unwrap();
    assert!(peak > 0 && peak < BOUND, "the viewer's peak RssAnon: {} MiB", peak >> 20);
    quit(&tree, &t);
}
