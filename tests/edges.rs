//! Index feature version 3: documents hold the trigrams of their edges, and
//! plans ask for the byte outside a match at `^`, `$`, `-x`, `-w` and `\b`.
//! Every query here runs through the on-disk index and through a server,
//! and must print what rg prints, above all where a match starts or ends
//! a file: a first line, a last line without a newline, a byte-order mark,
//! CRLF lines, a binary file's text before its first NUL, one-byte files.
//! The index must also read fewer files than the words' trigrams alone
//! would admit.

mod util;

use util::serve::Served;
use util::{Case, Report, Tree};

/// Files whose words sit at every kind of edge.
fn tree(name: &str) -> Tree {
    let t = Tree::new(name);
    t.git_init("repo");
    t.write("repo/start.txt", "word at the start\nmiddle\nlast word");
    t.write("repo/bom.txt", "\u{FEFF}word after a byte-order mark\nok\n");
    t.write("repo/crlf.txt", "line one\r\nword\r\nlast word\r\n");
    t.write("repo/bin.dat", "word before\0word after\nok\n");
    t.write("repo/ok.txt", "ok");
    t.write("repo/go.txt", "go\n");
    t.write("repo/x.txt", "x");
    t.write("repo/inner.txt", "sword swordfish words wordy\nbook token gone ago\n");
    t.write("repo/unicode.txt", "éword wordé —word— ok—\n");
    t.write("repo/dash.txt", "a -word- here\n-word-\n");
    for i in 0..30 {
        t.write(format!("repo/noise/n{i:02}.txt"), "swords and wordsmiths\nbooks, tokens\n");
    }
    util::tg_index(&t, "repo");
    t
}

/// Queries whose plans ask for edges.
fn cases(tag: &str) -> Vec<Case> {
    let mut v = Vec::new();
    for (name, args) in [
        ("w", &["-n", "-w", "word"][..]),
        ("x", &["-n", "-x", "word"]),
        ("x_one_byte", &["-x", "x"]),
        ("caret", &["-n", "^word"]),
        ("dollar", &["-n", "word$"]),
        ("b", &["-n", r"\bword\b"]),
        ("angle", &["-n", r"\<word\>"]),
        ("w_short", &["-w", "ok"]),
        ("w_two", &["-w", "-e", "go", "-e", "ok"]),
        ("w_i", &["-n", "-w", "-i", "WORD"]),
        ("w_class", &["-n", "-w", "wor[dk]"]),
        ("w_dash", &["-n", "-w", "-F", "-word-"]),
        ("w_no_unicode", &["-n", "-w", "--no-unicode", "word"]),
        ("crlf_x", &["-n", "--crlf", "-x", "word"]),
        ("crlf_dollar", &["-n", "--crlf", "word$"]),
        ("binary_w", &["-n", "--binary", "-w", "after"]),
        ("text_w", &["-n", "-a", "-w", "after"]),
        ("count_w", &["-c", "--include-zero", "-w", "word"]),
        ("without_w", &["--files-without-match", "-w", "ok"]),
    ] {
        v.push(Case::new(format!("edges/{tag}/{name}"), args).cwd("repo"));
    }
    v
}

/// The candidate documents `tg --stats` reports for `args` in `repo`.
fn candidates(t: &Tree, args: &[&str]) -> (usize, String) {
    let out = util::tg_command(t, t.path("repo"))
        .args(["--stats", "-l"])
        .args(args)
        .output()
        .expect("run tg");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let n = err
        .split("candidate documents ")
        .nth(1)
        .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|s| s.parse().ok())
        .unwrap_or(usize::MAX);
    (n, err)
}

/// The files of the tree that words' trigrams alone admit are not read.
fn check_narrowed(t: &Tree) {
    // `ok` has no trigram of its own: the edges are all there is.
    let (n, err) = candidates(t, &["-w", "ok"]);
    assert!(n <= 4, "-w ok read {n} files:\n{err}");
    // `word` is in every noise file, never as a word.
    let (n, err) = candidates(t, &["-w", "word"]);
    assert!(n <= 8, "-w word read {n} files:\n{err}");
    let (n, err) = candidates(t, &["^word"]);
    assert!(n <= 6, "^word read {n} files:\n{err}");
}

#[test]
fn edges_through_the_index_match_rg() {
    let t = tree("edges_index");
    let mut r = Report::new("index");
    r.check_all(&t, &cases("index"));
    r.finish();
    check_narrowed(&t);
}

#[test]
fn edges_through_the_server_match_rg() {
    let t = tree("edges_served");
    let _s = Served::start(&t, &[]);
    let mut r = Report::new("served");
    r.check_all(&t, &cases("served"));
    r.finish();
    let (_, err) = candidates(&t, &["-w", "ok"]);
    assert!(err.contains("candidates told by the server"), "{err}");
    check_narrowed(&t);
}
