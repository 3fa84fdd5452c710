//! SQL over a bucket when things go wrong, embedded and on a
//! Ballista cluster: a missing bucket, wrong credentials, the server
//! stopped in the middle of a query (after the listing), an object
//! replaced after the query was planned (another ETag); a glob that
//! matches no object, as a local one matching no file. Each is one
//! `tg: sql: ...` line naming the cause and exit 2, never rows that look
//! like an answer.

#[path = "util/bucket.rs"]
mod bucket;
#[path = "../../tests/util/s3.rs"]
mod s3;
#[path = "../../tests/util/s3proxy.rs"]
mod s3proxy;
mod util;

use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bucket::{Bucket, REMOTE};
use s3proxy::FaultProxy;
use util::cluster::Cluster;

/// `out` failed with one `tg: sql: ` line holding each of `what`, exit 2,
/// no rows.
fn failed_once(out: &Output, what: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let why = format!("exit {:?}, stderr:\n{stderr}\nstdout: {:?}", out.status.code(), out.stdout);
    assert_eq!(out.status.code(), Some(2), "{why}");
    assert_eq!(stderr.lines().count(), 1, "{why}");
    assert!(stderr.starts_with("tg: sql: "), "{why}");
    for w in what {
        assert!(stderr.to_lowercase().contains(&w.to_lowercase()), "no {w:?}: {why}");
    }
    assert!(out.stdout.is_empty(), "{why}");
}

/// Where a query runs.
#[derive(Clone, Copy, Debug)]
enum On {
    /// In the client.
    Embedded,
    /// On a cluster (scheduler and executors with the same environment).
    Cluster,
}

/// Runs `query` with `env` on `on`.
fn run(b: &Bucket, env: &[(&'static str, String)], on: On, query: &str) -> Output {
    let cluster;
    let mut args = vec!["--format", "json", "--partitions", "4"];
    let address;
    if let On::Cluster = on {
        let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        cluster = Cluster::start_apart(&b.fx, &pairs);
        address = cluster.address();
        args.extend(["--scheduler", address.as_str()]);
    }
    args.push(query);
    b.sql_in(b.fx.dir.path(), &b.fx.index_dir(), env, &args)
}

/// The environment of `b` with `name` set to `value`.
fn with(b: &Bucket, name: &str, value: &str) -> Vec<(&'static str, String)> {
    let mut env = b.env();
    env.iter_mut().filter(|(k, _)| *k == name).for_each(|(_, v)| *v = value.into());
    env
}

#[test]
fn issue_0036_a_missing_bucket_wrong_credentials_and_no_match_are_one_line() {
    let b = Bucket::new();
    for on in [On::Embedded, On::Cluster] {
        let q = "SELECT count(*) FROM lines('s3://nobucket/logs/')";
        failed_once(&run(&b, &b.env(), on, q), &["s3://nobucket/logs/", "no such bucket"]);
        let env = with(&b, "AWS_SECRET_ACCESS_KEY", "wrong");
        let q = format!("SELECT count(*) FROM lines('{REMOTE}/')");
        failed_once(&run(&b, &env, on, &q), &[REMOTE]);
        let q = format!("SELECT count(*) FROM lines('{REMOTE}/nothing-here/*.log')");
        failed_once(&run(&b, &b.env(), on, &q), &["nothing-here/*.log: no object matches"]);
    }
}

#[test]
fn issue_0036_a_server_stopped_mid_query_is_one_line() {
    for on in [On::Embedded, On::Cluster] {
        let mut b = Bucket::new();
        let proxy = FaultProxy::start(b.server.port());
        let pid = b.server.pid().to_string();
        // The first read of an object's bytes (after the listing) stops
        // the server.
        proxy.hook(Box::new(move |line| {
            if line.starts_with("GET /bkt/logs/") {
                let _ = std::process::Command::new("kill").args(["-KILL", &pid]).status();
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }));
        let env = b.server.env_via(&proxy.endpoint());
        let q = format!("SELECT count(*) FROM lines('{REMOTE}/') WHERE line LIKE '%XYZZY%'");
        failed_once(&run(&b, &env, on, &q), &["s3://bkt/logs/"]);
        assert!(proxy.requests() > 1, "{on:?}: no object was read");
        b.server.stop();
    }
}

#[test]
fn issue_0036_an_object_replaced_after_planning_is_never_mixed() {
    for on in [On::Embedded, On::Cluster] {
        let b = Bucket::new();
        let proxy = FaultProxy::start(b.server.port());
        let replaced = Arc::new(AtomicBool::new(false));
        let r = Arc::clone(&replaced);
        let client = b.server.client_via(bucket::BUCKET, &b.server.endpoint());
        // The first read of app.log's bytes (after the listing) uploads
        // another app.log first.
        proxy.hook(Box::new(move |line| {
            if line.starts_with("GET /bkt/logs/app.log ") && !r.swap(true, Ordering::SeqCst) {
                let rt =
                    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                let key = object_store::path::Path::from("logs/app.log");
                let new = object_store::PutPayload::from(b"XYZZY replaced\n".to_vec());
                rt.block_on(object_store::ObjectStoreExt::put(client.as_ref(), &key, new)).unwrap();
            }
        }));
        let env = b.server.env_via(&proxy.endpoint());
        let table = format!("lines('{REMOTE}/**/*.log*')");
        let q = format!("SELECT path, line FROM {table} WHERE line LIKE '%XYZZY%'");
        let out = run(&b, &env, on, &q);
        assert!(replaced.load(Ordering::SeqCst), "{on:?}: app.log was never read");
        failed_once(&out, &["s3://bkt/logs/app.log", "changed"]);
    }
}
