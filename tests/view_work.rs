//! `tg view` while it works, in a real terminal (tmux): a
//! search runs off the UI thread (keys typed meanwhile wait behind it,
//! its progress shown, Ctrl-C stops it, a newer search supersedes it, `q`
//! leaves at once); `]`, `[` and `}` go to the density bar's marked cells; a panic,
//! on the UI thread or in a search, leaves the terminal restored with one
//! `tg:` line and exit code 2. Test hooks: `TG_VIEW_TEST_SLOW` (a search
//! sleeps 200 ms per 1 MiB piece) and `TG_VIEW_TEST_PANIC` (`1`: after the
//! first draw; `job`: in a search).

mod util;

use util::Tree;
use util::view::*;

/// Lines of the slow-search fixture.
const BIG: u64 = 300_000;

/// ~19 MiB of numbered lines; NEEDLE on the last one only.
fn big_fixture() -> Vec<u8> {
    let mut out = Vec::with_capacity(20 << 20);
    for i in 1..=BIG {
        let tail = if i == BIG { "NEEDLE" } else { "filler" };
        out.extend_from_slice(
            format!("{i:08} lorem ipsum dolor sit amet, consectetur {tail}\n").as_bytes(),
        );
    }
    out
}

/// Whether the status line says a search is running, with a percentage.
fn searching(s: &[String]) -> bool {
    s.last().is_some_and(|l| l.contains("searching… ") && l.contains("% (Ctrl-C stops)"))
}

/// A search that reads the whole file: `j` typed while it runs waits
/// behind it (said on the status line) and its progress is shown; Ctrl-C
/// stops it where the screen is, then does what waits; a newer search
/// supersedes it; `q` during a search leaves at once, terminal restored.
#[test]
fn keys_are_answered_while_a_search_runs() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-work");
    tree.write("big.log", big_fixture());
    let t = view(&tree, "big.log", &[("TG_VIEW_TEST_SLOW", "1")]);
    t.send("/NEEDLE");
    t.key("Enter");
    t.wait("a search running", searching);
    t.send("jj");
    let screen = t.wait("jj during the search, waiting behind it", |s| {
        s.last().is_some_and(|l| l.contains("2 waiting"))
    });
    assert!(searching(&screen) && top(&screen) == Some(1), "the search still runs: {screen:?}");
    t.wait("its progress grows", |s| {
        s.last()
            .and_then(|l| l.split("searching… ").nth(1))
            .and_then(|r| r.split('%').next())
            .and_then(|p| p.parse::<u64>().ok())
            .is_some_and(|p| p >= 5)
    });
    t.key("C-c");
    let screen = t.wait("Ctrl-C", |s| s.last().is_some_and(|l| l.contains("search stopped")));
    // The search stops where the screen was; the keys behind it are then done.
    assert_eq!(top(&screen), Some(3), "jj done after the search stopped: {screen:?}");
    assert!(!screen.last().unwrap().contains("waiting"), "{screen:?}");
    // A newer search supersedes an older one: line 10's pattern wins,
    // and stays after the older search would have ended.
    t.send("/NEEDLE");
    t.key("Enter");
    t.wait("the slow search again", searching);
    t.send("/^00000010 ");
    t.key("Enter");
    t.wait("the newer search", |s| at_top(s, 10) && !searching(s));
    std::thread::sleep(std::time::Duration::from_secs(5));
    assert!(at_top(&t.screen(), 10), "the older search took over: {:?}", t.screen());
    // q while a search runs.
    t.send("/NEEDLE");
    t.key("Enter");
    t.wait("the slow search, once more", searching);
    let start = std::time::Instant::now();
    t.send("q");
    let (rc, err) = after_exit(&tree, &t, "big.log", "q during a search");
    assert!(start.elapsed() < std::time::Duration::from_secs(3), "q took {:?}", start.elapsed());
    assert_eq!((rc.as_str(), err.as_str()), ("0", ""));
}

/// The slow search, left to end, reaches the line rg finds; `k` typed
/// during it moves up from there (it moved the screen before the search
/// ended, and the search's end undid it).
#[test]
fn a_background_search_ends_where_rg_finds() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-work-end");
    tree.write("big.log", big_fixture());
    let hits = rg_lines(&tree, "NEEDLE", "big.log");
    assert_eq!(hits.len(), 1);
    let t = view(&tree, "big.log", &[("TG_VIEW_TEST_SLOW", "1")]);
    t.send("/NEEDLE");
    t.key("Enter");
    t.wait("a search running", searching);
    // Typed during the search: applied after it, to where it went.
    t.send("k");
    t.wait("the match, then k", |s| top(s) == Some(hits[0].0 - 1) && !searching(s));
    t.send("q");
}

/// `]`, `[` and `}` go to the first match of the next, previous and
/// densest marked cell of the density bar; the lines are rg's.
#[test]
fn density_bar_regions_are_places_to_go() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-regions");
    let mut data = Vec::new();
    for i in 1..=3000u64 {
        let needle = if i == 1100 || (2800..2804).contains(&i) { " needle" } else { "" };
        data.extend_from_slice(format!("{i:05} some text{needle}\n").as_bytes());
    }
    tree.write("app.log", &data);
    let hits: Vec<u64> = rg_lines(&tree, "needle", "app.log").into_iter().map(|h| h.0).collect();
    assert_eq!(hits, vec![1100, 2800, 2801, 2802, 2803]);
    let t = view(&tree, "app.log", &[]);
    t.send("/needle");
    t.key("Enter");
    t.wait("/needle", |s| at_top(s, 1100));
    top_after(&t, "]", 2800, "] to the next marked cell");
    t.send("]");
    t.wait_for("no marked region below");
    top_after(&t, "[", 1100, "[ to the previous marked cell");
    top_after(&t, "g", 1, "g");
    top_after(&t, "}", 2800, "} to the densest cell");
    // Filtered, the regions are filtered lines too.
    t.send("&needle");
    t.key("Enter");
    t.wait("&needle", |s| top(s) == Some(2800));
    top_after(&t, "[", 1100, "[ while filtered");
    t.send("q");
}

/// A panic after the first screen, on the UI thread or in a search:
/// the terminal restored, one `tg:` line, exit code 2.
#[test]
fn a_panic_restores_the_terminal() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    for (hook, keys) in [("1", ""), ("job", "/needle\n")] {
        let tree = Tree::new("view-panic");
        tree.write("app.log", fixture());
        // As a user runs it: no RUST_BACKTRACE (the test runner sets one).
        let env = [("TG_VIEW_TEST_PANIC", hook), ("RUST_BACKTRACE", "0")];
        let t = if keys.is_empty() {
            launch(&tree, "app.log", &env)
        } else {
            view(&tree, "app.log", &env)
        };
        if let Some(pattern) = keys.strip_suffix('\n') {
            t.send(pattern);
            t.key("Enter");
        }
        let (rc, err) = after_exit(&tree, &t, "app.log", hook);
        assert_eq!(rc, "2", "{hook}: exit code; stderr: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{hook}: one line: {err:?}");
        assert!(lines[0].starts_with("tg: view: internal error: TG_VIEW_TEST_PANIC"), "{err}");
    }
}

/// What a search takes over when it ends is not changed meanwhile: `-i`
/// typed during a search waits behind it and holds.
#[test]
fn a_toggle_waits_behind_a_search() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-work-toggle");
    tree.write("big.log", big_fixture());
    let t = view(&tree, "big.log", &[("TG_VIEW_TEST_SLOW", "1")]);
    t.send("/NEEDLE");
    t.key("Enter");
    t.wait("a search running", searching);
    t.send("-i");
    t.wait("the match", |s| top(s) == Some(BIG) && !searching(s));
    t.wait("-i after the search", |s| s.last().is_some_and(|l| l.contains("  -i")));
    t.send("q");
}

/// Ctrl-C while a filtered screen is being filled stops it for good: it
/// is not started again at the next draw.
#[test]
fn ctrl_c_stops_a_filtered_fill() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-work-fill");
    tree.write("big.log", big_fixture());
    let t = view(&tree, "big.log", &[("TG_VIEW_TEST_SLOW", "1")]);
    let status = |s: &[String]| s.last().cloned().unwrap_or_default();
    // A filter of the first and the last line: filling a screen from the
    // top reads the whole file.
    t.send("G&^00000001 |NEEDLE");
    t.key("Enter");
    t.wait("the filter at the end", |s| top(s) == Some(BIG) && status(s).contains("&^00000001"));
    t.send("g");
    t.wait("the filtered screen from the top", |s| {
        rows(s, 120).iter().map(|r| r.0).collect::<Vec<_>>() == vec![1, BIG] && !searching(s)
    });
    // Sideways: the same lines, their rows computed again.
    t.key("Right");
    t.wait("a fill running", searching);
    t.key("C-c");
    let screen = t.wait("Ctrl-C", |s| status(s).contains("search stopped"));
    assert!(!searching(&screen), "the fill started again: {:?}", screen.last());
    std::thread::sleep(std::time::Duration::from_secs(1));
    let screen = t.screen();
    assert!(!searching(&screen), "the fill started again: {:?}", screen.last());
    t.send("q");
}
