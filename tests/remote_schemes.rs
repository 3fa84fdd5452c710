//! Remote paths of the schemes besides `s3://`, each against a server
//! that speaks its protocol, printing byte for byte what `rg` prints of
//! the same files on disk:
//!
//! - `gs://`: `object_store`'s Google Cloud Storage client, through the
//!   XML API GCS serves beside its JSON one, against s3s-fs serving public
//!   objects (`GOOGLE_BASE_URL`, `GOOGLE_SKIP_SIGNATURE`: the settings of
//!   a GCS emulator);
//! - `az://`: the Azure Blob client against `util/azure.rs`, set as for
//!   the Azure emulator;
//! - `http://`: a web server's objects (s3s-fs's public ones, answering
//!   ranged GETs), one URL an object.
//!
//! Objects, prefixes walked like directories, globs, `-z` on a `.gz`, a
//! packed container read by range, `tg pack -o` writing one, and an
//! index object (`tg index`) written beside an object and read by
//! another machine.
#![cfg(feature = "remote")]

#[path = "util/azure.rs"]
mod azure;
#[path = "util/s3.rs"]
mod s3;
#[path = "util/s3proxy.rs"]
mod s3proxy;
mod util;

use azure::AzureServer;
use s3::S3Server;
use s3proxy::{Fault, FaultProxy};
use util::Tree;
use util::remote::{differs, rg, stat, tg};

/// The settings that point `gs://` at `server` (public objects) for
/// reading: unsigned requests.
fn gcs_env(server: &S3Server) -> Vec<(&'static str, String)> {
    vec![("GOOGLE_BASE_URL", server.endpoint()), ("GOOGLE_SKIP_SIGNATURE", "true".into())]
}

/// The settings of a GCS emulator, whose client sends an empty token (a
/// writer's requests are always signed), through `proxy` (which drops it)
/// in front of a server of public objects.
fn gcs_emulator_env(proxy: &FaultProxy) -> Vec<(&'static str, String)> {
    proxy.set(Fault::Unsigned);
    let key = format!(
        r#"{{"disable_oauth": true, "gcs_base_url": "{}", "private_key": "", "private_key_id": "", "client_email": ""}}"#,
        proxy.endpoint()
    );
    vec![("GOOGLE_SERVICE_ACCOUNT_KEY", key)]
}

/// Every query of `util::logs::QUERIES` on each of `shapes` (tg's paths,
/// rg's paths, then the prefixes that map tg's names onto rg's), sorted
/// by path; the cases that differ.
fn compare(tree: &Tree, env: &[(&str, String)], shapes: &[(&[&str], &[&str], &str, &str)]) {
    let mut failures = Vec::new();
    for q in util::logs::QUERIES {
        for (remote, local, from, to) in shapes {
            for extra in [&["--sort", "path"][..], &["-z", "--sort", "path"]] {
                let args: Vec<&str> = [extra, *q].concat();
                let t = tg(tree, env, &[&args[..], remote].concat());
                let r = rg(tree, &[&args[..], local].concat());
                if let Some(why) = differs(&t, &r, from, to) {
                    failures.push(format!("tg {args:?} {remote:?} vs rg on {local:?}: {why}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The shapes of paths of a bucket (container) `logs` of `scheme`: an
/// object, a prefix, a key that is a prefix, a glob, two objects.
fn bucket_shapes(scheme: &str) -> Vec<(Vec<String>, Vec<&'static str>, String)> {
    let at = |k: &str| format!("{scheme}logs/{k}");
    vec![
        (vec![at("app/a.log")], vec!["logs/app/a.log"], at("")),
        (vec![at("app/")], vec!["logs/app/"], at("")),
        (vec![format!("{scheme}logs")], vec!["logs"], format!("{scheme}logs")),
        (vec![at("app/*.log")], vec!["logs/app/a.log", "logs/app/b.log"], at("")),
        // A glob of one object: named alone, as a shell's expansion is.
        (vec![at("web/*.gz")], vec!["logs/web/d.log.gz"], at("")),
        (
            vec![at("web/d.log.gz"), at("app/b.log")],
            vec!["logs/web/d.log.gz", "logs/app/b.log"],
            at(""),
        ),
    ]
}

/// [`compare`] over [`bucket_shapes`].
fn compare_bucket(tree: &Tree, env: &[(&str, String)], scheme: &str) {
    let shapes = bucket_shapes(scheme);
    let shapes: Vec<(Vec<&str>, &[&str], &str, &str)> = shapes
        .iter()
        .map(|(r, l, from)| {
            let to = if from.ends_with('/') { "logs/" } else { "logs" };
            (r.iter().map(String::as_str).collect(), &l[..], from.as_str(), to)
        })
        .collect();
    let shapes: Vec<(&[&str], &[&str], &str, &str)> =
        shapes.iter().map(|(r, l, f, t)| (&r[..], *l, *f, *t)).collect();
    compare(tree, env, &shapes);
}

#[test]
fn gcs_objects_prefixes_and_globs_print_what_rg_prints_of_the_local_copy() {
    let tree = Tree::new("gs-diff");
    util::logs::remote_tree(&tree);
    let server = S3Server::start_open();
    server.create_bucket("logs");
    server.put_tree("logs", "", &tree.path("logs"));
    compare_bucket(&tree, &gcs_env(&server), "gs://");
}

#[test]
fn azure_blobs_prefixes_and_globs_print_what_rg_prints_of_the_local_copy() {
    let tree = Tree::new("az-diff");
    util::logs::remote_tree(&tree);
    let server = AzureServer::start();
    for file in util::files_under(&tree.path("logs")) {
        let key = file.strip_prefix(tree.path("logs")).unwrap().to_str().unwrap().to_string();
        server.put("logs", &key, &std::fs::read(&file).unwrap());
    }
    compare_bucket(&tree, &server.env(), "az://");
}

#[test]
fn a_web_server_s_objects_print_what_rg_prints_of_the_local_copy() {
    let tree = Tree::new("http-diff");
    util::logs::remote_tree(&tree);
    let server = S3Server::start_open();
    server.create_bucket("logs");
    server.put_tree("logs", "", &tree.path("logs"));
    let url = |k: &str| format!("{}/logs/{k}", server.endpoint());
    let (a, gz, two) =
        (url("app/a.log"), url("web/d.log.gz"), [url("web/c.log"), url("app/b.log")]);
    let from = url("");
    compare(
        &tree,
        &[],
        &[
            (&[a.as_str()], &["logs/app/a.log"], &from, "logs/"),
            (&[gz.as_str()], &["logs/web/d.log.gz"], &from, "logs/"),
            (
                &[two[0].as_str(), two[1].as_str()],
                &["logs/web/c.log", "logs/app/b.log"],
                &from,
                "logs/",
            ),
        ],
    );
    // A directory of a web server that speaks no WebDAV cannot be listed;
    // a URL with a query is no object's: each one line, exit 2.
    for (path, says) in [(url("app/"), "WebDAV"), (url("a.log?x=1"), "query")] {
        let t = tg(&tree, &[], &["needle", &path]);
        let stderr = String::from_utf8_lossy(&t.stderr);
        assert_eq!((t.status.code(), stderr.lines().count()), (Some(2), 1), "{path}: {stderr}");
        assert!(stderr.contains(says), "{path}: {stderr}");
    }
}

#[test]
fn packed_objects_are_written_by_tg_pack_and_read_by_range_on_every_scheme() {
    let tree = Tree::new("schemes-packed");
    let packed = util::remote::packed_log(&tree);
    let gcs = S3Server::start_open();
    gcs.create_bucket("bkt");
    let proxy = FaultProxy::start(gcs.port());
    let azure = AzureServer::start();
    let web = S3Server::start_open();
    web.create_bucket("bkt");
    web.put("bkt", "big.log.zst", &packed);
    let web_url = format!("{}/bkt/big.log.zst", web.endpoint());
    let targets = [
        ("gs://bkt/big.log.zst".to_string(), gcs_emulator_env(&proxy), true),
        ("az://bkt/big.log.zst".to_string(), azure.env(), true),
        (web_url, Vec::new(), false),
    ];
    for (url, env, writable) in &targets {
        if *writable {
            // Written by tg itself: a multipart upload of the packed file.
            let t = tg(&tree, env, &["pack", "-q", "--frame-size", "32K", "big.log", "-o", url]);
            assert!(t.status.success(), "{url}: {}", String::from_utf8_lossy(&t.stderr));
            // What tg pack wrote, packed again: the same size.
            let stored = match url.starts_with("az://") {
                true => azure.get("bkt", "big.log.zst"),
                false => std::fs::read(gcs.data().join("bkt/big.log.zst")).ok(),
            };
            let stored = stored.map_or(0, |s| s.len());
            assert_eq!(stored, packed.len(), "{url}: bytes stored");
        }
        let mut failures = Vec::new();
        for q in util::logs::QUERIES {
            let t = tg(&tree, env, &[&q[..], &[url.as_str()]].concat());
            let r = rg(&tree, &[&q[..], &["big.log"]].concat());
            failures.extend(differs(&t, &r, url, "big.log").map(|why| format!("{q:?}: {why}")));
        }
        assert!(failures.is_empty(), "{url}:\n{}", failures.join("\n\n"));
        let t = tg(&tree, env, &["--stats", "-n", "last line without", url]);
        let fetched = stat(&t.stderr, "bytes fetched");
        assert!(fetched * 3 < packed.len() as u64, "{url}: fetched {fetched} of {}", packed.len());
    }
}

#[test]
fn an_azure_path_without_an_account_is_one_line_and_exit_2() {
    let tree = Tree::new("az-no-account");
    let t = tg(&tree, &[], &["needle", "az://logs/a.log"]);
    let stderr = String::from_utf8_lossy(&t.stderr);
    assert_eq!((t.status.code(), stderr.lines().count()), (Some(2), 1), "{stderr}");
    assert!(stderr.starts_with("tg: az://logs/a.log: "), "{stderr}");
}

#[test]
fn index_objects_are_written_beside_gcs_and_azure_objects_and_read_by_another_machine() {
    let tree = Tree::new("schemes-index");
    // Past the size fetched whole ahead of a search.
    let log = util::logs::log(&mut rand::SeedableRng::seed_from_u64(37), 60_000, false);
    tree.write("logs/app/a.log", &log);
    let gcs = S3Server::start_open();
    gcs.create_bucket("bkt");
    gcs.put("bkt", "a.log", &log);
    let proxy = FaultProxy::start(gcs.port());
    let azure = AzureServer::start();
    azure.put("bkt", "a.log", &log);
    let index_object = |url: &str| match url.starts_with("az://") {
        true => azure.get("bkt", "a.log.tgidx"),
        false => std::fs::read(gcs.data().join("bkt/a.log.tgidx")).ok(),
    };
    for (url, env) in
        [("gs://bkt/a.log", gcs_emulator_env(&proxy)), ("az://bkt/a.log", azure.env())]
    {
        let (builder, reader) =
            (tree.path(format!("a-{}", &url[..2])), tree.path(format!("b-{}", &url[..2])));
        let out = util::tg_with(&tree, &env, &builder, &["index", "--block-size", "4K", url]);
        assert!(out.status.success(), "{url}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(index_object(url).is_some(), "{url}: no index object beside it");
        for q in util::logs::QUERIES {
            let t = util::tg_with(&tree, &env, &reader, &[&q[..], &[url]].concat());
            let r = rg(&tree, &[&q[..], &["logs/app/a.log"]].concat());
            assert_eq!(differs(&t, &r, url, "logs/app/a.log"), None, "{url} {q:?}");
        }
        let t = util::tg_with(&tree, &env, &reader, &["--stats", "-n", "RAREMARK", url]);
        let fetched = stat(&t.stderr, "bytes fetched");
        assert!(fetched * 2 < log.len() as u64, "{url}: fetched {fetched} of {}", log.len());
    }
}
