//! `-z/--search-zip`, `--pre` and `--pre-glob` against rg 15.2.
//!
//! Fixtures are made in the test by the system's compressors (the same
//! programs `rg -z` runs to decompress): gzip, bzip2, xz (also `.lzma`), lz4,
//! zstd, brotli and compress (`.Z`; rg runs `uncompress`). A missing
//! compressor fails the test with the apt line that installs it, unless
//! `TG_ZIP_ALLOW_MISSING=1`, when its format is skipped and the test says
//! so on stderr.
//!
//! Compared: stdout bytes and exit code always; for error cases also every
//! stderr line that starts `tg: ` (rg's `rg: ` read as `tg: `), which is the
//! line naming the file: what follows it is the decompressor's own message
//! (tg decompresses in-process, so that text is its own). `--pre` cases,
//! whose messages are tg's and rg's own, compare stderr in full.

#[path = "zip/fixtures.rs"]
mod fixtures;
mod util;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use fixtures::{ALIASES, CONCATENABLE, FORMATS, TEXT, available, big_text, compress, script, tree};
use util::{Case, Outcome, Report, Tree};

/// How stderr is compared on top of stdout and the exit code.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Errors {
    /// Only whether it is empty.
    Presence,
    /// The `tg: ` lines (each error's first line), as a sorted list when
    /// the case's stdout is compared unordered.
    FirstLines,
    /// The full text.
    Exact,
}

/// [`Report`] plus the error-line comparison.
struct Checks {
    report: Report,
    failures: Vec<String>,
}

impl Checks {
    fn new(label: &str) -> Checks {
        Checks { report: Report::new(label), failures: Vec::new() }
    }

    fn check(&mut self, t: &Tree, case: Case, errors: Errors) {
        let case = if errors == Errors::Exact { case.stderr_exact() } else { case };
        self.report.check(t, &case);
        if errors == Errors::FirstLines {
            let tg = util::run(&util::tg_bin(), t.root(), &case);
            let rg = util::run(&util::rg_bin(), t.root(), &case);
            let (tg, rg) = (first_lines(&tg, !case.ordered), first_lines(&rg, !case.ordered));
            if tg != rg {
                let cmd = case.command_line("tg");
                self.failures.push(format!("{}: {cmd}\n  rg: {rg:?}\n  tg: {tg:?}", case.name));
            }
        }
    }

    fn finish(self) {
        let failures = self.failures;
        if !failures.is_empty() {
            eprintln!("error lines differ in {} cases:\n{}", failures.len(), failures.join("\n"));
        }
        self.report.finish();
        assert!(failures.is_empty(), "error lines differ in {} cases", failures.len());
    }
}

/// The stderr lines that start with `tg: ` (rg's read as tg's).
fn first_lines(o: &Outcome, sorted: bool) -> Vec<String> {
    let text = String::from_utf8_lossy(&util::normalize_rg_stderr(&o.stderr)).into_owned();
    let mut lines: Vec<String> =
        text.lines().filter(|l| l.starts_with("tg: ")).map(str::to_string).collect();
    if sorted {
        lines.sort();
    }
    lines
}

fn case(name: impl Into<String>, args: &[&str]) -> Case {
    Case::new(name, args)
}

#[test]
fn named_archives() {
    let formats = available();
    let t = tree(&formats);
    let mut c = Checks::new("zip_named");
    let mut names: Vec<String> = Vec::new();
    for f in &formats {
        names.extend(["text", "bin", "empty"].map(|k| format!("good/{k}.{}", f.ext)));
        if CONCATENABLE.contains(&f.ext) {
            names.push(format!("good/multi.{}", f.ext));
        }
        if matches!(f.ext, "gz" | "xz" | "bz2") {
            names.push(format!("good/padded.{}", f.ext));
        }
    }
    names.extend(ALIASES.iter().map(|(a, _)| format!("good/alias.{a}")));
    let others = ["good/upper.GZ", "good/.gz", "good/plain.txt", "good/utf16.gz"];
    names.extend(others.map(String::from));
    let flag_sets: &[(&str, &[&str])] = &[
        ("n", &["-n"]),
        ("c", &["-c"]),
        ("l", &["-l"]),
        ("json", &["--json"]),
        ("o_w", &["-o", "-w", r"fo+\w*"]),
        ("a", &["-a"]),
        ("m1", &["-m1"]),
        ("C1", &["-C1", "-n"]),
        ("U", &["-U", "-n", r"foo\nbeta"]),
    ];
    for name in &names {
        for (label, flags) in flag_sets {
            let mut a = vec!["-z"];
            a.extend_from_slice(flags);
            if !flags.iter().any(|f| f.starts_with("fo")) {
                a.push("foo");
            }
            a.push(name);
            c.check(&t, case(format!("named/{label}/{name}"), &a), Errors::Presence);
        }
        // Without -z the bytes are searched as they are.
        c.check(
            &t,
            case(format!("named/raw/{name}"), &["-c", "-a", "foo", name]),
            Errors::Presence,
        );
    }
    c.finish();
}

#[test]
fn walked_archives() {
    let formats = available();
    let t = tree(&formats);
    let mut c = Checks::new("zip_walked");
    let sets: &[(&str, &[&str])] = &[
        ("n", &["-z", "-n", "foo"]),
        ("c", &["-z", "-c", "foo"]),
        ("count_matches", &["-z", "--count-matches", "foo"]),
        ("l", &["-z", "-l", "foo"]),
        ("files_without_match", &["-z", "--files-without-match", "foo"]),
        ("json", &["-z", "--json", "foo"]),
        ("stats", &["-z", "--stats", "foo"]),
        ("a", &["-z", "-a", "foo"]),
        ("binary", &["-z", "--binary", "foo"]),
        ("hidden", &["-z", "--hidden", "-c", "foo"]),
        ("raw", &["-c", "foo"]),
        ("raw_z_off", &["-z", "--no-search-zip", "-c", "foo"]),
        ("i_w", &["-z", "-i", "-w", "FOO"]),
        ("v_c", &["-z", "-v", "-c", "foo"]),
    ];
    for (label, a) in sets {
        let mut a = a.to_vec();
        a.push("good");
        c.check(&t, case(format!("walked/{label}"), &a), Errors::Presence);
        let parallel = case(format!("walked/parallel/{label}"), &a).unordered();
        if *label != "json" && *label != "stats" {
            c.check(&t, parallel, Errors::Presence);
        }
    }
    c.check(&t, case("walked/j1", &["-z", "-j1", "-n", "foo", "good"]).no_sort(), Errors::Presence);
    c.finish();
}

#[test]
fn broken_archives() {
    let formats = available();
    let t = tree(&formats);
    let mut c = Checks::new("zip_broken");
    for f in &formats {
        for kind in ["zero", "fake", "trunc"] {
            let name = format!("bad/{kind}.{}", f.ext);
            let a = ["-z", "-c", "foo", &name];
            c.check(&t, case(format!("broken/c/{name}"), &a), Errors::FirstLines);
            // Stopped at the first match, rg's answer depends on what its
            // decompressor wrote before it failed: only where it wrote nothing.
            if kind != "trunc" {
                for flag in ["-l", "-q"] {
                    let a = ["-z", flag, "foo", &name];
                    c.check(&t, case(format!("broken/{flag}/{name}"), &a), Errors::FirstLines);
                }
            }
            // The lines before the damage, then the error, where rg's
            // decompressor writes out all it decoded (bzip2's and brotli's
            // programs hold back what tg shows).
            if !matches!(f.ext, "bz2" | "br") {
                let a = ["-z", "-n", "foo", &name];
                c.check(&t, case(format!("broken/n/{name}"), &a), Errors::FirstLines);
            }
        }
        // Garbled data decodes to garbage, NULs likely: with binary
        // detection on, where rg stops depends on how its pipe was read.
        let name = format!("corrupt/{0}.{0}", f.ext);
        c.check(
            &t,
            case(format!("corrupt/c/{name}"), &["-z", "-a", "-c", "foo", &name]),
            Errors::FirstLines,
        );
        if !matches!(f.ext, "bz2" | "br") {
            let a = ["-z", "-a", "-n", "foo", &name];
            c.check(&t, case(format!("corrupt/n/{name}"), &a), Errors::FirstLines);
        }
    }
    for a in [["-z", "-c", "foo", "bad/garbage.gz"], ["-z", "-n", "foo", "bad/garbage.gz"]] {
        c.check(&t, case(format!("broken/{}/garbage.gz", a[1]), &a), Errors::FirstLines);
    }
    // The search goes on after each broken file; the exit code is 2.
    let a = ["-z", "-c", "foo", "bad", "good"];
    c.check(&t, case("broken/walked/c", &a), Errors::FirstLines);
    c.check(&t, case("broken/walked/parallel/c", &a).unordered(), Errors::FirstLines);
    let a = ["-z", "-n", "foo", "bad", "good"];
    c.check(&t, case("broken/walked/parallel/n", &a).unordered(), Errors::FirstLines);
    c.check(
        &t,
        case("broken/no_messages", &["-z", "--no-messages", "-c", "foo", "bad"]),
        Errors::Exact,
    );
    c.finish();
}

/// Archives of several MiB are decoded on a thread of their own, ahead of
/// the search: the same answers, the error after the bytes before it, and
/// an early stop that leaves no thread behind.
#[test]
fn big_archives() {
    let formats: Vec<_> =
        available().into_iter().filter(|f| matches!(f.ext, "gz" | "zst")).collect();
    let t = Tree::new("zip-big");
    let text = big_text(360_000);
    for f in &formats {
        let whole = compress(f, &text);
        assert!(whole.len() > 4 << 20, "{}: {} bytes is too small", f.ext, whole.len());
        t.write(format!("big/whole.{}", f.ext), &whole);
        t.write(format!("big/half.{}", f.ext), &whole[..whole.len() / 2]);
    }
    let mut c = Checks::new("zip_big");
    for f in &formats {
        for kind in ["whole", "half"] {
            let name = format!("big/{kind}.{}", f.ext);
            let sets: [&[&str]; 5] = [&["-c"], &["-n"], &["-l"], &["-m3", "-n"], &["-v", "-c"]];
            for flags in sets {
                let mut a = vec!["-z"];
                a.extend_from_slice(flags);
                a.extend(["foo", &name]);
                let label = flags.join("");
                let errors = if kind == "half" { Errors::FirstLines } else { Errors::Presence };
                c.check(&t, case(format!("big/{label}/{name}"), &a), errors);
            }
        }
    }
    let a = ["-z", "-c", "foo", "big"];
    c.check(&t, case("big/walked/c", &a), Errors::FirstLines);
    c.check(&t, case("big/walked/parallel/c", &a).unordered(), Errors::FirstLines);
    c.finish();
}

#[test]
fn preprocessors() {
    let formats = available();
    let t = tree(&formats);
    script(&t, "bin/upper", "tr a-z A-Z\n");
    script(
        &t,
        "bin/picky",
        "case \"$1\" in *fake*) echo \"picky: no $1\" >&2; exit 3;; esac\ncat\n",
    );
    script(&t, "bin/quiet_fail", "exit 1\n");
    script(&t, "bin/chatty", "echo 'chatty: note' >&2\ncat \"$1\"\n");
    script(&t, "bin/by_name", "case \"$1\" in *.gz) gzip -dc;; *) cat;; esac\n");
    script(
        &t,
        "bin/lots",
        "cat; i=0; while [ $i -lt 20000 ]; do echo \"filler foo $i\"; i=$((i+1)); done\n",
    );
    t.write("pre/a.txt", TEXT);
    t.write("pre/sub/b.txt", TEXT);
    t.write("pre/c.md", "foo in markdown\n");
    t.write("pre/fake.gz", TEXT);
    t.write("pre/t.gz", compress(&FORMATS[0], TEXT.as_bytes()));
    let root = t.root().to_str().unwrap().to_string();
    let bin = |name: &str| format!("{root}/bin/{name}");
    let (upper, picky, by_name) = (bin("upper"), bin("picky"), bin("by_name"));
    let mut c = Checks::new("zip_pre");
    let exact: Vec<(&str, Vec<&str>)> = vec![
        ("upper", vec!["--pre", &upper, "-n", "FOO", "pre"]),
        ("upper_json", vec!["--pre", &upper, "--json", "FOO", "pre"]),
        ("relative", vec!["--pre", "../bin/upper", "-c", "FOO", "."]),
        ("failing", vec!["--pre", &picky, "-c", "foo", "pre"]),
        ("failing_named", vec!["--pre", &picky, "foo", "pre/fake.gz"]),
        ("quiet_fail", vec!["--pre", "bin/quiet_fail", "foo", "pre/a.txt"]),
        ("missing", vec!["--pre", "bin/none", "foo", "pre/a.txt"]),
        ("not_on_path", vec!["--pre", "upper", "foo", "pre/a.txt"]),
        ("chatty", vec!["--pre", "bin/chatty", "-c", "foo", "pre"]),
        ("empty_disables", vec!["--pre", "", "-c", "foo", "pre"]),
        ("glob", vec!["--pre", &upper, "--pre-glob", "*.txt", "-i", "foo", "pre"]),
        ("glob_not", vec!["--pre", &upper, "--pre-glob", "!*.txt", "-i", "foo", "pre"]),
        (
            "glob_mixed",
            vec!["--pre", &upper, "--pre-glob", "*", "--pre-glob", "!a.*", "-i", "foo", "pre"],
        ),
        (
            "glob_order",
            vec!["--pre", &upper, "--pre-glob", "!a.*", "--pre-glob", "*", "-i", "foo", "pre"],
        ),
        ("glob_rooted", vec!["--pre", &upper, "--pre-glob", "pre/sub/*.txt", "-i", "foo", "pre"]),
        ("glob_rooted_cwd", vec!["--pre", &upper, "--pre-glob", "/sub/*", "-i", "foo"]),
        ("glob_dir", vec!["--pre", &upper, "--pre-glob", "sub/", "-i", "foo", "pre"]),
        ("glob_invalid", vec!["--pre", &upper, "--pre-glob", "a[", "foo", "pre"]),
        ("pre_and_z", vec!["-z", "--pre", &by_name, "-c", "foo", "pre"]),
        (
            "pre_glob_z",
            vec!["-z", "--pre", &upper, "--pre-glob", "!*.gz", "-i", "-c", "foo", "pre"],
        ),
        ("z_after_pre", vec!["--pre", &upper, "-z", "-c", "foo", "pre"]),
        ("no_pre", vec!["--pre", &upper, "--no-pre", "-c", "foo", "pre"]),
        ("pre_wins_over_z", vec!["-z", "--pre", &upper, "-c", "foo", "pre/t.gz", "pre/fake.gz"]),
        ("early_l", vec!["--pre", "bin/lots", "-l", "foo", "pre/a.txt"]),
        ("early_m1", vec!["--pre", "bin/lots", "-m1", "foo", "pre/a.txt"]),
        ("early_q", vec!["--pre", "bin/lots", "-q", "foo", "pre/a.txt"]),
    ];
    for (label, a) in &exact {
        let cwd = if label.ends_with("_cwd") || *label == "relative" { "pre" } else { "" };
        // A gzip error's text is the decompressor's own.
        let errors = if *label == "z_after_pre" { Errors::FirstLines } else { Errors::Exact };
        c.check(&t, case(format!("pre/{label}"), a).cwd(cwd), errors);
    }
    let a = ["--pre", &picky, "-c", "foo", "pre"];
    c.check(&t, case("pre/parallel_failing", &a).unordered(), Errors::FirstLines);
    // Stdin is never preprocessed nor decompressed.
    let stdin = [
        ("stdin_pre", vec!["--pre", &upper, "foo"]),
        ("stdin_dash", vec!["--pre", &upper, "foo", "-"]),
    ];
    for (label, a) in stdin {
        c.check(&t, case(format!("pre/{label}"), &a).stdin(TEXT), Errors::Exact);
    }
    let gz = compress(&FORMATS[0], TEXT.as_bytes());
    c.check(&t, case("stdin_z", &["-z", "-c", "-a", "foo"]).stdin(&gz), Errors::Exact);
    c.finish();
}

/// rg runs the decompressors from `PATH`; when one cannot start, rg
/// searches the file as it is. tg decompresses in-process, so only `.Z`
/// (which tg hands to `uncompress` too) falls back to the raw bytes.
#[test]
fn missing_decompressors() {
    let formats = available();
    let t = tree(&formats);
    let empty = t.path("empty_path");
    std::fs::create_dir_all(&empty).unwrap();
    let run = |program: &Path, args: &[&str]| {
        let out = Command::new(program)
            .args(args)
            .current_dir(t.root())
            .env_clear()
            .env("PATH", &empty)
            .env("HOME", t.path(".home"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.code(),
            out.stderr.is_empty(),
        )
    };
    let (rg, tg): (PathBuf, PathBuf) = (util::rg_bin(), util::tg_bin());
    let mut problems = Vec::new();
    let foo = TEXT.lines().filter(|l| l.contains("foo")).count();
    // rg standing in for tg (harness self-check) decodes nothing in-process.
    let in_process = std::env::var_os("TG_TEST_TG").is_none();
    if !in_process {
        eprintln!("TG_TEST_TG is set: expecting rg's raw search for every format");
    }
    for f in &formats {
        let name = format!("good/text.{}", f.ext);
        let a = ["-z", "-c", "foo", name.as_str()];
        let (rg_out, tg_out) = (run(&rg, &a), run(&tg, &a));
        // rg, without its decompressor, sees no `foo` in the compressed bytes.
        let want_tg = if f.ext == "Z" || !in_process {
            rg_out.clone()
        } else {
            (format!("{foo}\n"), Some(0), true)
        };
        if tg_out != want_tg {
            problems.push(format!("{name}: rg {rg_out:?}, tg {tg_out:?}, want tg {want_tg:?}"));
        }
    }
    let shown: Vec<&OsStr> = vec![rg.as_os_str(), tg.as_os_str()];
    assert!(
        problems.is_empty(),
        "{shown:?} with PATH={}:\n{}",
        empty.display(),
        problems.join("\n")
    );
}
