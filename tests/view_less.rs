//! `tg view` against less's behaviour, in a real
//! terminal (tmux): any key stops `F`; an empty file is empty; `(END)` at
//! the end; a search being made shows its own pattern; keys typed during
//! a search survive Ctrl-C; `n` stops at the end ("Pattern not found")
//! unless `--wrap-search`. Each screen is waited for, never slept on.

mod util;

use std::io::Write;

use util::Tree;
use util::view::*;

/// The status line of a screen.
fn status(s: &[String]) -> &str {
    s.last().map_or("", String::as_str)
}

/// `count` numbered lines; NEEDLE on the last one only (a search for it
/// reads the whole file).
fn numbered(count: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 1..=count {
        let tail = if i == count { "NEEDLE" } else { "filler" };
        writeln!(out, "{i:08} lorem ipsum dolor sit amet, consectetur {tail}").unwrap();
    }
    out
}

/// Whether the status line says a search runs.
fn searching(s: &[String]) -> bool {
    status(s).contains("searching… ")
}

/// `x` (a key with no meaning) stops `F`, as the status line promises:
/// lines appended after it are counted but not followed.
#[test]
fn any_key_stops_following() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-less-follow");
    tree.write("app.log", fixture());
    let (t, _) = open(&tree, Kind::Plain);
    t.send("F");
    let bottom = LINES as u64 - 38;
    t.wait("following, at the bottom", |s| at_top(s, bottom) && status(s).contains("following"));
    t.send("x");
    t.wait("x stops following", |s| !status(s).contains("following"));
    let mut f = std::fs::OpenOptions::new().append(true).open(tree.path("app.log")).unwrap();
    writeln!(f, "appended one").unwrap();
    writeln!(f, "appended two").unwrap();
    let n = LINES as u64 + 2;
    let screen = t.wait("the appended lines counted", |s| status(s).contains(&format!("/{n}")));
    assert!(at_top(&screen, bottom), "not followed after x: {screen:?}");
    t.send("q");
}

/// An empty file shows no line and says it is empty, at its end.
#[test]
fn an_empty_file_is_empty() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-less-empty");
    tree.write("empty.log", "");
    let t = view(&tree, "empty.log", &[]);
    let screen =
        t.wait("empty, at its end", |s| status(s).contains("empty") && status(s).contains("(END)"));
    assert!(rows(&screen, 120).is_empty(), "no line shown: {screen:?}");
    assert!(!status(&screen).contains("lines 1-1"), "{screen:?}");
    t.send("q");
}

/// At the end of a short file, or after `G` in a long one, the status
/// says `(END)` where less does, and a percentage elsewhere.
#[test]
fn the_end_says_end() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-less-end");
    tree.write("short.log", numbered(10));
    let t = view(&tree, "short.log", &[]);
    let screen = t.wait("a short file, whole", |s| status(s).contains("lines 1-10/10"));
    assert!(status(&screen).contains("(END)") && !status(&screen).contains('%'), "{screen:?}");
    t.send("q");
    let tree = Tree::new("view-less-end-long");
    tree.write("app.log", fixture());
    let (t, _) = open(&tree, Kind::Plain);
    assert!(!status(&t.screen()).contains("(END)"));
    let bottom = LINES as u64 - 38;
    let screen = top_after(&t, "G", bottom, "G");
    assert!(status(&screen).contains("(END)"), "{screen:?}");
    let screen = top_after(&t, "g", 1, "g");
    assert!(!status(&screen).contains("(END)") && status(&screen).contains('%'), "{screen:?}");
    t.send("q");
}

/// While a new search runs, the status line shows its pattern, not the
/// last search's; Ctrl-C stops it, and the keys typed during it are then
/// done, in order.
#[test]
fn a_search_being_made_and_ctrl_c() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-less-search");
    tree.write("big.log", numbered(300_000));
    let t = view(&tree, "big.log", &[("TG_VIEW_TEST_SLOW", "1")]);
    t.send("/^00000010 ");
    t.key("Enter");
    t.wait("the first search", |s| at_top(s, 10) && !searching(s));
    t.send("/NEEDLE");
    t.key("Enter");
    let screen = t.wait("the new search running", searching);
    assert!(
        status(&screen).contains("/NEEDLE") && !status(&screen).contains("/^00000010"),
        "the new pattern, not the old: {screen:?}"
    );
    t.send("jj");
    t.wait("jj waiting behind the search", |s| status(s).contains("2 waiting"));
    t.key("C-c");
    let screen = t.wait("Ctrl-C, then jj", |s| at_top(s, 12) && !searching(s));
    assert!(status(&screen).contains("search stopped"), "{screen:?}");
    t.send("q");
}

/// `n` at the last match stops there and says "Pattern not found", as
/// less does, both ways; `--wrap-search` goes round and says so.
#[test]
fn n_stops_at_the_end_unless_wrapping() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-less-wrap");
    tree.write("app.log", fixture());
    let (t, _) = open(&tree, Kind::Plain);
    let bottom = LINES as u64 - 38;
    t.send("G/^00005 ");
    t.key("Enter");
    t.wait("a forward search past the last match", |s| {
        at_top(s, bottom) && status(s).contains("Pattern not found")
    });
    top_after(&t, "g", 1, "g");
    t.send("?^02999 ");
    t.key("Enter");
    t.wait("a backward search past the first match", |s| {
        at_top(s, 1) && status(s).contains("Pattern not found")
    });
    t.send("q");
    drop(t);
    let t = launch(&tree, "--wrap-search app.log", &[]);
    t.wait("the first screen", |s| at_top(s, 1));
    t.send("G/^00005 ");
    t.key("Enter");
    t.wait("a forward search wrapping", |s| {
        at_top(s, 5) && status(s).contains("search hit bottom, continuing at top")
    });
    t.send("?^02999 ");
    t.key("Enter");
    t.wait("a backward search wrapping", |s| {
        at_top(s, 2999) && status(s).contains("search hit top, continuing at bottom")
    });
    t.send("q");
}
