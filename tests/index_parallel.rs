//! The tree index built on every core is the one-thread build's, byte for
//! byte. A generated tree (text of several sizes, CRLF, a binary file, a
//! UTF-16 file, an empty one, one large enough to be mapped) is indexed
//! with `-j1` and with `-j4` under a sort budget small enough to spill
//! dozens of runs and merge them in several passes; both `index.tg` files
//! must be equal, and queries answered from the parallel one print what
//! rg prints.

mod util;

use std::path::{Path, PathBuf};

use util::{Case, Report, Tree};

/// A small deterministic generator.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Writes the tree under `repo/`: 400 text files in 20 directories, of
/// random words (some repeated across files, some rare), and the odd
/// files; returns the words, most common first.
fn generate(t: &Tree) -> Vec<String> {
    let mut r = Lcg(38);
    let words: Vec<String> = (0..300)
        .map(|_| {
            let len = 3 + r.below(8);
            (0..len).map(|_| (b'a' + r.below(26) as u8) as char).collect()
        })
        .collect();
    let text = |r: &mut Lcg, bytes: u64, crlf: bool| {
        let mut s = String::new();
        while (s.len() as u64) < bytes {
            for _ in 0..1 + r.below(10) {
                // Zipf-like: most words are common, a few rare.
                let w = &words[(r.below(300) * r.below(300) / 300) as usize];
                s.push_str(w);
                s.push(' ');
            }
            s.push_str(if crlf { "\r\n" } else { "\n" });
        }
        s
    };
    for i in 0..400 {
        let size = [0, 40, 700, 3_000, 12_000][r.below(5) as usize] + r.below(500);
        let body = text(&mut r, size, i % 17 == 0);
        t.write(format!("repo/d{:02}/f{i:03}.txt", i % 20), body);
    }
    t.write("repo/empty.txt", "");
    let mut binary = text(&mut r, 2_000, false).into_bytes();
    binary.insert(1_000, 0);
    t.write("repo/d03/binary.dat", binary);
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain("needle utf16\n".encode_utf16().flat_map(|u| u.to_le_bytes()))
        .collect();
    t.write("repo/d04/utf16.txt", utf16);
    // Past the size from which the build maps a file instead of reading it.
    t.write("repo/big/large.txt", text(&mut r, 9 << 20, false));
    words
}

/// The one `index.tg` under `dir`.
fn index_file(dir: &Path) -> PathBuf {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.file_name().is_some_and(|n| n == "index.tg") {
                found.push(p);
            }
        }
    }
    assert_eq!(found.len(), 1, "one index under {}: {found:?}", dir.display());
    found.pop().unwrap()
}

/// Indexes `repo` with `threads` threads into `base` (or where queries
/// look); returns `--stats`.
fn build(t: &Tree, threads: &str, base: Option<&Path>) -> String {
    let mut cmd = util::tg_command(t, t.root());
    cmd.args(["index", "--stats", "--index-memory", "1M", "-j", threads]);
    if let Some(base) = base {
        cmd.arg("--index-dir").arg(base);
    }
    let out = cmd.arg("repo").output().expect("spawn tg index");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "tg index -j{threads} failed: {stderr}");
    stderr
}

/// The number before `what` in `text` (`12 runs` → 12).
fn count_before(text: &str, what: &str) -> u64 {
    let at = text.find(what).unwrap_or_else(|| panic!("no {what:?} in {text}"));
    let digits: String =
        text[..at].trim_end().chars().rev().take_while(char::is_ascii_digit).collect();
    digits.chars().rev().collect::<String>().parse().unwrap()
}

#[test]
fn parallel_build_is_the_one_thread_build_byte_for_byte() {
    let t = Tree::new("index-parallel");
    let words = generate(&t);
    let one = build(&t, "1", Some(&t.path("one")));
    let four = build(&t, "4", None);
    for stats in [&one, &four] {
        assert!(count_before(stats, "runs") >= 8, "a spill of many runs: {stats}");
        assert!(count_before(stats, "merge passes") >= 1, "a multi-pass merge: {stats}");
    }
    let (a, b) = (index_file(&t.path("one")), index_file(&t.path(".home")));
    let (a, b) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    assert!(a.len() > 100_000, "an index of some size: {} bytes", a.len());
    if let Some(at) = a.iter().zip(&b).position(|(x, y)| x != y) {
        panic!("the indexes differ at byte {at} (of {} and {} bytes)", a.len(), b.len());
    }
    assert_eq!(a.len(), b.len());

    // The parallel index, where queries find it, answers as rg.
    let mut report = Report::new("index_parallel");
    let rare = format!("{} {}", words[298], words[299]);
    let either = format!("{}|{}", words[5], words[250]);
    let upper = words[1].to_uppercase();
    for (name, q) in [
        ("needle", &["-n", "needle"][..]),
        ("common", &["-c", &words[0]]),
        ("rare", &["-n", &rare]),
        ("regex", &["-n", "[a-c][d-f][g-i]x"]),
        ("words", &["-l", "-w", &either]),
        ("i", &["-i", "-c", &upper]),
        ("binary", &["-c", "-a", &words[2]]),
    ] {
        report.check(&t, &Case::new(format!("repo/{name}"), q).cwd("repo"));
    }
    let stats = util::tg_command(&t, t.path("repo")).args(["--stats", "-l", &rare]).output();
    let stats = String::from_utf8_lossy(&stats.expect("run tg").stderr).into_owned();
    assert!(stats.contains("tg: index: ") && stats.contains("candidate documents"), "{stats}");
    report.finish();
}
