//! A packed object whose block index is large (over 1 MiB) is searched
//! through its index read by range: a first reader fetches the index's
//! tables and the posting lists of its query's trigrams, not the whole
//! index, and prints what rg prints of the local copy (queries whose
//! trigram set is empty, one in every frame, no hit, regexes, flags the
//! chunk engine refuses); what it fetched is kept as parts (`.zstpart`,
//! never as the whole index), so the same query again fetches no index
//! byte, and kept parts that do not check are fetched again; a list or
//! table damaged or cut short by the server is one `tg:` line and exit
//! 2, never an answer. A first reader of a needle waits two round trips:
//! the object with its ends and the buckets of its frame directory that
//! its query's trigrams hash to, then the frames the directory names
//! (`pack::directory`); one whose query the directory cannot narrow
//! waits three: the parts of the trigram table its query needs with
//! their lists (the table's directory, `trigram_dir`) come between. A
//! damaged bucket of the directory is an error, read remotely or locally.
#![cfg(feature = "remote")]

#[path = "util/s3.rs"]
mod s3;
#[path = "util/s3proxy.rs"]
mod s3proxy;
mod util;

use std::ops::Range;
use std::path::Path;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use s3::S3Server;
use s3proxy::{Fault, FaultProxy};
use trigrep::query::trigram::pack;
use util::Tree;

const OBJECT: &str = "s3://bkt/app.log.zst";

/// The value of `--stats` line `name` in `stderr` (0: none).
fn stat(stderr: &[u8], name: &str) -> u64 {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().find(|l| l.trim_start().starts_with(name)).unwrap_or("");
    line.split_whitespace().find_map(|w| w.parse().ok()).unwrap_or(0)
}

/// The little-endian integer of `N` bytes at `at`.
fn le<const N: usize>(b: &[u8], at: usize) -> u64 {
    let mut v = [0u8; 8];
    v[..N].copy_from_slice(&b[at..at + N]);
    u64::from_le_bytes(v)
}

/// Where the block index of the container `c` lies, and where its
/// section `name` lies (docs/PACK-FORMAT.md, docs/INDEX-FORMAT.md).
fn section(c: &[u8], name: &str) -> (Range<usize>, Range<usize>) {
    let n = c.len();
    let count = le::<4>(c, n - 9) as usize;
    let table = n - (count * 12 + 17);
    let frame = table - le::<4>(c, table + 8 + (count - 1) * 12) as usize;
    let index = frame + 8..table - 52;
    let footer = index.end - 52;
    let toc = index.start + le::<8>(c, footer) as usize;
    for i in 0..le::<4>(c, toc) as usize {
        let e = toc + 8 + 40 * i;
        if c[e..e + 16].split(|&b| b == 0).next() == Some(name.as_bytes()) {
            let at = index.start + le::<8>(c, e + 16) as usize;
            return (index, at..at + le::<8>(c, e + 24) as usize);
        }
    }
    panic!("no section {name}");
}

/// Where the posting list of the rarest trigram of `word` lies in the
/// container `c` (a search for `word` reads it first), and where its
/// entry of the trigram table does.
fn rarest_list(c: &[u8], word: &[u8]) -> (Range<usize>, Range<usize>) {
    let (_, table) = section(c, "trigrams");
    let (_, postings) = section(c, "postings");
    let entries = table.len() / 20;
    let find = |t: &[u8]| {
        (0..entries)
            .find(|&i| le::<4>(c, table.start + 20 * i) as u32 == pack([t[0], t[1], t[2]]))
            .expect("the trigram is in the index")
    };
    let count = |i: usize| le::<4>(c, table.start + 20 * i + 4);
    let i = word.windows(3).map(find).min_by_key(|&i| count(i)).unwrap();
    let start = le::<8>(c, table.start + 20 * i + 8) as usize;
    let end = match i + 1 < entries {
        true => le::<8>(c, table.start + 20 * (i + 1) + 8) as usize,
        false => postings.len(),
    };
    let entry = table.start + 20 * i..table.start + 20 * (i + 1);
    (postings.start + start..postings.start + end, entry)
}

/// The generated log (`util::logs::log`) with a line of a random trace id
/// after every other line: tens of thousands of distinct trigrams.
fn log() -> Vec<u8> {
    let mut rng = StdRng::seed_from_u64(36);
    let mut out = Vec::new();
    for line in util::logs::log(&mut rng, 100_000, false).split_inclusive(|&b| b == b'\n') {
        out.extend_from_slice(line);
        if line.ends_with(b"\n") && rng.random_bool(0.5) {
            let id: String = (0..12)
                .map(|_| b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.random_range(0..36)] as char)
                .collect();
            out.extend_from_slice(format!("trace {id}\n").as_bytes());
        }
    }
    out
}

/// A log packed in 4 KiB frames (a block index over 1 MiB, the most a
/// reader fetches whole), in `tree` as `app.log` and in a new server's
/// bucket as `app.log.zst`.
fn packed(tree: &Tree) -> (S3Server, Vec<u8>) {
    tree.write("app.log", log());
    let out = util::tg_command(tree, tree.root())
        .args(["pack", "-q", "--frame-size", "4K", "app.log"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let container = std::fs::read(tree.path("app.log.zst")).unwrap();
    let (index, _) = section(&container, "postings");
    assert!(index.len() > 1 << 20, "an index of {} bytes is fetched whole", index.len());
    let server = S3Server::start();
    server.create_bucket("bkt");
    server.put("bkt", "app.log.zst", &container);
    (server, container)
}

#[test]
fn a_large_block_index_is_read_by_range_and_answers_as_rg() {
    let tree = Tree::new("s3-ranged");
    let (server, container) = packed(&tree);
    let env = server.env();
    let (index, _) = section(&container, "postings");
    let queries: &[&[&str]] = &[
        &["-n", "ab"],                        // no trigram: every frame
        &["-c", "Jan"],                       // a trigram in every frame
        &["-c", "-F", "XYZZY-NEEDLE-9999"],   // no hit
        &["-n", "-i", "raremark|page FAULT"], // an alternation, folded
        &["-c", "-e", "Killed process", "-e", "status=1/FAIL"],
    ];
    let mut failures = Vec::new();
    let kept = tree.path("kept");
    for (i, q) in util::logs::QUERIES.iter().chain(queries).enumerate() {
        // A first reader (nothing kept), then one that kept parts of
        // every query before.
        for base in [tree.path(format!("first-{i}")), kept.clone()] {
            let t = util::tg_with(&tree, &env, &base, &[&q[..], &[OBJECT]].concat());
            let r = util::rg_in_root(&tree, &[&q[..], &["app.log"]].concat());
            let why = util::diff::remote_differs(
                &t,
                &r,
                OBJECT,
                "app.log",
                r#""(bytes_printed|bytes_searched)":\d+"#,
            );
            if let Some(why) = why {
                failures.push(format!("tg {q:?} ({}): {why}", base.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // A needle: its frames, named by the frame directory, and no byte of
    // the index but its tail: nothing kept, as nothing of the index was
    // fetched by range.
    let needle = tree.path("needle");
    let args = ["--stats", "-n", "-F", "last line without newline", OBJECT];
    let t = util::tg_with(&tree, &env, &needle, &args);
    assert_eq!(t.status.code(), Some(0), "{}", String::from_utf8_lossy(&t.stderr));
    let fetched = stat(&t.stderr, "bytes fetched");
    eprintln!("a needle: {fetched} bytes fetched, the index is {} bytes", index.len());
    assert!(fetched * 3 < index.len() as u64, "fetched {fetched} bytes");
    assert!(walk(&needle).is_empty(), "kept {:?}", walk(&needle));
    // A word whose trigrams are everywhere (the directory names no few
    // frames): the index's tables and a few lists, not the index.
    let first = tree.path("word");
    let args = ["--stats", "-c", "RAREMARK", OBJECT];
    let t = util::tg_with(&tree, &env, &first, &args);
    assert_eq!(t.status.code(), Some(0), "{}", String::from_utf8_lossy(&t.stderr));
    let fetched = stat(&t.stderr, "bytes fetched");
    eprintln!("a word: {fetched} bytes fetched");
    // Kept as parts, never as the whole index; the same query again
    // fetches the header and the frames only: at least what was kept less.
    let kept: Vec<_> = walk(&first);
    assert!(kept.len() == 1 && kept[0].ends_with(".zstpart"), "kept {kept:?}");
    let kept_len = std::fs::metadata(&kept[0]).unwrap().len();
    assert!(kept_len < index.len() as u64, "kept {kept_len} bytes of the index");
    let again = util::tg_with(&tree, &env, &first, &args);
    let second = stat(&again.stderr, "bytes fetched");
    eprintln!("the same word again: {second} bytes fetched, {kept_len} kept");
    assert!(second + kept_len * 9 / 10 <= fetched, "fetched {fetched}, then {second}");
    let count = |out: &[u8]| out.split(|&b| b == b'\n').next().map(<[u8]>::to_vec);
    assert_eq!(count(&again.stdout), count(&t.stdout));
    assert_eq!(walk(&first), kept, "a part was taken for the whole");
    // Kept parts that do not check are dropped and fetched again.
    let (_, trigrams) = section(&container, "trigrams");
    let mut part = std::fs::read(&kept[0]).unwrap();
    // A byte of the trigram table kept (the table, or the parts of it
    // the query needed: its directory's).
    let (mut flip, mut at) = (None, 0);
    while at < part.len() {
        let (start, len) = (le::<8>(&part, at) as usize, le::<8>(&part, at + 8) as usize);
        let (from, to) = (start.max(trigrams.start), (start + len).min(trigrams.end));
        flip = flip.or_else(|| (from < to).then(|| from + (to - from) / 3));
        at += 16 + len;
    }
    let flip = flip.expect("a part of the trigram table is kept");
    let mut at = 0;
    while at < part.len() {
        let (start, len) = (le::<8>(&part, at) as usize, le::<8>(&part, at + 8) as usize);
        if (start..start + len).contains(&flip) {
            part[at + 16 + flip - start] ^= 0xFF;
        }
        at += 16 + len;
    }
    std::fs::write(&kept[0], &part).unwrap();
    let t = util::tg_with(&tree, &env, &first, &["-c", "RAREMARK", OBJECT]);
    let r = util::rg_in_root(&tree, &["-c", "RAREMARK", "app.log"]);
    assert_eq!((&t.stdout, t.status.code()), (&r.stdout, r.status.code()));
    assert!(t.stderr.is_empty(), "{}", String::from_utf8_lossy(&t.stderr));
    assert!(std::fs::read(&kept[0]).unwrap() != part, "the damaged parts were kept");
}

/// How long the proxy holds each request of a reader whose round trips
/// are counted: requests sent together arrive within a few milliseconds
/// of each other, the next wave only after their answers.
const DELAY: std::time::Duration = std::time::Duration::from_millis(300);

#[test]
fn a_first_reader_waits_two_round_trips_for_a_needle_and_three_for_a_word() {
    use std::sync::{Arc, Mutex};
    use std::time::Instant;
    let tree = Tree::new("s3-ranged-trips");
    let (server, container) = packed(&tree);
    let proxy = FaultProxy::start(server.port());
    let arrivals: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let seen = Arc::clone(&arrivals);
    proxy.hook(Box::new(move |_| {
        seen.lock().unwrap().push(Instant::now());
        std::thread::sleep(DELAY);
    }));
    let env = server.env_via(&proxy.endpoint());
    let (_, table) = section(&container, "trigrams");
    // The listing, the object, its ends and its directory's buckets side
    // by side; then the frames (a needle), or the parts of the trigram
    // table and their lists with the first frame, then the frames.
    for (i, (query, most)) in [("last line without newline", 2), ("RAREMARK", 3)].iter().enumerate()
    {
        arrivals.lock().unwrap().clear();
        let t = util::tg_with(
            &tree,
            &env,
            &tree.path(format!("first-{i}")),
            &["--stats", "-n", query, OBJECT],
        );
        let r = util::rg_in_root(&tree, &["-n", query, "app.log"]);
        assert_eq!(t.status.code(), r.status.code(), "{}", String::from_utf8_lossy(&t.stderr));
        assert!(t.stdout.starts_with(&r.stdout), "tg printed other lines than rg");
        let mut times = arrivals.lock().unwrap().clone();
        times.sort();
        let waves = 1 + times.windows(2).filter(|w| w[1] - w[0] > DELAY / 2).count();
        let fetched = stat(&t.stderr, "bytes fetched");
        eprintln!(
            "{query}: {} requests in {waves} waves, {fetched} bytes (the trigram table: {})",
            times.len(),
            table.len()
        );
        assert!(waves <= *most, "{query}: a first reader waited {waves} round trips");
        // A needle's few bytes are not even the trigram table's.
        assert!(
            *most == 3 || fetched < table.len() as u64,
            "fetched {fetched} bytes, the table is {}",
            table.len()
        );
    }
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<String> {
    util::files_under(dir).iter().map(|p| p.display().to_string()).collect()
}

#[test]
fn a_damaged_or_cut_index_range_is_an_error_never_an_answer() {
    let tree = Tree::new("s3-ranged-faults");
    let (server, container) = packed(&tree);
    let proxy = FaultProxy::start(server.port());
    let env = server.env_via(&proxy.endpoint());
    // The trigram table's entry of the list read (in the part of the
    // table its directory says to read).
    let (rare, entry) = rarest_list(&container, b"RAREMARK");
    let spoiled = [
        ("a posting list", Fault::Flip(rare.start as u64 + 1)),
        ("the trigram table", Fault::Flip(entry.start as u64 + 4)),
        ("a posting list cut", Fault::CutAt(rare.start as u64 + 1)),
    ];
    for (i, (what, fault)) in spoiled.into_iter().enumerate() {
        proxy.set(fault);
        let base = tree.path(format!("reader-{i}"));
        let t = util::tg_with(&tree, &env, &base, &["-n", "RAREMARK", OBJECT]);
        let stderr = String::from_utf8_lossy(&t.stderr);
        assert_eq!(t.status.code(), Some(2), "{what}: {stderr}");
        assert!(t.stdout.is_empty(), "{what}: printed {}", String::from_utf8_lossy(&t.stdout));
        assert_eq!(stderr.lines().count(), 1, "{what}: {stderr}");
        assert!(stderr.starts_with(&format!("tg: {OBJECT}: ")), "{what}: {stderr}");
        assert!(walk(&base).is_empty(), "{what}: kept {:?}", walk(&base));
        // Served sound again: the answer rg gives.
        proxy.set(Fault::None);
        let t = util::tg_with(&tree, &env, &base, &["-n", "RAREMARK", OBJECT]);
        let r = util::rg_in_root(&tree, &["-n", "RAREMARK", "app.log"]);
        assert_eq!((t.stdout, t.status.code()), (r.stdout, r.status.code()), "{what}");
    }
    // Every bucket of the frame directory damaged (it follows the 24
    // bytes of the header frame and the 24 of its own frame's head): a
    // needle read through it is one error, here and in a local copy.
    let mut bad = container.clone();
    bad[48..48 + (1 << 20)].iter_mut().for_each(|b| *b ^= 0x5A);
    server.put("bkt", "bad.log.zst", &bad);
    tree.write("bad.log.zst", &bad);
    let needle = ["-n", "-F", "last line without newline"];
    for (i, at) in ["s3://bkt/bad.log.zst", "bad.log.zst"].iter().enumerate() {
        let t = util::tg_with(
            &tree,
            &env,
            &tree.path(format!("bad-{i}")),
            &[&needle[..], &[at]].concat(),
        );
        let stderr = String::from_utf8_lossy(&t.stderr);
        assert_eq!(t.status.code(), Some(2), "{at}: {stderr}");
        assert!(t.stdout.is_empty(), "{at}: printed {}", String::from_utf8_lossy(&t.stdout));
        assert_eq!(stderr.lines().count(), 1, "{at}: {stderr}");
        assert!(stderr.contains("frame directory"), "{at}: {stderr}");
    }
}
