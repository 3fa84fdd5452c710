//! `tg view`: the rest of less's keys, in a real terminal
//! (tmux), each screen compared with `sed` and `rg`: `/!`, `?!`, `&!`
//! (lines that do not match), marks (`m`, `'`, `''`, `'^`, `'$`), `=` and
//! Ctrl-G, `s FILE`, several files (`:n`, `:p`, `:x`), ESC-u, and the
//! start-up commands `+G`, `+F`, `+/pattern`, `+N`, `-p`. The table of
//! keys is docs/VIEW.md.

mod util;

use util::Tree;
use util::tmux::Tmux;
use util::view::*;

/// The status line of a screen.
fn status(s: &[String]) -> &str {
    s.last().map_or("", String::as_str)
}

/// `rg ARGS app.log` in `tree`: its stdout.
fn rg(tree: &Tree, args: &[&str]) -> String {
    let out = util::rg_command(tree, tree.root()).args(args).arg("app.log").output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// `&!needle` shows exactly the lines `rg -v -n needle` prints; `/!` and
/// `?!` go to the next and previous line that does not match.
#[test]
fn lines_that_do_not_match() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-keys-not");
    tree.write("app.log", fixture());
    let (t, _) = open(&tree, Kind::Plain);
    t.send("&!needle");
    t.key("Enter");
    let want: Vec<(u64, String)> = rg(&tree, &["-v", "-n", "needle"])
        .lines()
        .take(39)
        .map(|l| {
            let (n, text) = l.split_once(':').unwrap();
            (n.parse().unwrap(), text.to_string())
        })
        .collect();
    t.wait("&!needle: rg -v's lines", |s| rows(s, 120) == want && status(s).contains("&!needle"));
    t.send("&");
    t.key("Enter");
    t.wait("every line again", |s| rows(s, 120).len() == 39 && at_top(s, 1));
    // From line 1, the next line not starting 0000[1-5] is line 6.
    t.send("/!^0000[1-5] ");
    t.key("Enter");
    t.wait("/!: line 6", |s| at_top(s, 6));
    top_after(&t, "100G", 100, "100G");
    t.send("?!^000[5-9]");
    t.key("Enter");
    t.wait("?!: line 49", |s| at_top(s, 49));
    t.send("q");
}

/// `m` remembers the top line under a letter, `'` goes back to it; `''`
/// goes back to where the last jump started, twice to and fro; `'^` and
/// `'$` are the start and the end.
#[test]
fn marks() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-keys-marks");
    tree.write("app.log", fixture());
    let (t, _) = open(&tree, Kind::Plain);
    let bottom = LINES as u64 - 38;
    top_after(&t, "100G", 100, "100G");
    t.send("ma");
    t.wait_for("mark a set");
    top_after(&t, "2000G", 2000, "2000G");
    top_after(&t, "'a", 100, "'a");
    top_after(&t, "''", 2000, "'' back to where 'a started");
    top_after(&t, "''", 100, "'' again");
    top_after(&t, "'$", bottom, "'$");
    top_after(&t, "'^", 1, "'^");
    t.send("'b");
    t.wait_for("mark b is not set");
    t.send("q");
}

/// `=` and Ctrl-G say the file, the lines shown, the byte offset of the
/// last one's end and the percentage.
#[test]
fn equals_and_ctrl_g() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-keys-info");
    let data = fixture();
    tree.write("app.log", &data);
    let (t, _) = open(&tree, Kind::Plain);
    let end: usize = data.split_inclusive(|&b| b == b'\n').take(39).map(<[u8]>::len).sum();
    let want = format!("byte {end}/{}", data.len());
    for key in ["=", "C-g"] {
        if key == "=" {
            t.send(key)
        } else {
            t.key(key)
        }
        t.wait(key, |s| {
            status(s).starts_with("app.log")
                && status(s).contains("lines 1-39/3000")
                && status(s).contains(&want)
        });
        t.send("j");
        t.wait("the next key clears it", |s| at_top(s, 2) && !status(s).contains("byte"));
        t.send("k");
    }
    t.send("q");
}

/// `s FILE` writes the lines shown: after `&needle`, what `rg needle`
/// prints; with no filter, the whole text; an existing file is kept.
#[test]
fn save_the_lines_shown() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-keys-save");
    let data = fixture();
    tree.write("app.log", &data);
    tree.write("kept.txt", "mine\n");
    let (t, _) = open(&tree, Kind::Plain);
    t.send("&needle");
    t.key("Enter");
    t.wait("&needle", |s| status(s).contains("&needle") && !status(s).contains("searching"));
    t.send("sneedles.txt");
    t.key("Enter");
    let n = rg(&tree, &["-c", "needle"]).trim().to_string();
    t.wait_for(&format!("wrote {n} lines to needles.txt"));
    assert_eq!(std::fs::read_to_string(tree.path("needles.txt")).unwrap(), rg(&tree, &["needle"]));
    t.send("&");
    t.key("Enter");
    t.send("sall.txt");
    t.key("Enter");
    t.wait_for("wrote 3000 lines to all.txt");
    assert_eq!(std::fs::read(tree.path("all.txt")).unwrap(), data);
    t.send("skept.txt");
    t.key("Enter");
    t.wait_for("kept.txt: ");
    assert_eq!(std::fs::read_to_string(tree.path("kept.txt")).unwrap(), "mine\n");
    t.send("q");
}

/// Several files: `:n` and `:p` go from one to the next, `:x` to the
/// first; past the last, "no next file".
#[test]
fn several_files() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-keys-files");
    tree.write("a.log", "first file line 1\nfirst file line 2\n");
    tree.write("b.log", "second file\n");
    let t = launch(&tree, "a.log b.log", &[]);
    let is = |name: &str, first: &str, s: &[String]| {
        status(s).starts_with(name) && rows(s, 120).first().is_some_and(|r| r.1 == first)
    };
    t.wait("a.log, file 1 of 2", |s| is("a.log (file 1 of 2)", "first file line 1", s));
    t.send(":n");
    t.wait(":n: b.log", |s| is("b.log (file 2 of 2)", "second file", s));
    t.send(":n");
    t.wait("no next file", |s| status(s).contains("no next file"));
    t.send(":p");
    t.wait(":p: a.log", |s| is("a.log (file 1 of 2)", "first file line 1", s));
    t.send(":n:x");
    t.wait(":x: a.log", |s| is("a.log (file 1 of 2)", "first file line 1", s));
    t.send("q");
    let (rc, err) = after_exit(&tree, &t, "a.log", "q");
    assert_eq!((rc.as_str(), err.as_str()), ("0", ""));
}

/// Whether a captured row holds reverse video (a marked match).
fn marked(row: &str) -> bool {
    row.contains("\x1b[7m")
}

/// ESC-u turns the marks of the search off; `n` still goes on; a new
/// search marks again.
#[test]
fn escape_u_turns_the_highlight_off() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-keys-escu");
    tree.write("app.log", fixture());
    let (t, _) = open(&tree, Kind::Plain);
    let hits: Vec<u64> = rg_lines(&tree, "needle", "app.log").into_iter().map(|h| h.0).collect();
    t.send("/needle");
    t.key("Enter");
    t.wait("/needle", |s| at_top(s, hits[0]));
    t.wait("marked", |_| marked(&t.screen_with_escapes()[0]));
    t.key("Escape");
    t.send("u");
    // The rows of text, not the status line (drawn in reverse video).
    let text_marked = || {
        let s = t.screen_with_escapes();
        s[..s.len() - 1].iter().any(|r| marked(r))
    };
    t.wait("no marks", |_| !text_marked());
    top_after(&t, "n", hits[1], "n after ESC-u");
    assert!(!text_marked());
    t.send("/needle");
    t.key("Enter");
    t.wait("marked again", |_| marked(&t.screen_with_escapes()[0]));
    t.send("q");
}

/// What a screen must show.
type Ready<'a> = dyn Fn(&[String]) -> bool + 'a;

/// Start-up commands as less's: `+G`, `+F`, `+/pattern`, `+N` and `-p`.
#[test]
fn startup_commands() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-keys-start");
    tree.write("app.log", fixture());
    let first = rg_lines(&tree, "needle", "app.log")[0].0;
    let bottom = LINES as u64 - 38;
    let cases: [(&str, &Ready<'_>); 5] = [
        ("+G app.log", &|s| at_top(s, bottom)),
        ("+F app.log", &|s| at_top(s, bottom) && status(s).contains("following")),
        ("+/needle app.log", &|s| at_top(s, first)),
        ("+1234 app.log", &|s| at_top(s, 1234)),
        ("-p needle app.log", &|s| at_top(s, first)),
    ];
    for (args, ready) in cases {
        let t: Tmux = launch(&tree, args, &[]);
        t.wait(args, ready);
        t.send("q");
        let (rc, _) = after_exit(&tree, &t, "app.log", args);
        assert_eq!(rc, "0", "{args}");
        std::fs::remove_file(tree.path("stty.txt")).unwrap();
    }
}

/// Every key that moves, from a known line, lands where less puts it:
/// lines (`j k y Enter` and their Ctrl forms), screens (`f z Space b`,
/// Ctrl-F/V/B), half screens (`d u`, Ctrl-D/U), the ends (`< >`), `Np`;
/// redraws (`r R` Ctrl-L) stay; `H` without times says so, `h` shows
/// the help; `Q` and `:q` leave.
#[test]
fn every_move_key() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-keys-moves");
    let data = fixture();
    tree.write("app.log", &data);
    let t = view(&tree, "app.log", &[]);
    top_after(&t, "100g", 100, "100g");
    let bottom = LINES as u64 - 38;
    let half = data.len() / 2;
    let line_at_half = data[..half].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    // (typed text, or a tmux key name; the top line after it)
    let steps: &[(&str, bool, u64)] = &[
        ("j", false, 101),
        ("k", false, 100),
        ("y", false, 99),
        ("Enter", true, 100),
        ("C-n", true, 101),
        ("C-p", true, 100),
        ("C-e", true, 101),
        ("C-y", true, 100),
        ("C-j", true, 101),
        ("C-k", true, 100),
        ("f", false, 139),
        ("b", false, 100),
        ("z", false, 139),
        (" ", false, 178),
        ("C-b", true, 139),
        ("C-f", true, 178),
        ("C-v", true, 217),
        ("d", false, 236),
        ("u", false, 217),
        ("C-d", true, 236),
        ("C-u", true, 217),
        ("r", false, 217),
        ("R", false, 217),
        ("C-l", true, 217),
        ("<", false, 1),
        (">", false, bottom),
        ("50p", false, line_at_half),
        ("3Down", false, line_at_half),
    ];
    for &(keys, named, want) in steps {
        if named {
            t.key(keys);
        } else if keys == "3Down" {
            t.send("3");
            t.key("Down");
            let want = line_at_half + 3;
            t.wait("3 Down", |s| at_top(s, want));
            continue;
        } else {
            t.send(keys);
        }
        let sed_rows: Vec<(u64, String)> =
            (want..want + 39).filter(|&n| n <= LINES as u64).map(|n| (n, sed(&data, n))).collect();
        t.wait(&format!("{keys:?}: line {want} at the top"), |s| {
            at_top(s, want) && rows(s, 120) == sed_rows
        });
    }
    t.send("H");
    t.wait_for("no timestamps found");
    t.send("h");
    t.wait_for("keys as in less");
    t.send("q");
    t.wait("the help closed", |s| at_top(s, line_at_half + 3));
    t.send("Q");
    let (rc, _) = after_exit(&tree, &t, "app.log", "Q");
    assert_eq!(rc, "0");
    std::fs::remove_file(tree.path("stty.txt")).unwrap();
    let t = view(&tree, "app.log", &[]);
    t.send(":q");
    let (rc, _) = after_exit(&tree, &t, "app.log", ":q");
    assert_eq!(rc, "0");
}
