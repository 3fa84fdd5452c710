//! `tg view` and its terminal, in a real one (tmux): arrow
//! keys and PgUp/PgDn move as `sed` says; `-i` typed searches and
//! filters with rg's smart case (as less's `-i`); `--color never` and `NO_COLOR` leave no colour in the
//! pane (`capture-pane -e`): reverse video and resets only; tiny windows (1×1, 2×2,
//! 300×5) draw what fits, never panic, and leave the terminal restored;
//! a resize while a search runs in the background redraws at once.

mod util;

use std::collections::BTreeSet;

use util::Tree;
use util::view::*;

/// Arrows, with a count too, PgDn and PgUp move by lines and screens;
/// Right and Left shift the lines by half a screen; Home and End.
#[test]
fn arrow_keys_and_pages() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-arrows");
    let data = fixture();
    tree.write("app.log", &data);
    let (t, _) = open(&tree, Kind::Plain);
    let want = |top: u64| (top..top + 39).map(|n| (n, sed(&data, n))).collect::<Vec<_>>();
    for (keys, top) in
        [(&["Down"][..], 2), (&["Down", "Down"], 4), (&["Up"], 3), (&["5", "Down"], 8)]
    {
        for k in keys {
            t.key(k);
        }
        t.wait(&format!("{keys:?}: lines from {top} as sed prints them"), |s| {
            at_top(s, top) && rows(s, 120) == want(top)
        });
    }
    t.key("PageDown");
    t.wait("PgDn", |s| at_top(s, 47) && rows(s, 120) == want(47));
    t.key("PageDown");
    t.wait("PgDn again", |s| at_top(s, 86));
    t.key("PageUp");
    t.wait("PgUp", |s| at_top(s, 47));
    t.key("2");
    t.key("PageUp");
    t.wait("2 PgUp: back to the top", |s| at_top(s, 1));
    // Right: every line from its 60th byte on (half of 120 columns).
    t.key("Right");
    let shifted: Vec<(u64, String)> =
        (1..=39).map(|n| (n, sed(&data, n).get(60..).unwrap_or("").to_string())).collect();
    t.wait("Right: the lines from byte 60", |s| rows(s, 120) == shifted);
    t.key("Left");
    t.wait("Left: back", |s| rows(s, 120) == want(1));
    t.key("End");
    t.wait("End", |s| at_top(s, LINES as u64 - 38));
    t.key("Home");
    t.wait("Home", |s| at_top(s, 1));
    t.send("q");
}

/// Lines of the case fixture: "needle" in three cases, on known lines.
fn cases_fixture() -> Vec<u8> {
    let mut out = Vec::new();
    for i in 1..=500u32 {
        let word = match i % 7 {
            0 => " needle",
            3 => " Needle",
            5 if i % 2 == 0 => " NEEDLE",
            _ => "",
        };
        out.extend_from_slice(format!("{i:05} line{word} end\n").as_bytes());
    }
    out
}

/// `-i` typed toggles less's `-i`, which is rg's smart case (`-S`): a
/// lowercase pattern ignores case, one with an uppercase letter does not;
/// the search and the filter reach rg's lines either way, and `-i` again
/// plans them case-sensitive.
#[test]
fn typed_i_is_smart_case() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-smart");
    tree.write("app.log", cases_fixture());
    let t = view(&tree, "app.log", &[]);
    let rg = |args: &[&str]| {
        let out = util::rg_command(&tree, tree.root()).args(args).arg("app.log").output();
        String::from_utf8(out.unwrap().stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let (n, text) = l.split_once(':').unwrap();
                (n.parse::<u64>().unwrap(), text.to_string())
            })
            .collect::<Vec<_>>()
    };
    let smart = rg(&["-S", "-n", "needle"]);
    let exact = rg(&["-n", "needle"]);
    let upper = rg(&["-S", "-n", "Needle"]);
    assert!(smart.len() > exact.len() && exact.len() > upper.len().min(1), "the fixture");
    t.send("-i");
    t.wait_for("smart case search (-i)");
    t.send("/needle");
    t.key("Enter");
    t.wait("-i /needle", |s| at_top(s, smart[0].0));
    for hit in &smart[1..4] {
        top_after(&t, "n", hit.0, "n with -i");
    }
    t.send("/Needle");
    t.key("Enter");
    let after = upper.iter().find(|h| h.0 > smart[3].0).unwrap().0;
    t.wait("-i /Needle: case-sensitive", |s| at_top(s, after));
    t.send("g&needle");
    t.key("Enter");
    t.wait("-i &needle: rg -S's lines", |s| rows(s, 120) == smart[..39]);
    t.send("-i");
    t.wait("-i off: rg's lines, case-sensitive", |s| {
        rows(s, 120) == exact[..39] && s.last().is_some_and(|l| !l.contains(" -i"))
    });
    t.send("q");
}

/// The SGR attributes a captured screen uses (`capture-pane -e`).
fn sgr_params(screen: &[String]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for row in screen {
        for part in row.split("\x1b[").skip(1) {
            if let Some(params) = part.split_once('m').map(|p| p.0) {
                out.extend(params.split(';').map(|p| p.to_string()));
            }
        }
    }
    out
}

/// The attributes of `params` that set a colour (30-38, 40-48, 90-97,
/// 100-107; 39 and 49 reset to the terminal's own).
fn colours(params: &BTreeSet<String>) -> Vec<String> {
    let colour = |n: u32| matches!(n, 30..=38 | 40..=48 | 90..=97 | 100..=107);
    params.iter().filter(|p| p.parse::<u32>().is_ok_and(colour)).cloned().collect()
}

/// With `--color never` or `NO_COLOR`, a screen with line numbers,
/// marked matches and the density bar holds no colour: matches and the
/// status line are in reverse video only. Colours allowed, it has some
/// (so that this test sees them when they are there).
#[test]
fn no_colour_when_told() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    for (args, env, coloured) in [
        ("app.log", "", true),
        ("--color never app.log", "", false),
        ("app.log", "1", false),
        ("--color=never app.log", "1", false),
    ] {
        let tree = Tree::new("view-colour");
        tree.write("app.log", fixture());
        let t = launch(&tree, args, &[("NO_COLOR", env), ("TERM", "xterm-256color")]);
        t.wait_for("app.log (no index)");
        let hits = rg_lines(&tree, "needle", "app.log");
        t.send("/needle");
        t.key("Enter");
        t.wait("/needle", |s| at_top(s, hits[0].0));
        let screen = t.screen_with_escapes();
        assert!(screen.iter().any(|r| r.contains("needle")), "{screen:?}");
        let params = sgr_params(&screen);
        let found = colours(&params);
        let what = format!("tg view {args} with NO_COLOR={env:?}: SGR {params:?}");
        assert_eq!(!found.is_empty(), coloured, "{what}");
        if !coloured {
            let plain = ["", "0", "7", "27", "39", "49"];
            assert!(params.iter().all(|p| plain.contains(&p.as_str())), "{what}");
            assert!(params.contains("7"), "matches in reverse video: {what}");
        }
        t.send("q");
        let (rc, err) = after_exit(&tree, &t, "app.log", &what);
        assert_eq!((rc.as_str(), err.as_str()), ("0", ""), "{what}");
    }
}

/// Windows of 1×1, 2×2 and 300×5, at the start and by resizes: keys
/// (moves, a search, the help, a filter) never panic; 300×5 shows 4 lines
/// as sed prints them; `q` leaves the terminal restored: canonical mode,
/// echo, the cursor shown, the alternate screen left (asked of tmux: its
/// main screen, grown from a tiny size, shows the alternate screen's last
/// rows, as it does after `less -N`, so the text cannot tell).
#[test]
fn tiny_windows() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    for (w, h) in [(1, 1), (2, 2), (300, 5)] {
        let tree = Tree::new("view-tiny");
        let data = fixture();
        tree.write("app.log", &data);
        let t = launch_sized(&tree, "app.log", &[], w, h);
        let what = format!("{w}x{h}");
        t.wait(&format!("{what}: the viewer on the alternate screen"), |_| {
            t.format("#{alternate_on}") == "1"
        });
        for keys in ["j", "G", "/needle\r", "n", "h", "h", "&needle\r", "&\r", "g"] {
            let (text, enter) = keys.strip_suffix('\r').map_or((keys, false), |k| (k, true));
            t.send(text);
            if enter {
                t.key("Enter");
            }
        }
        for (rw, rh) in [(1, 1), (2, 2), (300, 5), (1, 2), (w, h)] {
            t.resize(rw, rh);
            t.send("j");
        }
        t.resize(300, 5);
        t.send("g");
        let want: Vec<(u64, String)> = (1..=4).map(|n| (n, sed(&data, n))).collect();
        t.wait(&format!("{what}, then 300x5: lines 1-4"), |s| s.len() == 5 && rows(s, 300) == want);
        t.send("q");
        let stty = tree.path("stty.txt");
        t.wait(&format!("{what}: the shell after q"), |_| {
            std::fs::metadata(&stty).is_ok_and(|m| m.len() > 0)
        });
        let modes = std::fs::read_to_string(&stty).unwrap();
        assert!(modes.contains(" icanon") && modes.contains(" echo "), "{what}: {modes}");
        let state = t.format("#{alternate_on} #{cursor_flag}");
        assert_eq!(state, "0 1", "{what}: alternate screen, cursor shown");
        let rc = std::fs::read_to_string(tree.path("rc.txt")).unwrap();
        let err = std::fs::read_to_string(tree.path("tg.err")).unwrap();
        assert_eq!((rc.trim(), err.as_str()), ("0", ""), "{what}");
    }
}

/// A window resized while a search reads the whole file off the UI
/// thread: each size is drawn at once, the search's progress on it; when
/// the search ends, its match is at the top of the screen as it is then.
#[test]
fn resize_during_a_search() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-resize-search");
    let mut data = Vec::with_capacity(20 << 20);
    for i in 1..=300_000u32 {
        let tail = if i == 300_000 { "NEEDLE" } else { "filler" };
        data.extend_from_slice(format!("{i:08} lorem ipsum dolor sit amet {tail}\n").as_bytes());
    }
    tree.write("big.log", &data);
    let t = view(&tree, "big.log", &[("TG_VIEW_TEST_SLOW", "1")]);
    t.send("/NEEDLE");
    t.key("Enter");
    let searching = |s: &[String]| s.last().is_some_and(|l| l.contains("searching… "));
    t.wait("the search running", searching);
    for (w, h) in [(100, 15), (130, 50), (110, 8)] {
        t.resize(w, h);
        let want: Vec<(u64, String)> = (1..h as u64).map(|n| (n, sed(&data, n))).collect();
        // Drawn whole, the search still running (said on the last row).
        t.wait(&format!("{w}x{h} while the search still runs"), |s| {
            s.len() == h as usize && rows(s, w as usize) == want && searching(s)
        });
    }
    t.wait("the search's match at the top", |s| {
        s.len() == 8 && rows(s, 110) == [(300_000, sed(&data, 300_000))] && !searching(s)
    });
    t.resize(120, 40);
    t.wait("120x40 after the search", |s| at_top(s, 300_000) && s.len() == 40);
    t.send("q");
    let (rc, err) = after_exit(&tree, &t, "big.log", "q");
    assert_eq!((rc.as_str(), err.as_str()), ("0", ""));
}
