//! `tg view` driven in a real terminal: tmux runs the binary in
//! a 120×40 window, keys are sent, the screen is captured and compared
//! with `sed -n Np` (the fixture's lines) and `rg -n` (the lines a search
//! reaches and a filter shows), for a plain file, a block-indexed log
//! (4 KiB blocks), an indexed `.gz` (64 KiB access points), a packed
//! `.zst` (4 KiB frames), another tool's seekable `.zst` (zstd's contrib
//! library: read frame by frame, lines counted in the background), a
//! plain `.zst` (the `zstd` program: decompressed in the background into
//! a spool) and stdin. Then a resize, `q`, and the terminal
//! restored (`stty -a` after the viewer: canonical mode and echo back).
//! A `.gz` without an index is decompressed in the background. The edges
//! are in `view_edges.rs`; the shared helpers in `util/view.rs`.

mod util;

use util::Tree;
use util::view::*;

/// Everything one kind of text must do on screen.
fn scenario(kind: Kind) {
    let tree = Tree::new("view");
    let data = fixture();
    tree.write("app.log", &data);
    let (t, label) = open(&tree, kind);

    // Jumps: NG, :N, N%, g.
    let want: Vec<(u64, String)> = (1234..1234 + 39).map(|n| (n, sed(&data, n))).collect();
    t.send("1234G");
    t.wait("1234G: lines 1234-1272 as sed prints them", |s| {
        at_top(s, 1234) && rows(s, 120) == want
    });
    t.send(":2500");
    t.key("Enter");
    t.wait(":2500", |s| at_top(s, 2500));
    let half = data.len() / 2;
    let line_at_half = data[..half].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    top_after(&t, "50%", line_at_half, "50%");
    top_after(&t, "g", 1, "g");

    // Search forward, n, N, and backward from the end: the lines rg -n finds.
    let hits: Vec<u64> = rg_lines(&tree, "needle", "app.log").into_iter().map(|h| h.0).collect();
    assert!(hits.len() > 10, "the fixture holds needles");
    t.send("/needle");
    t.key("Enter");
    t.wait("/needle", |s| at_top(s, hits[0]));
    for &want in &hits[1..4] {
        top_after(&t, "n", want, "n");
    }
    top_after(&t, "N", hits[2], "N");
    // Backward searches start at the line before the top, as less's do.
    let bottom = LINES as u64 - 38;
    top_after(&t, "G", bottom, "G");
    t.send("?needle");
    t.key("Enter");
    let before: Vec<u64> = hits.iter().copied().filter(|&h| h < bottom).collect();
    t.wait("?needle", |s| at_top(s, before[before.len() - 1]));
    top_after(&t, "n", before[before.len() - 2], "n after ?");

    // Filter: exactly rg's lines, in order, then every line again.
    t.send("&needle");
    t.key("Enter");
    t.send("g");
    let want: Vec<(u64, String)> =
        rg_lines(&tree, "needle", "app.log").into_iter().take(39).collect();
    t.wait("&needle, and said so", |s| {
        rows(s, 120) == want && s.last().is_some_and(|l| l.contains("&needle"))
    });
    t.send("&");
    t.key("Enter");
    t.wait("& alone", |s| rows(s, 120).first().map(|r| r.0) == Some(1) && rows(s, 120).len() == 39);

    // Resize: the screen follows.
    t.resize(90, 20);
    t.wait("a 90x20 window", |s| {
        s.len() == 20 && s.last().is_some_and(|l| l.contains(&format!("lines 1-19/{LINES}")))
    });

    // Quit: the shell is back, in canonical mode with echo.
    t.send("q");
    let stty = tree.path("stty.txt");
    t.wait("the shell after q", |_| std::fs::metadata(&stty).is_ok_and(|m| m.len() > 0));
    let modes = std::fs::read_to_string(&stty).unwrap();
    assert!(modes.contains(" icanon") && modes.contains(" echo "), "{kind:?}: stty -a: {modes}");
    let screen = t.screen();
    assert!(!screen.iter().any(|l| l.contains(label)), "{kind:?}: the viewer's screen is gone");
}

#[test]
fn plain_file() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    scenario(Kind::Plain);
}

#[test]
fn block_indexed_log() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    scenario(Kind::Blocks);
}

#[test]
fn indexed_gz() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    scenario(Kind::Gz);
}

#[test]
fn gz_without_index() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    scenario(Kind::GzSpool);
}

#[test]
fn packed_zst() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    scenario(Kind::Packed);
}

#[test]
fn another_tools_seekable_zst() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    scenario(Kind::Seekable);
}

#[test]
fn plain_zst() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    scenario(Kind::ZstSpool);
}

#[test]
fn stdin() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    scenario(Kind::Stdin);
}
