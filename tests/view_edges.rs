//! `tg view` at its edges, in a real terminal (tmux): `F`
//! follows appended lines; control bytes, invalid UTF-8 and NULs are shown
//! escaped and a long line moves sideways; a 1 GiB first line is shown
//! before its end is found; signals restore the terminal;
//! a truncated, rotated or deleted file is reported; `-i` and `-N` toggle;
//! marked matches are exactly what `rg -o` prints.

mod util;

use std::io::Write;
use std::process::Command;

use util::Tree;
use util::tmux::Tmux;
use util::view::*;

/// `F` shows lines appended to a plain file and to a block-indexed log
/// (the tail past the index counted), with their true line numbers.
#[test]
fn follow_appended_lines() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    for kind in [Kind::Plain, Kind::Blocks] {
        let tree = Tree::new("view-follow");
        tree.write("app.log", fixture());
        let (t, _) = open(&tree, kind);
        t.send("F");
        t.wait_for("following");
        let mut f = std::fs::OpenOptions::new().append(true).open(tree.path("app.log")).unwrap();
        writeln!(f, "appended one").unwrap();
        writeln!(f, "appended two").unwrap();
        let n = LINES as u64 + 2;
        t.wait("the appended lines, counted", |s| {
            rows(s, 120).last() == Some(&(n, "appended two".to_string()))
                && s.last().is_some_and(|l| l.contains(&format!("/{n}")))
        });
        t.send("q");
    }
}

/// Control bytes, invalid UTF-8 and NULs are shown escaped, never sent to
/// the terminal raw; a binary file says so; a 3 MB line shows its start,
/// the next line, and moves sideways.
#[test]
fn escapes_binary_and_long_lines() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-bytes");
    let mut data = b"red \x1b[31mRED\x1b[0m end\nbad \xff\xfe bytes\nnul \x00 here\n".to_vec();
    data.extend((0..3_000_000).map(|i| b"0123456789"[i % 10]));
    data.extend_from_slice(b"\nafter the long line\n");
    tree.write("bytes.log", &data);
    let idx = tree.path("idx").display().to_string();
    let t = Tmux::new(tree.root(), 120, 40, &[("TG_INDEX_DIR", &idx), ("TG_AUTO_INDEX", "0")]);
    t.send_line(&format!("{} view bytes.log", util::tg_bin().display()));
    // The status line is drawn last: a screen with it is whole.
    let screen = t.wait("the lines and the status line", |s| {
        s.iter().any(|l| l.contains("after the long line"))
            && s.last().is_some_and(|l| l.contains("binary file"))
    });
    let text: Vec<String> = rows(&screen, 120).into_iter().map(|r| r.1).collect();
    assert_eq!(text[0], "red ^[[31mRED^[[0m end");
    assert_eq!(text[1], "bad \\xFF\\xFE bytes");
    assert_eq!(text[2], "nul ^@ here");
    assert!(text[3].starts_with("0123456789012"), "{}", text[3]);
    assert!(screen.last().unwrap().contains("binary file"));
    // Half a screen right: the long line shifts by 60 bytes.
    t.key("Right");
    let screen = t.wait("a shift right", |s| {
        let shifted = rows(s, 120);
        shifted.len() > 4
            && shifted[0].1.is_empty()
            && shifted[3].1.starts_with("0123456789")
            && shifted[4] == (5, String::new())
    });
    assert!(rows(&screen, 120)[1].1.is_empty(), "{screen:?}");
    t.send("q");
}

/// A file whose first line is 1 GiB long: the first screen shows the
/// line's start at once, while a thread finds where it ends (said on the
/// status line); then the lines below it, as sed prints them, their
/// count, and moves over the long line. Before, the first screen waited
/// for the whole line to be read (250-630 ms in a release build).
#[test]
fn a_first_line_of_a_gigabyte() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-gigaline");
    long_line_file(&tree, "long.log", 0, 1 << 30, 100);
    let t = launch(&tree, "long.log", &[]);
    let start: String = LONG_UNIT.iter().map(|&b| b as char).cycle().take(114).collect();
    t.wait("the first screen: the line's start, its end looked for", |s| {
        rows(s, 120).first().is_some_and(|r| r == &(1, start.clone()))
            && s.last().is_some_and(|l| l.contains("finding where a long line ends"))
    });
    // Lines 2-40 as tail and cut print them (past the long line, which
    // sed would hold whole).
    let sed = cut_lines(&tree, "long.log", 2, 40, 0);
    let screen = t.wait("the lines below, counted", |s| {
        rows(s, 120)[1..] == sed[..38] && s.last().is_some_and(|l| l.contains("lines 1-39/101"))
    });
    assert!(!screen.last().unwrap().contains("finding"), "{screen:?}");
    top_after(&t, "j", 2, "j over the long line");
    t.wait("lines 2-40 as sed prints them", |s| rows(s, 120) == sed);
    top_after(&t, "k", 1, "k back onto it");
    top_after(&t, "G", 63, "G");
    top_after(&t, "g", 1, "g");
    t.send("q");
    let (rc, err) = after_exit(&tree, &t, "long.log", "q");
    assert_eq!((rc.as_str(), err.as_str()), ("0", ""));
}

/// SIGTERM, SIGINT and SIGHUP end the viewer with the terminal restored.
#[test]
fn signals_restore_the_terminal() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    for signal in ["-TERM", "-INT", "-HUP"] {
        let tree = Tree::new("view-signal");
        tree.write("app.log", fixture());
        let (t, label) = open(&tree, Kind::Plain);
        let shell = t.pane_pid().to_string();
        let out = Command::new("pgrep").args(["-P", &shell]).output().unwrap();
        let pid = String::from_utf8(out.stdout).unwrap().trim().to_string();
        assert!(!pid.is_empty(), "the viewer runs under the shell");
        assert!(Command::new("kill").args([signal, &pid]).status().unwrap().success());
        let stty = tree.path("stty.txt");
        t.wait("the shell after the signal", |_| {
            std::fs::metadata(&stty).is_ok_and(|m| m.len() > 0)
        });
        let modes = std::fs::read_to_string(&stty).unwrap();
        assert!(modes.contains(" icanon") && modes.contains(" echo "), "{signal}: {modes}");
        assert!(
            !t.screen().iter().any(|l| l.contains(label)),
            "{signal}: the viewer's screen is gone"
        );
    }
}

/// A file truncated, rotated, then deleted while viewed: each is said on
/// the status line, and no line past the new end is shown as current.
#[test]
fn truncated_rotated_deleted() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-changes");
    let data = fixture();
    tree.write("app.log", &data);
    let (t, _) = open(&tree, Kind::Plain);
    top_after(&t, "2000G", 2000, "2000G");
    let cut: usize = data.split_inclusive(|&b| b == b'\n').take(100).map(<[u8]>::len).sum();
    let f = std::fs::OpenOptions::new().write(true).open(tree.path("app.log")).unwrap();
    f.set_len(cut as u64).unwrap();
    let screen =
        t.wait("the truncation said", |s| s.last().is_some_and(|l| l.contains("was truncated")));
    assert!(rows(&screen, 120).iter().all(|r| r.0 <= 100), "{screen:?}");
    t.wait("the new length counted", |s| s.last().is_some_and(|l| l.contains("/100")));
    std::fs::rename(tree.path("app.log"), tree.path("app.log.1")).unwrap();
    tree.write("app.log", "a new file\n");
    t.wait_for("was replaced");
    std::fs::remove_file(tree.path("app.log")).unwrap();
    t.wait_for("was deleted");
    t.send("q");
}

/// `-I` makes searches case-insensitive (less's `-I`, rg's `-i`); `-N`
/// hides line numbers.
#[test]
fn case_and_line_number_toggles() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-toggles");
    tree.write("app.log", fixture());
    let (t, _) = open(&tree, Kind::Plain);
    let hits = rg_lines(&tree, "(?i)NEEDLE", "app.log");
    t.send("/NEEDLE");
    t.key("Enter");
    t.wait_for("Pattern not found: NEEDLE");
    t.send("-I");
    t.wait_for("case-insensitive search (-I)");
    t.send("/NEEDLE");
    t.key("Enter");
    t.wait("-I /NEEDLE", |s| at_top(s, hits[0].0));
    t.send("-N");
    let first = format!("{:05} ", hits[0].0);
    t.wait("-N: no line numbers", |s| s[0].starts_with(&first));
    t.send("q");
}

/// The matches marked on screen (colours off: reverse video) are those
/// `rg -o -n` prints for the same lines.
#[test]
fn marks_are_what_rg_o_prints() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-marks");
    tree.write("app.log", fixture());
    let (t, _) = open(&tree, Kind::Plain);
    let pattern = "a[lm]p?|et|\\b9\\d";
    top_after(&t, "100G", 100, "100G");
    t.send(&format!("/{pattern}"));
    t.key("Enter");
    let first = rg_lines(&tree, pattern, "app.log").into_iter().find(|h| h.0 > 100).unwrap().0;
    t.wait("the search", |s| at_top(s, first) && s.last().is_some_and(|l| l.contains(pattern)));
    let out = util::rg_command(&tree, tree.root()).args(["-o", "-n", pattern, "app.log"]).output();
    let mut want: std::collections::BTreeMap<u64, Vec<String>> = Default::default();
    for l in String::from_utf8(out.unwrap().stdout).unwrap().lines() {
        let (n, m) = l.split_once(':').unwrap();
        want.entry(n.parse().unwrap()).or_default().push(m.to_string());
    }
    let screen = t.screen_with_escapes();
    let plain = t.screen();
    let mut checked = 0;
    for (escaped, text) in screen[..screen.len() - 1].iter().zip(&plain) {
        let Some((n, _)) = row(text, 120) else { continue };
        let got = marked(&[escaped.to_string()]).remove(0);
        assert_eq!(got, want.get(&n).cloned().unwrap_or_default(), "line {n}: {escaped:?}");
        checked += 1;
    }
    assert_eq!(checked, 39);
    t.send("q");
}

/// A terminal closed under the viewer (the tmux server killed: no signal
/// need come) ends it within seconds; it never spins on a dead terminal.
#[test]
fn a_closed_terminal_ends_the_viewer() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-hangup");
    tree.write("app.log", fixture());
    let (t, _) = open(&tree, Kind::Plain);
    let shell = t.pane_pid().to_string();
    let out = Command::new("pgrep").args(["-P", &shell]).output().unwrap();
    let pid = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(!pid.is_empty(), "the viewer runs under the shell");
    t.kill_server();
    let proc = std::path::Path::new("/proc").join(&pid);
    let start = std::time::Instant::now();
    while proc.exists() && start.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let running = proc.exists();
    if running {
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
    }
    assert!(!running, "tg view {pid} still runs after its terminal closed");
}

/// A block-indexed log grown since its index was built: a search and a
/// filter find what only the grown tail holds (the tail is read, not
/// trusted to the index), on the lines rg reports.
#[test]
fn search_reads_the_grown_tail() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-grown");
    tree.write("app.log", fixture());
    let (t, _) = open(&tree, Kind::Blocks);
    let mut f = std::fs::OpenOptions::new().append(true).open(tree.path("app.log")).unwrap();
    writeln!(f, "03001 grown tail one needle").unwrap();
    writeln!(f, "03002 grown tail two").unwrap();
    drop(f);
    let n = LINES as u64 + 2;
    t.wait("the grown tail counted", |s| s.last().is_some_and(|l| l.contains(&format!("/{n}"))));
    let hits = rg_lines(&tree, "grown tail", "app.log");
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![3001, 3002]);
    t.send("/grown tail");
    t.key("Enter");
    t.wait("/grown tail", |s| top(s) == Some(3001));
    t.send("g&grown tail");
    t.key("Enter");
    t.wait("&grown tail: rg's lines", |s| rows(s, 120) == hits);
    t.send("q");
}

/// `h` shows the keys (the bar's `]` `[` `}` among them); space, `b`,
/// PgDn and PgUp move by screens (a search at either end: `view_less.rs`).
#[test]
fn help_pages() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-help");
    tree.write("app.log", fixture());
    let (t, _) = open(&tree, Kind::Plain);
    t.send("h");
    // The whole help, not just its first row: tmux may show a frame half drawn.
    let screen = t.wait("the help with the bar's keys", |s| {
        s.iter().any(|l| l.contains("]  [") && l.contains("next / previous"))
    });
    assert!(screen.iter().any(|l| l.contains("keys as in less")));
    t.send("q");
    t.wait("the help closed", |s| at_top(s, 1));
    top_after(&t, " ", 40, "space");
    top_after(&t, "b", 1, "b");
    t.key("PageDown");
    t.wait("PgDn", |s| at_top(s, 40));
    t.key("PageUp");
    t.wait("PgUp", |s| at_top(s, 1));
    t.send("q");
}

/// Viewing a big file without an index leaves one behind (built in the
/// background, `TG_AUTO_INDEX_MIN` lowering "big" to 1 KiB): the next
/// viewer opens it with its block index.
#[test]
fn viewing_leaves_a_block_index_behind() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-auto-index");
    tree.write("app.log", fixture());
    let env = [("TG_AUTO_INDEX", "1"), ("TG_AUTO_INDEX_MIN", "1024")];
    let t = view(&tree, "app.log", &env);
    let start = std::time::Instant::now();
    let indexed = || {
        util::tg_command(&tree, tree.root())
            .env("TG_INDEX_DIR", tree.path("idx"))
            .args(["index", "--status", "app.log"])
            .output()
            .unwrap()
            .status
            .success()
    };
    while !indexed() && start.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(indexed(), "no block index after 20 s");
    t.send("q");
    drop(t);
    let t = view(&tree, "app.log", &[]);
    t.wait_for("(block index)");
    t.send("q");
}
