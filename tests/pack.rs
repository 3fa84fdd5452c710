//! Packed logs: `tg pack LOG` writes a seekable zstd file that
//! `tg PATTERN LOG.zst` searches in place and must print exactly what the
//! pinned `rg` prints for the original `LOG` (same lines, line numbers,
//! offsets, counts, JSON, context across frame edges, `-m`, `-v`), byte for
//! byte, with the same exit code. Frames are 4 KiB here, so a generated log
//! has hundreds of them, lines straddle their edges and one line is longer
//! than a frame. Also: empty and one-line inputs, CRLF, no final newline,
//! NUL bytes (named and walked); another tool's seekable file whose frames
//! end mid-line (`-z`); the round trip through `tg unpack` and `zstd -d`;
//! damaged containers (a flipped byte, a truncation, a future version, a
//! seek table that lies) reported as one error for that file, exit 2, the
//! other files still searched — never a wrong answer.
//!
//! tg's output names `LOG.zst` where rg's names `LOG`: the name is mapped
//! back before comparing, and the JSON `bytes_searched` counts (which count
//! what tg read) and `bytes_printed` (longer names) are blanked.

mod util;

use std::path::Path;
use std::process::Command;

use rand::SeedableRng;
use rand::rngs::StdRng;
use trigrep::pack::format::{Entry, encode_seek_table};
use util::logs::{QUERIES, log};
use util::{Case, Outcome, Tree};

/// More flags, for the packed path in particular.
const MORE: &[&[&str]] = &[
    &["-A", "2", "-n", "RAREMARK"],
    &["-B", "3", "-b", "page fault"],
    &["-C", "4", "-n", "zzzzzzzzzz"],
    &["-m", "1", "-c", "needle"],
    &["-v", "-n", "e"],
    &["-o", "-b", "Killed process \\d+"],
    &["--json", "-C", "1", "RAREMARK"],
    &["-c", "-v", "RAREMARK"],
    &["--files-without-match", "XYZZY"],
    &["--count", "--include-zero", "XYZZY"],
    &["-n", "-U", "RAREMARK\\n.*Jan"],
    &["-a", "-n", "binary"],
];

fn run(program: &Path, tree: &Tree, args: &[&str]) -> Outcome {
    util::run(program, tree.root(), &Case::new(args.join(" "), args).no_sort())
}

/// tg's stdout with `.zst` names mapped back and JSON counts of bytes read blanked.
fn normalise(out: &[u8], zst: Option<&str>) -> Vec<u8> {
    let re = regex::bytes::Regex::new(r#""bytes_(searched|printed)":[0-9]+"#).unwrap();
    let out = util::normalize_stdout(out);
    let out = re.replace_all(&out, &b"\"bytes_$1\":N"[..]);
    let Some(zst) = zst else { return out.into_owned() };
    let plain = zst.trim_end_matches(".zst");
    let name = regex::bytes::Regex::new(&regex::escape(zst)).unwrap();
    name.replace_all(&out, plain.as_bytes()).into_owned()
}

/// `tg FLAGS... PACKED` against `rg FLAGS... ORIGINAL`; returns tg's stderr.
fn check(tree: &Tree, flags: &[&str], original: &str, packed: &str) -> String {
    let want = run(&util::rg_bin(), tree, &[flags, &[original]].concat());
    let got = run(&util::tg_bin(), tree, &[flags, &[packed]].concat());
    let (w, g) = (normalise(&want.stdout, None), normalise(&got.stdout, Some(packed)));
    assert!(
        w == g && want.code == got.code,
        "tg {flags:?} {packed}: exit {:?} vs rg {:?}; tg stderr: {}\nstdout diff (--- rg, +++ tg):\n{}",
        got.code,
        want.code,
        util::preview(&got.stderr, 400),
        util::diff::render(&w, &g, "  ")
    );
    String::from_utf8_lossy(&got.stderr).into_owned()
}

/// Packs `rel` with 4 KiB frames into `rel.zst`.
fn pack(tree: &Tree, rel: &str) {
    let out = util::tg_command(tree, tree.root())
        .args(["pack", "-q", "-f", "--frame-size", "4K", rel])
        .output()
        .unwrap();
    assert!(out.status.success(), "tg pack {rel}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Every query of both lists on `original` against its packed copy; returns the count.
fn check_all(tree: &Tree, original: &str) -> usize {
    let packed = format!("{original}.zst");
    let queries = QUERIES.iter().chain(MORE);
    queries.clone().for_each(|q| {
        check(tree, q, original, &packed);
    });
    queries.count()
}

fn tg_stats(tree: &Tree, args: &[&str]) -> String {
    let out = run(&util::tg_bin(), tree, &[&["--stats", "-q"], args].concat());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn packed_logs_print_what_rg_prints_of_the_original() {
    let tree = Tree::new("pack");
    let mut rng = StdRng::seed_from_u64(13);
    tree.write("app.log", log(&mut rng, 12_000, false));
    tree.write("nul.log", log(&mut rng, 6_000, true));
    tree.write("crlf.log", "a needle\r\nb\r\nc needle\r\n".repeat(2_000));
    tree.write("empty.log", "");
    tree.write("one.log", "just one needle line, no newline");
    tree.write("oneline.log", "one line RAREMARK\n");
    tree.write("wide.log", log(&mut rng, 30_000, false));
    let files =
        ["app.log", "nul.log", "crlf.log", "empty.log", "one.log", "oneline.log", "wide.log"];
    let mut cases = 0;
    for f in files {
        pack(&tree, f);
        cases += check_all(&tree, f);
    }
    // One of 256 frames or more carries a frame directory (version 2): it
    // is searched locally through its whole block index, as version 1 is.
    let version = |f: &str| std::fs::read(tree.path(format!("{f}.zst"))).unwrap()[16];
    assert_eq!((version("wide.log"), version("app.log")), (2, 1));
    // The block index answered a selective query: few frames were read.
    let stats = tg_stats(&tree, &["-n", "RAREMARK", "app.log.zst"]);
    let line = stats.lines().find(|l| l.contains("blocks searched")).unwrap_or_default();
    let (read, of) = line
        .trim()
        .trim_start_matches("blocks searched: ")
        .split_once(" of ")
        .map(|(a, b)| (a.parse::<u64>().unwrap(), b.parse::<u64>().unwrap()))
        .unwrap_or_else(|| panic!("no block statistics in {stats}"));
    assert!(read * 5 < of, "{read} of {of} frames searched");
    // With -z too (rg -z on the original: it is not a compressed name).
    check(&tree, &["-z", "-n", "RAREMARK"], "app.log", "app.log.zst");
    eprintln!("{cases} cases on {} packed files", files.len());
}

#[test]
fn walked_packed_logs() {
    let tree = Tree::new("pack-walk");
    let mut rng = StdRng::seed_from_u64(3);
    tree.write("a/x.log", log(&mut rng, 4_000, false));
    tree.write("b/x.log", log(&mut rng, 4_000, true));
    pack(&tree, "a/x.log");
    pack(&tree, "b/x.log");
    std::fs::remove_file(tree.path("a/x.log")).unwrap();
    std::fs::remove_file(tree.path("b/x.log")).unwrap();
    // rg walks the originals, tg the packed files, each alone in its directory.
    for dir in ["a", "b"] {
        let original = tree.path(format!("orig-{dir}"));
        std::fs::create_dir_all(&original).unwrap();
        let out = Command::new(util::tg_bin())
            .args(["unpack", "-q", "-o"])
            .arg(original.join("x.log"))
            .arg(tree.path(format!("{dir}/x.log.zst")))
            .output()
            .unwrap();
        assert!(out.status.success());
        // Then with a tree index: it never rules out a packed file.
        for indexed in [false, true] {
            if indexed {
                util::tg_index(&tree, dir);
            }
            for q in [&["-n", "RAREMARK"][..], &["-c", "needle"], &["-l", "Out of memory"]] {
                let want = util::rg_command(&tree, &original).args(q).output().unwrap();
                let got = util::tg_command(&tree, tree.path(dir)).args(q).output().unwrap();
                let why = format!("{q:?} in {dir}, indexed: {indexed}");
                let got_out = normalise(&got.stdout, Some("x.log.zst"));
                assert_eq!(normalise(&want.stdout, None), got_out, "{why}");
                assert_eq!(want.status.code(), got.status.code(), "{why}");
            }
        }
    }
}

#[test]
fn round_trips_through_tg_unpack_and_zstd() {
    let tree = Tree::new("pack-trip");
    let mut rng = StdRng::seed_from_u64(21);
    let text = log(&mut rng, 20_000, true);
    tree.write("big.log", &text);
    tree.write("empty.log", "");
    for name in ["big.log", "empty.log"] {
        pack(&tree, name);
        let original = std::fs::read(tree.path(name)).unwrap();
        let packed = tree.path(format!("{name}.zst"));
        // The big log's hundreds of frames carry a frame directory (version
        // 2), which both restore past; the empty one none (version 1).
        let version = std::fs::read(&packed).unwrap()[16];
        assert_eq!(version, if name == "big.log" { 2 } else { 1 }, "{name}.zst");
        let out = util::tg_command(&tree, tree.root())
            .args(["unpack", "-c", &format!("{name}.zst")])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout == original, "tg unpack -c {name}.zst differs");
        let out = Command::new("zstd").args(["-d", "-c", "-q"]).arg(&packed).output();
        let out = out.expect("the zstd command (apt install zstd)");
        assert!(out.status.success(), "zstd -d: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout == original, "zstd -d {name}.zst differs");
        std::fs::remove_file(tree.path(name)).unwrap();
        let out = util::tg_command(&tree, tree.root()).args(["unpack", "-q"]).arg(&packed).output();
        assert!(out.unwrap().status.success());
        assert!(std::fs::read(tree.path(name)).unwrap() == original, "tg unpack {name}.zst");
    }
}

/// A damaged copy of `ok.log.zst` as `bad.log.zst`: every search reports
/// it in one `tg: bad.log.zst: ` line and exits 2, even one whose
/// candidate frames are sound (the container is checked whole
/// before its index is trusted), and every line it prints is one rg
/// prints for the original; `tg unpack` always fails.
fn damaged(tree: &Tree, bytes: &[u8], why: &str) {
    tree.write("bad.log.zst", bytes);
    let want = run(&util::rg_bin(), tree, &["-n", "-H", "RAREMARK", "ok.log"]);
    let want_lines: Vec<&[u8]> = want.stdout.split(|&b| b == b'\n').collect();
    for args in [&["-n", "RAREMARK"][..], &["-v", "-c", "XYZZY"]] {
        let out = run(&util::tg_bin(), tree, &[args, &["ok.log.zst", "bad.log.zst"]].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        let errors = err.lines().filter(|l| l.starts_with("tg: bad.log.zst: ")).count();
        let stdout = normalise(&out.stdout, Some("ok.log.zst"));
        let stdout = normalise(&stdout, Some("bad.log.zst"));
        assert_eq!((out.code, errors), (Some(2), 1), "{why}: {args:?}: {err}");
        if args[0] == "-v" {
            assert!(stdout.starts_with(b"ok.log:"), "{why}: {args:?}");
            continue;
        }
        for line in stdout.split(|&b| b == b'\n') {
            let line =
                line.strip_prefix(b"bad.log:").map_or(line.to_vec(), |l| [b"ok.log:", l].concat());
            assert!(
                want_lines.contains(&&line[..]),
                "{why}: a wrong line: {}",
                String::from_utf8_lossy(&line)
            );
        }
    }
    let unpack = run(&util::tg_bin(), tree, &["unpack", "-c", "bad.log.zst"]);
    assert_eq!(unpack.code, Some(2), "{why}: tg unpack");
}

#[test]
fn damaged_containers_are_errors_never_wrong_answers() {
    let tree = Tree::new("pack-bad");
    let mut rng = StdRng::seed_from_u64(8);
    tree.write("ok.log", log(&mut rng, 6_000, false));
    pack(&tree, "ok.log");
    let good = std::fs::read(tree.path("ok.log.zst")).unwrap();
    let len = good.len();
    for cut in [len - 1, len - 9, len / 2, 30] {
        damaged(&tree, &good[..cut], &format!("truncated to {cut}"));
    }
    // A flipped byte in a data frame, the index, the footer, the seek table.
    for at in [100, len / 3, len - 200, len - 60, len - 20, len - 7] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        damaged(&tree, &bad, &format!("byte {at} flipped"));
    }
    // A version from the future.
    let mut future = good.clone();
    future[16] = 9;
    damaged(&tree, &future, "version 9");
    // A seek table that moves text from one frame to the next.
    let mut lying = good.clone();
    let table =
        len - 9 - 12 * u32::from_le_bytes(good[len - 9..len - 5].try_into().unwrap()) as usize;
    let size = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let (d1, d2) = (table + 12 + 4, table + 24 + 4);
    lying[d1..d1 + 4].copy_from_slice(&(size(&good, d1) - 1).to_le_bytes());
    lying[d2..d2 + 4].copy_from_slice(&(size(&good, d2) + 1).to_le_bytes());
    damaged(&tree, &lying, "a lying seek table");
}

#[test]
fn another_tools_seekable_file_is_searched_with_z() {
    let tree = Tree::new("pack-foreign");
    let mut rng = StdRng::seed_from_u64(4);
    let text = log(&mut rng, 5_000, false);
    tree.write("app.log", &text);
    // Frames of 1000 bytes, cut anywhere, no tg frames; an empty one too.
    let mut file = Vec::new();
    let mut entries = Vec::new();
    for (i, piece) in text.chunks(1000).enumerate() {
        for part in if i == 3 { vec![&piece[..0], piece] } else { vec![piece] } {
            let frame = zstd::bulk::compress(part, 3).unwrap();
            entries.push(Entry {
                compressed: frame.len() as u32,
                decompressed: part.len() as u32,
                checksum: 0,
            });
            file.extend_from_slice(&frame);
        }
    }
    file.extend_from_slice(&encode_seek_table(&entries));
    tree.write("app.log.zst", &file);
    for q in QUERIES.iter().chain(MORE) {
        check(&tree, &[&["-z"], *q].concat(), "app.log", "app.log.zst");
    }
    // Without -z it is rg's binary file, as rg sees it.
    let want = run(&util::rg_bin(), &tree, &["-c", "e", "app.log.zst"]);
    let got = run(&util::tg_bin(), &tree, &["-c", "e", "app.log.zst"]);
    assert_eq!((want.stdout, want.code), (got.stdout, got.code));
}
