//! Remote logs: `tg PATTERN s3://…` against a real S3 server (s3s-fs on
//! 127.0.0.1, `util/s3.rs`) prints byte for byte what `rg` prints of the
//! same files on disk: objects named, prefixes walked like directories
//! (hidden keys skipped), globs, `-z` on a `.gz` object, a packed
//! container read by range through its block index (`--stats`: requests
//! and bytes fetched, a fraction of the object); credentials from the
//! environment or from an AWS CLI profile.
#![cfg(feature = "remote")]

#[path = "util/s3.rs"]
mod s3;
mod util;

use s3::S3Server;
use util::Tree;
use util::remote::{differs, rg, stat, tg};

#[test]
fn objects_prefixes_and_globs_print_what_rg_prints_of_the_local_copy() {
    let tree = Tree::new("s3-diff");
    util::logs::remote_tree(&tree);
    let server = S3Server::start();
    server.create_bucket("logs");
    server.put_tree("logs", "", &tree.path("logs"));
    let env = server.env();
    let mut failures = Vec::new();
    let mut cases = 0;
    for q in util::logs::QUERIES {
        // (tg's paths, rg's paths, what tg's names read as)
        let shapes: &[(&[&str], &[&str], &str, &str)] = &[
            (&["s3://logs/app/a.log"], &["logs/app/a.log"], "s3://logs/", "logs/"),
            (&["s3://logs/app/"], &["logs/app/"], "s3://logs/", "logs/"),
            (&["s3://logs"], &["logs"], "s3://logs", "logs"),
            (&["s3://logs/app"], &["logs/app"], "s3://logs/", "logs/"),
            (
                &["s3://logs/app/*.log"],
                &["logs/app/a.log", "logs/app/b.log"],
                "s3://logs/",
                "logs/",
            ),
            // A glob of one object: named alone, as a shell's expansion is.
            (&["s3://logs/web/*.gz"], &["logs/web/d.log.gz"], "s3://logs/", "logs/"),
            (
                &["s3://logs/web/c.log", "s3://logs/app/b.log"],
                &["logs/web/c.log", "logs/app/b.log"],
                "s3://logs/",
                "logs/",
            ),
        ];
        for (remote, local, from, to) in shapes {
            // Without --sort, a walk's order is the directory's: one object only.
            let unsorted = remote.len() == 1 && remote[0].ends_with("a.log");
            let extras: &[&[&str]] = if unsorted {
                &[&["--sort", "path"], &["-z", "--sort", "path"], &[]]
            } else {
                &[&["--sort", "path"], &["-z", "--sort", "path"]]
            };
            for extra in extras {
                let args: Vec<&str> = [*extra, *q].concat();
                let t = tg(&tree, &env, &[&args[..], remote].concat());
                let r = rg(&tree, &[&args[..], local].concat());
                cases += 1;
                if let Some(why) = differs(&t, &r, from, to) {
                    failures.push(format!("tg {args:?} {remote:?} vs rg on {local:?}: {why}"));
                }
            }
        }
    }
    eprintln!("{cases} cases, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn hidden_objects_are_searched_with_hidden() {
    let tree = Tree::new("s3-hidden");
    util::logs::remote_tree(&tree);
    let server = S3Server::start();
    server.create_bucket("logs");
    server.put_tree("logs", "", &tree.path("logs"));
    let env = server.env();
    let args = ["--hidden", "--sort", "path", "-n", "RAREMARK"];
    let t = tg(&tree, &env, &[&args[..], &["s3://logs/"]].concat());
    let r = rg(&tree, &[&args[..], &["logs/"]].concat());
    assert_eq!(differs(&t, &r, "s3://logs/", "logs/"), None);
    assert!(String::from_utf8_lossy(&t.stdout).contains("s3://logs/.hidden/h.log"));
}

#[test]
fn a_packed_object_is_read_by_range_through_its_block_index() {
    let tree = Tree::new("s3-packed");
    let packed = util::remote::packed_log(&tree);
    let server = S3Server::start();
    server.create_bucket("bkt");
    server.put("bkt", "big.log.zst", &packed);
    let env = server.env();
    let mut failures = Vec::new();
    for q in util::logs::QUERIES {
        let t = tg(&tree, &env, &[&q[..], &["s3://bkt/big.log.zst"]].concat());
        let r = rg(&tree, &[&q[..], &["big.log"]].concat());
        if let Some(why) = differs(&t, &r, "s3://bkt/big.log.zst", "big.log") {
            failures.push(format!("tg {q:?}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // A literal of one line: the ends, the block index and one frame.
    let t = tg(&tree, &env, &["--stats", "-n", "last line without", "s3://bkt/big.log.zst"]);
    let (requests, fetched) =
        (stat(&t.stderr, "object store requests"), stat(&t.stderr, "bytes fetched"));
    let blocks = String::from_utf8_lossy(&t.stderr)
        .lines()
        .find(|l| l.contains("blocks searched"))
        .unwrap_or("")
        .to_string();
    eprintln!("one line: {requests} requests, {fetched} of {} bytes; {blocks}", packed.len());
    assert!(fetched * 3 < packed.len() as u64, "fetched {fetched} of {} bytes", packed.len());
    assert!(requests <= 8, "{requests} requests");
}

#[test]
fn credentials_and_endpoint_come_from_an_aws_profile() {
    let tree = Tree::new("s3-profile");
    let server = S3Server::start();
    server.create_bucket("prof");
    server.put("prof", "k.log", b"one\nneedle two\n");
    let aws = tree.path(".home/.aws");
    std::fs::create_dir_all(&aws).unwrap();
    let credentials = format!(
        "[test]\naws_access_key_id = {}\naws_secret_access_key = {}\n",
        s3::KEY_ID,
        s3::SECRET
    );
    std::fs::write(aws.join("credentials"), credentials).unwrap();
    let config =
        format!("[profile test]\nregion = us-east-1\nendpoint_url = {}\n", server.endpoint());
    std::fs::write(aws.join("config"), config).unwrap();
    let env = [("AWS_PROFILE", "test".to_string()), ("AWS_EC2_METADATA_DISABLED", "true".into())];
    let t = tg(&tree, &env, &["-n", "needle", "s3://prof/k.log"]);
    assert_eq!(
        (t.stdout.as_slice(), t.status.code()),
        (&b"2:needle two\n"[..], Some(0)),
        "{}",
        String::from_utf8_lossy(&t.stderr)
    );
    // Without the profile there are no credentials: one line, exit 2.
    let t = tg(&tree, &env[1..], &["needle", "s3://prof/k.log"]);
    let stderr = String::from_utf8_lossy(&t.stderr);
    assert_eq!((t.status.code(), stderr.lines().count()), (Some(2), 1), "{stderr}");
    assert!(stderr.starts_with("tg: s3://prof/k.log: no AWS credentials"), "{stderr}");
}
