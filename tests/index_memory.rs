//! Bounded memory at any size: an index writer's memory does not grow
//! with the files it is given. A counting allocator (this test binary's
//! own) follows the bytes this thread holds while 100,000 files with
//! 200-byte paths (20 MB of paths, 3 MB of file and document records) go
//! into a writer with a 1 MiB sort budget: its tables are spooled, so
//! what it holds stays within a few MiB; the index written is then read
//! back whole.

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
