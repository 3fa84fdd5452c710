//! Generated logs for the huge-file tests (block indexes, packed files):
//! syslog-like lines with rare markers, and the queries asked of them.

use rand::RngExt;
use rand::rngs::StdRng;

/// A generated log: syslog-like lines with rare markers, a 20 KB line, CRLF
/// lines, empty lines and invalid UTF-8, about `lines` lines.
pub fn log(rng: &mut StdRng, lines: usize, nul: bool) -> Vec<u8> {
    let hosts = ["web-01", "web-02", "db-1", "node-007.dc1.example.net"];
    let events = [
        "sshd[411]: Failed password for invalid user admin from 10.0.0.7",
        "kernel: EXT4-fs error (device nvme0n1p2): lost inode",
        "nginx[88]: GET /x 504 120 upstream timed out",
        "systemd[1]: unit failed status=1/FAILURE",
        "kernel: Out of memory: Killed process 4242 (java)",
        "cron[12]: (root) CMD (run-parts /etc/cron.hourly)",
    ];
    let mut out = Vec::new();
    for i in 0..lines {
        let t = format!("Jan {:2} {:02}:{:02}:{:02} ", 1 + i / 5000, i / 60 % 24, i % 60, i % 59);
        out.extend_from_slice(t.as_bytes());
        out.extend_from_slice(hosts[rng.random_range(0..hosts.len())].as_bytes());
        out.push(b' ');
        match rng.random_range(0..1000) {
            0 => out.extend_from_slice(b"kernel: BUG: unable to handle page fault RAREMARK"),
            1 => out.extend_from_slice(b"app: caf\xe9 latin1 \xff\xfe broken utf8"),
            2 => out.extend_from_slice(&vec![b'z'; 20_000]),
            3 => out.extend_from_slice(b"crlf line with needle\r"),
            4 if nul => out.extend_from_slice(b"binary \0 payload needle"),
            5..=9 => {}
            _ => out.extend_from_slice(events[rng.random_range(0..events.len())].as_bytes()),
        }
        if rng.random_range(0..50) == 0 {
            out.push(b'\n');
        }
        out.push(b'\n');
    }
    out.extend_from_slice(b"last line without newline RAREMARK");
    out
}

/// Queries: rare literals, regexes, case-insensitive, and flags that the
/// chunk engine answers (`-c`, `-l`, `-o`, `-b`, `--json`) or refuses
/// (context, `-m`: searched whole, still right).
pub const QUERIES: &[&[&str]] = &[
    &["-F", "RAREMARK"],
    &["-n", "RAREMARK"],
    &["-n", "-b", "page fault"],
    &["-c", "Out of memory"],
    &["-l", "needle"],
    &["-o", "-n", "ssh[d]\\[\\d+\\]"],
    &["--json", "EXT4-fs error"],
    &["-n", "-i", "out OF memory"],
    &["-w", "-n", "caf"],
    &["-n", "^Jan  2 0[0-3]:1\\d:\\d\\d db-1 "],
    &["-n", "zzzzzzzzzzzzzzzzzzzz"],
    &["-n", "needle\\r$"],
    &["-C", "1", "-n", "RAREMARK"],
    &["-m", "2", "-n", "Killed process"],
    &["-n", "XYZZY-NOT-THERE"],
    &["-v", "-c", "e"],
];

/// `tg QUERY PACKED` against `rg QUERY TEXT` in `tree`'s root, for the
/// first four [`QUERIES`] (those that print no file name): the same stdout
/// and exit code, or what differed.
pub fn packed_like_rg(tree: &super::Tree, packed: &str, text: &str) -> Result<(), String> {
    let mut bad = Vec::new();
    for q in QUERIES.iter().take(4) {
        let tg = super::tg_command(tree, tree.root()).args(*q).arg(packed).output().unwrap();
        let rg = super::rg_command(tree, tree.root()).args(*q).arg(text).output().unwrap();
        if tg.stdout != rg.stdout || tg.status.code() != rg.status.code() {
            bad.push(format!(
                "tg {q:?} {packed} differs from rg on {text} (exit {:?} vs {:?}): {}",
                tg.status.code(),
                rg.status.code(),
                String::from_utf8_lossy(&tg.stderr)
            ));
        }
    }
    if bad.is_empty() { Ok(()) } else { Err(bad.join("\n")) }
}

/// A tree of logs for the remote tests, under `logs/`: two directories, a
/// hidden one, a gzip file.
pub fn remote_tree(tree: &super::Tree) {
    use rand::SeedableRng;
    use std::io::Write;
    let mut rng = StdRng::seed_from_u64(36);
    tree.write("logs/app/a.log", log(&mut rng, 3000, false));
    tree.write("logs/app/b.log", log(&mut rng, 2000, false));
    tree.write("logs/web/c.log", log(&mut rng, 1000, false));
    tree.write("logs/.hidden/h.log", "needle RAREMARK in a hidden object\n");
    let text = log(&mut rng, 1500, false);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&text).unwrap();
    tree.write("logs/web/d.log.gz", gz.finish().unwrap());
}
