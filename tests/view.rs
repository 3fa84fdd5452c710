//! `tg view` (issue 25) driven in a real terminal: tmux runs the binary in
//! a 120×40 window, keys are sent, the screen is captured and compared
//! with `sed -n Np` (the fixture's lines) and `rg -n` (the lines a search
//! reaches and a filter shows), for a plain file, a block-indexed log
//! (4 KiB blocks), an indexed `.gz` (64 KiB access points), a packed
//! `.zst` (4 KiB frames) and stdin. Then a resize, `q`, and the terminal
//! restored (`stty -a` after the viewer: canonical mode and echo back).
//! `F` follows appended lines; control bytes and invalid UTF-8 are shown
//! escaped; a long line shows its start and moves sideways.

mod util;

use std::io::Write;
use std::process::{Command, Stdio};

use util::Tree;
use util::tmux::Tmux;

/// Lines in the fixture log.
const LINES: usize = 3000;

/// The fixture log: numbered lines, some holding "needle".
fn fixture() -> Vec<u8> {
    let mut out = Vec::new();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let words = ["alpha", "beta", "gamma", "delta", "kappa", "sigma", "omega"];
    for i in 1..=LINES {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let w = |k: u64| words[((x >> k) % words.len() as u64) as usize];
        let needle = if x.is_multiple_of(53) { " needle" } else { "" };
        writeln!(out, "{i:05} {} {} {}{needle} {}", w(3), w(11), w(19), x % 100_000).unwrap();
    }
    out
}

/// Line `n` (1-based) of `data`, as `sed -n Np` prints it without its newline.
fn sed(data: &[u8], n: u64) -> String {
    let line = data.split(|&b| b == b'\n').nth(n as usize - 1).unwrap_or_default();
    String::from_utf8_lossy(line).into_owned()
}

/// `rg -n PATTERN FILE` in `tree`: the numbers and text of the matching lines.
fn rg_lines(tree: &Tree, pattern: &str, file: &str) -> Vec<(u64, String)> {
    let out = util::rg_command(tree, tree.root()).args(["-n", pattern, file]).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (n, text) = l.split_once(':').unwrap();
            (n.parse().unwrap(), text.to_string())
        })
        .collect()
}

/// A screen row as (line number, text): the gutter parsed, the density bar
/// (the last column) dropped.
fn row(s: &str, width: usize) -> Option<(u64, String)> {
    let s: String = s.chars().take(width - 1).collect();
    let s = s.trim_start();
    let (n, text) = s.split_once(' ').unwrap_or((s, ""));
    Some((n.parse().ok()?, text.trim_end().to_string()))
}

/// The text rows of a screen (all but the status line), parsed.
fn rows(screen: &[String], width: usize) -> Vec<(u64, String)> {
    screen[..screen.len() - 1].iter().filter_map(|s| row(s, width)).collect()
}

/// The line number at the top of the screen.
fn top(screen: &[String]) -> Option<u64> {
    row(screen.first()?, 120).map(|r| r.0)
}

/// How the viewer is started on each kind of text.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Plain,
    Blocks,
    Gz,
    Packed,
    Stdin,
}

/// Runs `tg` with `args` in `tree`, indexes under `tree/idx`; fails on error.
fn tg(tree: &Tree, args: &[&str]) {
    let st = util::tg_command(tree, tree.root())
        .env("TG_INDEX_DIR", tree.path("idx"))
        .args(args)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "tg {args:?} failed");
}

/// Prepares `kind` from `app.log`: the command line that views it, and
/// what the status line calls it.
fn prepare(tree: &Tree, kind: Kind) -> (String, &'static str) {
    let tg_bin = util::tg_bin().display().to_string();
    match kind {
        Kind::Plain => (format!("{tg_bin} view app.log"), "(no index)"),
        Kind::Blocks => {
            tg(tree, &["index", "-q", "--block-size", "4K", "app.log"]);
            (format!("{tg_bin} view app.log"), "(block index)")
        }
        Kind::Gz => {
            let st = Command::new("gzip").args(["-k", "app.log"]).current_dir(tree.root()).status();
            assert!(st.unwrap().success());
            tg(
                tree,
                &["index", "-q", "--block-size", "4K", "--access-spacing", "64K", "app.log.gz"],
            );
            (format!("{tg_bin} view app.log.gz"), "(.gz index)")
        }
        Kind::Packed => {
            tg(tree, &["pack", "-q", "--frame-size", "4K", "app.log"]);
            (format!("{tg_bin} view app.log.zst"), "(packed)")
        }
        Kind::Stdin => (format!("cat app.log | {tg_bin} view"), "stdin (spooled)"),
    }
}

/// A viewer of `kind` in a 120×40 window, its first screen shown.
fn open(tree: &Tree, kind: Kind) -> (Tmux, &'static str) {
    let (command, label) = prepare(tree, kind);
    let idx = tree.path("idx").display().to_string();
    let env = [("TG_INDEX_DIR", idx.as_str()), ("TG_AUTO_INDEX", "0"), ("NO_COLOR", "1")];
    let t = Tmux::new(tree.root(), 120, 40, &env);
    t.send_line(&format!("{command}; stty -a > stty.txt"));
    let data = std::fs::read(tree.path("app.log")).unwrap();
    let want: Vec<(u64, String)> = (1..=39).map(|n| (n, sed(&data, n))).collect();
    t.wait(&format!("{kind:?}: the first screen, lines 1-39 as sed prints them"), |s| {
        s.last().is_some_and(|l| l.contains(label) && l.contains(&format!("lines 1-39/{LINES}")))
            && rows(s, 120) == want
    });
    (t, label)
}

/// Types `keys` and waits until the top line is `want` and the status
/// line (drawn last) says so; the screen.
fn top_after(t: &Tmux, keys: &str, want: u64, what: &str) -> Vec<String> {
    t.send(keys);
    t.wait(&format!("{what}: line {want} at the top"), |s| at_top(s, want))
}

/// Whether line `n` is at the top, by the first row and the status line.
fn at_top(s: &[String], n: u64) -> bool {
    top(s) == Some(n) && s.last().is_some_and(|l| l.contains(&format!("lines {n}-")))
}

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
    let screen = t.wait("&needle", |s| rows(s, 120) == want);
    assert!(screen.last().unwrap().contains("&needle"));
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
    scenario(Kind::Plain);
}

#[test]
fn block_indexed_log() {
    scenario(Kind::Blocks);
}

#[test]
fn indexed_gz() {
    scenario(Kind::Gz);
}

#[test]
fn packed_zst() {
    scenario(Kind::Packed);
}

#[test]
fn stdin() {
    scenario(Kind::Stdin);
}

/// `F` shows lines appended to a plain file and to a block-indexed log
/// (the tail past the index counted), with their true line numbers.
#[test]
fn follow_appended_lines() {
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
        let screen = t.wait("the appended lines", |s| {
            rows(s, 120).last() == Some(&(n, "appended two".to_string()))
        });
        assert!(screen.last().unwrap().contains(&format!("/{n}")), "{kind:?}: {screen:?}");
        t.send("q");
    }
}

/// Control bytes, invalid UTF-8 and NULs are shown escaped, never sent to
/// the terminal raw; a binary file says so; a 3 MB line shows its start,
/// the next line, and moves sideways.
#[test]
fn escapes_binary_and_long_lines() {
    let tree = Tree::new("view-bytes");
    let mut data = b"red \x1b[31mRED\x1b[0m end\nbad \xff\xfe bytes\nnul \x00 here\n".to_vec();
    data.extend((0..3_000_000).map(|i| b"0123456789"[i % 10]));
    data.extend_from_slice(b"\nafter the long line\n");
    tree.write("bytes.log", &data);
    let idx = tree.path("idx").display().to_string();
    let t = Tmux::new(tree.root(), 120, 40, &[("TG_INDEX_DIR", &idx), ("TG_AUTO_INDEX", "0")]);
    t.send_line(&format!("{} view bytes.log", util::tg_bin().display()));
    let screen = t.wait_for("after the long line");
    let text: Vec<String> = rows(&screen, 120).into_iter().map(|r| r.1).collect();
    assert_eq!(text[0], "red ^[[31mRED^[[0m end");
    assert_eq!(text[1], "bad \\xFF\\xFE bytes");
    assert_eq!(text[2], "nul ^@ here");
    assert!(text[3].starts_with("0123456789012"), "{}", text[3]);
    assert!(screen.last().unwrap().contains("binary file"));
    // Half a screen right: the long line shifts by 60 bytes.
    t.key("Right");
    let screen = t.wait("a shift right", |s| rows(s, 120).first().is_some_and(|r| r.1.is_empty()));
    let shifted = rows(&screen, 120);
    assert!(shifted[3].1.starts_with("0123456789"), "{shifted:?}");
    assert_eq!(shifted[4], (5, String::new()));
    t.send("q");
}

/// SIGTERM and SIGINT end the viewer with the terminal restored.
#[test]
fn signals_restore_the_terminal() {
    for signal in ["-TERM", "-INT"] {
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
