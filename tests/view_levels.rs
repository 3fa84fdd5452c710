//! `tg view` and levels, in a real terminal (tmux): `e`/`E`
//! go to the next/previous error line and `w`/`W` to the next/previous
//! warning, as a reference computed here says (the level word after the
//! time; a level word later in a message is not the line's level), on a
//! plain file and through a block index; error lines are red and
//! warnings yellow, and not with `NO_COLOR`.

mod util;

use std::fmt::Write as _;

use util::Tree;
use util::view::*;

/// A log of 3000 lines with levels: mostly INFO, some ERROR and WARN (in
/// three spellings each), decoys that name a level later on; the level of
/// each line ('E', 'W' or ' ').
fn leveled() -> (String, Vec<char>) {
    let (mut text, mut levels) = (String::new(), Vec::new());
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 1..=3000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let (word, level) = match x % 40 {
            0 => ("ERROR", 'E'),
            1 => ("[FATAL]", 'E'),
            2 => ("level=error", 'E'),
            3 => ("WARN", 'W'),
            4 => ("WARNING:", 'W'),
            5 => ("level=warn", 'W'),
            _ => ("INFO", ' '),
        };
        let decoy = if x.is_multiple_of(11) { " after an ERROR and a WARN upstream" } else { "" };
        let t = 36_000 + i;
        let clock = format!("{:02}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60);
        writeln!(text, "2026-01-03 {clock} {word} event {i}{decoy}").unwrap();
        levels.push(level);
    }
    (text, levels)
}

/// Whether `row` sets the foreground to colour `n` of the 8 (red 1,
/// yellow 3), as tmux writes it (`ESC[3Nm` or `ESC[38;5;Nm`).
fn sgr(row: &str, n: u8) -> bool {
    row.contains(&format!("\x1b[3{n}m")) || row.contains(&format!("\x1b[38;5;{n}m"))
}

/// The lines (1-based) of `level`.
fn lines_of(levels: &[char], level: char) -> Vec<u64> {
    (1..).zip(levels).filter(|(_, l)| **l == level).map(|(n, _)| n).collect()
}

/// `e`, `E`, `w`, `W` from the top, on a plain file and a block-indexed one.
#[test]
fn level_jumps() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    for kind in [Kind::Plain, Kind::Blocks] {
        let tree = Tree::new("view-levels");
        let (text, levels) = leveled();
        tree.write("app.log", &text);
        let (t, _) = open(&tree, kind);
        let errors = lines_of(&levels, 'E');
        let warnings = lines_of(&levels, 'W');
        assert!(errors.len() > 20 && warnings.len() > 20);
        for &want in &errors[..4] {
            top_after(&t, "e", want, &format!("{kind:?}: e"));
        }
        top_after(&t, "E", errors[2], &format!("{kind:?}: E"));
        top_after(&t, "g", 1, "g");
        for &want in &warnings[..3] {
            top_after(&t, "w", want, &format!("{kind:?}: w"));
        }
        top_after(&t, "W", warnings[1], &format!("{kind:?}: W"));
        let last = *errors.last().unwrap();
        top_after(&t, &format!("{last}G"), last, "the last error");
        t.send("e");
        t.wait_for("no ERROR line below");
        t.send("q");
    }
}

/// Error lines red, warnings yellow (SGR 31, 33), other lines plain;
/// with `NO_COLOR`, no colour at all.
#[test]
fn levels_are_coloured_unless_no_color() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-levels-colour");
    let (text, levels) = leveled();
    tree.write("app.log", &text);
    let t = launch(&tree, "app.log", &[("NO_COLOR", "")]);
    t.wait("the first screen", |s| at_top(s, 1));
    let screen = t.screen_with_escapes();
    for (row, level) in screen[..39].iter().zip(&levels) {
        let (red, yellow) = (sgr(row, 1), sgr(row, 3));
        assert_eq!((red, yellow), (*level == 'E', *level == 'W'), "{level:?}: {row:?}");
    }
    t.send("q");
    drop(t);
    let t = launch(&tree, "app.log", &[]);
    t.wait("the first screen", |s| at_top(s, 1));
    let screen = t.screen_with_escapes();
    assert!(!screen.iter().any(|r| sgr(r, 1) || sgr(r, 3)), "{screen:?}");
    t.send("q");
}
