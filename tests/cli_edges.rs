//! The rough edges a new user met outside the search
//! itself — the README's promises, help and man page, messages when the
//! index directory cannot be written or a directory cannot be read, what a
//! failed build leaves, `tg stop` and `tg status` around a server, the
//! wording of the build and pack summaries, and what `.ci/run` needs.

mod util;

use std::io::Write;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use util::Tree;
use util::serve::{Served, status, wait_for};

/// The subcommands a user can run; `tg --help`, the man page and every
/// completion script must name each.
const SUBCOMMANDS: &[&str] = &["index", "status", "serve", "stop", "pack", "unpack"];

/// `nobody`: the user the permission cases run as.
const NOBODY: u32 = 65534;

/// The README, as committed.
fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// `tg ARGS` in `rel` under the tree's root.
fn tg(t: &Tree, rel: &str, args: &[&str]) -> Output {
    util::tg_command(t, t.path(rel)).args(args).output().expect("spawn tg")
}

/// stderr as text.
fn err(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A tree `repo` with ten files, `needle` in one, readable by every user.
fn ten_files(name: &str) -> Tree {
    let t = Tree::new(name);
    for i in 0..10 {
        let extra = if i == 3 { "needle here\n" } else { "" };
        t.write(format!("repo/f{i}.txt"), format!("hay {i}\n{extra}"));
    }
    t
}

/// The files a search read, from tg's `--stats` ("files searched …: N").
fn files_read(stderr: &str) -> u64 {
    let re = regex::Regex::new(r"files searched[^:\n]*: ([0-9]+)").unwrap();
    re.captures_iter(stderr).map(|c| c[1].parse::<u64>().unwrap()).sum()
}

/// The sentence of `text` (up to the next full stop) that holds `marker`.
fn sentence_with<'a>(text: &'a str, marker: &str) -> &'a str {
    let at = text.find(marker).unwrap_or_else(|| panic!("the text lacks {marker:?}"));
    let start = text[..at].rfind(". ").map_or(0, |i| i + 2);
    let end =
        text[at..].find(".\n").or_else(|| text[at..].find(". ")).map_or(text.len(), |i| at + i);
    &text[start..end]
}

/// Item 7: the README says which searches an index serves, and each claim
/// holds: `--stats` shows one file read (the candidate) or all ten.
#[test]
fn readme_says_which_searches_use_the_index() {
    let text = readme().replace('\n', " ");
    let uses = sentence_with(&text, "read only the candidate files too");
    let scans = sentence_with(&text, "scan every file");
    let t = ten_files("readme_index");
    util::tg_index(&t, "repo");
    let cases: &[(&str, &[&str], bool)] = &[
        ("`--files-without-match`", &["--files-without-match", "needle"], true),
        ("`--json`", &["--json", "needle"], true),
        ("`--include-zero`", &["-c", "--include-zero", "needle"], true),
        ("`-v`", &["-v", "needle"], false),
        ("`--passthru`", &["--passthru", "needle"], false),
        ("`-z`", &["-z", "needle"], true),
        ("`--pre`", &["--pre", "cat", "needle"], false),
    ];
    for &(flag, args, indexed) in cases {
        let (said, not_said) = if indexed { (uses, scans) } else { (scans, uses) };
        assert!(said.contains(flag), "the README should list {flag} in {said:?}");
        assert!(!not_said.contains(flag), "the README lists {flag} in {not_said:?}");
        let out = tg(&t, "repo", &[&["--stats"], args].concat());
        let read = files_read(&err(&out));
        assert_eq!(read, if indexed { 1 } else { 10 }, "tg --stats {args:?}:\n{}", err(&out));
    }
}

/// Item 8: every subcommand is in `--help`, the man page (which refers to
/// no page that is never generated) and every shell's completions; each
/// answers `tg SUB --help`.
#[test]
fn every_subcommand_is_in_help_man_page_and_completions() {
    let t = Tree::new("subcommands");
    let text = |args: &[&str]| {
        let out = tg(&t, "", args);
        assert!(out.status.success(), "tg {args:?}: {}", err(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let help = text(&["--help"]);
    let man = text(&["--generate", "man"]);
    assert!(!man.contains("(1)"), "the man page refers to pages never generated:\n{man}");
    for sub in SUBCOMMANDS {
        assert!(help.contains(&format!("tg {sub} ")), "tg --help lacks tg {sub}:\n{help}");
        assert!(man.contains(&format!("tg {sub}")), "the man page lacks tg {sub}");
        for kind in ["bash", "zsh", "fish", "powershell"] {
            let script = text(&["--generate", &format!("complete-{kind}")]);
            let quoted = [format!("'{sub}'"), format!("\"{sub}\""), format!("tg,{sub}")];
            let named = quoted.iter().any(|q| script.contains(q.as_str()))
                || script.contains(&format!(" {sub} "))
                || script.contains(&format!("-a \"{sub}\""));
            assert!(named, "{kind} completions lack {sub}");
        }
        assert!(text(&[sub, "--help"]).contains(&format!("tg {sub}")), "tg {sub} --help");
    }
    // The man page's subcommand sections list their own flags.
    for flag in ["daemon", "frame\\-size", "skipped", "block\\-size"] {
        assert!(man.contains(&format!("\\-\\-{flag}")), "the man page lacks --{flag}");
    }
}

/// Item 9: an index directory that cannot be created is named, with the
/// way to choose another.
#[test]
fn an_unwritable_index_directory_is_named_with_the_way_out() {
    if !util::require_root("running tg as another user") {
        return;
    }
    let t = ten_files("unwritable_home");
    chmod_r("a+rwX", t.root());
    for args in [&["index", "repo"][..], &["index", "repo/f3.txt"], &["serve", "repo"]] {
        let out = as_nobody(&t, "", args, "/nonexistent");
        let line = one_line(args, &out);
        for want in ["/nonexistent/.cache/trigrep/indexes", "--index-dir", "TG_INDEX_DIR"] {
            assert!(line.contains(want), "tg {args:?} does not say {want}: {line}");
        }
    }
}

/// Item 10: `tg index` warns about a directory it cannot read, in rg's
/// words, and `tg status --skipped` lists it; queries still answer as rg.
#[test]
fn an_unreadable_directory_is_warned_about_and_listed() {
    if !util::require_root("running tg as another user") {
        return;
    }
    let t = ten_files("unreadable_dir");
    t.write("repo/locked/secret.txt", "needle hidden\n");
    t.write("repo/open/seen.txt", "needle seen\n");
    chmod_r("a+rwX", t.root());
    std::fs::set_permissions(
        t.path("repo/locked"),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let rg = t.path("rg");
    std::fs::copy(util::rg_bin(), &rg).unwrap();
    let home = t.path(".home");
    let home = home.to_str().unwrap();
    let built = as_nobody(&t, "", &["index", "-q", "repo"], home);
    assert!(built.status.success(), "tg index: {}", err(&built));
    let rg_in_root = |args: &[&str]| {
        let mut rg = std::process::Command::new(&rg);
        rg.args(args).current_dir(t.root()).env_clear();
        nobody(&mut rg, home)
    };
    // rg's parallel walk words the error as tg's build does.
    let warned = rg_in_root(&["needle", "repo"]);
    assert_eq!(err(&built), err(&warned).replace("rg: ", "tg: "), "tg index should warn as rg");
    let args = ["--sort", "path", "-n", "needle", "repo"];
    let want = rg_in_root(&args);
    let skipped = as_nobody(&t, "repo", &["status", "--skipped"], home);
    let listed = String::from_utf8_lossy(&skipped.stdout);
    assert!(listed.lines().any(|l| l.starts_with("locked\t")), "tg status --skipped:\n{listed}");
    let status = as_nobody(&t, "repo", &["status"], home);
    assert!(String::from_utf8_lossy(&status.stdout).contains("left out:   1 "));
    let got = as_nobody(&t, "", &args, home);
    assert_eq!((&got.stdout, got.status.code()), (&want.stdout, want.status.code()));
    assert_eq!(err(&got), err(&want).replace("rg: ", "tg: "));
}

/// Item 11: a failed build leaves nothing behind, or exactly the old index.
#[test]
fn a_failed_build_leaves_nothing_or_the_old_index() {
    let t = Tree::new("failed_build");
    let text: String = (0..20_000).map(|i| format!("line {i} of the log\n")).collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let indexes = t.path(".home/.cache/trigrep/indexes");
    t.write("trunc.log.gz", &gz[..gz.len() / 2]);
    let out = tg(&t, "", &["index", "trunc.log.gz"]);
    one_line(&["index", "trunc.log.gz"], &out);
    let left: Vec<String> = listing(&indexes);
    assert!(left.is_empty(), "a failed first build left {left:?}");
    t.write("whole.log.gz", &gz);
    one_line(&["index"], &tg(&t, "", &["index", "--access-spacing", "1K", "whole.log.gz"]));
    assert!(listing(&indexes).is_empty(), "a refused build left {:?}", listing(&indexes));
    t.write("app.log.gz", &gz);
    assert!(tg(&t, "", &["index", "-q", "app.log.gz"]).status.success());
    let before = listing(&indexes);
    let index = std::fs::read(indexes.join(&before[0]).join("index.tg")).unwrap();
    t.write("app.log.gz", &gz[..gz.len() / 2]);
    one_line(&["index", "app.log.gz"], &tg(&t, "", &["index", "app.log.gz"]));
    assert_eq!(listing(&indexes), before, "a failed rebuild changed the index directory");
    assert_eq!(std::fs::read(indexes.join(&before[0]).join("index.tg")).unwrap(), index);
}

/// Item 12: `tg stop` with nothing to stop exits 1 and says so; a path
/// that does not exist is rg's error; a stopped server's process is gone
/// (or only a zombie waiting for its parent) when `tg stop` returns.
#[test]
fn stop_says_what_it_stopped_and_returns_when_it_is_gone() {
    let t = ten_files("stop");
    let none = tg(&t, "repo", &["stop"]);
    assert_eq!(none.status.code(), Some(1), "stop without an index: {}", err(&none));
    assert!(err(&none).contains("no server runs"), "{}", err(&none));
    util::tg_index(&t, "repo");
    let none = tg(&t, "repo", &["stop"]);
    assert_eq!(none.status.code(), Some(1), "stop without a server: {}", err(&none));
    assert!(err(&none).contains("no server runs"), "{}", err(&none));
    let absent = tg(&t, "", &["stop", "/nonexistent"]);
    let line = one_line(&["stop", "/nonexistent"], &absent);
    assert_eq!(line, "tg: /nonexistent: No such file or directory (os error 2)");
    for round in 0..3 {
        let started = tg(&t, "", &["serve", "--daemon", "repo"]);
        assert!(started.status.success(), "serve --daemon: {}", err(&started));
        let st = wait_for(&t, "the server", |s| s.contains("server:     pid"));
        let pid: u32 = st
            .split("server:     pid ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let stop = tg(&t, "repo", &["stop"]);
        assert!(stop.status.success(), "stop: {}", err(&stop));
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| s.rsplit(") ").next().unwrap_or("").chars().next().unwrap_or('?'));
        assert!(
            matches!(state, Err(_) | Ok('Z') | Ok('X')),
            "round {round}: pid {pid} still runs ({state:?})"
        );
    }
}

/// Item 13: `tg status` shows the server whatever the index's state.
#[test]
fn status_shows_the_server_beside_a_damaged_index() {
    let t = ten_files("status_damaged");
    util::tg_index(&t, "repo");
    let _s = Served::start(&t, &[]);
    let indexes = t.path(".home/.cache/trigrep/indexes");
    let dir = indexes.join(&listing(&indexes)[0]);
    std::fs::write(dir.join("index.tg"), b"not an index at all").unwrap();
    let out = tg(&t, "repo", &["status"]);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("server:     pid"), "tg status hides the server:\n{shown}{}", err(&out));
    one_line(&["status"], &out);
    std::thread::sleep(Duration::from_millis(10));
    assert!(status(&t).contains("server:     pid"));
}

/// Item 14: the build and pack summaries read well for tiny inputs: no
/// share above 100 %, no "1 frames", no "0 MB/s".
#[test]
fn summaries_read_well_for_tiny_inputs() {
    let t = Tree::new("tiny");
    t.write("repo/a.txt", "hello\n");
    t.write("tiny.log", "one line\n");
    let said = [
        err(&tg(&t, "", &["index", "repo"])),
        err(&tg(&t, "", &["index", "tiny.log"])),
        err(&tg(&t, "", &["pack", "tiny.log"])),
    ];
    let share = regex::Regex::new(r"([0-9]+(\.[0-9]+)?)%").unwrap();
    for line in &said {
        for c in share.captures_iter(line) {
            assert!(c[1].parse::<f64>().unwrap() <= 100.0, "an absurd share: {line}");
        }
        for bad in [" 1 frames", " 1 files", " 1 blocks", " 0 MB/s", "(0 MB/s)"] {
            assert!(!line.contains(bad), "{bad:?} in: {line}");
        }
    }
    assert!(said[2].contains(" 1 frame "), "{}", said[2]);
}

/// Item 15: CONTRIBUTING.md says what `.ci/run` needs and how long it
/// takes; the README opens with what `tg` is, then its two commands.
#[test]
fn contributing_says_what_ci_needs_and_how_long_it_takes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("CONTRIBUTING.md");
    let text = std::fs::read_to_string(path).unwrap().replace('\n', " ");
    let ci = sentence_with(&text, "`.ci/run` needs");
    for want in ["root", "crates.io", "apt", "minutes", "2 cores"] {
        assert!(ci.contains(want), "CONTRIBUTING.md's word on .ci/run lacks {want:?}: {ci}");
    }
    let readme = readme();
    assert!(readme.starts_with("# trigrep (`tg`)\n\n`tg` searches files like"), "{readme}");
    let commands =
        "```sh\ncargo build --release && ./target/release/tg -n 'fn main' src/\n./.ci/run\n```";
    assert!(readme.contains(commands), "the README's two commands");
}

/// The sorted names in `dir` (none when it does not exist).
fn listing(dir: &Path) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut v: Vec<String> =
        rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Checks that `out` failed with one `tg: ` line; returns it.
fn one_line(args: &[&str], out: &Output) -> String {
    util::faults::one_error_line(&format!("tg {args:?}"), out).unwrap_or_else(|e| panic!("{e}"))
}

/// `chmod -R mode path`.
fn chmod_r(mode: &str, path: &Path) {
    let st = std::process::Command::new("chmod").arg("-R").arg(mode).arg(path).status();
    assert!(st.unwrap().success(), "chmod -R {mode} {}", path.display());
}

/// `tg ARGS` in `rel` as `nobody`, with `HOME` set to `home`.
fn as_nobody(t: &Tree, rel: &str, args: &[&str], home: &str) -> Output {
    nobody(util::tg_command(t, t.path(rel)).args(args), home)
}

/// Runs `cmd` as `nobody` with `HOME` set to `home`.
fn nobody(cmd: &mut std::process::Command, home: &str) -> Output {
    use std::os::unix::process::CommandExt;
    cmd.env("HOME", home).uid(NOBODY).gid(NOBODY).output().unwrap()
}

/// `tg status --all` lists every kind of index alike, from the key each
/// directory records: a tree's, a file's block index, a `.gz` file's index
/// and a packed file's check, each with the path it describes; a tree that
/// is gone says so.
#[test]
fn status_all_lists_every_kind_of_index_alike() {
    let t = ten_files("status_all");
    let log: String = (0..20_000).map(|i| format!("row {i} of the log\n")).collect();
    t.write("logs/app.log", &log);
    let gz = std::process::Command::new("gzip").arg("-k").arg(t.path("logs/app.log")).status();
    assert!(gz.expect("gzip").success());
    for args in [
        &["index", "repo"][..],
        &["index", "logs/app.log"],
        &["index", "logs/app.log.gz"],
        &["pack", "logs/app.log", "-o", "logs/app.log.zst"],
    ] {
        let out = tg(&t, "", args);
        assert!(out.status.success(), "tg {args:?}: {}", err(&out));
    }
    let listed = |t: &Tree| {
        let out = tg(t, "", &["status", "--all"]);
        assert!(out.status.success(), "tg status --all: {}", err(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let root = t.root().canonicalize().unwrap();
    let row = |text: &str, kind: &str, rel: &str| {
        let path = root.join(rel).display().to_string();
        let found = text.lines().any(|l| l.starts_with(kind) && l.ends_with(&path));
        assert!(found, "no {kind:?} row for {path} in:\n{text}");
    };
    let text = listed(&t);
    assert_eq!(text.lines().count(), 5, "a header and four indexes:\n{text}");
    row(&text, "tree ", "repo");
    row(&text, "block index ", "logs/app.log");
    row(&text, ".gz index ", "logs/app.log.gz");
    row(&text, "packed check ", "logs/app.log.zst");
    std::fs::remove_dir_all(t.path("repo")).unwrap();
    let text = listed(&t);
    let gone = format!("{} (gone)", root.join("repo").display());
    assert!(text.lines().any(|l| l.ends_with(&gone)), "the gone tree is not marked:\n{text}");
}

/// When no file at all was searched, tg says both of rg's lines (the second
/// points at `--debug`), with rg's exit code and output, with and without
/// an index.
#[test]
fn nothing_searched_is_said_in_rgs_two_lines() {
    let t = ten_files("nothing_searched");
    let cases: [&[&str]; 4] = [
        &["needle", "-g", "nothing"],
        &["--files", "-g", "nothing"],
        &["-c", "needle", "-t", "rust"],
        &["needle", "--no-messages", "-g", "nothing"],
    ];
    for indexed in [false, true] {
        if indexed {
            util::tg_index(&t, "repo");
        }
        for args in cases {
            let got = tg(&t, "repo", args);
            let want = util::rg_command(&t, t.path("repo")).args(args).output().unwrap();
            let said = String::from_utf8_lossy(&util::normalize_rg_stderr(&want.stderr))
                .replace("ripgrep", "trigrep");
            let what = format!("tg {args:?} (indexed: {indexed})");
            assert_eq!(
                (&got.stdout, got.status.code()),
                (&want.stdout, want.status.code()),
                "{what}"
            );
            assert_eq!(err(&got), said, "{what}");
        }
    }
}
