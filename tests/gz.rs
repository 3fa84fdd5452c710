//! `.gz` files searched through the index of their text. With
//! and without `tg index FILE.gz`, `tg -z` must print exactly what the
//! pinned `rg -z` prints (and `rg` on the original text), byte for byte,
//! with the same exit code: single-member gzip (made by `gzip -6`),
//! multi-member gzip and BGZF (members of 64 KiB of text, made here), lines
//! straddling block edges, empty and one-line texts; after the `.gz` is
//! rewritten, appended to or touched; with a damaged index; and a damaged
//! or truncated `.gz` gets rg's one-line error, index or not.
//!
//! Blocks are 4 KiB and access points 32 KiB apart here, so a fixture of a
//! few hundred KiB has dozens of each; `--stats` tells whether the index
//! answered, and the tests check that it did where it should.

mod util;

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use flate2::Compression;
use flate2::write::{DeflateEncoder, GzEncoder};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use trigrep::index::blocks::cut;
use trigrep::index::build::Progress;
use trigrep::index::gz::{GzIndex, build};
use trigrep::options::MatchOptions;
use trigrep::query::search_plan::query_for;
use util::{Case, Outcome, Tree};

const TG_OPTS: &[&str] = &["-j", "4"];

/// Runs `program` with `args` in the root of `tree`.
fn run(program: &Path, tree: &Tree, args: &[&str]) -> Outcome {
    util::run(program, tree.root(), &Case::new(args.join(" "), args).no_sort())
}

/// Blanks the JSON `bytes_searched` counts, which an indexed search lowers.
fn normalise(out: &[u8]) -> Vec<u8> {
    let re = regex::bytes::Regex::new(r#""bytes_searched":[0-9]+"#).unwrap();
    re.replace_all(&util::normalize_stdout(out), &b"\"bytes_searched\":N"[..]).into_owned()
}

/// The first line of stderr, `rg: ` read as `tg: `.
fn first_error(out: &Outcome) -> String {
    let err = String::from_utf8_lossy(&out.stderr).replace("rg: ", "tg: ");
    err.lines().next().unwrap_or("").to_string()
}

/// Checks `tg -z ARGS` against `rg -z ARGS`; returns tg's `--stats` line
/// on block indexes ("block indexes used: N").
fn check(tree: &Tree, args: &[&str]) -> String {
    let args = [&["-z"], args].concat();
    let want = run(&util::rg_bin(), tree, &args);
    let got = run(&util::tg_bin(), tree, &[TG_OPTS, &args].concat());
    let (w, g) = (normalise(&want.stdout), normalise(&got.stdout));
    assert!(
        w == g && want.code == got.code && first_error(&want) == first_error(&got),
        "tg {args:?}: exit {:?} vs rg {:?}; stderr tg {:?} rg {:?}\nstdout diff (--- rg, +++ tg):\n{}",
        got.code,
        want.code,
        util::preview(&got.stderr, 400),
        util::preview(&want.stderr, 400),
        util::diff::render(&w, &g, "  ")
    );
    let stats = run(&util::tg_bin(), tree, &[TG_OPTS, &["--stats", "-q"], &args].concat());
    let err = String::from_utf8_lossy(&stats.stderr).into_owned();
    err.lines().find(|l| l.contains("block indexes used")).unwrap_or("").trim().to_string()
}

/// `tg index` of `rel` with 4 KiB blocks and 32 KiB access-point spacing;
/// returns whether it succeeded, and its stderr.
fn index(tree: &Tree, rel: &str) -> (bool, String) {
    let out = util::tg_command(tree, tree.root())
        .args(["index", "-q", "--block-size", "4K", "--access-spacing", "32K", rel])
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A log of about `lines` lines: timestamps, hosts, frequent events, rare
/// markers, a line longer than a block, empty lines, CRLF.
fn text(rng: &mut StdRng, lines: usize) -> Vec<u8> {
    let words = ["sshd[7]: Accepted key", "kernel: usb 1-1: reset", "cron[9]: job done"];
    let mut out = Vec::new();
    for i in 0..lines {
        write!(out, "Feb {:2} {:02}:{:02} h{} ", 1 + i / 4000, i / 60 % 24, i % 60, i % 7).unwrap();
        match rng.random_range(0..700) {
            0 => out.extend_from_slice(b"kernel: Oops: RAREMARK in module zz"),
            1 => out.extend_from_slice(&vec![b'q'; 9_000]),
            2 => out.extend_from_slice(b"windows line RAREMARK\r"),
            3..=6 => {}
            _ => out.extend_from_slice(words[rng.random_range(0..words.len())].as_bytes()),
        }
        out.push(b'\n');
    }
    out
}

/// `data` gzipped by the system's `gzip -6` (one member, as logs are).
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut child = std::process::Command::new("gzip")
        .args(["-6", "-c", "-n"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("gzip must be installed (apt-get install gzip)");
    let mut stdin = child.stdin.take().unwrap();
    let input = data.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert!(out.status.success());
    out.stdout
}

/// `data` as gzip members of 65,280 bytes of text each; as BGZF (each
/// member's header carries its size in a `BC` extra field) when `bgzf`.
fn members(data: &[u8], bgzf: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for part in data.chunks(65_280) {
        if !bgzf {
            let mut z = GzEncoder::new(Vec::new(), Compression::new(6));
            z.write_all(part).unwrap();
            out.extend(z.finish().unwrap());
            continue;
        }
        let mut z = DeflateEncoder::new(Vec::new(), Compression::new(6));
        z.write_all(part).unwrap();
        let deflated = z.finish().unwrap();
        let bsize = (18 + deflated.len() + 8 - 1) as u16;
        out.extend_from_slice(&[31, 139, 8, 4, 0, 0, 0, 0, 0, 255, 6, 0, b'B', b'C', 2, 0]);
        out.extend_from_slice(&bsize.to_le_bytes());
        out.extend_from_slice(&deflated);
        out.extend_from_slice(&crc32fast::hash(part).to_le_bytes());
        out.extend_from_slice(&(part.len() as u32).to_le_bytes());
    }
    // BGZF's end-of-file marker: an empty member.
    if bgzf {
        out.extend_from_slice(&gzip_empty_bgzf());
    }
    out
}

/// The 28-byte empty BGZF block that ends a bgzip file.
fn gzip_empty_bgzf() -> [u8; 28] {
    [31, 139, 8, 4, 0, 0, 0, 0, 0, 255, 6, 0, 66, 67, 2, 0, 27, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]
}

/// Queries: rare literals, regexes, and every output flag of the issue.
const QUERIES: &[&[&str]] = &[
    &["RAREMARK"],
    &["-n", "RAREMARK"],
    &["-n", "-b", "Oops"],
    &["-c", "RAREMARK"],
    &["-l", "Oops"],
    &["-o", "-n", "RAREM[A-Z]+"],
    &["--json", "Oops: RAREMARK"],
    &["-n", "-i", "oops: raremark"],
    &["-n", "qqqqqqqqqqqqqqqqqqqq$"],
    &["-n", "RAREMARK\\r$"],
    &["-A", "1", "-n", "RAREMARK"],
    &["-B", "2", "-n", "Oops"],
    &["-C", "1", "-n", "RAREMARK"],
    &["-m", "2", "-n", "RAREMARK"],
    &["-v", "-c", "cron"],
    &["-v", "-n", "[a-z]"],
    &["-n", "^Feb  2 0[0-3]:1\\d h3 "],
    &["-c", "sshd"],
    &["-n", "XYZZY-NOT-THERE"],
    &["-c", "--include-zero", "XYZZY-NOT-THERE"],
    &["--files-without-match", "XYZZY"],
];

/// Runs every query on `file`; returns how many the index answered.
fn check_all(tree: &Tree, file: &str) -> usize {
    let used = QUERIES.iter().map(|q| check(tree, &[*q, &[file]].concat()));
    used.filter(|s| s == "block indexes used: 1").count()
}

/// Also the original text: `rg` on it prints what `tg -z` prints on the
/// `.gz` (one file, so no path is printed).
fn check_against_text(tree: &Tree, gz: &str, plain: &str) {
    let names_the_file =
        |q: &&&[&str]| q.iter().any(|a| ["-l", "--json", "--files-without-match"].contains(a));
    for q in QUERIES.iter().filter(|q| !names_the_file(q)) {
        let args = [*q, &[plain]].concat();
        let want = run(&util::rg_bin(), tree, &args);
        let got = run(&util::tg_bin(), tree, &[&["-z"], *q, &[gz]].concat());
        assert!(want.stdout == got.stdout, "tg -z {q:?} {gz} differs from rg {q:?} {plain}");
    }
}

#[test]
fn indexed_gz_prints_what_rg_prints() {
    let tree = Tree::new("gz");
    let mut rng = StdRng::seed_from_u64(13);
    let log = text(&mut rng, 9_000);
    tree.write("app.log", &log);
    tree.write("app.log.gz", gzip(&log));
    tree.write("multi.log.gz", members(&log, false));
    tree.write("bgzf.log.gz", members(&log, true));
    for file in ["app.log.gz", "multi.log.gz", "bgzf.log.gz"] {
        assert_eq!(check_all(&tree, file), 0, "{file}: an index before any was built");
        let (ok, err) = index(&tree, file);
        assert!(ok, "tg index {file}: {err}");
        let status = run(&util::tg_bin(), &tree, &["status", file]);
        let said = String::from_utf8_lossy(&status.stdout);
        assert!(status.code == Some(0) && said.contains("documents:"), "tg status {file}: {said}");
        // Context and -m are searched as a stream (and every query still
        // prints rg's bytes); the rest go through the index.
        let used = check_all(&tree, file);
        assert!(used >= 14, "{file}: only {used} of {} queries used the index", QUERIES.len());
        check_against_text(&tree, file, "app.log");
    }
    // A walk with -z: every file, each whole or through its index.
    check(&tree, &["--sort", "path", "-n", "RAREMARK"]);
    check(&tree, &["-c", "Oops", "-j1", "."]);
    // In parallel: indexed files are handed over and searched after the walk.
    for args in
        [&["-z", "-n", "RAREMARK"][..], &["-z", "-c", "Oops", "."], &["-z", "-v", "-c", "h"]]
    {
        let want = run(&util::rg_bin(), &tree, args);
        let got = run(&util::tg_bin(), &tree, &[TG_OPTS, args].concat());
        let (w, g) = (util::sorted_lines(&want.stdout), util::sorted_lines(&got.stdout));
        assert!(w == g && want.code == got.code, "tg {args:?} in parallel differs from rg");
    }
    let stats = run(&util::tg_bin(), &tree, &["-z", "-j4", "--stats", "-q", "RAREMARK"]);
    let err = String::from_utf8_lossy(&stats.stderr);
    assert!(err.contains("block indexes used: 3"), "{err}");
}

#[test]
fn tiny_texts() {
    let tree = Tree::new("gz-tiny");
    let texts: [(&str, &[u8]); 5] = [
        ("empty.gz", b""),
        ("newline.gz", b"\n"),
        ("one.gz", b"one line RAREMARK\n"),
        ("open.gz", b"no final newline RAREMARK"),
        ("two.gz", b"first\nsecond RAREMARK"),
    ];
    for (name, data) in texts {
        tree.write(name, gzip(data));
        let (ok, err) = index(&tree, name);
        assert!(ok, "tg index {name}: {err}");
        for q in [
            &["-n", "RAREMARK"][..],
            &["-c", "RAREMARK"],
            &["-v", "-n", "x"],
            &["-b", "-o", "\\w+"],
        ] {
            check(&tree, &[q, &[name]].concat());
        }
    }
}

#[test]
fn changed_gz_is_never_answered_from_a_stale_index() {
    let tree = Tree::new("gz-stale");
    let mut rng = StdRng::seed_from_u64(99);
    let first = text(&mut rng, 6_000);
    tree.write("app.log.gz", gzip(&first));
    index(&tree, "app.log.gz");
    assert_eq!(check(&tree, &["-n", "RAREMARK", "app.log.gz"]), "block indexes used: 1");
    // Appended: another member (as `cat more.gz >> app.log.gz`).
    let mut f = std::fs::OpenOptions::new().append(true).open(tree.path("app.log.gz")).unwrap();
    f.write_all(&gzip(b"Feb 9 appended RAREMARK line\n")).unwrap();
    drop(f);
    assert_eq!(check(&tree, &["-n", "RAREMARK", "app.log.gz"]), "block indexes used: 0");
    // Rewritten with other text.
    index(&tree, "app.log.gz");
    tree.write("app.log.gz", gzip(&text(&mut rng, 6_000)));
    assert_eq!(check(&tree, &["-n", "RAREMARK", "app.log.gz"]), "block indexes used: 0");
    // The same size, a byte changed in the middle, the old mtime put back.
    index(&tree, "app.log.gz");
    let path = tree.path("app.log.gz");
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    std::thread::sleep(Duration::from_millis(30));
    let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all(&bytes).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    assert_eq!(check(&tree, &["-c", "RAREMARK", "app.log.gz"]), "block indexes used: 0");
}

#[test]
fn damaged_input_and_index() {
    let tree = Tree::new("gz-bad");
    let mut rng = StdRng::seed_from_u64(7);
    let gz = gzip(&text(&mut rng, 6_000));
    tree.write("cut.log.gz", &gz[..gz.len() / 2]);
    let mut garbled = gz.clone();
    garbled[gz.len() / 3..gz.len() / 3 + 64].fill(0x55);
    tree.write("garbled.log.gz", &garbled);
    tree.write("zero.log.gz", b"");
    tree.write("fake.log.gz", b"not gzip at all\n");
    for name in ["cut.log.gz", "garbled.log.gz", "zero.log.gz", "fake.log.gz"] {
        let (ok, err) = index(&tree, name);
        assert!(!ok && err.lines().count() == 1, "tg index {name}: {ok} {err:?}");
        assert!(err.starts_with("tg: indexing "), "tg index {name}: {err:?}");
        check(&tree, &["-n", "RAREMARK", name]);
        check(&tree, &["-c", "h3", name]);
    }
    // A damaged index: one warning, then the stream's answer.
    tree.write("good.log.gz", &gz);
    index(&tree, "good.log.gz");
    let canonical = tree.path("good.log.gz").canonicalize().unwrap();
    let base = tree.path(".home/.cache/trigrep");
    let index_file = trigrep::index::gz::index_dir(&base, &canonical).join("index.tg");
    let bytes = std::fs::read(&index_file).unwrap();
    std::fs::write(&index_file, &bytes[..bytes.len() / 2]).unwrap();
    let args = ["-z", "-n", "RAREMARK", "good.log.gz"];
    let (got, want) = (run(&util::tg_bin(), &tree, &args), run(&util::rg_bin(), &tree, &args));
    let err = String::from_utf8_lossy(&got.stderr);
    assert!(err.contains("is unusable") && err.lines().count() == 1, "{err}");
    assert!(got.stdout == want.stdout && got.code == want.code);
    // Rebuilt, it answers again.
    index(&tree, "good.log.gz");
    assert_eq!(check(&tree, &["-n", "RAREMARK", "good.log.gz"]), "block indexes used: 1");
}

/// No progress report.
struct Quiet;

impl Progress for Quiet {
    fn start(&self, _: u64) {}
    fn advance(&self, _: u64) {}
}

#[test]
fn candidates_include_every_block_with_a_match_and_read_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = StdRng::seed_from_u64(2026);
    let patterns = ["RAREMARK", "(?i)oops", "h[35] cron", "usb 1-\\d", "q{30}", "\\r$"];
    for round in 0..4 {
        let path = dir.path().join(format!("r{round}.log.gz"));
        // The last round's text is big enough for deflate-block access
        // points (rapidgzip-core offers them every few hundred KiB).
        let log = text(&mut rng, [5_000, 5_000, 5_000, 120_000][round]);
        std::fs::write(&path, if round == 1 { members(&log, true) } else { gzip(&log) }).unwrap();
        let base = dir.path().join("base");
        let block_size = [4096u64, 16384, 65536, 262_144][round];
        build(&path, &base, block_size, 8192, 16 << 20, &Quiet).unwrap();
        let index = GzIndex::open(&base, &path).unwrap().expect("an index");
        assert_eq!(index.record.text.len, log.len() as u64);
        if round == 3 {
            let with_window = index.record.points.iter().filter(|p| !p.window.is_empty());
            let n = with_window.count();
            assert!(n >= 4, "{n} access points inside the deflate stream");
        }
        let gz = std::sync::Arc::new(std::fs::File::open(&path).unwrap());
        let mut reader = None;
        for (offset, len) in cut(&log, block_size) {
            let mut got = vec![0; len as usize];
            let fresh = index.read_text(&gz, offset, &mut got, None).unwrap();
            assert!(got == log[offset as usize..(offset + len) as usize], "block at {offset}");
            drop(fresh);
            if offset % 3 == 0 {
                continue;
            }
            reader = Some(index.read_text(&gz, offset, &mut got, reader).unwrap());
            assert!(got == log[offset as usize..(offset + len) as usize], "read on to {offset}");
        }
        for p in patterns {
            let candidates = index.candidates(&query_for(&MatchOptions::new(vec![p.into()]), true));
            let candidates = candidates.unwrap();
            let re = regex::bytes::Regex::new(&format!("(?m){p}")).unwrap();
            for (offset, len) in cut(&log, block_size) {
                if re.is_match(&log[offset as usize..(offset + len) as usize]) {
                    assert!(
                        candidates.iter().any(|b| b.offset == offset),
                        "round {round}: {p:?} matches the block at {offset}, not a candidate"
                    );
                }
            }
        }
    }
}

/// A big `.gz` searched without an index is given one in the background,
/// by either driver: the parallel one hands it over to after the walk, as
/// the one-thread driver searches it, so both report it (before the one
/// resolver of how a subject is read, the parallel driver read it on a
/// walker thread and never asked for an index). Big here: at least
/// `TG_CHUNK_THRESHOLD` compressed, and `TG_AUTO_INDEX_MIN` for the build.
#[test]
fn a_big_gz_is_indexed_after_a_search_by_either_driver() {
    let mut rng = StdRng::seed_from_u64(24);
    for threads in ["-j1", "-j2"] {
        let tree = Tree::new(&format!("gz-auto{threads}"));
        let log = text(&mut rng, 20_000);
        tree.write("d/big.log.gz", gzip(&log));
        tree.write("d/small.log.gz", gzip(b"one RAREMARK line\n"));
        let tg = |args: &[&str]| {
            let out = util::tg_command(&tree, tree.root())
                .env("TG_CHUNK_THRESHOLD", "64K")
                .env("TG_AUTO_INDEX_MIN", "65536")
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.code().is_some_and(|c| c < 2), "tg {args:?}: {out:?}");
            out
        };
        let want = run(&util::rg_bin(), &tree, &["-z", "-n", "RAREMARK", "d"]);
        let got = tg(&["-z", "-n", threads, "RAREMARK", "d"]);
        let (w, g) = (util::sorted_lines(&want.stdout), util::sorted_lines(&got.stdout));
        assert!(w == g, "tg -z {threads} differs from rg -z before the index");
        // The build runs detached, at idle priority: wait for its index to answer.
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        let used = loop {
            let stats = tg(&["-z", threads, "--stats", "-q", "RAREMARK", "d"]);
            let err = String::from_utf8_lossy(&stats.stderr).into_owned();
            if err.contains("block indexes used: 1") || std::time::Instant::now() > deadline {
                break err;
            }
            std::thread::sleep(Duration::from_millis(300));
        };
        assert!(used.contains("block indexes used: 1"), "{threads}: no index answers: {used}");
        let got = tg(&["-z", "-n", threads, "RAREMARK", "d"]);
        let g = util::sorted_lines(&got.stdout);
        assert!(w == g, "tg -z {threads} differs from rg -z through the index");
    }
}
