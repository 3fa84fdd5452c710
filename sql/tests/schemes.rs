//! SQL over the remote schemes besides `s3://`: a small tree of logs
//! (plain, gzip, packed) in a Google Cloud Storage bucket (`gs://`, s3s-fs
//! serving public objects through GCS's XML API) and in an Azure Blob
//! container (`az://`, `tests/util/azure.rs`), and a web server's log
//! (`http://`); each query of `lines(…)` gives the rows it gives of the
//! local copy.

#[path = "../../tests/util/azure.rs"]
mod azure;
#[path = "../../tests/util/s3.rs"]
mod s3;
mod util;

use azure::AzureServer;
use s3::S3Server;
use util::Fixture;

/// The tree, written under `logs/`: its files, relative to it.
fn tree(fx: &Fixture) -> Vec<&'static str> {
    fx.write("logs/app.log", &util::log_text(3000, 1));
    fx.write("logs/sub/b.log", &util::log_text(2000, 2));
    fx.write("logs/old/c.log", &util::log_text(1500, 3));
    util::run("gzip", &["-6", fx.path("logs/old/c.log").to_str().unwrap()]);
    let text = fx.write("text/p.log", &util::log_text(4000, 4));
    fx.pack(&text, &fx.path("logs/packed/p.log.zst"));
    vec!["app.log", "sub/b.log", "old/c.log.gz", "packed/p.log.zst"]
}

/// Queries of the table `{t}`.
const QUERIES: [&str; 5] = [
    "SELECT count(*) AS n FROM {t}",
    "SELECT path, count(*) AS n FROM {t} WHERE line LIKE '%ERROR%' GROUP BY path",
    "SELECT path, line_number, byte_offset, line FROM {t} WHERE line ~ 'status=5[0-9][0-9] path=/api/v4'",
    "SELECT path, max(line_number) AS last FROM {t} GROUP BY path",
    "SELECT path, line_number FROM {t} WHERE contains(line, 'bad')",
];

/// Each query of `remote` (with the settings `env`) against the same of
/// `local`: the same rows, `prefix` read as `local_prefix`.
fn same_rows(fx: &Fixture, env: &[(&str, String)], remote: &str, local: &str, names: (&str, &str)) {
    for q in QUERIES {
        let answer = |table: &str| {
            let out = std::process::Command::new(util::tg_sql())
                .args(["--format", "json", "--partitions", "2", &q.replace("{t}", table)])
                .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
                .env("TG_INDEX_DIR", fx.index_dir())
                .env_remove("RUST_LOG")
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{table}: {stderr}");
            let text = String::from_utf8(out.stdout).unwrap().replace(names.0, names.1);
            let mut rows: Vec<String> = text.lines().map(String::from).collect();
            rows.sort();
            rows
        };
        let want = answer(local);
        assert!(!want.is_empty(), "{q}: no rows");
        assert_eq!(answer(remote), want, "{q} of {remote}");
    }
}

#[test]
fn issue_0036_gcs_azure_and_web_logs_read_as_their_local_copies() {
    let fx = Fixture::new();
    let files = tree(&fx);
    let local = fx.path("logs");
    let local_dir = local.to_str().unwrap();
    let gcs = S3Server::start_open();
    gcs.create_bucket("bkt");
    let azure = AzureServer::start();
    for rel in &files {
        let bytes = std::fs::read(local.join(rel)).unwrap();
        gcs.put("bkt", &format!("logs/{rel}"), &bytes);
        azure.put("bkt", &format!("logs/{rel}"), &bytes);
    }
    let gcs_env =
        [("GOOGLE_BASE_URL", gcs.endpoint()), ("GOOGLE_SKIP_SIGNATURE", "true".to_string())];
    let local_table = format!("lines('{local_dir}/')");
    same_rows(&fx, &gcs_env, "lines('gs://bkt/logs/')", &local_table, ("gs://bkt/logs", local_dir));
    let glob = format!("lines('{local_dir}/**/*.log*')");
    same_rows(
        &fx,
        &azure.env(),
        "lines('az://bkt/logs/**/*.log*')",
        &glob,
        ("az://bkt/logs", local_dir),
    );
    // A web server's object, named.
    let url = format!("{}/bkt/logs/packed/p.log.zst", gcs.endpoint());
    let one = format!("lines('{local_dir}/packed/p.log.zst')");
    same_rows(
        &fx,
        &[],
        &format!("lines('{url}')"),
        &one,
        (&url, &format!("{local_dir}/packed/p.log.zst")),
    );
}
