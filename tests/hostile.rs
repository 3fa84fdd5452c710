//! Hostile and heavy input: a 64 MiB single line (1 GiB with
//! `TG_SLOW=1`), 20,000 files in one directory (100,000 with `TG_SLOW=1`),
//! a 1,000-deep directory chain, one deeper than `PATH_MAX`, symlink loops, names with newlines and
//! invalid UTF-8, files deleted, truncated, grown or replaced by a
//! directory or a FIFO between index and query, a file truncated or grown
//! while tg reads it, and an index that is unreadable, read-only, damaged
//! or owned by another user. Each runs through tg and rg with the same
//! flags, scanning, from the index, and (where cheap) through a server:
//! same stdout and exit code, and stderr only where rg has one (the races:
//! an answer rg could give for some state of the file, never a crash).

mod util;

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use util::serve::Served;
use util::{Case, Report, Tree};

/// `TG_SLOW=1` runs the full-size variants.
fn slow() -> bool {
    std::env::var_os("TG_SLOW").is_some_and(|v| v == "1")
}

/// Runs `cases` (relative to `dir`) scanning, then from a fresh index of
/// `dir`, and checks that the index answered.
fn scan_then_indexed(t: &Tree, label: &str, dir: &str, cases: &[Case]) {
    let mut r = Report::new(label);
    for c in cases {
        let mut c = c.clone().cwd(Path::new(dir).join(&c.cwd));
        c.name = format!("{label}/scan/{}", c.name);
        r.check(t, &c);
    }
    util::tg_index(t, dir);
    for c in cases {
        let mut c = c.clone().cwd(Path::new(dir).join(&c.cwd));
        c.name = format!("indexed/{label}/{}", c.name);
        r.check(t, &c);
    }
    r.finish();
    assert!(index_used(t, dir), "{label}: the index did not answer");
}

/// Whether a `--stats` query in `dir` says the index answered.
fn index_used(t: &Tree, dir: &str) -> bool {
    let out = util::tg_command(t, t.path(dir)).args(["--stats", "-c", "needle"]).output().unwrap();
    index_answered(&out.stderr)
}

/// Whether `--stats` output says the index answered.
fn index_answered(stderr: &[u8]) -> bool {
    let err = String::from_utf8_lossy(stderr);
    err.contains("tg: index: ") && !err.contains("tg: index: not used")
}

/// `(name, args)` pairs as cases.
fn cases(list: &[(&str, &[&str])]) -> Vec<Case> {
    list.iter().map(|(name, args)| Case::new(*name, args.iter())).collect()
}

/// How long `cmd` ran and its peak private memory (RssAnon sampled every
/// 5 ms), with its stdout.
fn measured(cmd: &mut std::process::Command) -> (Duration, u64, Vec<u8>) {
    let start = Instant::now();
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out, &mut v);
        v
    });
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        peak = peak.max(util::private_bytes(child.id()).unwrap_or(0));
        std::thread::sleep(Duration::from_millis(5));
    }
    (start.elapsed(), peak, reader.join().unwrap())
}

/// One line of `size` bytes with `NEEDLE` in its middle and `needle end`
/// at its end, then a short second line.
fn write_long_line(path: &Path, size: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let block: Vec<u8> = b"abcdefghijklmnopqrstuvwxyz012345".repeat(1 << 15);
    let mut written = 0;
    while written + block.len() <= size {
        if written == size / 2 / block.len() * block.len() {
            f.write_all(b"NEEDLE").unwrap();
            f.write_all(&block[6..]).unwrap();
        } else {
            f.write_all(&block).unwrap();
        }
        written += block.len();
    }
    f.write_all(b" needle end\nsecond needle line\n").unwrap();
}

#[test]
fn a_single_huge_line() {
    let size = if slow() { 1 << 30 } else { 64 << 20 };
    let t = Tree::new("long_line");
    t.mkdir("line");
    write_long_line(&t.path("line/one.txt"), size);
    let mut list =
        cases(&[("c", &["-c", "NEEDLE"]), ("named", &["-c", "-i", "needle", "one.txt"])]);
    if slow() {
        // (Each costs seconds in a debug build: only with TG_SLOW.)
        list.extend(cases(&[
            ("o_b", &["-o", "-b", "NEEDLE|needle (end|line)"]),
            ("l", &["-l", "needle"]),
            ("v_c", &["-v", "-c", "NEEDLE"]),
            ("absent", &["-c", "-F", "zz_absent_zz"]),
            ("max_columns", &["-n", "--max-columns", "80", "NEEDLE|second"]),
        ]));
    }
    scan_then_indexed(&t, "long_line", "line", &list);
    let (tg_time, tg_peak, tg_out) =
        measured(util::tg_command(&t, t.path("line")).args(["-c", "NEEDLE", "one.txt"]));
    let (rg_time, rg_peak, rg_out) =
        measured(util::rg_command(&t, t.path("line")).args(["-c", "NEEDLE", "one.txt"]));
    assert_eq!(tg_out, rg_out);
    eprintln!(
        "one line of {} MiB: tg {tg_time:.2?}, peak private {} MiB; rg {rg_time:.2?}, peak \
         private {} MiB",
        size >> 20,
        tg_peak >> 20,
        rg_peak >> 20
    );
    // tg maps the file: its private memory does not grow with the line.
    assert!(tg_peak < 64 << 20, "tg used {tg_peak} private bytes for a {size}-byte line");
}

#[test]
fn many_files_in_one_directory() {
    let n = if slow() { 100_000 } else { 20_000 };
    let t = Tree::new("many_files");
    for i in 0..n {
        let text = if i % 1000 == 7 { format!("needle {i}\n") } else { format!("file {i}\n") };
        t.write(format!("many/f{i:06}.txt"), text);
    }
    let list: &[(&str, &[&str])] = &[
        ("c", &["-c", "needle"]),
        ("l", &["-l", "needle"]),
        ("n_word", &["-n", "-w", "file 1234[05]"]),
        ("files", &["--files"]),
        ("absent", &["zz_absent_zz"]),
    ];
    scan_then_indexed(&t, "many_files", "many", &cases(list));
}

#[test]
fn a_thousand_deep_directory_chain() {
    let t = Tree::new("deep");
    let mut dir = String::from("deep");
    for level in 0..1000 {
        dir.push_str("/d");
        if level % 100 == 99 {
            t.write(format!("{dir}/level{level}.txt"), format!("needle at level {level}\n"));
        }
    }
    t.write(format!("{dir}/bottom.txt"), "needle at the bottom\n");
    let half = "d/".repeat(500);
    let mut list = cases(&[
        ("n", &["-n", "needle"]),
        ("files", &["--files"]),
        ("max_depth", &["-l", "--max-depth", "300", "needle"]),
        ("absent", &["zz_absent_zz"]),
    ]);
    list.push(Case::new("from_half_way", ["-n", "needle"]).cwd(&half));
    scan_then_indexed(&t, "deep", "deep", &list);
}

/// A chain whose paths outgrow `PATH_MAX` (4,096 bytes) half way down: rg
/// reports the directory it cannot open and exits 2; so must a query from
/// an index built over it (its build walk failed there too).
#[test]
fn a_chain_deeper_than_path_max() {
    let t = Tree::new("path_max");
    t.mkdir("long");
    // (A shell's `cd` refuses past PATH_MAX; python's chdir does not.)
    let script = "import os\nfor i in range(600):\n    d = 'dir_%03d' % i\n    os.mkdir(d)\n    \
                  os.chdir(d)\n    if i % 100 == 99: open('f%d.txt' % i, 'w').write('needle\\n')\n";
    let st = std::process::Command::new("python3")
        .args(["-c", script])
        .current_dir(t.path("long"))
        .status()
        .expect("python3");
    assert!(st.success(), "making the chain");
    let list: &[(&str, &[&str])] =
        &[("c", &["-c", "needle"]), ("files", &["--files"]), ("absent", &["zz_absent_zz"])];
    let list: Vec<Case> = cases(list).into_iter().map(Case::stderr_exact).collect();
    scan_then_indexed(&t, "path_max", "long", &list);
}

#[test]
fn symlink_loops() {
    let t = Tree::new("loops");
    t.write("loops/a.txt", "needle in a\n");
    t.write("loops/sub/b.txt", "needle in b\n");
    t.symlink(".", "loops/self");
    t.symlink("..", "loops/sub/up");
    t.symlink("ping", "loops/pong");
    t.symlink("pong", "loops/ping");
    t.symlink("itself", "loops/itself");
    t.symlink("sub", "loops/to_sub");
    let list: &[(&str, &[&str])] = &[
        ("plain", &["-n", "needle"]),
        ("follow", &["-L", "-n", "needle"]),
        ("follow_files", &["-L", "--files"]),
        ("named_loop", &["needle", "ping", "self"]),
        ("named_loop_follow", &["-L", "needle", "itself", "to_sub"]),
    ];
    let list: Vec<Case> = cases(list).into_iter().map(Case::stderr_exact).collect();
    scan_then_indexed(&t, "loops", "loops", &list);
}

/// Names with a newline, invalid UTF-8, both, and a directory named so.
fn write_odd_names(t: &Tree, dir: &str) {
    for name in [
        &b"new\nline.txt"[..],
        b"bad\xff\xfe.txt",
        b"both\n\xc3(.txt",
        b"dir\nwith\xffnewline/inner.txt",
        b"-dash\r.txt",
    ] {
        let rel = [dir.as_bytes(), b"/", name].concat();
        t.write(std::ffi::OsStr::from_bytes(&rel), "needle in an odd name\nplain\n");
    }
}

#[test]
fn names_with_newlines_and_invalid_utf8() {
    let t = Tree::new("odd_names");
    t.git_init("repo");
    write_odd_names(&t, "repo");
    let list: &[(&str, &[&str])] = &[
        ("plain", &["needle"]),
        ("l", &["-l", "needle"]),
        ("null", &["-0", "-l", "needle"]),
        ("c", &["-c", "needle"]),
        ("json", &["--json", "needle"]),
        ("heading", &["--heading", "-n", "needle"]),
        ("files", &["--files"]),
        ("without", &["--files-without-match", "plain"]),
    ];
    let list = cases(list);
    scan_then_indexed(&t, "odd_names", "repo", &list);
    let _s = Served::start(&t, &[]);
    write_odd_names(&t, "repo/added");
    let mut r = Report::new("odd_names_served");
    for c in &list {
        let mut c = c.clone().cwd("repo");
        c.name = format!("served/odd_names/{}", c.name);
        r.check(&t, &c);
    }
    r.finish();
}

/// Changes the indexed `repo`: a file deleted, one truncated to nothing,
/// one cut short, one grown, one replaced by a directory, a directory
/// replaced by a file, a file replaced by a symlink and one by a FIFO.
fn replace_behind_the_index(t: &Tree) {
    let p = |rel: &str| t.path(format!("repo/{rel}"));
    std::fs::remove_file(p("deleted.txt")).unwrap();
    std::fs::write(p("emptied.txt"), "").unwrap();
    std::fs::write(p("cut.txt"), "needle kept\n").unwrap();
    let mut grown = std::fs::read(p("grown.txt")).unwrap();
    grown.extend_from_slice(b"needle grown after the index\n");
    std::fs::write(p("grown.txt"), grown).unwrap();
    std::fs::remove_file(p("became_dir.txt")).unwrap();
    t.write("repo/became_dir.txt/inner.txt", "needle inside what was a file\n");
    std::fs::remove_dir_all(p("became_file")).unwrap();
    t.write("repo/became_file", "needle in what was a directory\n");
    std::fs::remove_file(p("became_link.txt")).unwrap();
    t.symlink("grown.txt", "repo/became_link.txt");
    std::fs::remove_file(p("became_fifo.txt")).unwrap();
    let fifo = std::ffi::CString::new(p("became_fifo.txt").as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// The tree [`replace_behind_the_index`] changes, indexed.
fn replaced_tree(name: &str) -> Tree {
    let t = Tree::new(name);
    t.git_init("repo");
    for f in ["deleted", "emptied", "cut", "grown", "became_dir", "became_link", "became_fifo"] {
        t.write(format!("repo/{f}.txt"), format!("needle in {f}\nmore needle {f}\nplain\n"));
    }
    t.write("repo/became_file/x.txt", "needle in a directory\n");
    t.write("repo/kept.txt", "needle kept as is\n");
    util::tg_index(&t, "repo");
    t
}

fn replaced_cases(tag: &str) -> Vec<Case> {
    let list: &[(&str, &[&str])] = &[
        ("n", &["-n", "needle"]),
        ("c", &["-c", "needle"]),
        ("l", &["-l", "needle"]),
        ("files", &["--files"]),
        ("without", &["--files-without-match", "needle"]),
        ("named", &["needle", "became_dir.txt", "became_file", "deleted.txt"]),
    ];
    cases(list)
        .into_iter()
        .map(|c| {
            let name = format!("{tag}/{}", c.name);
            Case { name, ..c.cwd("repo") }
        })
        .collect()
}

#[test]
fn files_replaced_between_index_and_query() {
    let t = replaced_tree("replaced");
    replace_behind_the_index(&t);
    let mut r = Report::new("replaced");
    r.check_all(&t, &replaced_cases("indexed/replaced"));
    r.finish();
    assert!(index_used(&t, "repo"));
}

#[test]
fn files_replaced_while_served() {
    let t = replaced_tree("replaced_served");
    let _s = Served::start(&t, &[]);
    replace_behind_the_index(&t);
    let mut r = Report::new("replaced_served");
    r.check_all(&t, &replaced_cases("served/replaced"));
    r.finish();
}

/// Line `n` (from 1) of the race file: 64 bytes, `needle` in every 500th.
fn race_line(n: usize) -> String {
    let word = if n.is_multiple_of(500) { "needle" } else { "filler" };
    format!("L{n:09} {word} {:-<45}\n", "")
}

/// The race file's first `lines` lines.
fn race_text(lines: usize) -> Vec<u8> {
    (1..=lines).flat_map(|n| race_line(n).into_bytes()).collect()
}

/// Runs `cmd`, and once it has `file` open, stops it, calls `change`, and
/// lets it go on. Returns its stdout, stderr, exit code, and whether it was
/// caught with the file open.
fn change_while_reading(
    cmd: &mut std::process::Command,
    file: &Path,
    change: impl FnOnce(),
) -> (Vec<u8>, Vec<u8>, Option<i32>, bool) {
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    let fds = format!("/proc/{pid}/fd");
    let waiter = std::thread::spawn(move || child.wait_with_output().unwrap());
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut caught = false;
    while !waiter.is_finished() && Instant::now() < deadline {
        let open = std::fs::read_dir(&fds)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| std::fs::read_link(e.path()).is_ok_and(|l| l == file));
        if open {
            // SAFETY: signalling our own child (alive: it holds the file).
            unsafe { libc::kill(pid as i32, libc::SIGSTOP) };
            caught = true;
            break;
        }
    }
    change();
    if caught {
        // SAFETY: as above.
        unsafe { libc::kill(pid as i32, libc::SIGCONT) };
    }
    let out = waiter.join().unwrap();
    (out.stdout, out.stderr, out.status.code(), caught)
}

/// A file truncated to half its size, or grown by half, while each tool
/// reads it (walked, and named with `--no-mmap`): the output is the
/// matching lines of the file as it was before or after, up to some point
/// past what both states share: never a crash, a torn or misnumbered line.
#[test]
fn a_file_truncated_or_grown_while_read() {
    const LINES: usize = 1_572_864; // 96 MiB: searched in chunks
    let t = Tree::new("race");
    t.mkdir("race");
    let file = t.path("race").canonicalize().unwrap().join("big.txt");
    let grown = race_text(LINES * 3 / 2);
    let original = &grown[..LINES * 64];
    let needles = |lines: usize| lines / 500;
    let mut caught = 0;
    for tool in ["tg", "rg"] {
        for (how, args) in [
            ("walked", &["-n", "needle", "race"][..]),
            ("named", &["--no-mmap", "-n", "needle", "race/big.txt"]),
        ] {
            for grow in [false, true] {
                std::fs::write(&file, original).unwrap();
                let mut cmd = match tool {
                    "tg" => util::tg_command(&t, t.root()),
                    _ => util::rg_command(&t, t.root()),
                };
                cmd.args(args);
                let (out, err, code, stopped) = change_while_reading(&mut cmd, &file, || {
                    if grow {
                        let mut f = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
                        f.write_all(&grown[original.len()..]).unwrap();
                    } else {
                        let f = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
                        f.set_len(original.len() as u64 / 2).unwrap();
                    }
                });
                caught += usize::from(stopped);
                let what = format!("{tool} {how} {}", if grow { "grown" } else { "truncated" });
                assert_eq!(code, Some(0), "{what}: {}", String::from_utf8_lossy(&err));
                assert!(err.is_empty(), "{what}: {}", String::from_utf8_lossy(&err));
                let prefix = if how == "walked" { "race/big.txt:" } else { "" };
                let (least, most) = if grow { (LINES, LINES * 3 / 2) } else { (LINES / 2, LINES) };
                let got: Vec<&[u8]> = out.split_inclusive(|&b| b == b'\n').collect();
                assert!(
                    (needles(least)..=needles(most)).contains(&got.len()),
                    "{what}: {} lines",
                    got.len()
                );
                for (i, line) in got.iter().enumerate() {
                    let n = (i + 1) * 500;
                    let want = format!("{prefix}{n}:{}", race_line(n));
                    assert_eq!(
                        String::from_utf8_lossy(line),
                        want,
                        "{what}: matching line {i} is not line {n}"
                    );
                }
            }
        }
    }
    assert!(caught >= 4, "the change landed while reading only {caught} times of 8");
}

/// `nobody`: the user the permission cases run as.
const NOBODY: u32 = 65534;

/// `tg args` in `repo` as `uid`.
fn tg_as(t: &Tree, uid: u32, args: &[&str]) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    util::tg_command(t, t.path("repo")).args(args).uid(uid).gid(uid).output().unwrap()
}

/// A tree that every user can read, indexed by root (its index files
/// private to root, as tg makes them).
fn shared_tree(name: &str) -> Tree {
    let t = Tree::new(name);
    t.write("repo/a.txt", "needle one\nplain\n");
    t.write("repo/sub/b.txt", "needle two\nneedle three\n");
    t.write("repo/c.txt", "nothing\n");
    chmod_r("a+rX", t.root());
    util::tg_index(&t, "repo");
    t
}

/// `chmod -R mode path`.
fn chmod_r(mode: &str, path: &Path) {
    let st = std::process::Command::new("chmod").arg("-R").arg(mode).arg(path).status();
    assert!(st.unwrap().success(), "chmod -R {mode} {}", path.display());
}

/// Whether a `--stats` query as `uid` in `repo` says the index answered.
fn index_used_by(t: &Tree, uid: u32) -> bool {
    index_answered(&tg_as(t, uid, &["--stats", "-c", "needle"]).stderr)
}

/// The index directory of `repo`.
fn index_dir(t: &Tree) -> std::path::PathBuf {
    let indexes = t.path(".home/.cache/trigrep/indexes");
    let entry = std::fs::read_dir(&indexes)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("repo-"));
    entry.expect("repo's index directory").path()
}

/// Queries as `nobody` print what rg prints, with at most `warnings`
/// `tg: ` lines on stderr (rg has none), and `tg index` as `nobody` fails
/// with one clear line and exit 2.
fn check_as_nobody(t: &Tree, label: &str, warnings: usize) {
    // rg may sit where `nobody` cannot reach (under /root): a copy can.
    let rg = t.path("rg");
    if !rg.exists() {
        std::fs::copy(util::rg_bin(), &rg).unwrap();
    }
    for args in [&["-n", "needle"][..], &["-c", "needle"], &["-l", "needle"], &["zz_absent_zz"]] {
        let c = Case::new(format!("{label} {args:?}"), args).cwd("repo").run_as(NOBODY);
        let tg = util::run(&util::tg_bin(), t.root(), &c);
        let rg = util::run(&rg, t.root(), &c);
        let err = String::from_utf8_lossy(&tg.stderr);
        assert_eq!((&tg.stdout, tg.code), (&rg.stdout, rg.code), "{}: {err}", c.name);
        assert!(rg.stderr.is_empty(), "{}: rg said {:?}", c.name, rg.stderr);
        assert!(err.lines().count() <= warnings, "{}: tg stderr:\n{err}", c.name);
        assert!(err.lines().all(|l| l.starts_with("tg: ")), "{}: tg stderr:\n{err}", c.name);
    }
    let ix = tg_as(t, NOBODY, &["index", "."]);
    let err = String::from_utf8_lossy(&ix.stderr);
    assert_eq!(ix.status.code(), Some(2), "{label}: tg index as nobody: {err}");
    assert_eq!(err.lines().count(), 1, "{label}: tg index as nobody:\n{err}");
    assert!(err.starts_with("tg: ") && !err.contains("panicked"), "{label}: {err}");
    assert_eq!(err.matches("(os error").count(), 1, "{label}: said twice: {err}");
}

#[test]
fn an_index_owned_by_another_user() {
    if !util::require_root("running the tools as another user") {
        return;
    }
    let t = shared_tree("other_owner");
    // Unreadable to nobody: as if there were none, in silence.
    check_as_nobody(&t, "other_owner", 0);
    assert!(!index_used_by(&t, NOBODY));
    // Readable: used, with rg's answers.
    chmod_r("a+r", &t.path(".home"));
    check_as_nobody(&t, "other_owner_readable", 0);
    assert!(index_used_by(&t, NOBODY), "a readable index of another user is used");
}

#[test]
fn a_read_only_index_directory() {
    if !util::require_root("running the tools as another user") {
        return;
    }
    let t = shared_tree("read_only");
    let st = std::process::Command::new("chown")
        .arg("-R")
        .arg(format!("{NOBODY}:{NOBODY}"))
        .arg(t.path(".home"))
        .status();
    assert!(st.unwrap().success(), "chown");
    let dir = index_dir(&t);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    check_as_nobody(&t, "read_only", 0);
    assert!(index_used_by(&t, NOBODY), "the read-only index answered");
    // Damaged, it cannot be withdrawn: still rg's answer, one warning.
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let index = dir.join("index.tg");
    let mut bytes = std::fs::read(&index).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    bytes.truncate(bytes.len() - 7);
    std::fs::write(&index, bytes).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    check_as_nobody(&t, "read_only_damaged", 1);
}
