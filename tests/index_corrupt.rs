//! A damaged index must never change an answer ("A corrupt,
//! truncated or foreign index gives one warning and the search falls back
//! to scanning: never a wrong answer, never a panic").
//!
//! A small tree is indexed, then `index.tg` is damaged in place: bytes
//! flipped (in every section, the TOC and every footer field, and at
//! seeded random offsets), truncated to many lengths, replaced with garbage
//! or another magic, or given a format version from the future or the
//! past. The tree itself is not changed, so a search that trusted a damaged
//! index would prune files it must read. After each damage:
//!
//! * `tg --sort path ARGS` prints exactly what `rg --sort path ARGS` prints
//!   and exits with rg's code;
//! * stderr holds exactly one `tg: ` line that mentions the index (or, for
//!   damage a query cannot see — a flipped byte in a posting list it does
//!   not read — nothing, since the answer comes from intact data);
//! * `tg status` exits 2 with one `tg: ` line on stderr (where the damage is
//!   visible when the index is opened), and shows the server's lines.

mod util;

use std::path::PathBuf;

use trigrep::index::format::{FOOTER_LEN, FORMAT_VERSION, Layout, MIN_FORMAT_VERSION};
use trigrep::index::postings::{TRIGRAM_ENTRY_LEN, TrigramEntry};
use trigrep::query::trigram::pack;
use util::{Case, Outcome, Tree, footer};

/// Queries run after each damage: matches, counts, a miss, case folding, a regex.
const QUERIES: &[&[&str]] = &[
    &["-n", "needle", "src"],
    &["-c", "haystack", "src"],
    &["-l", "-i", "NEEDLE", "src"],
    &["zebrafish", "src"],
    &["-n", "hay(stack|rick)s?", "src"],
];

/// What the tree's files hold: `needle` in a few, `haystack` in more.
fn build_tree() -> (Tree, PathBuf) {
    let tree = Tree::new("corrupt");
    for i in 0..24 {
        let mut s = String::new();
        for line in 0..20 {
            s.push_str(&format!("line {line} of file {i}: the haystack is large\n"));
            if (i * 7 + line) % 41 == 0 {
                s.push_str("a Needle in the haystack\n");
            }
            if (i + line) % 13 == 0 {
                s.push_str(&format!("hayrick {i} and more hay\n"));
            }
        }
        tree.write(format!("src/d{}/f{i:02}.txt", i % 3), s);
    }
    tree.write("src/plain.txt", "nothing to see here\n");
    util::tg_index(&tree, "src");
    let base = tree.path(".home/.cache/trigrep/indexes");
    let dir = std::fs::read_dir(&base).unwrap().next().unwrap().unwrap().path();
    (tree, dir.join("index.tg"))
}

/// rg's outcome of each query (the tree never changes).
fn expected(tree: &Tree) -> Vec<Outcome> {
    QUERIES
        .iter()
        .map(|q| {
            let out = util::run(&util::rg_bin(), tree.root(), &Case::new("rg", q.iter()));
            assert!(out.stderr.is_empty(), "rg {q:?}: {}", String::from_utf8_lossy(&out.stderr));
            out
        })
        .collect()
}

/// How a query's stderr must look after a damage.
#[derive(Clone, Copy, PartialEq)]
enum Warn {
    /// Exactly one `tg: ` line mentioning the index.
    One,
    /// Nothing, or that one line.
    Maybe,
}

/// Every query of [`QUERIES`].
const ALL: &[usize] = &[0, 1, 2, 3, 4];

/// Runs the queries `which` (indexes into [`QUERIES`]) on the damaged index
/// and records what differs from rg; returns how many warned.
fn check(
    tree: &Tree,
    rg: &[Outcome],
    label: &str,
    warn: Warn,
    which: &[usize],
    failures: &mut Vec<String>,
) -> usize {
    let mut warned = 0;
    for &i in which {
        let (q, want) = (QUERIES[i], &rg[i]);
        let case = Case::new(format!("{label}: tg {}", q.join(" ")), q.iter());
        let got = util::run(&util::tg_bin(), tree.root(), &case);
        let mut problems = Vec::new();
        if got.code != want.code {
            problems.push(format!("exit code: rg {:?}, tg {:?}", want.code, got.code));
        }
        if got.stdout != want.stdout {
            problems.push(format!(
                "stdout differs:\n--- rg\n{}--- tg\n{}",
                String::from_utf8_lossy(&want.stdout),
                String::from_utf8_lossy(&got.stdout)
            ));
        }
        let err = String::from_utf8_lossy(&got.stderr);
        let one_line = err.lines().count() == 1 && err.starts_with("tg: ") && err.contains("index");
        warned += usize::from(one_line);
        if !(one_line || (warn == Warn::Maybe && err.is_empty())) {
            problems.push(format!("stderr is not one `tg: ...index...` line: {err:?}"));
        }
        if !problems.is_empty() {
            failures.push(format!("{}\n  {}", case.name, problems.join("\n  ")));
        }
    }
    warned
}

/// `tg status` on a damaged index: exit 2, one line on stderr; on stdout,
/// none of the index's figures, but the server's lines (a server
/// may run whatever the index's state).
fn check_status(tree: &Tree, label: &str, failures: &mut Vec<String>) {
    let got =
        util::run(&util::tg_bin(), tree.root(), &Case::new("status", ["status", "src"]).no_sort());
    let err = String::from_utf8_lossy(&got.stderr);
    let shown = String::from_utf8_lossy(&got.stdout);
    let ok = got.code == Some(2)
        && shown.contains("(unusable)")
        && shown.contains("server:     none")
        && !shown.contains("trigrams:")
        && err.lines().count() == 1
        && err.starts_with("tg: ")
        && err.contains("index");
    if !ok {
        failures.push(format!(
            "{label}: tg status src: exit {:?}, stdout {:?}, stderr {err:?}",
            got.code,
            String::from_utf8_lossy(&got.stdout)
        ));
    }
}

fn finish(failures: Vec<String>) {
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n\n"));
}

/// Byte offsets worth flipping: the first, middle and last byte of every
/// section and of the TOC, and the first and last byte of every footer field.
fn interesting_offsets(index: &[u8]) -> Vec<(String, usize)> {
    let layout = Layout::parse(index).unwrap();
    let mut v = Vec::new();
    for s in &layout.sections {
        let (start, len) = (s.offset as usize, s.len as usize);
        if len == 0 {
            continue;
        }
        for (what, at) in [("first", start), ("middle", start + len / 2), ("last", start + len - 1)]
        {
            v.push((format!("section {} {what} byte", s.name), at));
        }
    }
    let body = layout.body_len as usize;
    let toc_start = layout.sections.iter().map(|s| (s.offset + s.len) as usize).max().unwrap();
    for (what, at) in [("first", toc_start), ("middle", (toc_start + body) / 2), ("last", body - 1)]
    {
        v.push((format!("TOC {what} byte"), at));
    }
    let fields = [
        ("toc_offset", 0, 8),
        ("toc_len", 8, 8),
        ("body_len", 16, 8),
        ("body_crc", 24, 4),
        ("toc_crc", 28, 4),
        ("feature_version", 32, 4),
        ("footer_crc", 36, 4),
        ("format_version", 40, 4),
        ("magic", 44, 8),
    ];
    for (name, at, len) in fields {
        v.push((format!("footer {name} first byte"), body + at));
        v.push((format!("footer {name} last byte"), body + at + len - 1));
    }
    v
}

/// Where the posting list of `tri` lies in the file.
fn posting_list(index: &[u8], tri: [u8; 3]) -> std::ops::Range<usize> {
    let layout = Layout::parse(index).unwrap();
    let table = layout.require("trigrams").unwrap();
    let postings = layout.require("postings").unwrap();
    let table = &index[table.offset as usize..(table.offset + table.len) as usize];
    let n = table.len() / TRIGRAM_ENTRY_LEN;
    let i = (0..n).find(|&i| TrigramEntry::decode(table, i).unwrap().trigram == pack(tri)).unwrap();
    let start = TrigramEntry::decode(table, i).unwrap().offset;
    let end = TrigramEntry::decode(table, i + 1).map_or(postings.len, |e| e.offset);
    (postings.offset + start) as usize..(postings.offset + end) as usize
}

#[test]
fn issue_0004_flipped_bytes_fall_back_to_scanning() {
    let (tree, index_file) = build_tree();
    let good = std::fs::read(&index_file).unwrap();
    let rg = expected(&tree);
    let mut failures = Vec::new();
    // Everything checked when the index is opened: every query warns.
    for (what, at) in interesting_offsets(&good) {
        if what.starts_with("section postings") {
            continue; // below: only the queries that read the list can see it
        }
        let mut bad = good.clone();
        bad[at] ^= 0x5a;
        std::fs::write(&index_file, &bad).unwrap();
        let label = format!("flipped {what} (offset {at})");
        check(&tree, &rg, &label, Warn::One, ALL, &mut failures);
        check_status(&tree, &label, &mut failures);
    }
    // A posting list is checked when a query reads it: the `needle` queries
    // (the first, and `-i NEEDLE`) read the list of "nee".
    let list = posting_list(&good, *b"nee");
    for at in [list.start, list.end - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x01;
        std::fs::write(&index_file, &bad).unwrap();
        let label = format!("flipped a byte of the posting list of \"nee\" (offset {at})");
        check(&tree, &rg, &label, Warn::One, &[0, 2], &mut failures);
    }
    // Any byte: never a wrong answer, at most one warning.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut warned = 0;
    let flips = 40;
    for _ in 0..flips {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let at = (state % good.len() as u64) as usize;
        let mut bad = good.clone();
        bad[at] ^= 1 << (state >> 61);
        std::fs::write(&index_file, &bad).unwrap();
        warned +=
            check(&tree, &rg, &format!("flipped offset {at}"), Warn::Maybe, &[0], &mut failures);
    }
    eprintln!(
        "{warned} of {flips} random flips were seen by `tg needle` (the rest hit unread lists)"
    );
    finish(failures);
}

#[test]
fn issue_0004_truncated_index_falls_back_to_scanning() {
    let (tree, index_file) = build_tree();
    let good = std::fs::read(&index_file).unwrap();
    let rg = expected(&tree);
    let mut failures = Vec::new();
    let n = good.len();
    let lengths =
        [0, 1, 8, FOOTER_LEN - 1, FOOTER_LEN, n / 2, n - FOOTER_LEN, n - FOOTER_LEN + 1, n - 1];
    for len in lengths {
        std::fs::write(&index_file, &good[..len]).unwrap();
        let label = format!("truncated to {len} of {n} bytes");
        check(&tree, &rg, &label, Warn::One, ALL, &mut failures);
        check_status(&tree, &label, &mut failures);
    }
    // Grown instead: bytes appended after the footer.
    let mut long = good.clone();
    long.extend_from_slice(b"trailing junk\n");
    std::fs::write(&index_file, &long).unwrap();
    check(&tree, &rg, "14 bytes appended", Warn::One, ALL, &mut failures);
    check_status(&tree, "14 bytes appended", &mut failures);
    finish(failures);
}

#[test]
fn issue_0004_foreign_file_falls_back_to_scanning() {
    let (tree, index_file) = build_tree();
    let good = std::fs::read(&index_file).unwrap();
    let rg = expected(&tree);
    let mut failures = Vec::new();
    let mut noise = Vec::with_capacity(good.len());
    let mut state = 0x9e37_79b9u32;
    for _ in 0..good.len() {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        noise.push((state >> 24) as u8);
    }
    let mut other_magic = good.clone();
    let n = other_magic.len();
    other_magic[n - 8..].copy_from_slice(b"NOTTRIGR");
    let mut near_magic = good.clone();
    near_magic[n - 8..].copy_from_slice(b"TRIGRIDY");
    let cases: [(&str, Vec<u8>); 5] = [
        ("random bytes of the index's length", noise),
        ("a text file", b"this is not an index\n".to_vec()),
        ("an ELF header and zeros", [b"\x7fELF\x02\x01\x01".as_slice(), &[0; 4096]].concat()),
        ("the index with magic NOTTRIGR", other_magic),
        ("the index with magic TRIGRIDY", near_magic),
    ];
    for (what, bytes) in cases {
        std::fs::write(&index_file, &bytes).unwrap();
        let label = format!("index.tg replaced by {what}");
        check(&tree, &rg, &label, Warn::One, ALL, &mut failures);
        check_status(&tree, &label, &mut failures);
    }
    finish(failures);
}

#[test]
fn issue_0004_unsupported_format_version_falls_back_to_scanning() {
    let (tree, index_file) = build_tree();
    let good = std::fs::read(&index_file).unwrap();
    let rg = expected(&tree);
    let mut failures = Vec::new();
    for version in [FORMAT_VERSION + 1, 1000, u32::MAX, MIN_FORMAT_VERSION - 1] {
        std::fs::write(&index_file, footer::with_version(&good, footer::FORMAT, version)).unwrap();
        let label = format!("format version {version}");
        check(&tree, &rg, &label, Warn::One, ALL, &mut failures);
        check_status(&tree, &label, &mut failures);
        let out = util::run(&util::tg_bin(), tree.root(), &Case::new("status", ["status", "src"]));
        if !String::from_utf8_lossy(&out.stderr).contains("version") {
            failures.push(format!("{label}: tg status does not say which version"));
        }
    }
    finish(failures);
}

/// An index whose feature version this build does not use ("same layout,
/// reindex needed": e.g. another trigram folding, or other file times) may
/// hold other trigrams or times than a query expects: every search warns
/// once and scans, older or newer. Version 2, whose documents lack their
/// edges, is still used, with plans that do not ask for them.
#[test]
fn issue_0004_other_feature_versions_warn_and_scan() {
    let (tree, index_file) = build_tree();
    let good = std::fs::read(&index_file).unwrap();
    let rg = expected(&tree);
    let mut failures = Vec::new();
    let feature = footer::read(&good, footer::FEATURE);
    assert_eq!(feature, 4, "this build writes feature version 4");
    // Newer than this build, and older than the oldest it still uses (2).
    for other in [feature + 1, 1] {
        std::fs::write(&index_file, footer::with_version(&good, footer::FEATURE, other)).unwrap();
        let label = format!("feature version {other}");
        check(&tree, &rg, &label, Warn::One, ALL, &mut failures);
    }
    std::fs::write(&index_file, footer::with_version(&good, footer::FEATURE, 2)).unwrap();
    for &i in ALL {
        let q: Vec<&str> = QUERIES[i].iter().chain(&["--stats"]).copied().collect();
        let got = util::run(&util::tg_bin(), tree.root(), &Case::new("feature 2", q.iter()));
        let err = String::from_utf8_lossy(&got.stderr);
        if err.contains("warn")
            || err.contains("another version")
            || !err.contains("candidate documents")
        {
            failures.push(format!(
                "feature version 2: tg {:?} did not use the index: {err}",
                QUERIES[i]
            ));
        }
    }
    check(&tree, &rg, "feature version 2", Warn::Maybe, ALL, &mut failures);
    finish(failures);
}
