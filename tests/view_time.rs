//! `tg view` and time, in a real terminal (tmux): for a log of
//! each timestamp format (syslog, ISO 8601 with `T` and `Z`, with a zone,
//! with `,mmm`, the access-log form, JSON epoch seconds and
//! milliseconds), with continuation lines, `@TIME`, `@HH:MM` and `@-5m`
//! go to the first line at or after that time, as a reference computed
//! here from the lines written says; the status line shows the top
//! line's time. Times out of order are found by scanning, and said; a
//! log without times says "no timestamps found". Also through a block
//! index and an indexed `.gz`.

mod util;

use std::fmt::Write as _;

use util::Tree;
use util::view::*;

/// 2026-01-03 10:00:00 UTC, in seconds since the epoch.
const T0: i64 = 1_767_434_400;

/// Lines of each generated log.
const COUNT: i64 = 3000;

/// The status line of a screen.
fn status(s: &[String]) -> &str {
    s.last().map_or("", String::as_str)
}

/// `HH:MM:SS` of `secs` after 10:00:00.
fn clock(secs: i64) -> String {
    let t = 36_000 + secs;
    format!("{:02}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60)
}

/// A log of `COUNT` lines in one format (`line(secs, i)` writes a line
/// `secs` after 10:00:00), every 7th line a continuation line without a
/// time; the lines' times (`None`: a continuation), from line 1.
fn log(line: &dyn Fn(i64, i64) -> String) -> (String, Vec<Option<i64>>) {
    let (mut text, mut times) = (String::new(), Vec::new());
    for i in 1..=COUNT {
        if i % 7 == 0 {
            writeln!(text, "    at frame {i} (continuation)").unwrap();
            times.push(None);
        } else {
            let secs = i * 2;
            writeln!(text, "{}", line(secs, i)).unwrap();
            times.push(Some(T0 + secs));
        }
    }
    (text, times)
}

/// The first line (1-based) with a time at or after `target`.
fn first_at(times: &[Option<i64>], target: i64) -> u64 {
    times.iter().position(|t| t.is_some_and(|t| t >= target)).unwrap() as u64 + 1
}

/// A format's line: `(secs after 10:00:00, line number)` to text.
type LineOf = Box<dyn Fn(i64, i64) -> String>;

/// Each format's line.
fn formats() -> Vec<(&'static str, LineOf)> {
    vec![
        (
            "syslog",
            Box::new(|s: i64, i: i64| format!("Jan  3 {} web-01 app[7]: event {i}", clock(s))),
        ),
        (
            "iso-z",
            Box::new(|s: i64, i: i64| format!("2026-01-03T{}.250Z INFO event {i}", clock(s))),
        ),
        ("iso-zone", Box::new(|s: i64, i: i64| format!("2026-01-03T{}+00:00 event {i}", clock(s)))),
        (
            "iso-comma",
            Box::new(|s: i64, i: i64| format!("2026-01-03 {},007 WARN event {i}", clock(s))),
        ),
        (
            "access",
            Box::new(|s: i64, i: i64| {
                format!(
                    "10.0.0.{} - - [03/Jan/2026:{} +0000] \"GET /{i} HTTP/1.1\" 200 5",
                    i % 9,
                    clock(s)
                )
            }),
        ),
        (
            "json-s",
            Box::new(|s: i64, i: i64| format!("{{\"ts\":{},\"msg\":\"event {i}\"}}", T0 + s)),
        ),
        (
            "json-ms",
            Box::new(|s: i64, i: i64| {
                format!("{{\"msg\":\"event {i}\",\"timestamp\":{}123}}", T0 + s)
            }),
        ),
    ]
}

/// `@` with `spec`, then the top line is `want` and the status line shows its time.
fn jump(t: &util::tmux::Tmux, spec: &str, want: u64, times: &[Option<i64>], what: &str) {
    t.send(&format!("@{spec}"));
    t.key("Enter");
    let shown = times[want as usize - 1].map(|s| clock(s - T0)).unwrap();
    t.wait(&format!("{what}: @{spec} to line {want}"), |s| {
        at_top(s, want) && status(s).contains(&format!("@2026-01-03 {shown}"))
    });
}

/// Every format: `@DATE TIME`, `@HH:MM`, `@-5m`, and a time past the end.
#[test]
fn time_jumps_in_every_format() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    for (name, line) in formats() {
        let tree = Tree::new("view-time");
        let (text, times) = log(&*line);
        tree.write("app.log", &text);
        let t = view(&tree, "app.log", &[]);
        jump(&t, "2026-01-03 10:30", first_at(&times, T0 + 1800), &times, name);
        jump(&t, "10:45:01", first_at(&times, T0 + 2701), &times, name);
        jump(&t, "2026-01-03T10:00", 1, &times, name);
        let end = times.iter().rev().find_map(|t| *t).unwrap();
        jump(&t, "-5m", first_at(&times, end - 300), &times, name);
        t.send("@2026-01-04");
        t.key("Enter");
        t.wait_for("no line at or after 2026-01-04 00:00:00");
        t.send("q");
    }
}

/// A continuation line at the top shows the time of the line it continues.
#[test]
fn a_continuation_has_the_time_before_it() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-time-cont");
    let (text, _) = log(&|s, i| format!("2026-01-03 {} INFO event {i}", clock(s)));
    tree.write("app.log", &text);
    let t = view(&tree, "app.log", &[]);
    top_after(&t, "14G", 14, "14G");
    t.wait("line 14's time is line 13's", |s| status(s).contains("@2026-01-03 10:00:26"));
    t.send("q");
}

/// Times out of order (a block of later lines moved up): found by
/// scanning, and said so; a log without times says so.
#[test]
fn times_out_of_order_and_none() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-time-order");
    let (text, mut times) = log(&|s, i| format!("2026-01-03 {} INFO event {i}", clock(s)));
    let mut lines: Vec<&str> = text.lines().collect();
    // Lines 2001-2400 (from 11:06:42) moved to after line 100.
    let moved: Vec<&str> = lines.drain(2000..2400).collect();
    let moved_times: Vec<Option<i64>> = times.drain(2000..2400).collect();
    lines.splice(100..100, moved);
    times.splice(100..100, moved_times);
    tree.write("app.log", lines.join("\n") + "\n");
    let t = view(&tree, "app.log", &[]);
    let target = T0 + 4000;
    let want = first_at(&times, target);
    assert_eq!(want, 101, "a moved line comes first");
    t.send("@2026-01-03 11:06:40");
    t.key("Enter");
    t.wait("found by scanning", |s| at_top(s, want) && status(s).contains("not in order"));
    t.send("q");
    let tree = Tree::new("view-time-none");
    tree.write("app.log", fixture());
    let (t, _) = open(&tree, Kind::Plain);
    t.send("@10:00");
    t.key("Enter");
    t.wait_for("no timestamps found");
    t.send("q");
}

/// Through a block index, an indexed `.gz`, a packed file and stdin
/// (its times detected once they arrive): the same jumps.
#[test]
fn time_jumps_through_indexes_and_stdin() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    for kind in [Kind::Blocks, Kind::Gz, Kind::Packed, Kind::Stdin] {
        let tree = Tree::new("view-time-kinds");
        let (text, times) = log(&|s, i| format!("2026-01-03T{}Z INFO event {i}", clock(s)));
        tree.write("app.log", &text);
        let (command, label) = prepare(&tree, kind);
        let idx = tree.path("idx").display().to_string();
        let env = [("TG_INDEX_DIR", idx.as_str()), ("TG_AUTO_INDEX", "0"), ("NO_COLOR", "1")];
        let t = util::tmux::Tmux::new(tree.root(), 120, 40, &env);
        t.send_line(&command);
        t.wait(&format!("{kind:?}"), |s| status(s).contains(label) && at_top(s, 1));
        jump(&t, "2026-01-03 10:30", first_at(&times, T0 + 1800), &times, &format!("{kind:?}"));
        let end = times.iter().rev().find_map(|t| *t).unwrap();
        jump(&t, "-5m", first_at(&times, end - 300), &times, &format!("{kind:?}"));
        t.send("q");
    }
}

/// The histogram's rows on a screen: (bucket start as `HH:MM:SS`, count).
fn bars(s: &[String]) -> Vec<(String, u64)> {
    s[..s.len() - 1]
        .iter()
        .filter_map(|r| {
            let mut w = r.trim_start_matches(['>', ' ']).split_whitespace();
            let (date, clock, n) = (w.next()?, w.next()?, w.next()?);
            (date == "2026-01-03")
                .then(|| (clock.to_string(), n.parse().ok()).1.map(|n| (clock.to_string(), n)))?
        })
        .collect()
}

/// `H` counts the lines per 5-minute bucket (a continuation in its
/// line's bucket), of the whole text and of a search (its lines those rg
/// finds), as computed here; `j` and Enter go to the chosen bucket's first line.
#[test]
fn histogram_counts_and_jumps() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-time-hist");
    let (text, times) = log(&|s, i| {
        let needle = if i % 13 == 0 { " needle" } else { "" };
        format!("2026-01-03 {} INFO event {i}{needle}", clock(s))
    });
    tree.write("app.log", &text);
    // Each line's time: its own, or the one before (a continuation).
    let mut each = Vec::new();
    for t in &times {
        each.push(t.or(each.last().copied().flatten()));
    }
    // Every bucket from the first time's to the last's, empty ones too.
    let per_bucket = |lines: &[u64]| {
        let mut out: std::collections::BTreeMap<String, u64> =
            (0..=2 * COUNT / 300).map(|b| (clock(b * 300), 0)).collect();
        for &n in lines {
            let t = each[n as usize - 1].unwrap() - T0;
            *out.entry(clock(t - t.rem_euclid(300))).or_default() += 1;
        }
        out.into_iter().collect::<Vec<_>>()
    };
    let t = view(&tree, "app.log", &[]);
    t.send("H");
    let all: Vec<u64> = (1..=COUNT as u64).collect();
    let want = per_bucket(&all);
    t.wait("H: every line per 5 minutes", |s| {
        bars(s) == want && status(s).contains("histogram of all lines per 5m")
    });
    t.send("q");
    t.wait("closed", |s| at_top(s, 1));
    t.send("/needle");
    t.key("Enter");
    let hits: Vec<u64> = rg_lines(&tree, "needle", "app.log").into_iter().map(|h| h.0).collect();
    t.wait("/needle", |s| at_top(s, hits[0]));
    t.send("H");
    let want = per_bucket(&hits);
    t.wait("H: the needles per 5 minutes, as rg finds them", |s| {
        bars(s) == want && status(s).contains("histogram of /needle")
    });
    t.send("jj");
    t.key("Enter");
    let target = T0 + 600;
    t.wait("Enter: the third bucket's first line", |s| at_top(s, first_at(&times, target)));
    t.send("q");
}

/// Times out of order in a block-indexed log (a block of later lines
/// moved up): `@TIME` scans from the first block whose recorded times
/// reach the time, says from where, and finds the line a scan from the
/// start finds (the viewer without a terminal, `--replay`, its last
/// screen printed).
#[test]
fn issue_0035_out_of_order_times_are_scanned_from_the_block_they_reach() {
    let tree = Tree::new("view-time-ranges");
    let (text, mut times) = log(&|s, i| format!("2026-01-03 {} INFO event {i}", clock(s)));
    let mut lines: Vec<&str> = text.lines().collect();
    // Lines 2601-3000 (from 11:26:42) moved to after line 1000.
    let moved: Vec<&str> = lines.drain(2600..).collect();
    let moved_times: Vec<Option<i64>> = times.drain(2600..).collect();
    lines.splice(1000..1000, moved);
    times.splice(1000..1000, moved_times);
    tree.write("app.log", lines.join("\n") + "\n");
    tg(&tree, &["index", "-q", "--block-size", "4K", "app.log"]);
    let want = first_at(&times, T0 + 4000);
    assert_eq!(want, 1001, "a moved line comes first");
    let keys = "@2026-01-03 11:06:40\n";
    let out = util::tg_command(&tree, tree.root())
        .env("TG_INDEX_DIR", tree.path("idx"))
        .env("TG_AUTO_INDEX", "0")
        .args(["view", "--size", "200x20", "--replay", keys, "app.log"])
        .output()
        .unwrap();
    let shown = String::from_utf8(out.stdout).unwrap();
    let screen: Vec<&str> = shown.lines().skip(keys.chars().count() + 1).collect();
    let top = lines[want as usize - 1];
    assert!(screen[0].contains(top), "top {:?}, not {top:?}:\n{shown}", screen[0]);
    let from = screen.last().unwrap().split("scanning from byte ").nth(1);
    let from: u64 = from.and_then(|f| f.trim_end_matches(')').trim().parse().ok()).expect(&shown);
    let before = lines[..1000].iter().map(|l| l.len() as u64 + 1).sum::<u64>();
    assert!(from > before / 2 && from <= before, "scanned from byte {from} of {before}");
}
