//! `tg view`'s histogram (`H`) of a search against `rg -c`, in a real
//! terminal (tmux): on a generated log whose matches fall on stamped and
//! on continuation lines, each bar's count equals what `rg -c PATTERN`
//! counts in the lines of that bar's time range — the lines cut out here
//! by the times the log was written from (a continuation line goes with
//! the line it continues), not by any timestamp parser. On a plain file,
//! through a block index, an indexed `.gz`, a packed `.zst` and stdin.

mod util;

use std::fmt::Write as _;

use util::Tree;
use util::tmux::Tmux;
use util::view::*;

/// Lines written (continuation lines come on top).
const COUNT: u64 = 4000;

/// The pattern counted: a regex, so that no literal alone decides.
const PATTERN: &str = r"code=\d*7\b";

/// The log and each line's time key (seconds after 10:00:00; a
/// continuation line has its stamped line's).
fn log() -> (String, Vec<u64>) {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut rand = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut text, mut keys, mut secs) = (String::new(), Vec::new(), 0u64);
    for i in 1..=COUNT {
        secs += rand() % 4;
        let (h, m, s) = (10 + secs / 3600, secs / 60 % 60, secs % 60);
        let code = rand() % 100;
        writeln!(
            text,
            "2026-01-03 {h:02}:{m:02}:{s:02}.{:03} INFO request {i} code={code}",
            i % 1000
        )
        .unwrap();
        keys.push(secs);
        if rand() % 5 == 0 {
            writeln!(text, "    caused by code={}", rand() % 100).unwrap();
            keys.push(secs);
        }
    }
    (text, keys)
}

/// The bars of a histogram screen: `(bucket start HH:MM:SS, count)`.
fn bars(s: &[String]) -> Vec<(String, u64)> {
    s[..s.len() - 1]
        .iter()
        .filter_map(|r| {
            let mut w = r.trim_start_matches(['>', ' ']).split_whitespace();
            let (date, clock, n) = (w.next()?, w.next()?, w.next()?);
            (date == "2026-01-03").then_some((clock.to_string(), n.parse().ok()?))
        })
        .collect()
}

/// Seconds after 10:00:00 of `HH:MM:SS`.
fn secs(clock: &str) -> u64 {
    let p: Vec<u64> = clock.split(':').map(|x| x.parse().unwrap()).collect();
    (p[0] - 10) * 3600 + p[1] * 60 + p[2]
}

/// What `rg -c PATTERN` counts in `lines` (none: 0).
fn rg_count(tree: &Tree, lines: &[&str]) -> u64 {
    let mut slice = lines.join("\n");
    slice.push('\n');
    tree.write("bucket.txt", slice);
    let out = util::rg_command(tree, tree.root()).args(["-c", PATTERN, "bucket.txt"]).output();
    String::from_utf8(out.unwrap().stdout).unwrap().trim().parse().unwrap_or(0)
}

#[test]
fn histogram_counts_equal_rg_c_per_bucket() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let (text, keys) = log();
    let lines: Vec<&str> = text.lines().collect();
    for kind in [Kind::Plain, Kind::Blocks, Kind::Gz, Kind::Packed, Kind::Stdin] {
        let tree = Tree::new(&format!("view-hist-{kind:?}"));
        tree.write("app.log", &text);
        let (command, label) = prepare(&tree, kind);
        let idx = tree.path("idx").display().to_string();
        let env = [("TG_INDEX_DIR", idx.as_str()), ("TG_AUTO_INDEX", "0"), ("NO_COLOR", "1")];
        let t = Tmux::new(tree.root(), 120, 40, &env);
        t.send_line(&format!("{command} 2>tg.err"));
        t.wait(&format!("{kind:?}: opened"), |s| s.last().is_some_and(|l| l.contains(label)));
        t.send(&format!("/{PATTERN}"));
        t.key("Enter");
        t.wait(&format!("{kind:?}: searched"), |s| {
            s.last().is_some_and(|l| l.contains(&format!("/{PATTERN}")))
        });
        t.send("H");
        let shown = t.wait(&format!("{kind:?}: H"), |s| {
            s.last().is_some_and(|l| l.contains("histogram of /")) && bars(s).len() > 3
        });
        let shown = bars(&shown);
        let width = secs(&shown[1].0) - secs(&shown[0].0);
        let want: Vec<(String, u64)> = shown
            .iter()
            .map(|(clock, _)| {
                let from = secs(clock);
                let first = keys.partition_point(|&k| k < from);
                let end = keys.partition_point(|&k| k < from + width);
                (clock.clone(), rg_count(&tree, &lines[first..end]))
            })
            .collect();
        assert_eq!(shown, want, "{kind:?}: the bars against rg -c per bucket");
        assert_eq!(want.iter().map(|b| b.1).sum::<u64>(), rg_count(&tree, &lines), "{kind:?}");
        t.send("qq");
    }
}
