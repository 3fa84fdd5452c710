//! `tg view s3://BUCKET/KEY` (tmux, 120×40, `util/view.rs`) against a
//! real S3 server (s3s-fs, `util/s3.rs`) behind a counting proxy
//! (`util/s3proxy.rs`): a packed object (4 KiB frames, the block index it
//! carries) and a plain object with an index object beside it (`tg index
//! s3://…`, 4 KiB blocks) show the first screen and jump (`NG`, `N%`) as
//! sed prints the lines, and `/needle` reaches rg's first match, having
//! fetched a fraction of the object by range; scrolling on past the
//! middle of a piece of text fetches the next piece ahead, unasked; a
//! plain object without an index object is fetched into a spool, as
//! stdin is. A packed object in Google Cloud Storage and in Azure Blob
//! Storage (`tests/remote_schemes.rs`' servers) is viewed the same way.
#![cfg(feature = "remote")]

#[path = "util/azure.rs"]
mod azure;
#[path = "util/s3.rs"]
mod s3;
#[path = "util/s3proxy.rs"]
mod s3proxy;
mod util;

use std::time::{Duration, Instant};

use azure::AzureServer;
use s3::S3Server;
use s3proxy::FaultProxy;
use util::Tree;
use util::tmux::Tmux;
use util::view::*;

/// The viewer of `url` in a 120×40 window of `tree`, talking to the
/// store through `proxy`, its first screen (lines 1-39 as sed prints
/// them, the status line saying `label`) shown.
fn view_remote(tree: &Tree, server: &S3Server, proxy: &FaultProxy, url: &str, label: &str) -> Tmux {
    view_with(tree, &server.env_via(&proxy.endpoint()), url, label)
}

/// [`view_remote`] with the store's settings `env`.
fn view_with(tree: &Tree, env: &[(&str, String)], url: &str, label: &str) -> Tmux {
    let idx = tree.path("idx").display().to_string();
    let mut all: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    all.extend([("TG_INDEX_DIR", idx.as_str()), ("TG_AUTO_INDEX", "0"), ("NO_COLOR", "1")]);
    let t = Tmux::new(tree.root(), 120, 40, &all);
    let tg_bin = util::tg_bin().display().to_string();
    t.send_line(&format!("{tg_bin} view {url} 2>tg.err"));
    let data = std::fs::read(tree.path("app.log")).unwrap();
    let lines = data.iter().filter(|&&b| b == b'\n').count();
    let want: Vec<(u64, String)> = (1..=39).map(|n| (n, sed(&data, n))).collect();
    t.wait(&format!("{url}: the first screen, lines 1-39 as sed prints them"), |s| {
        s.last().is_some_and(|l| l.contains(label) && l.contains(&format!("lines 1-39/{lines}")))
            && rows(s, 120) == want
    });
    t
}

/// Jumps and a search in the viewer `t` of `app.log`'s text, each
/// screen as sed prints it (the search: rg's first match at the top).
fn jump_around(tree: &Tree, t: &Tmux) {
    let data = std::fs::read(tree.path("app.log")).unwrap();
    let want: Vec<(u64, String)> = (1234..1234 + 39).map(|n| (n, sed(&data, n))).collect();
    t.send("1234G");
    t.wait("1234G: lines 1234-1272 as sed prints them", |s| {
        at_top(s, 1234) && rows(s, 120) == want
    });
    let half = data.len() / 2;
    let line_at_half = data[..half].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    top_after(t, "50%", line_at_half, "50%");
    let hits = rg_lines(tree, "needle", "app.log");
    top_after(t, "g", 1, "g");
    t.send("/needle");
    t.key("Enter");
    t.wait("/needle: rg's first match at the top", |s| at_top(s, hits[0].0));
}

/// The viewer's fixture 40 times over (120,000 lines): its packed object
/// is many times the 64 KiB a reader fetches of its ends.
fn log() -> Vec<u8> {
    fixture().repeat(40)
}

/// A server holding `app.log` ([`log`]) packed as
/// `app.log.zst` and plain with an index object, and a proxy before it.
fn served(tree: &Tree) -> (S3Server, FaultProxy, usize) {
    tree.write("app.log", log());
    tg(tree, &["pack", "-q", "--frame-size", "4K", "app.log"]);
    let server = S3Server::start();
    server.create_bucket("bkt");
    let packed = std::fs::read(tree.path("app.log.zst")).unwrap();
    server.put("bkt", "app.log.zst", &packed);
    server.put("bkt", "app.log", &log());
    server.put("bkt", "other.log", &log());
    let out = util::tg_command(tree, tree.root())
        .envs(server.env().iter().map(|(k, v)| (*k, v.as_str())))
        .env("TG_INDEX_DIR", tree.path("idx-a"))
        .args(["index", "-q", "--block-size", "4K", "s3://bkt/app.log"])
        .output()
        .unwrap();
    assert!(out.status.success(), "tg index: {}", String::from_utf8_lossy(&out.stderr));
    let proxy = FaultProxy::start(server.port());
    (server, proxy, packed.len())
}

#[test]
fn a_packed_object_is_viewed_by_ranged_reads() {
    let tree = Tree::new("view-remote-packed");
    let (server, proxy, packed_len) = served(&tree);
    let t = view_remote(&tree, &server, &proxy, "s3://bkt/app.log.zst", "fetched by range");
    let first = (proxy.requests(), proxy.answered());
    eprintln!("first screen: {} requests, {} of {packed_len} bytes", first.0, first.1);
    assert!(first.1 * 2 < packed_len, "the first screen fetched {} of {packed_len}", first.1);
    t.send("1234G");
    let data = log();
    t.wait("1234G", |s| at_top(s, 1234) && rows(s, 120)[0].1 == sed(&data, 1234));
    let jumped = (proxy.requests() - first.0, proxy.answered() - first.1);
    eprintln!("1234G: {} requests, {} bytes", jumped.0, jumped.1);
    assert!(jumped.0 <= 3 && jumped.1 * 4 < packed_len, "1234G fetched {jumped:?}");
    jump_around(&tree, &t);
    t.send("q");
}

#[test]
fn a_plain_object_is_viewed_through_its_index_object() {
    let tree = Tree::new("view-remote-indexed");
    let (server, proxy, _) = served(&tree);
    let len = log().len();
    let t =
        view_remote(&tree, &server, &proxy, "s3://bkt/app.log", "block index, fetched by range");
    let first = proxy.answered();
    eprintln!("first screen: {} requests, {first} of {len} bytes", proxy.requests());
    assert!(first * 2 < len, "the first screen fetched {first} of {len} bytes");
    jump_around(&tree, &t);
    t.send("q");
    // Without an index object: fetched whole into a spool.
    let t = view_remote(&tree, &server, &proxy, "s3://bkt/other.log", "spooled");
    t.send("q");
}

/// Waits until `proxy` has seen more than `n` requests (up to 10 s), then
/// until no more come for half a second; the count then.
fn requests_after(proxy: &FaultProxy, n: usize) -> usize {
    let started = Instant::now();
    while proxy.requests() <= n && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut last = proxy.requests();
    loop {
        std::thread::sleep(Duration::from_millis(500));
        match proxy.requests() {
            now if now == last => return now,
            now => last = now,
        }
    }
}

#[test]
fn scrolling_on_finds_the_next_piece_fetched_ahead() {
    let tree = Tree::new("view-remote-ahead");
    let (server, proxy, _) = served(&tree);
    let t = view_remote(&tree, &server, &proxy, "s3://bkt/app.log.zst", "fetched by range");
    let data = log();
    let line_at = |at: usize| data[..at].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    // The viewer reads 256 KiB of text from the top line, and the 256 KiB
    // piece after what it read: the first screen had 0-512 KiB fetched.
    // A line at 200 KiB is shown from those, and the piece at 512 KiB
    // (its frames) is fetched unasked, so that a line at 300 KiB is shown
    // without a request.
    let (late, next) = (line_at(200 << 10), line_at(300 << 10));
    let shown = requests_after(&proxy, 0);
    top_after(&t, &format!("{late}G"), late, "a line late in the first piece");
    let ahead = requests_after(&proxy, shown);
    eprintln!("first screen: {shown} requests; scrolled to line {late}: {ahead}");
    assert!(ahead > shown, "nothing was fetched ahead of line {late}");
    let want: Vec<(u64, String)> = (next..next + 39).map(|n| (n, sed(&data, n))).collect();
    t.send(&format!("{next}G"));
    t.wait(&format!("{next}G: lines as sed prints them"), |s| {
        at_top(s, next) && rows(s, 120) == want
    });
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(proxy.requests(), ahead, "line {next} was fetched again, not ahead");
    t.send("q");
}

#[test]
fn packed_objects_in_gcs_and_azure_are_viewed_by_ranged_reads() {
    let tree = Tree::new("view-schemes");
    tree.write("app.log", log());
    tg(&tree, &["pack", "-q", "--frame-size", "4K", "app.log"]);
    let packed = std::fs::read(tree.path("app.log.zst")).unwrap();
    let gcs = S3Server::start_open();
    gcs.create_bucket("bkt");
    gcs.put("bkt", "app.log.zst", &packed);
    let gcs_env =
        [("GOOGLE_BASE_URL", gcs.endpoint()), ("GOOGLE_SKIP_SIGNATURE", "true".to_string())];
    let azure = AzureServer::start();
    azure.put("bkt", "app.log.zst", &packed);
    for (url, env) in
        [("gs://bkt/app.log.zst", gcs_env.to_vec()), ("az://bkt/app.log.zst", azure.env())]
    {
        let t = view_with(&tree, &env, url, "fetched by range");
        jump_around(&tree, &t);
    }
}
