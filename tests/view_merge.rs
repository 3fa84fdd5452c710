//! `tg view` on several files as one timeline, in a real terminal (tmux):
//! three generated logs — a block-indexed plain file, an indexed `.gz`
//! and a packed `.zst`, each writing its time its own way, with
//! continuation lines and times repeated within and across them — and a
//! file without times, named by their directory. The merged view, saved
//! whole with `s FILE`, equals a stable sort of the three files' lines on
//! time keys computed here from the numbers the lines were written from
//! (no timestamp parser); its screens (tags, `/`, `n`, `&`, `@TIME`) are
//! read against that reference; `:n` shows each file alone, the file
//! without times too, `:x` the merge again. A filter over 75 candidate
//! blocks of three 32 MB logs (placed as reached) against `sort -s`.

mod util;

use std::process::Command;

use util::Tree;
use util::view::*;

/// Lines written to each log (continuation lines come on top).
const COUNT: u64 = 2500;

/// The status line of a screen.
fn status(s: &[String]) -> &str {
    s.last().map_or("", String::as_str)
}

/// A line of file `f` (0, 1, 2) at `secs` after 10:00:00, in its format.
fn stamped(f: usize, secs: u64, i: u64) -> String {
    let (h, m, s) = (10 + secs / 3600, secs / 60 % 60, secs % 60);
    match f {
        0 => format!("2026-01-03T{h:02}:{m:02}:{s:02}Z INFO app request {i} done"),
        1 => format!("2026-01-03 {h:02}:{m:02}:{s:02},000 WARN db query {i} slow"),
        _ => {
            format!("10.0.0.{f} - - [03/Jan/2026:{h:02}:{m:02}:{s:02} +0000] \"GET /edge/{i}\" 200")
        }
    }
}

/// The three logs, and every line of them with its time key (seconds
/// after 10:00:00; a continuation line has its stamped line's), file by
/// file in order.
fn logs() -> (Vec<String>, Vec<(u64, String)>) {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rand = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut texts, mut keyed) = (Vec::new(), Vec::new());
    for f in 0..3 {
        let (mut text, mut secs) = (String::new(), 0);
        for i in 1..=COUNT {
            secs += [0, 0, 1, 3][(rand() % 4) as usize];
            let line = stamped(f, secs, i);
            text.push_str(&line);
            text.push('\n');
            keyed.push((secs, line));
            if rand() % 9 == 0 {
                let line = format!("    at frame {i} of file {f} (continuation)");
                text.push_str(&line);
                text.push('\n');
                keyed.push((secs, line));
            }
        }
        texts.push(text);
    }
    (texts, keyed)
}

/// Runs `cmd` in `dir`; fails unless it succeeds.
fn run(dir: &std::path::Path, cmd: &str, args: &[&str]) {
    let st = Command::new(cmd).args(args).current_dir(dir).status().unwrap();
    assert!(st.success(), "{cmd} {args:?}");
}

/// The tags the merged view writes before each line: the file names,
/// padded to the longest.
const TAGS: [&str; 3] = ["a.log    ", "b.log.gz ", "c.log.zst"];

#[test]
fn three_files_merge_as_a_stable_sort_by_time() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-merge");
    let (texts, keyed) = logs();
    tree.mkdir("logs");
    for (f, name) in ["a.log", "b.log", "c.log"].iter().enumerate() {
        tree.write(format!("logs/{name}"), &texts[f]);
    }
    tree.write("logs/notes.txt", "no times here\njust notes\n");
    let logs = tree.path("logs");
    tg(&tree, &["index", "-q", "--block-size", "4K", "logs/a.log"]);
    run(&logs, "gzip", &["b.log"]);
    tg(&tree, &["index", "-q", "--block-size", "4K", "--access-spacing", "64K", "logs/b.log.gz"]);
    tg(&tree, &["pack", "-q", "--frame-size", "4K", "logs/c.log"]);
    std::fs::remove_file(tree.path("logs/c.log")).unwrap();

    // The reference: every line, its file's tag, stably sorted by time.
    let mut tagged: Vec<(u64, String)> = Vec::new();
    let mut at = 0;
    for (f, text) in texts.iter().enumerate() {
        let n = text.lines().count();
        for (k, l) in &keyed[at..at + n] {
            tagged.push((*k, format!("{} {l}", TAGS[f])));
        }
        at += n;
    }
    let mut order: Vec<usize> = (0..tagged.len()).collect();
    order.sort_by_key(|&i| tagged[i].0);
    let merged: Vec<&(u64, String)> = order.iter().map(|&i| &tagged[i]).collect();
    let total = merged.len() as u64;
    let screen_from = |n: usize| -> Vec<(u64, String)> {
        merged[n - 1..].iter().take(39).zip(n as u64..).map(|(l, k)| (k, l.1.clone())).collect()
    };

    // Wide: the status line names the three files and says more.
    let t = launch_sized(&tree, "logs", &[], 220, 40);
    let name = "logs/a.log + logs/b.log.gz + logs/c.log.zst (file 1 of 5) (merged by time)";
    t.wait("the merged first screen", |s| {
        status(s).starts_with(name) && rows(s, 120) == screen_from(1)
    });
    t.wait("the merged lines counted", |s| status(s).contains(&format!("lines 1-39/{total}")));

    // Saved whole: the reference's lines, without tags.
    t.send("smerged.txt");
    t.key("Enter");
    t.wait("saved", |s| status(s).contains("wrote"));
    let saved = std::fs::read_to_string(tree.path("merged.txt")).unwrap();
    let mut want = String::new();
    for i in &order {
        want.push_str(&tagged[*i].1[TAGS[0].len() + 1..]);
        want.push('\n');
    }
    assert!(saved == want, "the merged text is not the stable sort of the files' lines");

    // A search and the next match: where the reference has them.
    let hits: Vec<usize> =
        (0..merged.len()).filter(|&i| merged[i].1.contains("query 24")).collect();
    t.send("/query 24");
    t.key("Enter");
    t.wait("/query 24", |s| rows(s, 120).first() == screen_from(hits[0] + 1).first());
    t.send("n");
    t.wait("n", |s| rows(s, 120).first() == screen_from(hits[1] + 1).first());
    t.send("nN");
    t.wait("nN", |s| rows(s, 120).first() == screen_from(hits[1] + 1).first());

    // A filter: the continuation lines, numbered in the merge, from the first.
    t.send("&continuation");
    t.key("Enter");
    t.send("g");
    let cont: Vec<(u64, String)> = (0..merged.len())
        .filter(|&i| merged[i].1.contains("continuation"))
        .take(39)
        .map(|i| (i as u64 + 1, merged[i].1.clone()))
        .collect();
    t.wait("&continuation", |s| rows(s, 120) == cont);
    t.send("&");
    t.key("Enter");

    // @TIME: the first line at or after it.
    for (spec, secs) in [("@10:30", 1800), ("@2026-01-03 10:05:07", 307)] {
        t.send(spec);
        t.key("Enter");
        let n = merged.iter().position(|l| l.0 >= secs).unwrap() + 1;
        t.wait(spec, |s| rows(s, 120) == screen_from(n));
    }

    // Each file alone, the one without times last, then the merge again.
    t.send(":n");
    t.wait(":n: a.log alone", |s| {
        status(s).starts_with("logs/a.log (file 2 of 5)")
            && rows(s, 120).first() == Some(&(1, stamped(0, keyed[0].0, 1)))
    });
    t.send(":n:n:n");
    t.wait(":n: the file without times", |s| {
        status(s).starts_with("logs/notes.txt (file 5 of 5)")
            && rows(s, 120).first() == Some(&(1, "no times here".to_string()))
    });
    t.send(":x");
    t.wait(":x: the merge", |s| status(s).starts_with(name) && rows(s, 120) == screen_from(1));
    t.send("q");
    let (rc, err) = after_exit(&tree, &t, "logs/", "q");
    assert_eq!((rc.as_str(), err.as_str()), ("0", ""));
}

/// Out of a terminal, `tg view a.log - c.log` writes the merge of the
/// two files and stdin (spooled whole first): the stable sort.
#[test]
fn a_merge_with_stdin_out_of_a_terminal() {
    let tree = Tree::new("view-merge-stdin");
    let (texts, keyed) = logs();
    for (f, name) in ["a.log", "b.log", "c.log"].iter().enumerate() {
        tree.write(name, &texts[f]);
    }
    let mut order: Vec<usize> = (0..keyed.len()).collect();
    order.sort_by_key(|&i| keyed[i].0);
    let want: String = order.iter().map(|&i| format!("{}\n", keyed[i].1)).collect();
    let b = std::fs::File::open(tree.path("b.log")).unwrap();
    let out = util::tg_command(&tree, tree.root())
        .env("TG_AUTO_INDEX", "0")
        .args(["view", "a.log", "-", "c.log"])
        .stdin(b)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stdout).unwrap() == want, "not the stable sort");
}

/// `n` past the merge's last match stops there ("Pattern not found"), or
/// with `--wrap-search` goes round to its first match and says so (the
/// viewer without a terminal, `--replay`, its last screen printed).
#[test]
fn n_on_a_merge_wraps_when_asked() {
    let tree = Tree::new("view-merge-wrap");
    let (texts, _) = logs();
    tree.write("a.log", &texts[0]);
    tree.write("c.log", &texts[2]);
    let keys = format!("/request (1|{COUNT}) done\nn");
    for (wrap, first, status) in [
        (&[][..], format!("request {COUNT} done"), "Pattern not found"),
        (&["--wrap-search"][..], "request 1 done".to_string(), "search hit bottom"),
    ] {
        let out = util::tg_command(&tree, tree.root())
            .env("TG_AUTO_INDEX", "0")
            .args(["view", "--size", "250x40", "--replay", &keys])
            .args(wrap)
            .args(["a.log", "c.log"])
            .output()
            .unwrap();
        let shown = String::from_utf8(out.stdout).unwrap();
        let screen: Vec<&str> = shown.lines().skip(keys.chars().count() + 1).collect();
        assert!(screen[0].contains(&format!("{first} ")), "{wrap:?}: {}", screen[0]);
        assert!(screen.last().unwrap().contains(status), "{wrap:?}: {shown}");
    }
}

/// Three block-indexed logs of 32 MB with "needle" on 25 lines each: 75
/// candidate blocks, more than the 64 a merge placed at once before, in
/// a merge big enough (a MiB and more for each) to place them as the
/// filter reaches them. `&needle`'s screen is the first 39 lines of
/// `sort -s -k1,1` of the three files (a stable sort on the time) that
/// hold "needle", each behind its file's tag (7 s in a debug build;
/// main's, reading the whole merge, 25 s).
#[test]
fn a_filter_over_many_candidate_blocks() {
    if !util::in_whole_suite("a real terminal (tmux)") {
        return;
    }
    let tree = Tree::new("view-merge-lazy");
    let lines: u64 = 600_000;
    for (f, name) in ["a", "b", "c"].iter().enumerate() {
        let mut out = String::with_capacity(lines as usize * 56);
        let mut secs = 0u64;
        for i in 0..lines {
            secs += (i * 7 + f as u64) % 3 / 2;
            let (d, h, m, s) = (3 + secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
            let word = if i % 24_000 == 5_000 + 3_000 * f as u64 { "needle" } else { "------" };
            out.push_str(&format!(
                "2026-01-{d:02}T{h:02}:{m:02}:{s:02}Z INFO {name} seq {i:08} {word}\n"
            ));
        }
        tree.write(format!("{name}.log"), out);
        tg(&tree, &["index", "-q", "--block-size", "4K", &format!("{name}.log")]);
    }
    let script = "cat a.log b.log c.log | sort -s -k1,1 | grep needle | head -39";
    let out = Command::new("sh").args(["-c", script]).current_dir(tree.root()).output().unwrap();
    let want: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| format!("{}.log {l}", l.split(' ').nth(2).unwrap()))
        .collect();
    assert_eq!(want.len(), 39, "sort -s | grep needle");
    let t = launch(&tree, "-n a.log b.log c.log", &[]);
    t.wait("the merge's first screen", |s| status(s).contains("merged by time"));
    t.send("&needle");
    t.key("Enter");
    t.wait_up_to(std::time::Duration::from_secs(120), "&needle: sort -s's lines", |s| {
        let rows: Vec<String> = s[..39]
            .iter()
            .map(|r| r.chars().take(119).collect::<String>().trim_end().into())
            .collect();
        rows == want
    });
    t.send("q");
}
