//! Differential test harness: run `tg` and the pinned `rg` with the same
//! arguments, in the same directory, on the same fixtures, and compare what
//! they print.
//!
//! The main types:
//!
//! * [`Tree`] owns a fresh temporary directory and writes fixtures into it.
//!   The generators in [`fixtures`] build the standard trees on top of it.
//! * [`Case`] is one invocation: a name, the arguments, the working directory
//!   inside the tree, optional stdin, and how strictly stderr is compared.
//! * [`Report`] runs many cases, collects *every* mismatch (never stopping at
//!   the first) and fails once at the end with a readable diff per case.
//!
//! What is compared: stdout bytes (after normalising `--json` elapsed times
//! and `--stats` durations), the exit code, and stderr — by default only
//! whether it is empty, or with [`Case::stderr_exact`] the full text once
//! rg's `rg: ` prefix is rewritten to `tg: `.
//!
//! Binaries: `tg` is `CARGO_BIN_EXE_tg` unless `TG_TEST_TG` names another
//! program (point it at rg to validate the harness itself). `rg` is
//! `TG_TEST_RG`, else the pinned CI build, else `rg` on `PATH`; if none
//! exists the tests fail loudly rather than skip.
#![allow(dead_code)]

pub mod diff;
pub mod faults;
pub mod fixtures;
pub mod footer;
pub mod logs;
pub mod remote;
pub mod serve;
pub mod tmux;
pub mod view;

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Where CI installs the reference ripgrep.
pub const PINNED_RG: &str = "/root/.cache/trigrep-ci/rg-15.2.0/bin/rg";
/// Where CI installs the same ripgrep built with PCRE2 (`--features pcre2`).
pub const PINNED_RG_PCRE2: &str = "/root/.cache/trigrep-ci/rg-15.2.0-pcre2/bin/rg";
/// The rg version the suite was written against.
pub const PINNED_RG_VERSION: &str = "ripgrep 15.2.0";
/// A process that runs longer than this is killed and reported.
const PROCESS_TIMEOUT: Duration = Duration::from_secs(30);

/// The `tg` binary under test.
pub fn tg_bin() -> PathBuf {
    match std::env::var_os("TG_TEST_TG") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(env!("CARGO_BIN_EXE_tg")),
    }
}

/// The reference `rg` binary. Panics (fails the test) when none is found:
/// a differential suite without its reference must never pass silently.
pub fn rg_bin() -> PathBuf {
    static RG: OnceLock<PathBuf> = OnceLock::new();
    RG.get_or_init(|| {
        let found = find_rg().unwrap_or_else(|| {
            panic!(
                "\n\nREFERENCE RG NOT FOUND: set TG_TEST_RG, install {PINNED_RG_VERSION} at \
                 {PINNED_RG}, or put rg on PATH. The differential tests cannot run \
                 without it.\n\n"
            )
        });
        let out = Command::new(&found)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run reference rg {}: {e}", found.display()));
        let version = String::from_utf8_lossy(&out.stdout);
        if !version.starts_with(PINNED_RG_VERSION) {
            eprintln!(
                "warning: reference rg at {} is {:?}, the suite expects {PINNED_RG_VERSION}",
                found.display(),
                version.lines().next().unwrap_or("")
            );
        }
        found
    })
    .clone()
}

/// The reference `rg` built with PCRE2: `TG_TEST_RG_PCRE2`, else the
/// pinned CI build. Panics (fails the test) when none is found or it has
/// no PCRE2.
pub fn rg_pcre2_bin() -> PathBuf {
    static RG: OnceLock<PathBuf> = OnceLock::new();
    RG.get_or_init(|| {
        let found = match std::env::var_os("TG_TEST_RG_PCRE2").filter(|p| !p.is_empty()) {
            Some(p) => PathBuf::from(p),
            None => PathBuf::from(PINNED_RG_PCRE2),
        };
        let out = Command::new(&found).arg("--version").stdin(Stdio::null()).output();
        let version = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        match version {
            Ok(v) if v.contains("features:+pcre2") => found,
            other => panic!(
                "\n\nREFERENCE RG WITH PCRE2 NOT FOUND at {} ({other:?}): set TG_TEST_RG_PCRE2 \
                 or run .ci/run, which installs {PINNED_RG_VERSION} --features pcre2 at \
                 {PINNED_RG_PCRE2}.\n\n",
                found.display()
            ),
        }
    })
    .clone()
}

fn find_rg() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TG_TEST_RG").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        assert!(p.is_file(), "TG_TEST_RG={} does not exist", p.display());
        return Some(p);
    }
    if Path::new(PINNED_RG).is_file() {
        return Some(PathBuf::from(PINNED_RG));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join("rg")).find(|p| p.is_file())
}

/// A fresh temporary directory holding one fixture tree. Deleted on drop.
///
/// Set `TG_KEEP_TREES=1` to keep the directories for reproducing a failure
/// by hand (their paths are printed on stderr).
pub struct Tree {
    _dir: Option<tempfile::TempDir>,
    root: PathBuf,
}

impl Tree {
    /// Creates an empty tree. `name` only labels the temp dir.
    pub fn new(name: &str) -> Tree {
        let dir = tempfile::Builder::new()
            .prefix(&format!("tg-test-{name}-"))
            .tempdir()
            .expect("create temp dir");
        // An empty HOME for the processes under test, so no user-level git
        // config or global gitignore can leak into the results.
        std::fs::create_dir_all(dir.path().join(".home")).unwrap();
        if std::env::var_os("TG_KEEP_TREES").is_some() {
            let root = dir.keep();
            eprintln!("keeping fixture tree {name} at {}", root.display());
            return Tree { _dir: None, root };
        }
        let root = dir.path().to_path_buf();
        Tree { _dir: Some(dir), root }
    }

    /// The absolute root of the tree.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `root/rel`.
    pub fn path<P: AsRef<Path>>(&self, rel: P) -> PathBuf {
        self.root().join(rel)
    }

    /// Writes `contents` to `rel`, creating parent directories.
    pub fn write<P: AsRef<Path>, C: AsRef<[u8]>>(&self, rel: P, contents: C) {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, contents).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
    }

    /// Creates the directory `rel` and its parents.
    pub fn mkdir<P: AsRef<Path>>(&self, rel: P) {
        std::fs::create_dir_all(self.path(rel)).unwrap();
    }

    /// Creates a symlink at `link` (relative to the root) pointing at
    /// `target` exactly as given (so relative targets stay relative).
    pub fn symlink<P: AsRef<Path>, Q: AsRef<Path>>(&self, target: P, link: Q) {
        let l = self.path(link);
        if let Some(parent) = l.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::os::unix::fs::symlink(target.as_ref(), &l)
            .unwrap_or_else(|e| panic!("symlink {}: {e}", l.display()));
    }

    /// Runs `git init` in `rel` (created if needed).
    pub fn git_init<P: AsRef<Path>>(&self, rel: P) {
        let d = self.path(rel);
        std::fs::create_dir_all(&d).unwrap();
        let st = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&d)
            .env("HOME", self.path(".home"))
            .stdin(Stdio::null())
            .status()
            .expect("git must be installed to build the fixtures");
        assert!(st.success(), "git init failed in {}", d.display());
    }
}

/// `tg ARGS` in `tree`'s root with `env` and the index directory `base`
/// (a bucket's address and credentials, say).
pub fn tg_with(
    tree: &Tree,
    env: &[(&str, String)],
    base: &Path,
    args: &[&str],
) -> std::process::Output {
    let mut cmd = tg_command(tree, tree.root());
    cmd.envs(env.iter().map(|(k, v)| (*k, v.as_str()))).env("TG_INDEX_DIR", base).args(args);
    cmd.output().unwrap()
}

/// Every file under `dir` (none when it is missing), in no order.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.file_type().unwrap().is_dir() {
                true => todo.push(e.path()),
                false => found.push(e.path()),
            }
        }
    }
    found
}

/// `rg ARGS` in `tree`'s root.
pub fn rg_in_root(tree: &Tree, args: &[&str]) -> std::process::Output {
    rg_command(tree, tree.root()).args(args).output().unwrap()
}

/// `tg` run in `cwd` with the environment the cases run in: only `PATH`,
/// and `HOME` under the tree (so indexes land there), stdin closed.
pub fn tg_command(tree: &Tree, cwd: impl AsRef<Path>) -> Command {
    command(&tg_bin(), tree, cwd)
}

/// The reference `rg` built with PCRE2 run in `cwd`, as [`rg_command`].
pub fn rg_pcre2_command(tree: &Tree, cwd: impl AsRef<Path>) -> Command {
    command(&rg_pcre2_bin(), tree, cwd)
}

/// The reference `rg` run in `cwd`, in the same environment as [`tg_command`].
pub fn rg_command(tree: &Tree, cwd: impl AsRef<Path>) -> Command {
    command(&rg_bin(), tree, cwd)
}

fn command(program: &Path, tree: &Tree, cwd: impl AsRef<Path>) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", tree.path(".home"))
        .stdin(Stdio::null());
    cmd
}

/// Builds tg's trigram index of `rel` (a directory in `tree`), with the same
/// environment the cases run in (the index lands under the tree's private
/// HOME). Skipped when `TG_TEST_TG` replaces tg, since rg has no index.
pub fn tg_index(tree: &Tree, rel: &str) {
    if std::env::var_os("TG_TEST_TG").is_some() {
        eprintln!("TG_TEST_TG is set: not building an index of {rel}");
        return;
    }
    let out =
        tg_command(tree, tree.root()).args(["index", "-q", rel]).output().expect("spawn tg index");
    assert!(
        out.status.success(),
        "tg index {rel} failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Changes the indexed tree `rel` behind the index's back, so every later
/// case checks the "never stale" rule: one file grows, one is rewritten in
/// place with the same size, one is deleted, one is added. Files are the
/// regular `.txt` files under `rel`, in path order.
pub fn mutate_after_index(tree: &Tree, rel: &str) {
    let mut files: Vec<PathBuf> = walk_files(&tree.path(rel))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "need 3 .txt files under {rel} to mutate");
    // Grown: a line every pattern family can hit.
    let mut grown = std::fs::read(&files[0]).unwrap();
    grown.extend_from_slice(b"foo Foo cat dog start bar caf\xc3\xa9 needle k added after index\n");
    std::fs::write(&files[0], grown).unwrap();
    // Same size, new content: only the modification time tells.
    let same = std::fs::read(&files[1]).unwrap();
    let mut rewritten = same.clone();
    let repl = b"foo needle ";
    let n = repl.len().min(rewritten.len());
    rewritten[..n].copy_from_slice(&repl[..n]);
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&files[1], rewritten).unwrap();
    std::fs::remove_file(&files[2]).unwrap();
    std::fs::write(
        tree.path(rel).join("zz_added_after_index.txt"),
        "foo bar cat needle start\nFoo dog\n",
    )
    .unwrap();
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else { return out };
    for e in rd.flatten() {
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() && !e.file_name().to_string_lossy().starts_with('.') {
            out.extend(walk_files(&e.path()));
        } else if ft.is_file() {
            out.push(e.path());
        }
    }
    out
}

/// How stderr is compared for one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StderrCheck {
    /// Only whether stderr is empty (rg's and tg's wording may differ).
    Presence,
    /// Full text, after rewriting rg's `rg: ` prefixes to `tg: `.
    Exact,
}

/// One invocation to run under both tools.
#[derive(Clone, Debug)]
pub struct Case {
    /// Unique, human-readable case name (shown on mismatch).
    pub name: String,
    /// Arguments after the program name.
    pub args: Vec<OsString>,
    /// Working directory relative to the tree root ("" = the root).
    pub cwd: PathBuf,
    /// Bytes piped to stdin; `None` connects stdin to /dev/null, so both
    /// tools search the working directory instead of waiting on a pipe.
    pub stdin: Option<Vec<u8>>,
    /// Prepend `--sort path` for a deterministic file order.
    pub sort: bool,
    /// How stderr is compared.
    pub stderr: StderrCheck,
    /// Compare stdout as a sorted multiset of lines (for the default
    /// parallel walk, whose file order is not deterministic).
    pub ordered: bool,
    /// Run both tools as this user and group id (the test must be root).
    pub uid: Option<u32>,
    /// The reference rg, when not the plain pinned one ([`Case::pcre2`]).
    pub reference: Option<PathBuf>,
}

impl Case {
    /// A case with `--sort path`, stdin from /dev/null, cwd at the tree root
    /// and presence-only stderr comparison.
    pub fn new<I, S>(name: impl Into<String>, args: I) -> Case
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        Case {
            name: name.into(),
            args: args.into_iter().map(|a| a.as_ref().to_os_string()).collect(),
            cwd: PathBuf::new(),
            stdin: None,
            sort: true,
            stderr: StderrCheck::Presence,
            ordered: true,
            uid: None,
            reference: None,
        }
    }

    /// Compares with the pinned rg built with PCRE2 ([`rg_pcre2_bin`]).
    pub fn pcre2(mut self) -> Case {
        self.reference = Some(rg_pcre2_bin());
        self
    }

    /// Runs both tools as user and group `id` (needs root).
    pub fn run_as(mut self, id: u32) -> Case {
        self.uid = Some(id);
        self
    }

    /// Runs in `root/dir`.
    pub fn cwd(mut self, dir: impl AsRef<Path>) -> Case {
        self.cwd = dir.as_ref().to_path_buf();
        self
    }

    /// Pipes `input` to stdin.
    pub fn stdin(mut self, input: impl AsRef<[u8]>) -> Case {
        self.stdin = Some(input.as_ref().to_vec());
        self
    }

    /// Does not add `--sort path` (the case tests the default or `-j`).
    pub fn no_sort(mut self) -> Case {
        self.sort = false;
        self
    }

    /// Runs with the default (parallel, unsorted) walk and compares stdout
    /// lines as a sorted multiset.
    pub fn unordered(mut self) -> Case {
        self.sort = false;
        self.ordered = false;
        self
    }

    /// Compares stderr text exactly (modulo the `rg: `/`tg: ` prefix).
    pub fn stderr_exact(mut self) -> Case {
        self.stderr = StderrCheck::Exact;
        self
    }

    /// The full argument list as run, including the added `--sort path`.
    pub fn full_args(&self) -> Vec<OsString> {
        let mut v = Vec::with_capacity(self.args.len() + 2);
        if self.sort {
            v.push("--sort".into());
            v.push("path".into());
        }
        v.extend(self.args.iter().cloned());
        v
    }

    /// The invocation as a shell command line, for reports.
    pub fn command_line(&self, program: &str) -> String {
        let mut s = String::new();
        if !self.cwd.as_os_str().is_empty() {
            s.push_str(&format!("(cd {} && ", shell_quote(self.cwd.as_os_str())));
        }
        if let Some(input) = &self.stdin {
            s.push_str(&format!("printf %s {} | ", shell_quote(OsStr::new(&preview(input, 60)))));
        }
        s.push_str(program);
        for a in self.full_args() {
            s.push(' ');
            s.push_str(&shell_quote(&a));
        }
        if !self.cwd.as_os_str().is_empty() {
            s.push(')');
        }
        s
    }
}

/// What one process did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Exit code; `None` if killed by a signal or by the timeout.
    pub code: Option<i32>,
    pub timed_out: bool,
}

/// Runs `program` for `case` inside `root`.
pub fn run(program: &Path, root: &Path, case: &Case) -> Outcome {
    let mut cmd = Command::new(program);
    cmd.args(case.full_args())
        .current_dir(root.join(&case.cwd))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("TERM", "xterm-256color")
        .stdin(if case.stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(id) = case.uid {
        use std::os::unix::process::CommandExt;
        cmd.uid(id).gid(id);
    }
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("case {}: cannot spawn {}: {e}", case.name, program.display()));
    let stdin_thread = case.stdin.clone().map(|input| {
        let mut w = child.stdin.take().unwrap();
        // A tool may exit before reading everything; ignore EPIPE.
        std::thread::spawn(move || {
            let _ = w.write_all(&input);
        })
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let mut timed_out = false;
    let mut nap = Duration::from_micros(200);
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        if start.elapsed() > PROCESS_TIMEOUT {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("wait after kill");
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(20));
    };
    if let Some(t) = stdin_thread {
        let _ = t.join();
    }
    Outcome {
        stdout: out_thread.join().unwrap(),
        stderr: err_thread.join().unwrap(),
        code: if timed_out { None } else { status.code() },
        timed_out,
    }
}

/// Makes outputs comparable: `--json` elapsed objects and `--stats`
/// durations vary from run to run.
pub fn normalize_stdout(bytes: &[u8]) -> Vec<u8> {
    static JSON_ELAPSED: OnceLock<regex::bytes::Regex> = OnceLock::new();
    static STATS_SECS: OnceLock<regex::bytes::Regex> = OnceLock::new();
    let json = JSON_ELAPSED.get_or_init(|| {
        regex::bytes::Regex::new(r#""(elapsed|elapsed_total)":\{[^{}]*\}"#).unwrap()
    });
    let secs = STATS_SECS.get_or_init(|| {
        regex::bytes::Regex::new(r"(?m)^[0-9]+\.[0-9]+ seconds( spent searching| total)?$").unwrap()
    });
    let b = json.replace_all(bytes, &b"\"$1\":{ELAPSED}"[..]);
    secs.replace_all(&b, &b"N.NNN seconds$1"[..]).into_owned()
}

/// tg's stderr without its own `--stats` report (`tg stats:` and the
/// indented lines after it, and the `tg: index: ` line).
pub fn strip_tg_stats(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut in_stats = false;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(b"tg stats:") {
            in_stats = true;
            continue;
        }
        if in_stats && line.starts_with(b"  ") {
            continue;
        }
        in_stats = false;
        if line.starts_with(b"tg: index: ") {
            continue;
        }
        out.extend_from_slice(line);
    }
    out
}

/// The stats block's "files searched" and "bytes searched" counts, and the
/// JSON summary's `searches` and `bytes_searched`, blanked: an index reads
/// fewer files than a scan, on purpose (docs/COMPAT.md).
pub fn normalize_searched_counts(bytes: &[u8]) -> Vec<u8> {
    static RE: OnceLock<regex::bytes::Regex> = OnceLock::new();
    static JSON: OnceLock<regex::bytes::Regex> = OnceLock::new();
    let re = RE
        .get_or_init(|| regex::bytes::Regex::new(r"(?m)^[0-9]+ (files|bytes) searched$").unwrap());
    let json = JSON.get_or_init(|| {
        regex::bytes::Regex::new(r#"("(?:bytes_searched|searches)"):[0-9]+(.*"type":"summary")"#)
            .unwrap()
    });
    let out = re.replace_all(bytes, &b"N $1 searched"[..]);
    // Twice: each pass blanks one of the two fields of a summary line.
    let out = json.replace_all(&out, &b"$1:N$2"[..]).into_owned();
    json.replace_all(&out, &b"$1:N$2"[..]).into_owned()
}

/// The lines of `bytes`, sorted (each keeps or gains a final newline).
pub fn sorted_lines(bytes: &[u8]) -> Vec<u8> {
    let mut lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
    lines.sort();
    let mut out = Vec::with_capacity(bytes.len() + 1);
    for l in lines {
        out.extend_from_slice(l);
        if !l.ends_with(b"\n") {
            out.push(b'\n');
        }
    }
    out
}

/// rg's stderr with its program prefix rewritten to tg's.
pub fn normalize_rg_stderr(bytes: &[u8]) -> Vec<u8> {
    static PREFIX: OnceLock<regex::bytes::Regex> = OnceLock::new();
    let re = PREFIX.get_or_init(|| regex::bytes::Regex::new(r"(?m)^rg: ").unwrap());
    re.replace_all(bytes, &b"tg: "[..]).into_owned()
}

/// Checks that every non-empty line of a `--json` output is a JSON object.
/// Returns a description of the first bad line.
pub fn check_json_lines(bytes: &[u8]) -> Option<String> {
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        match serde_json::from_slice::<serde_json::Value>(line) {
            Ok(v) if v.is_object() => {}
            Ok(_) => return Some(format!("line {}: not a JSON object", i + 1)),
            Err(e) => return Some(format!("line {}: {e}", i + 1)),
        }
    }
    None
}

/// Runs both tools on one case; `Err` holds a readable report.
pub fn compare(root: &Path, case: &Case) -> Result<(), String> {
    compare_timed(root, case).0
}

/// Like [`compare`], also returning how long tg and rg took.
pub fn compare_timed(root: &Path, case: &Case) -> (Result<(), String>, Duration, Duration) {
    let (res, _, tg_time, rg_time) = compare_full(root, case);
    (res, tg_time, rg_time)
}

/// Like [`compare_timed`], also returning a note when stderr wording differs
/// in a case that only compares stderr presence (informational).
fn compare_full(
    root: &Path,
    case: &Case,
) -> (Result<(), String>, Option<String>, Duration, Duration) {
    let t0 = Instant::now();
    let tg = run(&tg_bin(), root, case);
    let t1 = Instant::now();
    let rg = run(case.reference.as_deref().unwrap_or(&rg_bin()), root, case);
    let times = (t1 - t0, t1.elapsed());
    let note = if case.stderr == StderrCheck::Presence
        && !tg.stderr.is_empty()
        && !rg.stderr.is_empty()
        && tg.stderr != normalize_rg_stderr(&rg.stderr)
    {
        Some(format!(
            "{}\n      rg: {}\n      tg: {}",
            case.name,
            preview(&normalize_rg_stderr(&rg.stderr), 200),
            preview(&tg.stderr, 200)
        ))
    } else {
        None
    };
    (compare_outcomes(case, &tg, &rg), note, times.0, times.1)
}

fn compare_outcomes(case: &Case, tg: &Outcome, rg: &Outcome) -> Result<(), String> {
    let mut tg_out = normalize_stdout(&tg.stdout);
    let mut rg_out = normalize_stdout(&rg.stdout);
    let stats = case.args.iter().any(|a| a == "--stats" || a == "--json");
    if stats && (case.name.starts_with("indexed/") || case.name.starts_with("served/")) {
        // With an index the statistics count only the files tg really read.
        tg_out = normalize_searched_counts(&tg_out);
        rg_out = normalize_searched_counts(&rg_out);
    }
    if !case.ordered {
        tg_out = sorted_lines(&tg_out);
        rg_out = sorted_lines(&rg_out);
    }
    // When TG_TEST_TG points at rg itself (harness self-check), its prefix
    // is rewritten too; a real tg must print `tg: ` on its own.
    let tg_err = if std::env::var_os("TG_TEST_TG").is_some() {
        normalize_rg_stderr(&tg.stderr)
    } else {
        tg.stderr.clone()
    };
    let rg_err = normalize_rg_stderr(&rg.stderr);
    // `--stats` adds trigrep's own statistics on stderr.
    let tg_err = if stats { strip_tg_stats(&tg_err) } else { tg_err };

    let mut problems = Vec::new();
    if tg.timed_out {
        problems.push(format!("tg timed out after {PROCESS_TIMEOUT:?}"));
    }
    if rg.timed_out {
        problems.push(format!("rg timed out after {PROCESS_TIMEOUT:?}"));
    }
    if tg.code != rg.code {
        problems.push(format!("exit code: rg {:?}, tg {:?}", rg.code, tg.code));
    }
    if tg_out != rg_out {
        problems.push("stdout differs".to_string());
    }
    match case.stderr {
        StderrCheck::Presence if tg_err.is_empty() != rg_err.is_empty() => problems.push(format!(
            "stderr: rg {}, tg {}",
            if rg_err.is_empty() { "empty" } else { "non-empty" },
            if tg_err.is_empty() { "empty" } else { "non-empty" },
        )),
        StderrCheck::Exact if tg_err != rg_err => problems.push("stderr text differs".into()),
        _ => {}
    }
    let is_json = case.args.iter().any(|a| a == "--json");
    // Only when rg itself printed JSON lines (`--json -c` prints counts).
    if is_json
        && problems.is_empty()
        && check_json_lines(&rg.stdout).is_none()
        && let Some(bad) = check_json_lines(&tg.stdout)
    {
        problems.push(format!("tg --json output is not JSON lines: {bad}"));
    }
    if problems.is_empty() {
        return Ok(());
    }

    let mut r = String::new();
    r.push_str(&format!("=== CASE {} ===\n", case.name));
    r.push_str(&format!("  cmd: {}\n", case.command_line("tg")));
    for p in &problems {
        r.push_str(&format!("  - {p}\n"));
    }
    if tg_out != rg_out {
        r.push_str("  stdout diff (--- rg, +++ tg):\n");
        r.push_str(&diff::render(&rg_out, &tg_out, "    "));
        let at = rg_out.iter().zip(&tg_out).take_while(|(a, b)| a == b).count();
        let lo = at.saturating_sub(50);
        let window = |v: &[u8]| preview(&v[lo.min(v.len())..(at + 70).min(v.len())], 200);
        r.push_str(&format!("    first difference at byte {at}:\n"));
        r.push_str(&format!("      rg: …{}\n", window(&rg_out)));
        r.push_str(&format!("      tg: …{}\n", window(&tg_out)));
    }
    if tg_err != rg_err {
        r.push_str(&format!("  rg stderr: {}\n", preview(&rg_err, 400)));
        r.push_str(&format!("  tg stderr: {}\n", preview(&tg_err, 400)));
    }
    Err(r)
}

/// Runs many cases and fails once, at the end, listing every mismatch.
pub struct Report {
    label: String,
    total: usize,
    failures: Vec<(String, String)>,
    /// (tg time, rg time, case name) per case.
    times: Vec<(Duration, Duration, String)>,
    /// Cases whose stderr text differs where only presence is compared.
    stderr_notes: Vec<String>,
    names: std::collections::HashSet<String>,
}

impl Report {
    pub fn new(label: &str) -> Report {
        // Resolve rg up front so a missing reference fails immediately.
        let _ = rg_bin();
        Report {
            label: label.to_string(),
            total: 0,
            failures: Vec::new(),
            times: Vec::new(),
            stderr_notes: Vec::new(),
            names: Default::default(),
        }
    }

    /// Runs one case against `tree`.
    pub fn check(&mut self, tree: &Tree, case: &Case) {
        self.check_in(tree.root(), case)
    }

    /// Runs one case with `root` as the tree root.
    pub fn check_in(&mut self, root: &Path, case: &Case) {
        assert!(self.names.insert(case.name.clone()), "duplicate case name {}", case.name);
        self.total += 1;
        let (res, note, tg_time, rg_time) = compare_full(root, case);
        self.times.push((tg_time, rg_time, case.name.clone()));
        self.stderr_notes.extend(note);
        if let Err(r) = res {
            self.failures.push((case.name.clone(), r));
        }
    }

    /// Runs every case in `cases`.
    pub fn check_all(&mut self, tree: &Tree, cases: &[Case]) {
        for c in cases {
            self.check(tree, c);
        }
    }

    /// Number of cases run so far.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Panics with every mismatch if there were any.
    pub fn finish(self) {
        eprintln!("[{}] {} cases, {} mismatches", self.label, self.total, self.failures.len());
        if !self.stderr_notes.is_empty() {
            eprintln!(
                "[{}] note: stderr wording differs (not a failure) in {} cases:",
                self.label,
                self.stderr_notes.len()
            );
            for n in &self.stderr_notes {
                eprintln!("    {n}");
            }
        }
        let (tg_sum, rg_sum) =
            self.times.iter().fold((Duration::ZERO, Duration::ZERO), |a, t| (a.0 + t.0, a.1 + t.1));
        eprintln!(
            "[{}] time in tg {tg_sum:.2?}, in rg {rg_sum:.2?}; slowest tg cases:",
            self.label
        );
        let mut slow = self.times.clone();
        slow.sort_by_key(|t| std::cmp::Reverse(t.0));
        for (tg_t, rg_t, name) in slow.iter().take(5) {
            eprintln!("    {name}: tg {tg_t:.2?}, rg {rg_t:.2?}");
        }
        if self.failures.is_empty() {
            return;
        }
        if let Some(dir) = std::env::var_os("TG_DIFF_REPORT_DIR") {
            let dir = PathBuf::from(dir);
            let _ = std::fs::create_dir_all(&dir);
            let text: String = self.failures.iter().map(|(_, r)| r.as_str()).collect();
            let _ = std::fs::write(dir.join(format!("{}.txt", self.label)), text);
        }
        let mut msg = String::new();
        for (_, r) in &self.failures {
            msg.push_str(r);
            msg.push('\n');
        }
        msg.push_str(&format!(
            "[{}] {} of {} cases differ between tg and rg:\n",
            self.label,
            self.failures.len(),
            self.total
        ));
        for (name, _) in &self.failures {
            msg.push_str(&format!("  {name}\n"));
        }
        panic!("\n{msg}");
    }
}

/// Quotes an argument for a POSIX shell (for reports only).
pub fn shell_quote(s: &OsStr) -> String {
    let s = s.to_string_lossy();
    let plain =
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain { s.into_owned() } else { format!("'{}'", s.replace('\'', r"'\''")) }
}

/// A short, escaped rendering of bytes for reports.
pub fn preview(bytes: &[u8], max: usize) -> String {
    let s = format!("{}", bstr::BStr::new(bytes));
    let mut e: String = s.escape_debug().collect();
    if e.chars().count() > max {
        e = e.chars().take(max).collect::<String>() + "…";
    }
    e
}

/// A literal argument list, for brevity in case tables.
pub fn args(s: &[&str]) -> Vec<OsString> {
    s.iter().map(OsString::from).collect()
}

/// The private memory (`RssAnon`) of process `pid` in bytes, while it lives.
pub fn private_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("RssAnon:"))?;
    let kb: u64 = line.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb * 1024)
}

/// Whether the whole suite runs (`TG_TEST_ALL=1`, which `.ci/run` sets),
/// rather than the fast tier a plain `cargo test` or `cargo nextest run`
/// runs.
pub fn whole_suite() -> bool {
    std::env::var_os("TG_TEST_ALL").is_some_and(|v| v == "1")
}

/// Whether a test that needs `what` (root, a real terminal, minutes of
/// machine time) runs now: always in the whole suite, where a missing tool
/// then fails it; in the fast tier never, which it says on stderr.
pub fn in_whole_suite(what: &str) -> bool {
    if whole_suite() {
        return true;
    }
    eprintln!("skipped in the fast tier (TG_TEST_ALL=1 runs it): needs {what}");
    false
}

/// Whether this process runs as root, for tests that switch users, mount
/// file systems or change the kernel's limits; in the fast tier such a
/// test is skipped, saying so. In the whole suite a test that needs root
/// fails when it is not, naming `what` (CI runs as root), unless
/// `TG_ALLOW_NOT_ROOT=1` lets it be skipped, which it then says.
pub fn require_root(what: &str) -> bool {
    if !in_whole_suite(&format!("root: {what}")) {
        return false;
    }
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } == 0 {
        return true;
    }
    assert!(
        std::env::var_os("TG_ALLOW_NOT_ROOT").is_some_and(|v| v == "1"),
        "{what} needs root (CI runs as root); TG_ALLOW_NOT_ROOT=1 skips it"
    );
    eprintln!("skipped (TG_ALLOW_NOT_ROOT=1): {what} needs root");
    false
}
