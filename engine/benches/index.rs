//! Index microbenchmarks (issue 4): the engine's inner loops, without I/O.
//!
//! * `extract` — a document's distinct trigrams with `TrigramSet`
//!   (`add_bytes` + `take`, as `tg index` does per file); throughput
//!   in input bytes. Data: the first 4 MiB of `.c`/`.h` files of the Linux
//!   tree at `/root/.cache/trigrep-corpora/linux` (`TG_BENCH_LINUX`
//!   overrides; `../shared/bench/corpora.sh` installs it), each file one
//!   document, in path order; generated identifier soup of the same size
//!   when the tree is missing (the bench says which it used).
//! * `candidates` — `IndexReader::candidates` on an in-memory index
//!   (`IndexWriter::finish_to_vec` → `IndexReader::from_bytes`) of 100,000
//!   documents (about the Linux tree's 78k files), where chosen trigrams
//!   have posting lists of ~50,000 (a trigram in half the files, like
//!   `int`), ~5,000, ~500 and ~50 documents; `and` is the intersection,
//!   `or` the union; throughput in postings read (the sum of the lengths
//!   of the lists the query names). Includes each list's CRC check.
//! * `plan` — `planner::plan` (regex → trigram query) for 10 typical
//!   patterns: literals, `-i`, `-F`, alternations, classes, Unicode.
//!
//! Run: `cargo bench --bench index` (`-- --quick` for a short run).

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use trigrep::index::extract::TrigramSet;
use trigrep::index::reader::IndexReader;
use trigrep::index::table::FileMeta;
use trigrep::index::writer::IndexWriterBuilder;
use trigrep::query::Query;
use trigrep::query::planner::{PlanOptions, plan};
use trigrep::query::trigram::Trigram;

/// Bytes of text the extraction bench reads.
const EXTRACT_BYTES: usize = 4 << 20;

/// `.c`/`.h` files under `dir`, in path order, until `limit` bytes.
fn c_files(dir: &Path, limit: usize, out: &mut Vec<Vec<u8>>, total: &mut usize) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if *total >= limit {
            return;
        }
        if p.is_dir() {
            c_files(&p, limit, out, total);
        } else if p.extension().is_some_and(|e| e == "c" || e == "h")
            && let Ok(bytes) = std::fs::read(&p)
        {
            *total += bytes.len();
            out.push(bytes);
        }
    }
}

/// Generated C-like text: identifiers, keywords, numbers, in 16 KiB files.
fn generated(limit: usize) -> Vec<Vec<u8>> {
    const WORDS: [&str; 12] =
        ["static", "int", "return", "struct", "if", "for", "->", "(", ");", "{", "}", "\n\t"];
    let mut rng = StdRng::seed_from_u64(42);
    let mut docs = Vec::new();
    let mut total = 0;
    while total < limit {
        let mut d = Vec::with_capacity(16 << 10);
        while d.len() < 16 << 10 {
            let r = rng.random::<u64>();
            if r.is_multiple_of(3) {
                for i in 0..3 + r % 9 {
                    d.push(
                        b"abcdefghijklmnopqrstuvwxyz_0123456789"[((r >> (4 * i)) % 37) as usize],
                    );
                }
            } else {
                d.extend_from_slice(WORDS[(r % 12) as usize].as_bytes());
            }
            d.push(b' ');
        }
        total += d.len();
        docs.push(d);
    }
    docs
}

fn extract(c: &mut Criterion) {
    let linux = std::env::var_os("TG_BENCH_LINUX")
        .map_or_else(|| PathBuf::from("/root/.cache/trigrep-corpora/linux"), PathBuf::from);
    let (mut docs, mut total) = (Vec::new(), 0);
    c_files(&linux, EXTRACT_BYTES, &mut docs, &mut total);
    let source = if docs.is_empty() {
        docs = generated(EXTRACT_BYTES);
        "generated"
    } else {
        "linux"
    };
    let bytes: usize = docs.iter().map(Vec::len).sum();
    eprintln!("extract: {} documents, {bytes} bytes ({source})", docs.len());
    let mut g = c.benchmark_group("extract");
    g.throughput(Throughput::Bytes(bytes as u64));
    let mut set = TrigramSet::new(true);
    g.bench_function(source, |b| {
        b.iter(|| {
            let mut distinct = 0;
            for d in &docs {
                set.add_bytes(d);
                distinct += set.take().len();
            }
            black_box(distinct)
        })
    });
    g.finish();
}

/// Documents in the synthetic index.
const DOCS: u32 = 100_000;

/// Trigrams with chosen posting-list lengths: (name, trigram, documents per 100,000).
const LISTS: [(&str, Trigram, u32); 8] = [
    ("d1", 0x01_0001, 50_000),
    ("d2", 0x01_0002, 50_000),
    ("m1", 0x01_0011, 5_000),
    ("m2", 0x01_0012, 5_000),
    ("m3", 0x01_0013, 5_000),
    ("s1", 0x01_0021, 500),
    ("s2", 0x01_0022, 500),
    ("r1", 0x01_0031, 50),
];

/// An index of `DOCS` documents: each holds every trigram of [`LISTS`] with
/// its probability, plus 30 filler trigrams from a pool of 20,000.
fn synthetic_index() -> IndexReader {
    let mut rng = StdRng::seed_from_u64(7);
    let mut w = IndexWriterBuilder::new().build();
    let mut tris = Vec::new();
    for d in 0..DOCS {
        let meta = FileMeta { path: format!("f{d:06}").into_bytes(), ..Default::default() };
        let f = w.add_file(meta).unwrap();
        tris.clear();
        for &(_, t, per) in &LISTS {
            if (rng.random::<u64>() % u64::from(DOCS)) < u64::from(per) {
                tris.push(t << 8);
            }
        }
        for _ in 0..30 {
            tris.push((0x10_0000 + (rng.random::<u64>() % 20_000) as u32) << 8);
        }
        w.add_document(f, 0, 1000, 1, &tris).unwrap();
    }
    let (bytes, _) = w.finish_to_vec().unwrap();
    IndexReader::from_bytes(bytes).unwrap()
}

fn candidates(c: &mut Criterion) {
    let r = synthetic_index();
    let t = |name: &str| Query::Trigram(LISTS.iter().find(|l| l.0 == name).unwrap().1);
    let and = |names: &[&str]| Query::And(names.iter().map(|n| t(n)).collect());
    let or = |names: &[&str]| Query::Or(names.iter().map(|n| t(n)).collect());
    let cases: Vec<(&str, Query)> = vec![
        ("and/50k*50k", and(&["d1", "d2"])),
        ("and/50k*500", and(&["d1", "s1"])),
        ("and/5k*5k*5k", and(&["m1", "m2", "m3"])),
        ("and/500*50", and(&["s1", "r1"])),
        ("or/50k+50k", or(&["d1", "d2"])),
        ("or/5k+5k+5k", or(&["m1", "m2", "m3"])),
        ("or/500+500", or(&["s1", "s2"])),
        ("and-of-or/(50k+5k)*500", Query::And(vec![or(&["d1", "m1"]), t("s1")])),
    ];
    let mut g = c.benchmark_group("candidates");
    for (name, q) in &cases {
        let mut read = 0u64;
        count_postings(&r, q, &mut read);
        let found = r.candidates(q).unwrap().len();
        eprintln!("candidates/{name}: {read} postings named, {found} candidates");
        g.throughput(Throughput::Elements(read));
        g.bench_with_input(BenchmarkId::from_parameter(name), q, |b, q| {
            b.iter(|| black_box(r.candidates(q).unwrap().len()))
        });
    }
    g.finish();
}

/// The summed lengths of the lists `q` names.
fn count_postings(r: &IndexReader, q: &Query, n: &mut u64) {
    match q {
        Query::Trigram(t) | Query::Followed(t, _) => *n += u64::from(r.posting_len(*t)),
        Query::And(qs) | Query::Or(qs) => qs.iter().for_each(|q| count_postings(r, q, n)),
        Query::All | Query::Nothing => {}
    }
}

fn planning(c: &mut Criterion) {
    let regex = PlanOptions::default();
    let icase = PlanOptions { case_insensitive: true, ..PlanOptions::default() };
    let fixed = PlanOptions { fixed_strings: true, ..PlanOptions::default() };
    let cases: [(&str, &str, &PlanOptions); 10] = [
        ("literal", "EXPORT_SYMBOL_GPL", &regex),
        ("two-words", "struct file_operations", &regex),
        ("-i", "spin_lock_irqsave", &icase),
        ("inline-i-alt", "(?i)a|b", &regex),
        ("-F", "a.b*c(d)[e]", &fixed),
        ("alternation", "kmalloc|kzalloc|kcalloc|vmalloc", &regex),
        ("word-call", r"\bcopy_from_user\(", &regex),
        ("class-repeat", r"[A-Z]{3,}_MAX\b", &regex),
        ("decl", r"static\s+int\s+\w+_init\(void\)", &regex),
        ("unicode-i", "(?i)naïve café", &regex),
    ];
    let mut g = c.benchmark_group("plan");
    for (name, pattern, opts) in cases {
        let patterns = vec![pattern.to_string()];
        eprintln!("plan/{name}: {pattern:?} -> {}", plan(&patterns, opts));
        g.bench_with_input(BenchmarkId::from_parameter(name), &patterns, |b, p| {
            b.iter(|| black_box(plan(p, opts)))
        });
    }
    g.finish();
}

criterion_group!(benches, extract, candidates, planning);
criterion_main!(benches);
