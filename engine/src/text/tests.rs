//! The three block texts answer alike: for one log, indexed raw, as a
//! `.gz` and packed, every range reads back the log's bytes, the blocks
//! tile the text with true first line numbers, and every block holding a
//! match is a candidate.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use super::gz::GzipText;
use super::packed::PackedText;
use super::raw::RawText;
use super::{Block, BlockText, Opened, block_at};
use crate::options::MatchOptions;
use crate::pack::write::{PackOptions, pack};
use crate::query::search_plan::query_for;

fn log() -> Vec<u8> {
    (0..20_000)
        .flat_map(|i| {
            let extra = if i % 997 == 0 { " NEEDLE here" } else { "" };
            format!("line {i} of a log{extra}\n").into_bytes()
        })
        .collect()
}

fn trusted<T>(opened: Opened<T>) -> T {
    match opened {
        Opened::Trusted(t) => t,
        Opened::Stale => panic!("stale"),
        Opened::Missing => panic!("missing"),
    }
}

fn check(text: &dyn BlockText, log: &[u8]) {
    assert_eq!(text.len(), log.len() as u64, "{}", text.kind());
    let covered = text.covered();
    assert_eq!(covered.len, log.len() as u64);
    assert_eq!(covered.lines, memchr::memchr_iter(b'\n', log).count() as u64);
    let blocks = text.blocks();
    assert_eq!(blocks.len(), covered.blocks as usize);
    let (mut at, mut line) = (0, 1);
    for b in &blocks {
        assert_eq!((b.offset, b.first_line), (at, line), "{}", text.kind());
        let bytes = &log[b.offset as usize..(b.offset + b.len) as usize];
        line += memchr::memchr_iter(b'\n', bytes).count() as u64;
        at += b.len;
    }
    assert_eq!(at, log.len() as u64);
    for (offset, len) in [(0, 10), (5000, 70_000), (log.len() as u64 - 3, 3), (123_456, 1)] {
        let mut buf = vec![0; len];
        text.read_at(offset, &mut buf).unwrap();
        assert_eq!(buf, &log[offset as usize..offset as usize + len], "{}", text.kind());
    }
    assert!(text.read_at(log.len() as u64 - 1, &mut [0; 2]).is_err(), "past the end");
    let query = query_for(&MatchOptions::new(vec!["NEEDLE".into()]), text.has_edges());
    let candidates = text.candidates(&query, 0).unwrap();
    for (i, _) in log.windows(6).enumerate().filter(|(_, w)| *w == b"NEEDLE") {
        let holder = block_at(&blocks, i as u64).unwrap();
        assert!(candidates.contains(holder), "{}: the block at {i}", text.kind());
    }
    assert!(candidates.len() < blocks.len() / 2, "{}: selective", text.kind());
}

fn open(path: &Path) -> File {
    File::open(path).unwrap()
}

#[test]
fn every_kind_of_text_reads_back_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("indexes");
    let log = log();
    let raw = dir.path().join("app.log");
    std::fs::write(&raw, &log).unwrap();
    crate::index::blocks::build(&raw, &base, 4096, 16 << 20, &()).unwrap();
    check(&trusted(RawText::open(&base, &raw, open(&raw)).unwrap()), &log);

    let gz = dir.path().join("app.log.gz");
    let mut enc = flate2::write::GzEncoder::new(File::create(&gz).unwrap(), Default::default());
    enc.write_all(&log).unwrap();
    enc.finish().unwrap();
    crate::index::gz::build(&gz, &base, 4096, 32 << 10, 16 << 20, &()).unwrap();
    check(&trusted(GzipText::open(&base, &gz, open(&gz)).unwrap()), &log);

    let zst = dir.path().join("app.log.zst");
    let opts = PackOptions { frame_size: 4096, ..PackOptions::default() };
    pack(&raw, &zst, &opts, &()).unwrap();
    check(&trusted(PackedText::open(&base, &zst, &open(&zst)).unwrap()), &log);
}

#[test]
fn a_grown_file_reads_past_what_is_covered_and_a_rewritten_one_is_stale() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("indexes");
    let path = dir.path().join("app.log");
    let log = log();
    std::fs::write(&path, &log).unwrap();
    crate::index::blocks::build(&path, &base, 4096, 16 << 20, &()).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(30));
    std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"more\n").unwrap();
    let text = trusted(RawText::open(&base, &path, open(&path)).unwrap());
    assert_eq!((text.len(), text.covered().len), (log.len() as u64 + 5, log.len() as u64));
    let mut tail = [0; 5];
    text.read_at(log.len() as u64, &mut tail).unwrap();
    assert_eq!(&tail, b"more\n");
    std::fs::write(&path, [b"x".as_slice(), &log].concat()).unwrap();
    assert!(matches!(RawText::open(&base, &path, open(&path)).unwrap(), Opened::Stale));
    let other = dir.path().join("other.log");
    std::fs::write(&other, &log).unwrap();
    assert!(matches!(RawText::open(&base, &other, open(&other)).unwrap(), Opened::Missing));
}

#[test]
fn the_block_holding_an_offset() {
    let b = |offset, len| Block { offset, len, first_line: offset + 1 };
    let blocks = [b(0, 10), b(10, 5), b(15, 20)];
    assert_eq!(block_at(&blocks, 0), Some(&blocks[0]));
    assert_eq!(block_at(&blocks, 9), Some(&blocks[0]));
    assert_eq!(block_at(&blocks, 10), Some(&blocks[1]));
    assert_eq!(block_at(&blocks, 34), Some(&blocks[2]));
    assert_eq!(block_at(&blocks, 35), None);
    assert_eq!(block_at(&[], 0), None);
}
