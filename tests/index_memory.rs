//! Bounded memory at any size.
//!
//! An index writer's memory does not grow with the files it is given. A
//! counting allocator (this test binary's own) follows the bytes this
//! thread holds while 100,000 files with 200-byte paths (20 MB of paths,
//! 3 MB of file and document records) go into a writer with a 1 MiB sort
//! budget: its tables are spooled, so what it holds stays within a few
//! MiB; the index written is then read back whole.
//!
//! A whole tree build keeps to `--index-memory`: a tree whose listing
//! alone is larger than the budget (16,000 files whose paths are 2.4 KB
//! deep: 38 MB of paths) is indexed by `tg index` under 40M on two
//! threads while its private memory (RssAnon) is sampled from `/proc`
//! every 2 ms; queries answered from the index then print rg's output.
//!
//! So does the index of a `.gz` file's text, whatever its access points:
//! 6 MiB of log text flushed every 4 KiB (a deflate block boundary each
//! time) and indexed with points 4 KiB apart has 1,500 points, whose
//! 32 KiB windows (48 MiB) must not stay in memory until the publish.

mod util;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use trigrep::index::reader::IndexReader;
use trigrep::index::table::FileMeta;
use trigrep::index::writer::IndexWriterBuilder;
use trigrep::query::Query;
use trigrep::query::trigram::{grams, pack};

thread_local! {
    /// Bytes allocated and not yet freed by this thread, and the most seen.
    static HELD: Cell<(isize, isize)> = const { Cell::new((0, 0)) };
}

/// The system allocator, counting each thread's bytes.
struct Counting;

fn count(delta: isize) {
    HELD.with(|h| {
        let (now, peak) = h.get();
        h.set((now + delta, peak.max(now + delta)));
    });
}

// SAFETY: every call goes to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// File `i`'s path: 200 bytes, unique.
fn path(i: u32) -> Vec<u8> {
    let mut p = format!("dir{:03}/file{i:08}.txt/", i % 997).into_bytes();
    p.resize(200, b'x');
    p
}

#[test]
fn a_writers_memory_does_not_grow_with_its_files() {
    const FILES: u32 = 100_000;
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriterBuilder::new().memory_budget(1 << 20).spill_dir(dir.path()).build();
    let (start, _) = HELD.with(|h| h.get());
    HELD.with(|h| h.set((start, start)));
    for i in 0..FILES {
        let meta = FileMeta { path: path(i), size: 4, changed_ns: i64::from(i), flags: 0 };
        let f = w.add_file(meta).unwrap();
        let text = format!("{:04}", i % 7919);
        w.add_document(f, 0, 4, 1, &grams(text.as_bytes())).unwrap();
    }
    let (_, peak) = HELD.with(|h| h.get());
    let grown = (peak - start) as f64 / f64::from(1 << 20);
    // The sort's 1 MiB, the spools' 256 KiB each, a run's write buffer.
    // Tables held in memory would be over 20 MiB.
    assert!(grown < 4.0, "the writer held {grown:.1} MiB for {FILES} files");

    let (bytes, summary) = w.finish_to_vec().unwrap();
    assert_eq!((summary.files, summary.documents), (FILES, FILES));
    let r = IndexReader::from_bytes(bytes).unwrap();
    r.verify().unwrap();
    for (i, f) in r.files().enumerate() {
        assert_eq!((f.path, f.changed_ns), (&path(i as u32)[..], i as i64));
    }
    let docs: Vec<u32> = r.documents().map(|d| d.file).collect();
    assert_eq!(docs, (0..FILES).collect::<Vec<_>>());
    let hits = r.candidates(&Query::Trigram(pack(*b"791"))).unwrap();
    let want: Vec<u32> =
        (0..FILES).filter(|i| format!("{:04}", i % 7919).contains("791")).collect();
    assert_eq!(hits.as_slice(), &want[..]);
}

/// The deep, long-named directories every file of the big-listing tree
/// sits under: 2,169 bytes of path.
fn deep_prefix() -> String {
    (0..9).map(|i| format!("{}/", char::from(b'a' + i).to_string().repeat(240))).collect()
}

#[test]
fn issue_0038_a_tree_build_keeps_to_its_budget_whatever_its_listing() {
    if !cfg!(target_os = "linux") {
        eprintln!("skipped: samples /proc/PID/status");
        return;
    }
    const FILES: usize = 16_000;
    let t = util::Tree::new("index-memory");
    let prefix = deep_prefix();
    let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"];
    for i in 0..FILES {
        let name = format!("{i:05}-{}", "n".repeat(195));
        let mut text = format!("file {i} {} {}\n", words[i % 7], words[i * 3 % 7]);
        if i % 4001 == 0 {
            text.push_str("the needle is here\n");
        }
        t.write(format!("repo/{prefix}d{:02}/{name}", i % 80), text);
    }
    let mut cmd = util::tg_command(&t, t.root());
    cmd.args(["index", "--stats", "--index-memory", "40M", "-j", "2", "repo"]);
    build_within_budget(&mut cmd);

    // The index, where queries find it, answers as rg.
    let mut report = util::Report::new("index_memory");
    for (name, q) in [
        ("needle", &["-l", "needle"][..]),
        ("count", &["-c", "file 1234 "]),
        ("regex", &["-l", "file 1[0-2]00[0-9] golf"]),
        ("none", &["-l", "zulu"]),
    ] {
        report.check(&t, &util::Case::new(format!("repo/{name}"), q).cwd("repo"));
    }
    let stats = util::tg_command(&t, t.path("repo")).args(["--stats", "-l", "needle"]).output();
    let stats = String::from_utf8_lossy(&stats.expect("run tg").stderr).into_owned();
    assert!(stats.contains("candidate documents"), "{stats}");
    report.finish();
}

/// A log of `len` bytes or a little more, with a rare needle.
fn gz_text(len: usize) -> Vec<u8> {
    let words = ["sshd[7]: Accepted key", "kernel: usb 1-1: reset", "cron[9]: job done"];
    let mut out = Vec::with_capacity(len + 100);
    let mut i: u64 = 0;
    while out.len() < len {
        let (h, m, s) = (i / 3600 % 24, i / 60 % 60, i % 60);
        let word = words[(i * 7 % 3) as usize];
        let id = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 34;
        out.extend_from_slice(
            format!("Feb  1 {h:02}:{m:02}:{s:02} h{} {word} {id}\n", i % 7).as_bytes(),
        );
        if i.is_multiple_of(20_011) {
            out.extend_from_slice(b"kernel: Oops: RAREMARK in module zz\n");
        }
        i += 1;
    }
    out
}

#[test]
fn a_gz_index_build_keeps_to_its_budget_whatever_its_access_points() {
    use std::io::Write;
    if !cfg!(target_os = "linux") {
        eprintln!("skipped: samples /proc/PID/status");
        return;
    }
    let t = util::Tree::new("index-memory-gz");
    let text = gz_text(6 << 20);
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    for piece in text.chunks(4 << 10) {
        z.write_all(piece).unwrap();
        z.flush().unwrap();
    }
    t.write("app.log.gz", z.finish().unwrap());
    let mut cmd = util::tg_command(&t, t.root());
    cmd.args(["index", "--index-memory", "40M", "-j", "2", "--access-spacing", "4K"]);
    build_within_budget(cmd.arg("app.log.gz"));

    // Searched through the index, the text prints what rg -z prints.
    let mut report = util::Report::new("index_memory_gz");
    for (name, q) in [
        ("needle", &["-z", "-n", "RAREMARK", "app.log.gz"][..]),
        ("count", &["-z", "-c", "h3 cron", "app.log.gz"]),
        ("regex", &["-z", "-n", "-b", "^Feb  1 0[0-2]:1\\d:0\\d h5 kernel", "app.log.gz"]),
        ("none", &["-z", "XYZZY", "app.log.gz"]),
    ] {
        report.check(&t, &util::Case::new(format!("gz/{name}"), q));
    }
    let mut stats = util::tg_command(&t, t.root());
    let stats = stats.args(["-z", "--stats", "-q", "RAREMARK", "app.log.gz"]).output();
    let stats = String::from_utf8_lossy(&stats.expect("run tg").stderr).into_owned();
    assert!(stats.contains("block indexes used: 1"), "{stats}");
    report.finish();
}

/// The budget the builds below are given (`--index-memory 40M`).
const BUDGET: u64 = 40 << 20;

/// Runs `tg index` as `cmd` says, sampling its private memory, and
/// asserts it succeeded within [`BUDGET`].
fn build_within_budget(cmd: &mut std::process::Command) {
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn tg index");
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        peak = peak.max(util::private_bytes(child.id()).unwrap_or(0));
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tg index failed: {stderr}");
    let mib = |b: u64| b as f64 / f64::from(1 << 20);
    eprintln!("peak RssAnon {:.1} MiB under a 40 MiB budget\n{stderr}", mib(peak));
    assert!(peak > 0, "the build was sampled");
    assert!(peak <= BUDGET, "peak private memory {:.1} MiB over the 40 MiB budget", mib(peak));
}
