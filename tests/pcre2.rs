//! PCRE2: `-P`, `--engine pcre2|auto` and their flags, against
//! the pinned rg built with PCRE2 (`TG_TEST_RG_PCRE2`, installed by
//! `.ci/run`), byte for byte, through every path: a scan, a tree index, a
//! server, a huge file's block index (4 KiB blocks), an indexed `.gz` and a
//! packed file. The matrix crosses look-ahead and look-behind,
//! backreferences (numbered, named, relative), `\K`, atomic groups,
//! possessive quantifiers, `\Q..\E`, `\h`, inline flags and a conditional
//! with `-w`, `-x`, `-i`, `-S`, `-F`, `-o`, `-r`, `--json`, `-U`, `--crlf`,
//! `-c` and `--column`; then `--engine auto` (a pattern the default engine
//! cannot compile falls back to PCRE2), and invalid patterns (exit 2, rg's
//! words). `--stats` shows the index narrowing PCRE2 queries and saying
//! why when it cannot.

mod util;

use std::path::Path;

use rand::SeedableRng;
use rand::rngs::StdRng;
use util::serve::Served;
use util::{Case, Outcome, Report, Tree};

/// PCRE2 patterns: most plannable, one conditional the planner cannot read.
const PATTERNS: &[&str] = &[
    "needle",
    "foo(?=bar)",
    "(?<=ba)rfoo",
    "(?<!x)needle(?!s)",
    r"(\w+) \1",
    r"\b(\w)(\w)\2\1\b",
    r#"(?<q>['"]).*?\k<q>"#,
    r"ab\Kcd",
    r"(?>x+)y",
    r"colou?r++",
    r"\Qa.b*c\E",
    r"\h+tab",
    r"(?i)straße",
    r"(a|b)\g{-1}c",
    r"qu(?=ick)\w+",
    r"(?(?=a)ab|cd)",
    r"^(?:(?!abc).)*needle",
];

/// Flags crossed with every pattern.
const FLAGS: &[&[&str]] = &[
    &["-n"],
    &["-w"],
    &["-x"],
    &["-i"],
    &["-S"],
    &["-F"],
    &["-o"],
    &["-r", "<$0>"],
    &["--json"],
    &["-U", "-c"],
    &["--crlf", "-n"],
    &["--column", "-n", "-i", "-w"],
];

/// A git repo whose lines match the patterns, at file edges too, among
/// noise files holding their words apart.
fn tree(name: &str) -> Tree {
    let t = Tree::new(name);
    t.git_init("repo");
    t.write(
        "repo/a.txt",
        "foobar and foobaz\nbarfoo rfoo\na needle here\nneedles everywhere\nxneedle\n\
         the the cat sat sat\nabba noon deed\nsay 'hi' and \"yo\"\nabcd abxcd\nxxxy\n\
         colourrr color\na.b*c literal\n \ttab line\nSTRASSE and Straße\nété ÉTÉ\n\
         aac bbc abc\nquick quack\nneedle",
    );
    t.write("repo/crlf.txt", "foobar\r\nthe the\r\nneedle\r\nab cd\r\n");
    t.write("repo/unicode.txt", "ünïcödé wörds wörds\nÉTÉ été\nstraße\n");
    t.write("repo/words.txt", "needle\nfoo\nthe the\n");
    for i in 0..30 {
        t.write(format!("repo/noise/n{i:02}.txt"), "nothing to see\nfoo and bar apart\nneed les\n");
    }
    t
}

/// The matrix, each case named after `tag`.
fn matrix(tag: &str) -> Vec<Case> {
    let mut v = Vec::new();
    for (i, p) in PATTERNS.iter().enumerate() {
        for f in FLAGS {
            let name = format!("{tag}/p{i:02}{}", f.join(""));
            v.push(Case::new(name, [&["-P"], *f, &["-e", p]].concat()).cwd("repo").pcre2());
        }
    }
    v
}

/// `--engine auto`, `--engine pcre2`, `--no-pcre2-unicode`, and errors.
fn engines(tag: &str) -> Vec<Case> {
    let cases: &[(&str, &[&str])] = &[
        ("auto_lookahead", &["--engine", "auto", "-n", "foo(?=bar)"]),
        ("auto_backref", &["--engine", "auto", "-o", r"(\w+) \1"]),
        ("auto_plain", &["--engine", "auto", "-n", "needle"]),
        ("auto_i", &["--engine", "auto", "-i", "-n", "(?<!x)NEEDLE"]),
        ("engine_pcre2", &["--engine", "pcre2", "-c", r"\bthe\b(?= )"]),
        ("P_then_default", &["-P", "--engine", "default", "-c", "needle"]),
        ("no_pcre2", &["-P", "--no-pcre2", "-c", "needle"]),
        ("no_pcre2_unicode", &["-P", "--no-pcre2-unicode", "-o", r"\w+(?= wörds)"]),
        ("no_unicode_bytes", &["-P", "--no-unicode", "-c", "été"]),
        ("vimgrep", &["-P", "--vimgrep", "sat(?= |$)"]),
        ("files_with", &["-P", "-l", r"(\w+) \1"]),
        ("count_matches", &["-P", "--count-matches", "e(?=e)"]),
        ("invert", &["-P", "-v", "-c", "(?<=a)b"]),
        ("context", &["-P", "-C", "1", "-n", "(?<!x)needle(?!s)"]),
    ];
    let mut v: Vec<Case> = cases
        .iter()
        .map(|(n, a)| Case::new(format!("{tag}/{n}"), *a).cwd("repo").pcre2())
        .collect();
    let errors: &[(&str, &[&str])] = &[
        ("bad_pcre2", &["-P", "a(?<"]),
        ("bad_pcre2_class", &["-P", "[z-a]"]),
        ("bad_auto", &["--engine", "auto", "a("]),
        ("lookbehind_unbounded", &["-P", "(?<=a+)b"]),
        ("default_backref", &[r"(a)\1"]),
        ("default_lookahead", &["foo(?=bar)"]),
    ];
    v.extend(
        errors
            .iter()
            .map(|(n, a)| Case::new(format!("{tag}/{n}"), *a).cwd("repo").pcre2().stderr_exact()),
    );
    v
}

/// The `--stats` lines tg prints on stderr for `args` in `repo`.
fn stats(t: &Tree, args: &[&str]) -> String {
    let out = util::tg_command(t, t.path("repo")).args(["--stats", "-q"]).args(args).output();
    String::from_utf8_lossy(&out.expect("run tg").stderr).into_owned()
}

/// The candidate documents `--stats` counts.
fn candidates(err: &str) -> usize {
    err.split("candidate documents ")
        .nth(1)
        .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|s| s.parse().ok())
        .unwrap_or(usize::MAX)
}

/// Selective PCRE2 queries read a few files; a conditional reads all, and
/// says why.
fn check_narrowed(t: &Tree) {
    for p in ["(?<!x)needle(?!s)", r"(?<q>['])hi\k<q>", r"ab\Kcd", "foo(?=bar)"] {
        let err = stats(t, &["-P", p]);
        assert!(candidates(&err) <= 4, "-P {p} read too much:\n{err}");
    }
    let err = stats(t, &["-P", "(?(?=a)ab|cd)"]);
    assert!(err.contains("a PCRE2 pattern holds what the planner cannot read"), "{err}");
}

#[test]
fn pcre2_scan_matches_rg() {
    let t = tree("pcre2_scan");
    let mut r = Report::new("scan");
    r.check_all(&t, &matrix("scan"));
    r.check_all(&t, &engines("scan"));
    r.finish();
}

#[test]
fn pcre2_through_the_index_matches_rg() {
    let t = tree("pcre2_index");
    util::tg_index(&t, "repo");
    let mut r = Report::new("indexed");
    r.check_all(&t, &matrix("indexed"));
    r.check_all(&t, &engines("indexed"));
    r.finish();
    check_narrowed(&t);
    // `--engine auto` plans the engine it runs: PCRE2's rewrite here.
    let err = stats(&t, &["--engine", "auto", "(?<!x)needle(?!s)"]);
    assert!(candidates(&err) <= 4, "{err}");
}

#[test]
fn pcre2_through_the_server_matches_rg() {
    let t = tree("pcre2_served");
    util::tg_index(&t, "repo");
    let _s = Served::start(&t, &[]);
    let mut r = Report::new("served");
    r.check_all(&t, &matrix("served"));
    r.check_all(&t, &engines("served"));
    r.finish();
    let err = stats(&t, &["-P", "(?<!x)needle(?!s)"]);
    assert!(err.contains("candidates told by the server"), "{err}");
    check_narrowed(&t);
}

/// Flags for the huge-file paths: `tg` cuts every file into 16 KiB chunks.
const HUGE: &[&str] = &["--chunk-threshold", "1", "--chunk-size", "16384", "-j", "4"];

/// PCRE2 queries of the generated log.
const LOG_QUERIES: &[&[&str]] = &[
    &["-n", "RAREMARK(?=$| )"],
    &["-n", "(?<=page )fault"],
    &["-c", r"Out of (memory)(?=:) Killed"],
    &["-o", "-n", r"ssh(?=d)\w\[\d+\]"],
    &["--json", r"(?<!x)EXT4-fs error"],
    &["-n", "-i", r"out OF memory\K: killed"],
    &["-n", "-w", "caf"],
    &["-n", r"^Jan  2 0[0-3]:1\d:\d\d db-1 (?=kernel)"],
    &["-n", r"(z)\1{19}"],
    &["-n", r"needle\r$"],
    &["-C", "1", "-n", "RAREMARK(?!x)"],
    &["-n", "XYZZY(?=-NOT-THERE)"],
];

/// `tg` (with `HUGE`) and the PCRE2 rg on `query` over `tg_path` and
/// `rg_path` in `t`'s root; a mismatch is pushed on `bad`.
fn huge_like_rg(t: &Tree, query: &[&str], paths: (&str, &str), bad: &mut Vec<String>) {
    let run = |program: &Path, args: Vec<&str>| -> Outcome {
        util::run(program, t.root(), &Case::new("huge", args).no_sort())
    };
    let tg = run(&util::tg_bin(), [HUGE, &["-P"], query, &[paths.0]].concat());
    let rg = run(&util::rg_pcre2_bin(), [&["-P"], query, &[paths.1]].concat());
    // A block search's JSON counts only the bytes it read; names differ, and so
    // the bytes printed.
    let clean = |o: &Outcome, name: &str| {
        let text = String::from_utf8_lossy(&util::normalize_stdout(&o.stdout)).replace(name, "F");
        regex::Regex::new(r#""bytes_(searched|printed)":\d+"#)
            .unwrap()
            .replace_all(&text, "")
            .into_owned()
    };
    if tg.code != rg.code || clean(&tg, paths.0) != clean(&rg, paths.1) {
        bad.push(format!(
            "-P {query:?} on {}: exit tg {:?} rg {:?}\n{}",
            paths.0,
            tg.code,
            rg.code,
            util::diff::render(
                clean(&rg, paths.1).as_bytes(),
                clean(&tg, paths.0).as_bytes(),
                "  "
            )
        ));
    }
}

#[test]
fn pcre2_through_block_indexes_gz_and_packed_files_matches_rg() {
    let t = Tree::new("pcre2_huge");
    let mut rng = StdRng::seed_from_u64(27);
    let text = util::logs::log(&mut rng, 12_000, false);
    t.write("app.log", &text);
    t.write("copy.log", &text);
    let tg = |args: &[&str]| {
        let out = util::tg_command(&t, t.root()).args(args).output().expect("run tg");
        assert!(out.status.success(), "tg {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    tg(&["index", "-q", "--block-size", "4K", "app.log"]);
    let gz = std::process::Command::new("gzip").args(["-k", "-6"]).arg(t.path("copy.log")).status();
    assert!(gz.expect("gzip").success());
    tg(&["index", "-q", "--block-size", "4K", "copy.log.gz"]);
    tg(&["pack", "-q", "--frame-size", "4K", "copy.log"]);
    let mut bad = Vec::new();
    for q in LOG_QUERIES {
        huge_like_rg(&t, q, ("app.log", "app.log"), &mut bad);
        huge_like_rg(&t, &[&["-z"], *q].concat(), ("copy.log.gz", "copy.log.gz"), &mut bad);
        huge_like_rg(&t, q, ("copy.log.zst", "copy.log"), &mut bad);
    }
    assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad.join("\n"));
    // The block indexes answered a selective PCRE2 query.
    for (file, z) in [("app.log", None), ("copy.log.gz", Some("-z")), ("copy.log.zst", None)] {
        let out = util::tg_command(&t, t.root())
            .args(HUGE)
            .args(["--stats", "-q", "-P"])
            .args(z)
            .args(["(?<!x)RAREMARK(?=$| )", file])
            .output()
            .expect("run tg");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("1 block index used"), "{file}:\n{err}");
    }
}
