//! `tg view` wrapping long lines, as less without `-S` (tmux; the rule
//! is docs/VIEW.md's): `-S` typed toggles between chopping (the default)
//! and wrapping, `+-S` starts wrapped; the wrapped rows are what
//! `fold -w W | expand` prints, W the columns left for text (the window
//! less the density bar's column and the line numbers), through `j`, `k`,
//! pages, `G`, `N%`, marks and the status line; a match on a
//! continuation row is marked there; a line of 24 MB is shown wrapped
//! anywhere with the viewer's private memory under 64 MiB. `-i` typed is
//! less's `-i` (smart case) and `-I` its `-I` (ignore case). main's
//! binary chopped every line and read `-S` as smart case.

mod util;

use std::process::Command;
use std::time::Duration;

use util::Tree;
use util::tmux::Tmux;
use util::view::*;

/// The window.
const WIDTH: usize = 120;

/// Rows of text on screen (the last row is the status line).
const ROWS: usize = 39;

/// Lines of the wrap fixture.
const LINES: usize = 300;

/// The wrap fixture: lines of 0 to ~400 bytes, words and tabs, some with
/// "needle" (one split by a row's end at 119 columns), one "Needle".
fn fixture() -> Vec<u8> {
    let mut out = Vec::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 1..=LINES {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = (x % 420) as usize;
        let mut line = format!("{i:03}");
        while line.len() < len {
            line.push_str(["\talpha", " beta", " gamma\t", " omega"][(line.len() + i) % 4]);
        }
        match i {
            // "needle" across the first row's end: 116 + 3 columns.
            7 => line = format!("{}needle{}", "x".repeat(116), " tail".repeat(30)),
            // On the third row only.
            20 => line = format!("{}needle end", "y".repeat(250)),
            33 => line = format!("033 Needle {}", "z".repeat(200)),
            // On its 46th row, below a screen of its rows.
            40 => line = format!("{} needle end", "w".repeat(5400)),
            _ => {}
        }
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    out
}

/// GNU fold's rule for ASCII (coreutils' fold.c, without `-b` or `-s`):
/// each line's rows, as `(line number, byte offset of the row)`.
fn fold_places(data: &[u8], width: usize) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut at = 0u64;
    for (n, line) in data.split_inclusive(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let (mut col, mut start) = (0, 0);
        out.push((n as u64 + 1, at));
        for (i, &b) in line.iter().enumerate() {
            let next = if b == b'\t' { col + 8 - col % 8 } else { col + 1 };
            if next > width && i > start {
                out.push((n as u64 + 1, at + i as u64));
                (start, col) = (i, if b == b'\t' { 8 } else { 1 });
            } else {
                col = next;
            }
        }
        at += line.len() as u64 + 1;
    }
    out
}

/// What `fold -w WIDTH FILE | expand` prints, each row trimmed at its end.
fn folded(tree: &Tree, file: &str, width: usize) -> Vec<String> {
    let script = format!("fold -w {width} {file} | expand");
    let out = Command::new("sh").args(["-c", &script]).current_dir(tree.root()).output();
    String::from_utf8(out.unwrap().stdout).unwrap().lines().map(|l| l.trim_end().into()).collect()
}

/// The text rows of a screen: each row's first `width` columns, trimmed.
fn text_rows(s: &[String], width: usize) -> Vec<String> {
    s[..s.len() - 1]
        .iter()
        .map(|r| r.chars().take(width).collect::<String>().trim_end().to_string())
        .collect()
}

/// `tg view ARGS` in a 120×40 window of `tree`.
fn start(tree: &Tree, args: &str) -> Tmux {
    launch_sized(tree, args, &[], WIDTH as u16, ROWS as u16 + 1)
}

/// Types `keys`; waits until the screen shows the fold's rows from
/// `top` on (`want`) and the status line holds `status`.
fn shows(t: &Tmux, keys: &str, want: &[String], top: usize, status: &str) -> Vec<String> {
    if !keys.is_empty() {
        t.send(keys);
    }
    let end = (top + ROWS).min(want.len());
    let mut rows = want[top..end].to_vec();
    rows.resize(ROWS, String::new());
    let what = format!("{keys}: the fold's rows from {top} on, the status line saying {status:?}");
    t.wait(&what, |s| {
        s.last().is_some_and(|l| l.contains(status)) && text_rows(s, WIDTH - 1) == rows
    })
}

/// Quits; the viewer left cleanly.
fn quit(tree: &Tree, t: &Tmux, file: &str) {
    t.send("q");
    let (rc, err) = after_exit(tree, t, file, "q");
    assert_eq!((rc.as_str(), err.as_str()), ("0", ""));
}

/// `+-S` starts wrapped: the rows are `fold -w 119`'s (the bar's column
/// kept), through `j`, Space, `d`, `k`, `u`, `b`, `G`, `50%`, `g`, a mark on a
/// continuation row, `''`; the status line's lines and percentage are
/// the rows'; `-S` chops (as `expand | cut -c1-120`) and `-S` wraps again.
#[test]
fn wrapped_rows_are_folds() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-wrap-fold");
    let data = fixture();
    tree.write("wrap.log", &data);
    let want = folded(&tree, "wrap.log", WIDTH - 1);
    let places = fold_places(&data, WIDTH - 1);
    assert_eq!(want.len(), places.len(), "fold -w 119 and the test's fold");
    assert!(want.len() > LINES + 150, "the fixture has lines to wrap: {} rows", want.len());
    let len = data.len() as u64;
    // The status line: the lines of the first and last rows, and where
    // the last row starts in percent.
    let status = |top: usize| {
        let last = (top + ROWS).min(places.len()) - 1;
        let at_end = last + 1 == places.len();
        let end =
            if at_end { "(END)".to_string() } else { format!("{}%", places[last].1 * 100 / len) };
        format!("lines {}-{}/{LINES}  {end}", places[top].0, places[last].0)
    };
    let t = start(&tree, "-n +-S wrap.log");
    shows(&t, "", &want, 0, &status(0));
    shows(&t, "3j", &want, 3, &status(3));
    shows(&t, " ", &want, 3 + ROWS, &status(3 + ROWS));
    shows(&t, "d", &want, 3 + ROWS + ROWS / 2, &status(3 + ROWS + ROWS / 2));
    shows(&t, "5k", &want, ROWS + ROWS / 2 - 2, &status(ROWS + ROWS / 2 - 2));
    shows(&t, "u", &want, ROWS - 2, &status(ROWS - 2));
    shows(&t, "b", &want, 0, &status(0));
    let bottom = want.len() - ROWS;
    shows(&t, "G", &want, bottom, &status(bottom));
    shows(&t, "2k", &want, bottom - 2, &status(bottom - 2));
    // 50%: the line holding the middle byte, from its first row.
    let middle = places.iter().rposition(|p| p.1 <= len / 2).unwrap();
    let first = places.iter().position(|p| p.0 == places[middle].0).unwrap();
    shows(&t, "50%", &want, first, &status(first));
    // A mark on a continuation row comes back to it.
    let cont = (1..places.len()).find(|&i| places[i].0 == places[i - 1].0).unwrap();
    shows(&t, "g", &want, 0, &status(0));
    shows(&t, &format!("{cont}j"), &want, cont, &status(cont));
    t.send("ma");
    t.wait_for("mark a set");
    shows(&t, "G", &want, bottom, &status(bottom));
    shows(&t, "'a", &want, cont, &status(cont));
    shows(&t, "''", &want, bottom, &status(bottom));
    // -S chops: each line's first 120 columns; -S again wraps.
    shows(&t, "g", &want, 0, &status(0));
    t.send("-S");
    let chopped: Vec<String> = want_chopped(&tree, "wrap.log", 1, ROWS);
    t.wait("-S: chopped as expand | cut -c1-120", |s| {
        text_rows(s, WIDTH) == chopped && s.last().is_some_and(|l| l.contains("Chop long lines"))
    });
    t.send("-S");
    t.wait("-S again: folded", |s| {
        text_rows(s, WIDTH - 1) == want[..ROWS]
            && s.last().is_some_and(|l| l.contains("Fold long lines"))
    });
    // Narrower, from a continuation row: the rows of fold -w 99, from
    // the one holding the top row's first byte.
    let narrow_places = fold_places(&data, 99);
    let row = (1..places.len())
        .find(|&i| {
            places[i].0 == places[i - 1].0 && !narrow_places.iter().any(|p| p.1 == places[i].1)
        })
        .unwrap();
    shows(&t, &format!("{row}j"), &want, row, &status(row));
    let byte = places[row].1;
    t.resize(100, ROWS as u16 + 1);
    let narrow = folded(&tree, "wrap.log", 99);
    let top = narrow_places.iter().rposition(|p| p.1 <= byte).unwrap();
    t.wait("resized to 100 columns: fold -w 99", |s| text_rows(s, 99) == narrow[top..top + ROWS]);
    quit(&tree, &t, "wrap.log");
    // Line numbers: as wide as the length's digits and a space; on a
    // line's first row only; the rows are fold -w 113's.
    let width = WIDTH - 1 - (len.to_string().len().max(4) + 1);
    let want = folded(&tree, "wrap.log", width);
    let places = fold_places(&data, width);
    let t = start(&tree, "+-S wrap.log");
    let gutter = WIDTH - 1 - width;
    let numbered: Vec<String> = (0..ROWS)
        .map(|i| {
            let number = if i == 0 || places[i].0 != places[i - 1].0 {
                places[i].0.to_string()
            } else {
                String::new()
            };
            format!("{number:>w$} {}", want[i], w = gutter - 1).trim_end().to_string()
        })
        .collect();
    t.wait("numbered rows, fold -w 113", |s| text_rows(s, WIDTH - 1) == numbered);
    quit(&tree, &t, "wrap.log");
}

/// Lines `from..=to` of `file`, tabs expanded, their first 120 columns.
fn want_chopped(tree: &Tree, file: &str, from: usize, to: usize) -> Vec<String> {
    let script = format!("sed -n '{from},{to}p' {file} | expand | cut -c1-{WIDTH}");
    let out = Command::new("sh").args(["-c", &script]).current_dir(tree.root()).output();
    String::from_utf8(out.unwrap().stdout).unwrap().lines().map(|l| l.trim_end().into()).collect()
}

/// `/needle` goes to each line holding it (as rg finds them), with the
/// match marked where it is drawn: on a continuation row, or split by a
/// row's end (both halves marked), or on a row below a screen of the
/// line's rows (that row then at the top); `&needle` shows the matching lines
/// wrapped (fold of rg's lines).
#[test]
fn a_match_on_a_continuation_row_is_marked() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-wrap-search");
    let data = fixture();
    tree.write("wrap.log", &data);
    let hits: Vec<u64> = rg_lines(&tree, "needle", "wrap.log").iter().map(|h| h.0).collect();
    assert_eq!(&hits[..2], &[7, 20], "the fixture's needles");
    let want = folded(&tree, "wrap.log", WIDTH - 1);
    let places = fold_places(&data, WIDTH - 1);
    let first_row = |line: u64| places.iter().position(|p| p.0 == line).unwrap();
    let t = start(&tree, "-n +-S wrap.log");
    shows(&t, "", &want, 0, "lines 1-");
    // Line 7: "nee" ends its first row, "dle" starts the second.
    t.send("/needle");
    t.key("Enter");
    let top = first_row(7);
    t.wait("/needle: line 7 at the top, fold's rows", |s| {
        text_rows(s, WIDTH - 1) == want[top..top + ROWS] && s.last().unwrap().contains("/needle")
    });
    let escaped = t.screen_with_escapes();
    let marks = marked(&escaped[..2]);
    let split = vec![vec!["nee".to_string()], vec!["dle".to_string()]];
    assert_eq!(marks, split, "the split match: {escaped:?}");
    // Line 20: on its third row only.
    t.send("n");
    let top = first_row(20);
    t.wait("n: line 20 at the top", |s| text_rows(s, WIDTH - 1) == want[top..top + ROWS]);
    let marks = marked(&t.screen_with_escapes()[..3]);
    assert_eq!(marks, vec![vec![], vec![], vec!["needle".to_string()]], "the third row's match");
    // Line 40: its match is below a screen of its rows: the row holding
    // it is at the top.
    t.send("n");
    let line40 = first_row(40);
    let top = line40 + 5401 / (WIDTH - 1);
    assert_eq!(places[top].1 - places[line40].1, 5401 / 119 * 119, "the match's row");
    t.wait("n: line 40 from the row of its match", |s| {
        text_rows(s, WIDTH - 1) == want[top..top + ROWS]
    });
    let marks = marked(&t.screen_with_escapes()[..1]);
    assert_eq!(marks, vec![vec!["needle".to_string()]], "the match on the top row");
    // The filter: rg's lines, folded.
    tree.write("hits.log", rg_text(&tree, "needle"));
    let filtered = folded(&tree, "hits.log", WIDTH - 1);
    t.send("g&needle");
    t.key("Enter");
    let mut rows = filtered.clone();
    rows.resize(ROWS.max(rows.len()), String::new());
    t.wait("&needle: rg's lines folded", |s| text_rows(s, WIDTH - 1) == rows[..ROWS]);
    quit(&tree, &t, "wrap.log");
}

/// `rg PATTERN wrap.log`'s lines.
fn rg_text(tree: &Tree, pattern: &str) -> Vec<u8> {
    let out = util::rg_command(tree, tree.root()).args([pattern, "wrap.log"]).output();
    out.unwrap().stdout
}

/// `-S` typed toggles chopping and wrapping (chopped to start with); `-i`
/// typed is smart case (less's `-i`: `/needle` finds "Needle", `/Needle`
/// does not find "needle") and `-I` ignores case always.
#[test]
fn typed_s_wraps_and_i_is_smart_case() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-wrap-toggle");
    let data = fixture();
    tree.write("wrap.log", &data);
    let want = folded(&tree, "wrap.log", WIDTH - 1);
    let chopped = want_chopped(&tree, "wrap.log", 1, ROWS);
    let t = start(&tree, "-n wrap.log");
    t.wait("chopped at the start", |s| text_rows(s, WIDTH) == chopped);
    t.send("-S");
    t.wait("-S: wrapped", |s| text_rows(s, WIDTH - 1) == want[..ROWS]);
    t.send("-S");
    t.wait("-S: chopped again", |s| text_rows(s, WIDTH) == chopped);
    let line = |s: &[String]| s[0].split_whitespace().next().map(str::to_string);
    // -i: smart case. /needle finds line 7, then n the Needle of line 33.
    t.send("-i");
    t.wait_for("smart case search (-i)");
    t.send("/needle");
    t.key("Enter");
    t.wait("-i /needle", |s| line(s).is_some_and(|l| l.starts_with("xxxx")));
    t.send("nn");
    t.wait("-i: n reaches Needle (line 33)", |s| line(s).as_deref() == Some("033"));
    // /Needle is case-sensitive under smart case: from the top, line 33.
    t.send("g/Needle");
    t.key("Enter");
    t.wait("-i /Needle: line 33, not line 7", |s| line(s).as_deref() == Some("033"));
    // -I: case ignored always: /NEEDLE finds line 7.
    t.send("-I");
    t.wait_for("case-insensitive search (-I)");
    t.send("g/NEEDLE");
    t.key("Enter");
    t.wait("-I /NEEDLE: line 7", |s| line(s).is_some_and(|l| l.starts_with("xxxx")));
    quit(&tree, &t, "wrap.log");
}

/// The long line's length: 24 MB, not a multiple of 256 KiB.
const LONG: u64 = 24_000_000;

/// The rows of bytes `from..to` of the long line (the letters and digits
/// of [`LONG_UNIT`] over and over from its start), folded at `width`
/// afresh at each 256 KiB of it.
fn long_rows(from: u64, to: u64, width: u64) -> Vec<(u64, String)> {
    const PIECE: u64 = 256 << 10;
    let mut out = Vec::new();
    let mut at = from / PIECE * PIECE;
    while at < to.min(LONG) {
        let piece_end = (at / PIECE * PIECE + PIECE).min(LONG);
        let end = (at + width).min(piece_end);
        if at >= from {
            let row = (at..end).map(|i| LONG_UNIT[(i % 36) as usize] as char).collect();
            out.push((at, row));
        }
        at = end;
    }
    out
}

/// A line of 24 MB, wrapped: shown from its start (`NG`), deep inside it
/// (`N%`, rows down), at its end (`G`, from the line after it `k`), each
/// screen as the fold by 256 KiB pieces says; the viewer's private memory
/// (RssAnon) stays under 64 MiB throughout.
#[test]
fn a_line_of_24_mb_wrapped_keeps_memory_bounded() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-wrap-long");
    long_line_file(&tree, "long.log", 20, LONG, 10);
    let t = start(&tree, "-n +-S long.log");
    let head = |s: &[String]| text_rows(s, WIDTH - 1).first().cloned().unwrap_or_default();
    t.wait("the first screen", |s| head(s) == "before 1");
    let shell = t.pane_pid().to_string();
    let out = Command::new("pgrep").args(["-P", &shell]).output().unwrap();
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
    let width = WIDTH as u64 - 1;
    let rows_of = |rows: Vec<(u64, String)>| rows.into_iter().map(|r| r.1).collect::<Vec<_>>();
    let screen = |keys: &str, want: Vec<String>| {
        t.send(keys);
        t.wait_up_to(Duration::from_secs(60), &format!("{keys}: {:?}…", want.first()), |s| {
            text_rows(s, WIDTH - 1) == want
        });
    };
    // 21G: the long line from its start.
    screen("21G", rows_of(long_rows(0, 39 * width, width))[..ROWS].to_vec());
    // 2300 rows down: past its first 256 KiB (2203 rows: 2202 of 119
    // bytes and one of 106).
    let rows = long_rows(0, 2400 * width, width);
    screen("2300j", rows_of(rows[2300..2300 + ROWS].to_vec()));
    // G: its last rows, then the 10 lines after it (two rows each).
    let last = rows_of(long_rows(LONG - 40 * width, LONG, width));
    let after = folded_lines(&tree, "long.log", 22, 31, width as usize);
    assert_eq!(after.len(), 20, "the lines after the long one, folded");
    let at_end = |up: usize| {
        let mut rows = last[last.len() - (ROWS - after.len()) - up..].to_vec();
        rows.extend(after.iter().cloned());
        rows.truncate(ROWS);
        rows
    };
    screen("G", at_end(0));
    // k from there, twice: one row up each.
    screen("2k", at_end(2));
    // 50%: the long line's first row (the line holding the middle byte).
    screen("50%", rows_of(long_rows(0, 39 * width, width))[..ROWS].to_vec());
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak = sampler.join().unwrap();
    assert!(peak > 0 && peak < 64 << 20, "the viewer's peak RssAnon: {} MiB", peak >> 20);
    eprintln!("peak RssAnon over the 24 MB line, wrapped: {} MiB", peak >> 20);
    quit(&tree, &t, "long.log");
}

/// Lines `from..=to` of `file`, folded at `width` (`tail | head | fold`:
/// streamed, the long line never held).
fn folded_lines(tree: &Tree, file: &str, from: u64, to: u64, width: usize) -> Vec<String> {
    let script = format!("tail -n +{from} {file} | head -n {} | fold -w {width}", to + 1 - from);
    let out = Command::new("sh").args(["-c", &script]).current_dir(tree.root()).output();
    String::from_utf8(out.unwrap().stdout).unwrap().lines().map(|l| l.trim_end().into()).collect()
}
