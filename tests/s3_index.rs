//! Index objects: `tg index s3://BUCKET/KEY` writes an object's block
//! index beside it (`KEY.tgidx`), and a reader with another index
//! directory (another machine) reads only the candidate blocks through
//! it, building nothing, printing what `rg` prints of the local copy; the
//! copy it keeps is keyed by the object's ETag and size, so an object
//! replaced since is read whole, never answered from the old index. An
//! object under a prefix is read through its index object too, fetched
//! ahead of its search (with its HEAD where the listing gave no ETag).
#![cfg(feature = "remote")]

#[path = "util/s3.rs"]
mod s3;
mod util;

use std::path::Path;
use std::process::Output;

use rand::SeedableRng;
use rand::rngs::StdRng;
use s3::S3Server;
use util::Tree;

/// What differs between tg's output and rg's (`util::diff::remote_differs`):
/// JSON's bytes printed (names included) and read (an index reads fewer) blanked.
fn differs(tg: &Output, rg: &Output, remote: &str, local: &str) -> Option<String> {
    util::diff::remote_differs(tg, rg, remote, local, r#""(bytes_printed|bytes_searched)":\d+"#)
}

/// The value of `--stats` line `name` in `stderr` (0: none).
fn stat(stderr: &[u8], name: &str) -> u64 {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().find(|l| l.trim_start().starts_with(name)).unwrap_or("");
    line.split_whitespace().find_map(|w| w.parse().ok()).unwrap_or(0)
}

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path) -> Vec<String> {
    let relative = |p: std::path::PathBuf| p.strip_prefix(dir).unwrap().display().to_string();
    util::files_under(dir).into_iter().map(relative).collect()
}

/// A server with `app.log` (a generated log, also in `tree`) indexed by
/// `tg index` from the index directory `builder`.
fn indexed_log(tree: &Tree, builder: &Path) -> (S3Server, Vec<u8>) {
    let mut rng = StdRng::seed_from_u64(37);
    let log = util::logs::log(&mut rng, 60_000, false);
    tree.write("app.log", &log);
    let server = S3Server::start();
    server.create_bucket("bkt");
    server.put("bkt", "app.log", &log);
    let out = util::tg_with(
        tree,
        &server.env(),
        builder,
        &["index", "--block-size", "16K", "s3://bkt/app.log"],
    );
    assert!(out.status.success(), "tg index: {}", String::from_utf8_lossy(&out.stderr));
    assert!(server.data().join("bkt/app.log.tgidx").is_file(), "no index object beside it");
    (server, log)
}

#[test]
fn another_machine_reads_only_candidate_blocks_through_the_index_object() {
    let tree = Tree::new("s3-index");
    let (server, log) = indexed_log(&tree, &tree.path("machine-a"));
    let (env, reader) = (server.env(), tree.path("machine-b"));
    let mut failures = Vec::new();
    for q in util::logs::QUERIES {
        let t = util::tg_with(&tree, &env, &reader, &[&q[..], &["s3://bkt/app.log"]].concat());
        let r = util::rg_in_root(&tree, &[&q[..], &["app.log"]].concat());
        if let Some(why) = differs(&t, &r, "s3://bkt/app.log", "app.log") {
            failures.push(format!("tg {q:?}: {why}"));
        }
    }
    // A prefix: the index object is tg's, not a text to search.
    let t = util::tg_with(&tree, &env, &reader, &["-c", "page fault", "s3://bkt/"]);
    let r = util::rg_in_root(&tree, &["-c", "-H", "page fault", "app.log"]);
    if let Some(why) = differs(&t, &r, "s3://bkt/app.log", "app.log") {
        failures.push(format!("tg -c over the prefix: {why}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let t = util::tg_with(&tree, &env, &reader, &["--stats", "-n", "RAREMARK", "s3://bkt/app.log"]);
    let stderr = String::from_utf8_lossy(&t.stderr).into_owned();
    let (searched, fetched) =
        (stat(&t.stderr, "blocks searched"), stat(&t.stderr, "bytes fetched"));
    eprintln!("RAREMARK: {searched} blocks, {fetched} of {} bytes fetched", log.len());
    assert!(stderr.contains("block index used"), "{stderr}");
    assert!(fetched * 2 < log.len() as u64, "fetched {fetched} of {} bytes: {stderr}", log.len());
    // The reader built nothing: it keeps the index object, and only that.
    let kept = files_under(&reader);
    assert!(
        kept.len() == 1 && kept[0].starts_with("remote/") && kept[0].ends_with(".tgidx"),
        "the reader's index directory holds {kept:?}"
    );
}

#[test]
fn an_object_under_a_prefix_is_read_through_its_index_object_fetched_ahead() {
    let tree = Tree::new("s3-index-prefix");
    let (server, log) = indexed_log(&tree, &tree.path("machine-a"));
    let (env, reader) = (server.env(), tree.path("machine-b"));
    // s3s-fs lists no ETags: the object's HEAD comes with its index object.
    let t = util::tg_with(&tree, &env, &reader, &["-n", "RAREMARK", "s3://bkt/"]);
    let r = util::rg_in_root(&tree, &["-H", "-n", "RAREMARK", "app.log"]);
    if let Some(why) = differs(&t, &r, "s3://bkt/app.log", "app.log") {
        panic!("over the prefix: {why}");
    }
    let reader = tree.path("machine-c");
    let t = util::tg_with(&tree, &env, &reader, &["--stats", "-n", "RAREMARK", "s3://bkt/"]);
    let (stderr, fetched) = (String::from_utf8_lossy(&t.stderr), stat(&t.stderr, "bytes fetched"));
    eprintln!("RAREMARK over the prefix: {fetched} of {} bytes fetched", log.len());
    assert!(stderr.contains("block index used"), "{stderr}");
    assert!(fetched * 2 < log.len() as u64, "fetched {fetched} of {} bytes: {stderr}", log.len());
}

#[test]
fn a_replaced_object_is_never_answered_from_its_old_index() {
    let tree = Tree::new("s3-index-replaced");
    let (server, log) = indexed_log(&tree, &tree.path("machine-a"));
    let (env, reader) = (server.env(), tree.path("machine-b"));
    let q = ["-n", "XYZZY-NEW"];
    // Read once: its index is kept under the object's ETag and size.
    let t = util::tg_with(&tree, &env, &reader, &["--stats", q[0], q[1], "s3://bkt/app.log"]);
    assert!(String::from_utf8_lossy(&t.stderr).contains("block index used"));
    // The same size, a line in the middle rewritten with a new word.
    let mut new = log.clone();
    let at = new.len() / 2;
    let start = at + new[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
    new[start..start + 9].copy_from_slice(b"XYZZY-NEW");
    tree.write("app.log", &new);
    server.put("bkt", "app.log", &new);
    let t = util::tg_with(&tree, &env, &reader, &[&q[..], &["s3://bkt/app.log"]].concat());
    let r = util::rg_in_root(&tree, &[&q[..], &["app.log"]].concat());
    assert!(r.status.success(), "rg found no new line");
    if let Some(why) = differs(&t, &r, "s3://bkt/app.log", "app.log") {
        panic!("after the object was replaced: {why}");
    }
}

#[test]
fn a_log_packed_into_a_bucket_is_read_by_another_machine_building_nothing() {
    let tree = Tree::new("s3-pack-upload");
    let mut rng = StdRng::seed_from_u64(38);
    tree.write("app.log", util::logs::log(&mut rng, 60_000, false));
    let server = S3Server::start();
    server.create_bucket("bkt");
    let (env, writer, reader) = (server.env(), tree.path("machine-a"), tree.path("machine-b"));
    // 4 KiB frames: a block index larger than the container's ends a
    // reader fetches first (64 KiB), fetched apart and kept.
    let pack = ["pack", "-q", "--frame-size", "4K", "app.log", "-o", "s3://bkt/app.log.zst"];
    let out = util::tg_with(&tree, &env, &writer, &pack);
    assert!(out.status.success(), "tg pack: {}", String::from_utf8_lossy(&out.stderr));
    // The object is the container a local pack writes, byte for byte.
    let local =
        util::tg_with(&tree, &env, &writer, &["pack", "-q", "--frame-size", "4K", "app.log"]);
    assert!(local.status.success(), "{}", String::from_utf8_lossy(&local.stderr));
    let uploaded = std::fs::read(server.data().join("bkt/app.log.zst")).unwrap();
    assert!(uploaded == std::fs::read(tree.path("app.log.zst")).unwrap(), "the objects differ");
    // Not replaced without --force.
    let again = util::tg_with(&tree, &env, &writer, &pack);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.code() == Some(2) && stderr.contains("exists"), "{stderr}");
    let t =
        util::tg_with(&tree, &env, &reader, &["--stats", "-n", "RAREMARK", "s3://bkt/app.log.zst"]);
    let stderr = String::from_utf8_lossy(&t.stderr).into_owned();
    assert!(stderr.contains("block index used"), "{stderr}");
    // The reader built nothing: it keeps the block index it fetched, and
    // the next query fetches the container's ends and frames only.
    let kept = files_under(&reader);
    assert!(
        kept.len() == 1 && kept[0].starts_with("remote/") && kept[0].ends_with(".zstidx"),
        "the reader's index directory holds {kept:?}"
    );
    let kept_len = std::fs::metadata(reader.join(&kept[0])).unwrap().len();
    let again =
        util::tg_with(&tree, &env, &reader, &["--stats", "-n", "RAREMARK", "s3://bkt/app.log.zst"]);
    let (first, second) = (stat(&t.stderr, "bytes fetched"), stat(&again.stderr, "bytes fetched"));
    eprintln!("RAREMARK: {first} bytes fetched, then {second} (index kept: {kept_len} bytes)");
    assert!(second + kept_len <= first, "fetched {first}, then {second} with the index kept");
    // Every query through the kept index prints what rg prints.
    let mut failures = Vec::new();
    for q in util::logs::QUERIES {
        let t = util::tg_with(&tree, &env, &reader, &[&q[..], &["s3://bkt/app.log.zst"]].concat());
        let r = util::rg_in_root(&tree, &[&q[..], &["app.log"]].concat());
        if let Some(why) = differs(&t, &r, "s3://bkt/app.log.zst", "app.log") {
            failures.push(format!("tg {q:?}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
