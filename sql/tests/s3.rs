//! SQL over a bucket. A tree of logs (plain, gzip, packed; one
//! plain log with an index object beside it, a binary file) is uploaded
//! to a real S3 server (`s3s-fs`), and each of fifteen queries gives the
//! same rows of `lines('s3://bkt/logs/')` (a prefix), of a glob, of
//! objects named one by one and of `--table NAME=s3://…` as the same
//! query of the local copy, embedded and on a Ballista cluster whose
//! scheduler and executors share no disk with the client or each other
//! (the client's local copy is gone before it asks).

#[path = "util/bucket.rs"]
mod bucket;
#[path = "../../tests/util/s3.rs"]
mod s3;
mod util;

use bucket::{Bucket, QUERIES, REMOTE, of};
use util::cluster::Cluster;

/// Runs every query of `remote` (a table of the bucket, with `extra`
/// flags) and of `local` (the same of the local copy): the same lines.
fn same_as_local(b: &Bucket, remote: &str, local: &str, extra: &[&str]) {
    let args = |query: &'_ str| -> Vec<String> {
        let flags = ["--format", "json", "--partitions", "3"];
        flags.iter().chain(extra).chain([&query]).map(|s| s.to_string()).collect()
    };
    for q in QUERIES {
        let (rq, lq) = (of(q, remote), of(q, local));
        let (want, got) = (args(&lq), args(&rq));
        let want = b.answer(&want.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(!want.is_empty(), "{lq}: no rows");
        let got = b.answer(&got.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(got.len(), want.len(), "{rq}");
        assert_eq!(got, want, "{rq}");
    }
}

#[test]
fn issue_0036_a_prefix_reads_as_the_local_tree() {
    let b = Bucket::new();
    let local = format!("lines('{}')", b.local().display());
    same_as_local(&b, &format!("lines('{REMOTE}/')"), &local, &[]);
    // Without pushdown, every line of every object.
    let q = "SELECT path, count(*) AS n, sum(byte_offset) AS s FROM {t} GROUP BY path";
    let flags = ["--format", "json", "--no-pushdown"];
    let want = b.answer(&[&flags[..], &[of(q, &local).as_str()]].concat());
    let got = b.answer(&[&flags[..], &[of(q, &format!("lines('{REMOTE}')")).as_str()]].concat());
    assert_eq!(got, want);
}

#[test]
fn issue_0036_a_glob_reads_as_the_local_glob() {
    let b = Bucket::new();
    let local = format!("lines('{}/**/*.log*')", b.local().display());
    same_as_local(&b, &format!("lines('{REMOTE}/**/*.log*')"), &local, &[]);
}

#[test]
fn issue_0036_objects_named_one_by_one_read_as_their_local_copies() {
    let b = Bucket::new();
    let names = ["big.log", "packed/p2.log.zst", "old/a.log.gz", "sub/raw.log"];
    let list = |root: &str| {
        let paths: Vec<String> = names.iter().map(|n| format!("'{root}/{n}'")).collect();
        format!("lines({})", paths.join(", "))
    };
    same_as_local(&b, &list(REMOTE), &list(b.local().to_str().unwrap()), &[]);
    // A needle reads a few blocks of the indexed object and a few frames
    // of the packed one, not all of them.
    for name in ["big.log", "packed/p2.log.zst"] {
        let q =
            format!("SELECT count(*) AS n FROM lines('{REMOTE}/{name}') WHERE line LIKE '%XYZZY%'");
        let mut env = b.env();
        env.push(("RUST_LOG", "trigrep_sql=info".into()));
        let out = b.sql_in(b.fx.dir.path(), &b.fx.index_dir(), &env, &["--format", "json", &q]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), r#"{"n":1}"#, "{name}: {stderr}");
        let (read, of) = reads(&stderr);
        assert!(read >= 1 && read * 10 < of, "{name}: read {read} of {of} blocks: {stderr}");
    }
}

#[test]
fn issue_0036_a_named_table_reads_as_the_local_one() {
    let b = Bucket::new();
    let (remote, local) = (format!("t={REMOTE}"), format!("t={}", b.local().display()));
    for q in QUERIES {
        let q = of(q, "t");
        let want = b.answer(&["--format", "json", "--table", &local, &q]);
        let got = b.answer(&["--format", "json", "--table", &remote, &q]);
        assert_eq!(got, want, "{q}");
    }
}

/// The blocks the `reading N of M` lines of a log say were read: (N, M).
fn reads(log: &str) -> (usize, usize) {
    log.lines().filter(|l| l.contains(" reading ")).fold((0, 0), |(n, m), l| {
        let w: Vec<&str> = l.split_whitespace().collect();
        let at = w.iter().position(|x| *x == "reading").unwrap();
        (n + w[at + 1].parse::<usize>().unwrap(), m + w[at + 3].parse::<usize>().unwrap())
    })
}

#[test]
fn issue_0036_a_cluster_that_shares_no_disk_reads_the_bucket() {
    let b = Bucket::new();
    let local = format!("lines('{}')", b.local().display());
    let flags = ["--format", "json", "--partitions", "4"];
    let want: Vec<Vec<String>> = QUERIES
        .iter()
        .map(|q| b.answer(&[&flags[..], &[of(q, &local).as_str()]].concat()))
        .collect();
    let env = b.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let cluster = Cluster::start_apart(&b.fx, &env);
    let scheduler = cluster.address();
    // The client has no copy of the logs: only the bucket holds them.
    let local_copy = b.local();
    std::fs::remove_dir_all(&local_copy).unwrap();
    let client = b.fx.path("client");
    std::fs::create_dir_all(&client).unwrap();
    let client_index = b.fx.path("client-index");
    for (q, want) in QUERIES.iter().zip(&want) {
        let q = of(q, &format!("lines('{REMOTE}/')"));
        let args = [&flags[..], &["--scheduler", scheduler.as_str(), q.as_str()]].concat();
        let out = b.sql_in(&client, &client_index, &b.env(), &args);
        assert_eq!(&bucket::lines(&out, &args, &local_copy), want, "{q}");
    }
    // Both executors read; what they fetched and kept (the packed
    // objects' block indexes, the index object) is in their own index
    // directories; the client and the scheduler read and keep nothing.
    let mut kept = Vec::new();
    for (i, name) in ["executor1", "executor2"].iter().enumerate() {
        let log = std::fs::read_to_string(&cluster.logs[i + 1]).unwrap();
        assert!(log.contains(" units"), "{name} read nothing: {log}");
        kept.extend(files_under(&b.fx.path(&format!("{name}-index"))));
    }
    for end in [".zstidx", ".tgidx"] {
        assert!(kept.iter().any(|f| f.ends_with(end)), "no {end} kept: {kept:?}");
    }
    for dir in ["client-index", "scheduler-index"] {
        assert!(files_under(&b.fx.path(dir)).is_empty(), "{dir} holds files");
    }
}

/// Every file under `dir` (none when it is missing).
fn files_under(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.file_type().unwrap().is_dir() {
                true => todo.push(e.path()),
                false => found.push(e.path().display().to_string()),
            }
        }
    }
    found
}
