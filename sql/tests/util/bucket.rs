//! A bucket of logs for the remote SQL tests: a tree of generated logs
//! written locally (`logs/` in the fixture), uploaded to a real S3 server
//! (`s3s-fs`, started as tg's own remote tests start it:
//! `tests/util/s3.rs`) as bucket `bkt`, prefix `logs/`: plain logs, one
//! with an index object beside it (`tg index s3://…`), gzip files, packed
//! logs (`tg pack`, one uploaded by `tg pack -o s3://…`), a binary file.
//! The local copy is what each remote query is compared with.
//!
//! A test file using it declares `mod util;`, `mod s3;` (the shared
//! server) and this file as `mod bucket;`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::s3::S3Server;
use crate::util::{self, Fixture};

/// The bucket.
pub const BUCKET: &str = "bkt";

/// Where the logs are, in the bucket.
pub const REMOTE: &str = "s3://bkt/logs";

/// A server holding the bucket, and the fixture holding its local copy.
pub struct Bucket {
    /// The fixture: the local copy under `logs/`, its index directory.
    pub fx: Fixture,
    /// The S3 server.
    pub server: S3Server,
}

/// The text of a generated log with a line `XYZZY-MARK name` in it.
fn text(seed: u64, lines: usize, name: &str) -> Vec<u8> {
    let mut t = util::log_text(lines, seed);
    t.extend_from_slice(format!("2024-04-01 FATAL XYZZY-MARK {name}\n").as_bytes());
    t.extend_from_slice(&util::log_text(lines / 10, seed + 100));
    t
}

impl Bucket {
    /// Writes the tree, starts a server and uploads the tree.
    pub fn new() -> Bucket {
        let fx = Fixture::new();
        fx.write("logs/app.log", &text(1, 2000, "app.log"));
        // Over 1 MiB, with an index object of 4 KiB blocks.
        fx.write("logs/big.log", &text(2, 14_000, "big.log"));
        fx.write("logs/sub/raw.log", &text(3, 6000, "raw.log"));
        for (name, seed) in [("old/a.log", 4), ("old/b.log", 5)] {
            fx.write(&format!("logs/{name}"), &text(seed, 3000, name));
            util::run("gzip", &["-6", fx.path(&format!("logs/{name}")).to_str().unwrap()]);
        }
        let p1 = fx.write("text/p1.log", &text(6, 9000, "p1.log"));
        fx.pack(&p1, &fx.path("logs/packed/p1.log.zst"));
        let p2 = fx.write("text/p2.log", &text(7, 5000, "p2.log"));
        fx.pack(&p2, &fx.path("logs/packed/p2.log.zst"));
        let mut binary = text(8, 500, "bin.dat");
        binary.extend_from_slice(b"\0XYZZY-MARK after the NUL\n");
        binary.extend_from_slice(&util::log_text(100, 9));
        fx.write("logs/bin.dat", &binary);
        let server = S3Server::start();
        server.create_bucket(BUCKET);
        let bucket = Bucket { fx, server };
        let local = bucket.local();
        for rel in ["app.log", "big.log", "sub/raw.log", "old/a.log.gz", "old/b.log.gz"] {
            let bytes = std::fs::read(local.join(rel)).unwrap();
            bucket.server.put(BUCKET, &format!("logs/{rel}"), &bytes);
        }
        let bytes = std::fs::read(local.join("packed/p1.log.zst")).unwrap();
        bucket.server.put(BUCKET, "logs/packed/p1.log.zst", &bytes);
        bucket.server.put(BUCKET, "logs/bin.dat", &std::fs::read(local.join("bin.dat")).unwrap());
        // Packed and uploaded by tg itself, as the local copy was packed.
        let p2 = p2.to_str().unwrap();
        bucket.tg(&[
            "pack",
            "-q",
            "--frame-size",
            "4K",
            p2,
            "-o",
            "s3://bkt/logs/packed/p2.log.zst",
        ]);
        bucket.tg(&["index", "-q", "--block-size", "4K", "s3://bkt/logs/big.log"]);
        bucket
    }

    /// The local copy of `s3://bkt/logs`.
    pub fn local(&self) -> PathBuf {
        self.fx.path("logs")
    }

    /// The environment that points tg at the server.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        self.server.env()
    }

    /// Runs `tg ARGS` against the server; must succeed.
    pub fn tg(&self, args: &[&str]) {
        let out = Command::new(util::tg())
            .args(args)
            .envs(self.env())
            .env("TG_INDEX_DIR", self.fx.index_dir())
            .output()
            .unwrap();
        assert!(out.status.success(), "tg {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// `tg-sql ARGS` in `cwd` with `env`, the index directory `index`,
    /// logging as a user's (no `RUST_LOG` unless `env` sets one).
    pub fn sql_in(
        &self,
        cwd: &Path,
        index: &Path,
        env: &[(&'static str, String)],
        args: &[&str],
    ) -> Output {
        Command::new(util::tg_sql())
            .args(args)
            .current_dir(cwd)
            .env_remove("RUST_LOG")
            .envs(env.iter().cloned())
            .env("TG_INDEX_DIR", index)
            .output()
            .unwrap()
    }

    /// `tg-sql --format json ARGS` (pointed at the server), its lines
    /// sorted, remote names read as local ones; must succeed.
    pub fn answer(&self, args: &[&str]) -> Vec<String> {
        let out = self.sql_in(self.fx.dir.path(), &self.fx.index_dir(), &self.env(), args);
        lines(&out, args, &self.local())
    }
}

/// The sorted lines `out` printed (it must have succeeded), with every
/// `s3://bkt/logs` read as `local`.
pub fn lines(out: &Output, args: &[&str], local: &Path) -> Vec<String> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    let local = local.to_str().unwrap();
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let mut lines: Vec<String> = stdout.lines().map(|l| l.replace(REMOTE, local)).collect();
    lines.sort();
    lines
}

/// Fifteen queries of the table `{t}`: needles, counts, groups, regexes,
/// empty lines, invalid UTF-8, offsets, a binary file's lines.
pub const QUERIES: [&str; 15] = [
    "SELECT path, line_number, byte_offset, line FROM {t} WHERE line LIKE '%zebracorn%'",
    "SELECT count(*) AS n FROM {t}",
    "SELECT path, count(*) AS n, sum(length(line)) AS len FROM {t} GROUP BY path",
    "SELECT path, line_number, line FROM {t} WHERE line ~ 'status=5[0-9][0-9] path=/api/v4'",
    "SELECT path, line_number FROM {t} WHERE line ILIKE '%timeout talking to DB3%'",
    "SELECT count(*) AS n FROM {t} WHERE line LIKE '%ERROR%'",
    "SELECT substr(line, 1, 10) AS day, count(*) AS n FROM {t} WHERE line LIKE '%WARN%' GROUP BY day",
    "SELECT path, line_number, byte_offset FROM {t} WHERE line = ''",
    "SELECT path, count(*) AS n FROM {t} WHERE starts_with(line, '2024-02-02') GROUP BY path",
    "SELECT path, line_number, line FROM {t} WHERE contains(line, 'bad')",
    "SELECT max(length(line)) AS longest, max(line_number) AS last FROM {t}",
    "SELECT path, max(line_number) AS last, max(byte_offset) AS at FROM {t} GROUP BY path",
    "SELECT path, line_number FROM {t} WHERE line LIKE '%user=42 %' OR line LIKE '%db6 after 9%'",
    "SELECT sum(byte_offset) AS s FROM {t} WHERE line ~ 'path=/api/v[34]$'",
    "SELECT path, line_number, line FROM {t} WHERE regexp_like(line, 'XYZZY-[A-Z]+ [a-z0-9./]+')",
];

/// `query` of the table `table`.
pub fn of(query: &str, table: &str) -> String {
    query.replace("{t}", table)
}
