//! Measures index building: `cargo run --release --example index_build [PAIRS] [BUDGET_MIB]`.
//!
//! Adds PAIRS random `(trigram, doc)` pairs (skewed trigram frequencies,
//! 50 trigrams per document) with a memory budget of BUDGET_MIB, publishes
//! the index into a temporary directory and prints the build rate, bytes
//! per posting, peak private memory (RssAnon, sampled every 5 ms), and the
//! cost of opening the index and of checksumming the whole file.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use trigrep::index::reader::IndexReader;
use trigrep::index::table::FileMeta;
use trigrep::index::writer::IndexWriterBuilder;

fn rss_anon_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let pairs: u64 = args.get(1).map_or(Ok(10_000_000), |s| s.parse())?;
    let budget_mib: usize = args.get(2).map_or(Ok(64), |s| s.parse())?;
    let dir = tempfile::tempdir()?;

    let peak = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, stop) = (Arc::clone(&peak), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                peak.fetch_max(rss_anon_kib(), Ordering::Relaxed);
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        })
    };
    let base = rss_anon_kib();

    let start = Instant::now();
    let mut w =
        IndexWriterBuilder::new().memory_budget(budget_mib << 20).spill_dir(dir.path()).build();
    let per_doc = 50u64;
    let mut x = 0x1234_5678_9abc_def0u64;
    let mut ts = Vec::with_capacity(per_doc as usize);
    let docs = pairs / per_doc;
    for d in 0..docs {
        if d % 1000 == 0 {
            w.add_file(FileMeta { path: format!("f{d}").into_bytes(), ..Default::default() })?;
        }
        ts.clear();
        for _ in 0..per_doc {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let r = (x >> 40) & 0xff_ffff; // uniform 24 bits
            ts.push((((r * r) >> 24) as u32 & 0x3_ffff) << 8); // skewed over 256k trigrams
        }
        w.add_document((d / 1000) as u32, 0, 4096, 1, &ts)?;
    }
    let added = start.elapsed();
    let s = w.finish(dir.path())?;
    let total = start.elapsed();
    stop.store(true, Ordering::Relaxed);
    sampler.join().ok();

    println!("pairs added: {pairs} in {docs} docs, budget {budget_mib} MiB");
    println!(
        "build: {:.2} s ({:.2} s adding, {:.2} s merge+write) = {:.1} M pairs/s",
        total.as_secs_f64(),
        added.as_secs_f64(),
        (total - added).as_secs_f64(),
        pairs as f64 / total.as_secs_f64() / 1e6
    );
    println!(
        "postings {} (distinct), trigrams {}, posting bytes {}, {:.3} bytes/posting, file {} bytes",
        s.postings,
        s.trigrams,
        s.posting_bytes,
        s.posting_bytes as f64 / s.postings as f64,
        s.bytes
    );
    println!("sort: {:?}", s.sort);
    println!("RssAnon: base {} MiB, peak {} MiB", base / 1024, peak.load(Ordering::Relaxed) / 1024);

    let t = Instant::now();
    let r = IndexReader::open(dir.path())?;
    let open = t.elapsed();
    let t = Instant::now();
    r.verify()?;
    let verify = t.elapsed();
    let bytes = std::fs::read(dir.path().join("index.tg"))?;
    let t = Instant::now();
    let crc = crc32fast::hash(&bytes);
    let crc_t = t.elapsed();
    println!(
        "open (footer, TOC, small tables): {:.2} ms; verify (all CRCs + decode): {:.1} ms; \
         crc32 of {} MB in memory: {:.1} ms ({:.1} GB/s) [{crc:08x}]",
        open.as_secs_f64() * 1e3,
        verify.as_secs_f64() * 1e3,
        bytes.len() / 1_000_000,
        crc_t.as_secs_f64() * 1e3,
        bytes.len() as f64 / crc_t.as_secs_f64() / 1e9
    );
    Ok(())
}
