//! Remote logs when things go wrong, against a real S3 server (s3s-fs)
//! and a fault-injecting proxy in front of it (`util/s3proxy.rs`): a
//! server stopped (before and during a search) and restarted, connections
//! reset, `503 SlowDown` (retried with backoff, then an error), a body cut
//! short, an object replaced between the listing and the read (a changed
//! ETag), wrong credentials, a missing bucket. Each is one `tg:` line and
//! exit 2, never an answer that looks complete; a fault that passes
//! (a few 503s) leaves rg's answer.
#![cfg(feature = "remote")]

#[path = "util/s3.rs"]
mod s3;
#[path = "util/s3proxy.rs"]
mod s3proxy;
mod util;

use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use s3::S3Server;
use s3proxy::{Fault, FaultProxy};
use util::Tree;
use util::remote::tg;

/// The text of `lines` lines, a few of them with `needle`.
fn text(lines: usize) -> Vec<u8> {
    let mut t = Vec::new();
    for i in 0..lines {
        let word = if i % 97 == 0 { "needle" } else { "hay" };
        t.extend_from_slice(format!("line {i} {word} {}\n", "x".repeat(i % 50)).as_bytes());
    }
    t
}

/// A server with bucket `b` holding `a.log`, `b.log` and a packed
/// `c.log.zst` (of `c.log`, written in `tree`), and a proxy before it.
fn setup(tree: &Tree) -> (S3Server, FaultProxy) {
    let server = S3Server::start();
    server.create_bucket("bkt");
    server.put("bkt", "a.log", &text(2000));
    server.put("bkt", "b.log", &text(3000));
    tree.write("c.log", text(20_000));
    let out = util::tg_command(tree, tree.root())
        .args(["pack", "-q", "--frame-size", "8K", "c.log"])
        .output()
        .unwrap();
    assert!(out.status.success());
    server.put("bkt", "c.log.zst", &std::fs::read(tree.path("c.log.zst")).unwrap());
    let proxy = FaultProxy::start(server.port());
    (server, proxy)
}

/// `out` failed with one `tg: NAME: …` line holding `what`, exit 2, and
/// printed nothing (when `quiet`).
fn failed_once(out: &Output, name: &str, what: &str, quiet: bool) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let why = format!(
        "exit {:?}, stderr:\n{stderr}\nstdout: {} bytes",
        out.status.code(),
        out.stdout.len()
    );
    assert_eq!(out.status.code(), Some(2), "{why}");
    assert_eq!(stderr.lines().count(), 1, "{why}");
    assert!(stderr.starts_with(&format!("tg: {name}: ")), "{why}");
    assert!(stderr.to_lowercase().contains(&what.to_lowercase()), "no {what:?}: {why}");
    if quiet {
        assert!(out.stdout.is_empty(), "{why}");
    }
}

#[test]
fn a_stopped_server_is_one_error_and_a_restarted_one_answers() {
    let tree = Tree::new("s3-stop");
    let (mut server, _proxy) = setup(&tree);
    let env = server.env();
    let want = tg(&tree, &env, &["-c", "needle", "s3://bkt/a.log"]);
    assert_eq!(want.stdout, b"21\n");
    server.stop();
    let started = Instant::now();
    let out = tg(&tree, &env, &["-c", "needle", "s3://bkt/a.log"]);
    failed_once(&out, "s3://bkt/a.log", "connect", true);
    eprintln!("stopped server: failed in {:?}", started.elapsed());
    server.restart();
    assert_eq!(tg(&tree, &env, &["-c", "needle", "s3://bkt/a.log"]).stdout, want.stdout);
}

#[test]
fn a_server_killed_during_a_search_is_an_error_not_an_answer() {
    let tree = Tree::new("s3-down");
    let (server, proxy) = setup(&tree);
    let env = server.env_via(&proxy.endpoint());
    // The listing and a.log pass; the server is killed (SIGKILL) as b.log
    // is asked for, and c.log.zst is asked for after that. (A search asks
    // for the next objects' bytes while it reads the first, so b.log's
    // request may come before a.log's, or as a.log's answer is under way:
    // it waits until a.log was asked for and answered.)
    let pid = server.pid() as libc::pid_t;
    let (asked_a, killed) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    let until = |flag: &AtomicBool| {
        let started = Instant::now();
        while !flag.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    proxy.hook(Box::new(move |line| {
        if line.starts_with("GET /bkt/a.log") {
            asked_a.store(true, Ordering::SeqCst);
        } else if line.starts_with("GET /bkt/b.log") {
            until(&asked_a);
            std::thread::sleep(Duration::from_millis(300));
            // SAFETY: a signal to the test's own child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            std::thread::sleep(Duration::from_millis(100));
            killed.store(true, Ordering::SeqCst);
        } else if line.starts_with("GET /bkt/c.log.zst") {
            until(&killed);
        }
    }));
    let out = tg(&tree, &env, &["--sort", "path", "-c", "needle", "s3://bkt/"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(out.stdout, b"s3://bkt/a.log:21\n", "{stderr}");
    assert!(stderr.starts_with("tg: s3://bkt/b.log: "), "{stderr}");
    assert!(stderr.lines().all(|l| l.starts_with("tg: s3://bkt/")), "{stderr}");
}

#[test]
fn resets_slowdowns_and_cut_bodies() {
    let tree = Tree::new("s3-faults");
    let (server, proxy) = setup(&tree);
    let env = server.env_via(&proxy.endpoint());
    let want = tg(&tree, &server.env(), &["-n", "needle", "s3://bkt/b.log"]);
    assert_eq!(want.status.code(), Some(0));
    // Two 503s: retried with backoff, then rg's answer.
    proxy.set(Fault::SlowDown(2));
    let before = proxy.requests();
    let out = tg(&tree, &env, &["-n", "needle", "s3://bkt/b.log"]);
    assert_eq!((out.stdout.as_slice(), out.status.code()), (want.stdout.as_slice(), Some(0)));
    assert!(proxy.requests() - before >= 3, "the 503s were retried");
    // Always 503: retried, then one clear error.
    proxy.set(Fault::SlowDown(usize::MAX));
    let started = Instant::now();
    let out = tg(&tree, &env, &["-n", "needle", "s3://bkt/b.log"]);
    failed_once(&out, "s3://bkt/b.log", "SlowDown", true);
    assert!(started.elapsed() >= Duration::from_millis(300), "no backoff: {:?}", started.elapsed());
    // Connections reset: an error.
    proxy.set(Fault::Reset);
    let out = tg(&tree, &env, &["-n", "needle", "s3://bkt/b.log"]);
    failed_once(&out, "s3://bkt/b.log", "", true);
    // Bodies cut short (after the headers and a little of the body).
    proxy.set(Fault::Truncate(600));
    let out = tg(&tree, &env, &["-n", "needle", "s3://bkt/b.log"]);
    failed_once(&out, "s3://bkt/b.log", "", true);
    // A packed object whose frames come cut short.
    let out = tg(&tree, &env, &["-n", "needle", "s3://bkt/c.log.zst"]);
    failed_once(&out, "s3://bkt/c.log.zst", "", true);
    proxy.set(Fault::None);
    let out = tg(&tree, &env, &["-n", "needle", "s3://bkt/b.log"]);
    assert_eq!(out.stdout, want.stdout);
}

#[test]
fn an_object_replaced_after_the_listing_is_never_mixed() {
    let tree = Tree::new("s3-replaced");
    let (server, proxy) = setup(&tree);
    let env = server.env_via(&proxy.endpoint());
    // Every GET of the bytes answers with another ETag than the listing's.
    proxy.set(Fault::OtherEtag);
    let out = tg(&tree, &env, &["-c", "needle", "s3://bkt/a.log"]);
    failed_once(&out, "s3://bkt/a.log", "changed", true);
    let out = tg(&tree, &env, &["-c", "needle", "s3://bkt/c.log.zst"]);
    failed_once(&out, "s3://bkt/c.log.zst", "changed", true);
    proxy.set(Fault::None);
    // Really replaced: the first GET of a.log's bytes uploads a new a.log first.
    let replaced = Arc::new(AtomicBool::new(false));
    let r = Arc::clone(&replaced);
    let client = server.client_via("bkt", &server.endpoint());
    proxy.hook(Box::new(move |line| {
        if line.starts_with("GET /bkt/a.log") && !r.swap(true, Ordering::SeqCst) {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let key = object_store::path::Path::from("a.log");
            let new = object_store::PutPayload::from(b"needle replaced\n".to_vec());
            rt.block_on(object_store::ObjectStoreExt::put(client.as_ref(), &key, new)).unwrap();
        }
    }));
    let out = tg(&tree, &env, &["--sort", "path", "-c", "needle", "s3://bkt/"]);
    assert!(replaced.load(Ordering::SeqCst), "a.log was read");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("tg: s3://bkt/a.log: ") && stderr.contains("changed"), "{stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("a.log"), "a.log was answered");
}

#[test]
fn wrong_credentials_and_a_missing_bucket() {
    let tree = Tree::new("s3-denied");
    let (server, _proxy) = setup(&tree);
    let mut env = server.env();
    let out = tg(&tree, &env, &["needle", "s3://nobucket/a.log"]);
    failed_once(&out, "s3://nobucket/a.log", "bucket", true);
    let out = tg(&tree, &env, &["needle", "s3://bkt/missing.log"]);
    failed_once(&out, "s3://bkt/missing.log", "no such object", true);
    env[1].1 = "not-the-secret".into();
    let out = tg(&tree, &env, &["needle", "s3://bkt/a.log"]);
    failed_once(&out, "s3://bkt/a.log", "", true);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("403"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
