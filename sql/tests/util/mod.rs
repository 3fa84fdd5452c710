//! Harness of the SQL tests: the binaries (`tg-sql`, `tg` beside it, the
//! pinned `rg`), fixtures in a temporary directory with its own index
//! directory, and rows compared as sorted `(path, line_number, line)`.

#![allow(dead_code)]

pub mod cluster;
pub mod served;
pub mod stamped;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// One row as both sides print it.
pub type Row = (String, u64, String);

/// The `tg-sql` under test.
pub fn tg_sql() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tg-sql"))
}

/// The `tg` built beside `tg-sql` (`cargo nextest run --workspace` builds
/// both), or `TG_TEST_TG`.
pub fn tg() -> PathBuf {
    if let Some(p) = std::env::var_os("TG_TEST_TG") {
        return p.into();
    }
    let p = tg_sql().with_file_name("tg");
    assert!(p.is_file(), "{} is missing: build tg first (cargo build)", p.display());
    p
}

/// The reference rg: `TG_TEST_RG`, the pinned one, else `rg` on PATH.
pub fn rg() -> PathBuf {
    if let Some(p) = std::env::var_os("TG_TEST_RG") {
        return p.into();
    }
    let pinned = PathBuf::from("/root/.cache/trigrep-ci/rg-15.2.0/bin/rg");
    if pinned.is_file() { pinned } else { "rg".into() }
}

/// A temporary directory for fixtures, with an index directory of its own.
pub struct Fixture {
    /// Kept alive for the test's length.
    pub dir: tempfile::TempDir,
}

impl Fixture {
    /// A fresh fixture directory.
    pub fn new() -> Fixture {
        Fixture { dir: tempfile::tempdir().unwrap() }
    }

    /// A path inside it.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// The index directory tg and tg-sql share here.
    pub fn index_dir(&self) -> PathBuf {
        self.dir.path().join(".indexes")
    }

    /// Writes `bytes` to `rel` (directories made).
    pub fn write(&self, rel: &str, bytes: &[u8]) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }

    /// Runs `tg ARGS` with this fixture's index directory; must succeed.
    pub fn tg(&self, args: &[&str]) {
        let out =
            Command::new(tg()).args(args).env("TG_INDEX_DIR", self.index_dir()).output().unwrap();
        assert!(out.status.success(), "tg {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// Packs `log` into `packed` with `tg pack` in 4 KiB frames (the
    /// directory made first); must succeed.
    pub fn pack(&self, log: &Path, packed: &Path) {
        std::fs::create_dir_all(packed.parent().unwrap()).unwrap();
        let (log, packed) = (log.to_str().unwrap(), packed.to_str().unwrap());
        self.tg(&["pack", "-q", "--frame-size", "4K", log, "-o", packed]);
    }

    /// Runs `tg-sql ARGS` with this fixture's index directory.
    pub fn sql_output(&self, args: &[&str]) -> Output {
        Command::new(tg_sql())
            .args(args)
            .env("TG_INDEX_DIR", self.index_dir())
            .env("RUST_LOG", "warn")
            .output()
            .unwrap()
    }

    /// The JSON rows of `query` (with `extra` flags); must succeed.
    pub fn sql_json(&self, query: &str, extra: &[&str]) -> Vec<serde_json::Value> {
        let mut args = vec!["--format", "json"];
        args.extend_from_slice(extra);
        args.push(query);
        let out = self.sql_output(&args);
        assert!(out.status.success(), "{query}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The rows of `SELECT path, line_number, line ... WHERE cond`, sorted.
    pub fn sql_rows(&self, table: &str, cond: &str, extra: &[&str]) -> Vec<Row> {
        let q = format!("SELECT path, line_number, line FROM {table} WHERE {cond}");
        let mut rows: Vec<Row> = self
            .sql_json(&q, extra)
            .iter()
            .map(|v| {
                (
                    v["path"].as_str().unwrap().to_string(),
                    v["line_number"].as_u64().unwrap(),
                    v["line"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        rows.sort();
        rows
    }

    /// `SELECT count(*) ... WHERE cond`.
    pub fn sql_count(&self, table: &str, cond: &str, extra: &[&str]) -> u64 {
        let q = format!("SELECT count(*) AS n FROM {table} WHERE {cond}");
        self.sql_json(&q, extra)[0]["n"].as_u64().unwrap()
    }
}

/// `rg -n ARGS` as sorted rows (invalid UTF-8 decoded lossily, as the
/// `line` column is); `rename` maps rg's path to the table's.
pub fn rg_rows(args: &[&str], paths: &[&Path], rename: &dyn Fn(&str) -> String) -> Vec<Row> {
    let out = Command::new(rg())
        .args(["--no-config", "-n", "-0", "--with-filename", "--no-heading", "--color", "never"])
        .args(args)
        .args(paths)
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c < 2),
        "rg {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rows: Vec<Row> = out
        .stdout
        .split(|&b| b == b'\n')
        // rg's note after the lines of a binary file it stopped reading
        // (`PATH: WARNING: stopped searching binary file after match ...`)
        // is no line of the file.
        .filter(|l| !l.is_empty())
        .filter(|l| {
            let note = !l.contains(&0);
            let text = String::from_utf8_lossy(l);
            assert!(!note || text.contains("WARNING: stopped searching binary file"), "{text}");
            !note
        })
        .map(|l| {
            let nul = l.iter().position(|&b| b == 0).unwrap();
            let rest = &l[nul + 1..];
            let colon = rest.iter().position(|&b| b == b':').unwrap();
            let number = std::str::from_utf8(&rest[..colon]).unwrap().parse().unwrap();
            let path = rename(&String::from_utf8_lossy(&l[..nul]));
            (path, number, String::from_utf8_lossy(&rest[colon + 1..]).into_owned())
        })
        .collect();
    rows.sort();
    rows
}

/// `rg -c ARGS` summed over files.
pub fn rg_count(args: &[&str], paths: &[&Path]) -> u64 {
    let out = Command::new(rg())
        .args(["--no-config", "-c", "--with-filename", "-0"])
        .args(args)
        .args(paths)
        .output()
        .unwrap();
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let nul = l.iter().position(|&b| b == 0).unwrap();
            std::str::from_utf8(&l[nul + 1..]).unwrap().parse::<u64>().unwrap()
        })
        .sum()
}

/// A generated log of about `lines` lines: timestamps, levels, users,
/// a rare needle, long and empty lines, CRLF lines and invalid UTF-8.
pub fn log_text(lines: usize, seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    for i in 0..lines {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let r = (x >> 33) as usize;
        let level = ["INFO", "WARN", "ERROR", "DEBUG"][r % 4];
        let line = match r % 97 {
            0 => format!("2024-01-{:02} {level} zebracorn needle at {i}", r % 28 + 1),
            1 => String::new(),
            2 => {
                format!("2024-02-01 {level} Timeout talking to db{} after {}ms\r", r % 7, r % 1000)
            }
            3 => format!("2024-02-02 {level} {}", "long ".repeat(2000)),
            _ => format!(
                "2024-03-{:02} {level} user={} request {} status={} path=/api/v{}",
                r % 28 + 1,
                r % 1000,
                i,
                [200, 404, 500][r % 3],
                r % 5
            ),
        };
        out.extend_from_slice(line.as_bytes());
        if r % 101 == 5 {
            out.extend_from_slice(b" bad\xff\xfebytes");
        }
        out.push(b'\n');
    }
    out
}

/// Runs `program ARGS` (a compressor, say); must succeed.
pub fn run(program: &str, args: &[&str]) {
    let out = Command::new(program).args(args).output().unwrap();
    assert!(out.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A directory `rel` holding one file of each kind a table reads, each
/// with a line `XYZZY-MARK KIND` among generated log lines: a plain log,
/// a huge one (over 1 MiB, which may get a block index), gzip files (one
/// to be indexed), a packed log, plain zstd, bzip2, xz and lz4 files,
/// and a binary file (a NUL after its first lines). With `indexed`,
/// every file `tg index` gives an index of its own has one, and the
/// directory a tree index.
pub fn kinds(fx: &Fixture, rel: &str, indexed: bool) -> PathBuf {
    let text = |seed: u64, lines: usize, kind: &str| {
        let mut t = log_text(lines, seed);
        t.extend_from_slice(format!("2024-04-01 FATAL XYZZY-MARK {kind}\n").as_bytes());
        t.extend_from_slice(&log_text(lines / 10, seed + 100));
        t
    };
    let at = |name: &str| format!("{rel}/{name}");
    let path = |name: &str| fx.path(&at(name)).to_str().unwrap().to_string();
    fx.write(&at("plain.log"), &text(1, 2000, "plain"));
    fx.write(&at("huge.log"), &text(2, 14_000, "huge"));
    let compressed: [(&str, &str, &[&str]); 6] = [
        ("t.log", "gzip", &["-6"]),
        ("i.log", "gzip", &["-6"]),
        ("z.log", "zstd", &["-q", "--rm"]),
        ("b.log", "bzip2", &[]),
        ("x.log", "xz", &[]),
        ("l.log", "lz4", &["-q", "-m", "--rm"]),
    ];
    for (i, (name, program, flags)) in compressed.iter().enumerate() {
        fx.write(&at(name), &text(10 + i as u64, 3000, name));
        let mut args = flags.to_vec();
        let file = path(name);
        args.push(&file);
        run(program, &args);
    }
    fx.write("packing/p.log", &text(20, 3000, "packed"));
    let packing = fx.path("packing/p.log");
    let packed = path("p.log.zst");
    fx.tg(&["pack", "-q", "--frame-size", "4K", packing.to_str().unwrap(), "-o", &packed]);
    let mut binary = text(21, 3000, "binary before the NUL");
    binary.extend_from_slice(b"\0XYZZY-MARK binary after the NUL\n");
    binary.extend_from_slice(&log_text(300, 22));
    fx.write(&at("bin.dat"), &binary);
    if indexed {
        fx.tg(&["index", "-q", "--block-size", "4K", &path("huge.log")]);
        let gz = path("i.log.gz");
        fx.tg(&["index", "-q", "--block-size", "4K", "--access-spacing", "64K", &gz]);
        fx.tg(&["index", "-q", &path("")]);
    }
    fx.path(rel)
}

/// The rows `out` printed, JSON lines of `SELECT path, line_number, line
/// ...` (it must have succeeded; `what` names it), sorted, and what it
/// said on stderr.
pub fn rows_of(out: &Output, what: &str) -> (Vec<Row>, String) {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{what}: {stderr}");
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    (json_rows(stdout.lines()), stderr)
}

/// The rows of `--format json` lines holding `path`, `line_number` and
/// `line`, sorted.
pub fn json_rows<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<Row> {
    let mut rows: Vec<Row> = lines
        .into_iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| v[k].as_str().unwrap().to_string();
            (s("path"), v["line_number"].as_u64().unwrap(), s("line"))
        })
        .collect();
    rows.sort();
    rows
}

/// Makes every index under the fixture's index directory (`index.tg`) look
/// as an older tg wrote it, without the `times` section: its name in the
/// table of contents is changed to one no reader knows (readers skip
/// those), and the checksums that cover it are made again. Returns how
/// many indexes had one.
pub fn forget_times(fx: &Fixture) -> usize {
    let mut changed = 0;
    let mut stack = vec![fx.index_dir()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "index.tg") {
                let mut b = std::fs::read(&path).unwrap();
                let footer = b.len() - 52;
                let u64_at =
                    |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
                let (toc, toc_len) = (u64_at(&b, footer) as usize, u64_at(&b, footer + 8) as usize);
                let count = u32::from_le_bytes(b[toc..toc + 4].try_into().unwrap()) as usize;
                let name =
                    (0..count).map(|i| toc + 8 + 40 * i).find(|&e| &b[e..e + 6] == b"times\0");
                let Some(name) = name else { continue };
                b[name..name + 5].copy_from_slice(b"ztime");
                let toc_crc = crc32(&b[toc..toc + toc_len]);
                b[footer + 28..footer + 32].copy_from_slice(&toc_crc.to_le_bytes());
                let body_crc = crc32(&b[..footer]);
                b[footer + 24..footer + 28].copy_from_slice(&body_crc.to_le_bytes());
                let footer_crc = crc32(&b[footer..footer + 36]);
                b[footer + 36..footer + 40].copy_from_slice(&footer_crc.to_le_bytes());
                std::fs::write(&path, b).unwrap();
                changed += 1;
            }
        }
    }
    changed
}

/// CRC-32 (IEEE), as the index's checksums are.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}
