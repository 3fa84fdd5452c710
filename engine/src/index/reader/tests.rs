//! The index engine's end-to-end tests (writer, storage and reader
//! together): build in memory or in a directory, serialize, reopen, query,
//! and compare with a naive model; corrupt the bytes and inject failures
//! into publishing.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::*;
use crate::index::format::{FOOTER_LEN, FORMAT_VERSION};
use crate::index::storage::{FsStorage, INDEX_FILE, MemStorage, Step};
use crate::index::table::{FileMeta, flags};
use crate::index::writer::{IndexWriter, IndexWriterBuilder};
use crate::query::trigram::{Gram, gram};
use rand::{RngExt, SeedableRng, rngs::StdRng};

/// The naive model of an index: each document's trigrams and their follow masks.
struct Corpus {
    files: Vec<FileMeta>,
    docs: Vec<(u32, DocMeta, BTreeMap<Trigram, u8>)>,
}

/// Random files, each cut into 1–3 documents with skewed trigram sets
/// (a few trigrams are common, most are rare) out of `universe`.
fn random_corpus(rng: &mut StdRng, nfiles: usize, universe: u64, max_trigrams: u64) -> Corpus {
    let mut files = Vec::new();
    let mut docs = Vec::new();
    for f in 0..nfiles {
        let flags = if rng.random_range(0..40) == 0 { flags::ALWAYS_CANDIDATE } else { 0 };
        files.push(FileMeta {
            path: format!("dir{}/file{f}.txt", f % 7).into_bytes(),
            size: rng.random_range(0..1 << 20),
            changed_ns: rng.random::<u64>() as i64,
            flags,
        });
        let mut offset = 0;
        let mut line = 1;
        for _ in 0..1 + rng.random_range(0..3) {
            let n = rng.random_range(0..max_trigrams.max(1));
            let set: BTreeMap<Trigram, u8> = (0..n)
                .map(|_| {
                    let r = rng.random_range(0..universe.max(1));
                    // Squaring skews towards small values: common trigrams.
                    (((r * r) / universe) as Trigram, rng.random_range(0..16) as u8)
                })
                .collect();
            let len = 1 + rng.random_range(0..5000);
            let meta = DocMeta { file: f as u32, offset, len, first_line: line };
            offset += len;
            line += rng.random_range(0..100);
            docs.push((flags, meta, set));
        }
    }
    Corpus { files, docs }
}

fn build(c: &Corpus, budget: usize, spill: &Path) -> IndexWriter {
    build_as(c, budget, spill, FORMAT_VERSION)
}
fn build_as(c: &Corpus, budget: usize, spill: &Path, version: u32) -> IndexWriter {
    let builder = IndexWriterBuilder::new().memory_budget(budget).spill_dir(spill);
    let mut w = builder.format_version(version).build();
    for f in &c.files {
        w.add_file(f.clone()).unwrap();
    }
    for (i, (_, d, set)) in c.docs.iter().enumerate() {
        // Shuffled order and repeats (their masks joined) are allowed.
        let mut ts: Vec<Gram> = set.iter().rev().map(|(&t, &m)| gram(t, m & 0b0101)).collect();
        ts.extend(set.iter().map(|(&t, &m)| gram(t, m & 0b1010)));
        let id = w.add_document(d.file, d.offset, d.len, d.first_line, &ts).unwrap();
        assert_eq!(id as usize, i);
    }
    w
}

fn naive(c: &Corpus, q: &Query) -> Vec<DocId> {
    // Only bitmap lists keep follow masks.
    let count = |t| c.docs.iter().filter(|d| d.2.contains_key(&t)).count() as u32;
    let masked = |t| crate::index::postings::is_bitmap(count(t), c.docs.len() as u32);
    let accepts = |set: &BTreeMap<Trigram, u8>| {
        q.accepts(&|t, next: Option<u8>| {
            set.get(&t).is_some_and(|m| next.is_none_or(|b| !masked(t) || m & follow_bit(b) != 0))
        })
    };
    let sat = !unsatisfiable(q);
    c.docs
        .iter()
        .enumerate()
        .filter(|(_, (fl, _, set))| accepts(set) || (sat && fl & flags::ALWAYS_CANDIDATE != 0))
        .map(|(i, _)| i as DocId)
        .collect()
}

fn random_query(rng: &mut StdRng, c: &Corpus, universe: u64, depth: u32) -> Query {
    let leaf = depth == 0 || rng.random_range(0..3) == 0;
    if leaf {
        return match rng.random_range(0..20) {
            0 => Query::All,
            1 => Query::Nothing,
            2..=7 => Query::Trigram(rng.random_range(0..(universe + 10).max(1)) as Trigram),
            8..=9 => Query::Followed(rng.random_range(0..universe.max(1)) as Trigram, rng.random()),
            _ => {
                // A trigram that some document has, so answers are not all empty.
                let (_, _, set) =
                    &c.docs[rng.random_range(0..(c.docs.len() as u64).max(1)) as usize];
                let v: Vec<_> = set.keys().collect();
                Query::Trigram(
                    v.get(rng.random_range(0..(v.len() as u64).max(1)) as usize).map_or(0, |t| **t),
                )
            }
        };
    }
    let n = rng.random_range(0..4) as usize;
    let cs = (0..n).map(|_| random_query(rng, c, universe, depth - 1)).collect();
    if rng.random_range(0..2) == 0 { Query::And(cs) } else { Query::Or(cs) }
}

fn check_against_model(
    r: &IndexReader,
    c: &Corpus,
    rng: &mut StdRng,
    universe: u64,
    queries: usize,
) {
    assert_eq!(r.stats().documents as usize, c.docs.len());
    assert_eq!(r.stats().files as usize, c.files.len());
    assert_eq!(r.files().map(|f| f.to_meta()).collect::<Vec<FileMeta>>(), c.files);
    let docs: Vec<DocMeta> = r.documents().collect();
    assert_eq!(docs, c.docs.iter().map(|d| d.1).collect::<Vec<_>>());
    assert!(r.doc(c.docs.len() as u32).is_none() && r.file(c.files.len() as u32).is_none());
    for t in 0..universe as Trigram + 3 {
        let want: Vec<DocId> =
            (0..c.docs.len() as u32).filter(|&d| c.docs[d as usize].2.contains_key(&t)).collect();
        assert_eq!(r.postings(t).unwrap().collect::<Vec<_>>(), want, "trigram {t}");
        assert_eq!(r.posting_len(t) as usize, want.len());
    }
    for _ in 0..queries {
        let q = random_query(rng, c, universe, 4);
        let early = r.candidates_within(&q, rng.random_range(1..6)).unwrap().as_slice().to_vec();
        assert_eq!(r.candidates(&q).unwrap().as_slice().to_vec(), naive(c, &q), "{q:?}");
        assert!(naive(c, &q).iter().all(|d| early.contains(d)), "{q:?}: early stop lost one");
    }
    r.verify().unwrap();
}

#[test]
fn random_corpora_match_naive_model() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 0..6 {
        let mut rng = StdRng::seed_from_u64(seed);
        let universe = 50 + rng.random_range(0..3000);
        let nfiles = 1 + rng.random_range(0..300) as usize;
        let c = random_corpus(&mut rng, nfiles, universe, 200);
        let (bytes, summary) = build(&c, 1 << 20, dir.path()).finish_to_vec().unwrap();
        assert_eq!(summary.bytes as usize, bytes.len());
        let r = IndexReader::from_bytes(bytes).unwrap();
        assert_eq!(r.posting_count(), summary.postings);
        assert!(!r.needs_reindex());
        check_against_model(&r, &c, &mut rng, universe, 300);
    }
}

#[test]
fn tiny_budget_multi_pass_build_is_identical_to_in_memory_build() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = StdRng::seed_from_u64(42);
    let universe = 4000;
    let c = random_corpus(&mut rng, 800, universe, 400);
    let (small, s) = build(&c, 64 << 10, dir.path()).finish_to_vec().unwrap();
    let (big, b) = build(&c, 256 << 20, dir.path()).finish_to_vec().unwrap();
    assert!(s.sort.runs >= 20 && s.sort.merge_passes >= 2, "{:?}", s.sort);
    assert_eq!(b.sort.runs, 0);
    assert_eq!(small, big, "the budget must not change the bytes");
    // Runs and the trigram-table spool are gone.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let r = IndexReader::from_bytes(small).unwrap();
    check_against_model(&r, &c, &mut rng, universe, 200);
}

#[test]
fn edge_queries_and_empty_index() {
    let (bytes, _) = IndexWriterBuilder::new().build().finish_to_vec().unwrap();
    let r = IndexReader::from_bytes(bytes).unwrap();
    assert_eq!(
        r.stats(),
        IndexStats { bytes: r.stats().bytes, table_id: r.stats().table_id, ..Default::default() }
    );
    for q in [Query::All, Query::Nothing, Query::Trigram(1), Query::And(vec![])] {
        assert!(r.candidates(&q).unwrap().is_empty());
    }
    r.verify().unwrap();

    let mut w = IndexWriterBuilder::new().build();
    let mut file = |path: &[u8], flags| {
        w.add_file(FileMeta { path: path.to_vec(), flags, ..Default::default() }).unwrap()
    };
    let f = file(b"a", 0);
    let u = file(b"utf16", flags::ALWAYS_CANDIDATE);
    let s = file(b"big.bin", flags::SKIPPED_BINARY);
    assert!(matches!(w.add_document(9, 0, 1, 1, &[]), Err(IndexError::InvalidInput(_))));
    let d0 = w.add_document(f, 0, 10, 1, &[1 << 8, 2 << 8, 3 << 8]).unwrap();
    let d1 = w.add_document(u, 0, 10, 1, &[]).unwrap();
    let d2 = w.add_document(f, 10, 10, 2, &[3 << 8, 4 << 8]).unwrap();
    let r = IndexReader::from_bytes(w.finish_to_vec().unwrap().0).unwrap();
    let cand = |q: Query| r.candidates(&q).unwrap().as_slice().to_vec();
    assert_eq!(cand(Query::All), vec![d0, d1, d2]);
    assert_eq!(cand(Query::And(vec![])), vec![d0, d1, d2]);
    assert!(cand(Query::Nothing).is_empty());
    assert!(cand(Query::Or(vec![])).is_empty());
    assert!(cand(Query::And(vec![Query::Trigram(3), Query::Nothing])).is_empty());
    assert_eq!(cand(Query::Trigram(99)), vec![d1]);
    assert_eq!(cand(Query::Trigram(3)), vec![d0, d1, d2]);
    assert_eq!(cand(Query::And(vec![Query::Trigram(1), Query::Trigram(3)])), vec![d0, d1]);
    assert_eq!(cand(Query::Or(vec![Query::Trigram(4), Query::Nothing])), vec![d1, d2]);
    let skipped: Vec<_> =
        r.files().filter(|f| f.flags & flags::SKIPPED_ANY != 0).map(|f| f.path).collect();
    assert_eq!(skipped, vec![&b"big.bin"[..]]);
    assert_eq!(r.file(s).unwrap().flags, flags::SKIPPED_BINARY);
}

/// A small index for the corruption and crash tests, with its model.
fn small_index() -> (Vec<u8>, Corpus) {
    let mut rng = StdRng::seed_from_u64(7);
    let c = random_corpus(&mut rng, 40, 300, 60);
    let dir = tempfile::tempdir().unwrap();
    (build(&c, 1 << 20, dir.path()).finish_to_vec().unwrap().0, c)
}

/// Every query of a fixed set either errors or answers exactly as the model.
fn never_wrong(r: &IndexReader, c: &Corpus) -> bool {
    let mut any_err = false;
    let mut qs: Vec<Query> = (0..310).map(Query::Trigram).collect();
    qs.push(Query::All);
    qs.push(Query::Or((0..300).map(Query::Trigram).collect()));
    for q in qs {
        match r.candidates(&q) {
            Ok(got) => assert_eq!(got.as_slice().to_vec(), naive(c, &q), "{q:?}"),
            Err(IndexError::Corrupt(_)) => any_err = true,
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    any_err
}

#[test]
fn random_byte_flips_are_detected_before_a_wrong_answer() {
    let (bytes, c) = small_index();
    let mut rng = StdRng::seed_from_u64(99);
    let (mut at_open, mut at_query) = (0, 0);
    for _ in 0..600 {
        let mut b = bytes.clone();
        let i = rng.random_range(0..(b.len() as u64).max(1)) as usize;
        b[i] ^= 1 << rng.random_range(0..8);
        match IndexReader::from_bytes(b) {
            Err(IndexError::Corrupt(_) | IndexError::UnsupportedVersion { .. }) => at_open += 1,
            Err(e) => panic!("unexpected error {e}"),
            Ok(r) => {
                // Postings are checked lazily: both whole checks and a query see it.
                assert!(r.verify().is_err(), "flip at {i} undetected by verify");
                assert!(r.verify_built().is_err(), "flip at {i} undetected by verify_built");
                assert!(never_wrong(&r, &c), "flip at {i} undetected by queries");
                at_query += 1;
            }
        }
    }
    assert!(at_open > 0 && at_query > 0, "open {at_open}, query {at_query}");
}

#[test]
fn every_truncation_is_an_error() {
    let (bytes, _) = small_index();
    for cut in (0..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
        let r = IndexReader::from_bytes(bytes[..cut].to_vec());
        assert!(matches!(r, Err(IndexError::Corrupt(_))), "cut at {cut}");
    }
    // Junk appended after the footer is an error too.
    let b = [&bytes[..], b"junk"].concat();
    assert!(IndexReader::from_bytes(b).is_err());
}

/// Format version 1 (varints only) is still read: an index with no dense
/// list is the same bytes in versions 1 to 4, so relabelled as version 1
/// it must answer as before; a dense list is a bitmap with masks in 4.
#[test]
fn version_1_lists_are_read_as_varints() {
    // 64 documents; trigram 1000 + i/4 is in 4 of them (4 * 8 < 64: varints).
    let file =
        |i| FileMeta { path: format!("f{i:02}").into_bytes(), size: 1, changed_ns: 1, flags: 0 };
    let doc = |i: u32| DocMeta { file: i, offset: 0, len: 10, first_line: 1 };
    let set = |i: u32| [i * 3, i * 3 + 1, i * 3 + 2, 1000 + i / 4].map(|t| (t, 1)).into();
    let mut c = Corpus { files: (0..64).map(file).collect(), docs: Vec::new() };
    c.docs = (0..64u32).map(|i| (0, doc(i), set(i))).collect();
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = build_as(&c, 1 << 20, dir.path(), 4).finish_to_vec().unwrap().0;
    let footer = bytes.len() - FOOTER_LEN;
    bytes[footer + 40..footer + 44].copy_from_slice(&1u32.to_le_bytes());
    let crc = crc32fast::hash(&bytes[footer..footer + 36]);
    bytes[footer + 36..footer + 40].copy_from_slice(&crc.to_le_bytes());
    let r = IndexReader::from_bytes(bytes).unwrap();
    r.verify().unwrap();
    for q in (0..200).chain(1000..1020).map(Query::Trigram) {
        assert_eq!(r.candidates(&q).unwrap().as_slice().to_vec(), naive(&c, &q), "{q:?}");
    }
    for (_, _, set) in &mut c.docs {
        set.insert(5000, 1);
    }
    let bytes = build_as(&c, 1 << 20, dir.path(), 4).finish_to_vec().unwrap().0;
    let r = IndexReader::from_bytes(bytes).unwrap();
    assert_eq!(r.postings(5000).unwrap().count(), 64);
    let q = Query::And(vec![Query::Trigram(5000), Query::Trigram(1003)]);
    assert_eq!(r.candidates(&q).unwrap().as_slice().to_vec(), naive(&c, &q));
}

#[test]
fn foreign_magic_and_other_versions_are_errors() {
    let (bytes, _) = small_index();
    let n = bytes.len();
    let mut b = bytes.clone();
    b[n - 8..].copy_from_slice(b"NOTANIDX");
    assert!(matches!(IndexReader::from_bytes(b), Err(IndexError::Corrupt(_))));
    for v in [0, FORMAT_VERSION + 1, u32::MAX] {
        let mut b = bytes.clone();
        b[n - 12..n - 8].copy_from_slice(&v.to_le_bytes());
        let e = IndexReader::from_bytes(b).unwrap_err();
        assert!(matches!(e, IndexError::UnsupportedVersion { found, .. } if found == v), "{e}");
    }
    assert!(matches!(IndexReader::from_bytes(Vec::new()), Err(IndexError::Corrupt(_))));
    assert!(matches!(
        IndexReader::from_bytes(vec![0; FOOTER_LEN * 3]),
        Err(IndexError::Corrupt(_))
    ));
}

#[test]
fn failures_while_publishing_leave_the_old_index_answering() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = StdRng::seed_from_u64(5);
    let old = random_corpus(&mut rng, 30, 200, 50);
    build(&old, 1 << 20, dir.path()).finish(dir.path()).unwrap();
    // Big enough (~1 MB) for the publish to make several write calls.
    let new = random_corpus(&mut rng, 1500, 2000, 400);
    let q = Query::Or((0..200).map(Query::Trigram).collect());
    let want_old = naive(&old, &q);

    let writes = {
        // Count the write calls of a publish, to fail at each of several.
        let n = Arc::new(AtomicU64::new(0));
        let n2 = Arc::clone(&n);
        let s = FsStorage::new(dir.path()).with_fail_hook(Arc::new(move |s| {
            if matches!(s, Step::Write(_)) {
                n2.fetch_add(1, Ordering::Relaxed);
            }
            if s == Step::Rename { Err(io::Error::other("stop before rename")) } else { Ok(()) }
        }));
        assert!(build(&new, 64 << 10, dir.path()).finish_into(&s).is_err());
        n.load(Ordering::Relaxed)
    };
    assert!(writes > 2, "{writes} writes");

    let mut steps = vec![Step::Create, Step::SyncFile, Step::Rename];
    steps.extend((0..writes).step_by((writes as usize / 5).max(1)).map(Step::Write));
    for fail_at in steps {
        let seen = Arc::new(AtomicU64::new(0));
        let seen2 = Arc::clone(&seen);
        let s = FsStorage::new(dir.path()).with_fail_hook(Arc::new(move |s| {
            let is_target = match (s, fail_at) {
                (Step::Write(_), Step::Write(k)) => seen2.fetch_add(1, Ordering::Relaxed) == k,
                _ => s == fail_at,
            };
            if is_target { Err(io::Error::other(format!("injected at {s:?}"))) } else { Ok(()) }
        }));
        let err = build(&new, 64 << 10, dir.path()).finish_into(&s).unwrap_err();
        assert!(matches!(err, IndexError::Io(_)), "{fail_at:?}: {err}");
        let r = IndexReader::open(dir.path()).unwrap();
        assert_eq!(r.candidates(&q).unwrap().as_slice(), want_old, "after failing at {fail_at:?}");
        assert_eq!(
            crate::index::storage::tests::names(dir.path()),
            vec![INDEX_FILE.to_string()],
            "{fail_at:?}"
        );
    }

    // A failed directory fsync comes after the rename: the new index is in.
    let s = FsStorage::new(dir.path()).with_fail_hook(Arc::new(|s| {
        if s == Step::SyncDir { Err(io::Error::other("injected")) } else { Ok(()) }
    }));
    assert!(build(&new, 64 << 10, dir.path()).finish_into(&s).is_err());
    let r = IndexReader::open(dir.path()).unwrap();
    assert_eq!(r.candidates(&q).unwrap().as_slice().to_vec(), naive(&new, &q));
}

#[test]
fn dropped_writer_leaves_previous_index_and_no_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = StdRng::seed_from_u64(11);
    let old = random_corpus(&mut rng, 30, 200, 50);
    assert!(matches!(IndexReader::open(dir.path()), Err(IndexError::NotFound(_))));
    build(&old, 1 << 20, dir.path()).finish(dir.path()).unwrap();
    let before = std::fs::read(dir.path().join(INDEX_FILE)).unwrap();
    let held = IndexReader::open(dir.path()).unwrap();
    // Spill runs into the index directory, then give up.
    let new = random_corpus(&mut rng, 300, 2000, 300);
    let w = build(&new, 64 << 10, dir.path());
    drop(w);
    assert_eq!(std::fs::read(dir.path().join(INDEX_FILE)).unwrap(), before);
    assert_eq!(crate::index::storage::tests::names(dir.path()), vec![INDEX_FILE.to_string()]);
    // A successful rebuild replaces the file while the old mapping lives on.
    build(&new, 64 << 10, dir.path()).finish(dir.path()).unwrap();
    assert_eq!(held.stats().documents as usize, old.docs.len());
    held.verify().unwrap();
    let r = IndexReader::open(dir.path()).unwrap();
    assert_eq!(r.stats().documents as usize, new.docs.len());
    assert_eq!(crate::index::storage::tests::names(dir.path()), vec![INDEX_FILE.to_string()]);
}

#[test]
fn mem_storage_round_trip() {
    let mut rng = StdRng::seed_from_u64(3);
    let c = random_corpus(&mut rng, 20, 100, 30);
    let dir = tempfile::tempdir().unwrap();
    let mem = MemStorage::new();
    build(&c, 1 << 20, dir.path()).finish_into(&mem).unwrap();
    let r = IndexReader::load(&mem).unwrap();
    check_against_model(&r, &c, &mut rng, 100, 50);
}

#[test]
fn posting_compression() {
    // Dense lists (each trigram in ~1/4 of 20k docs) and sparse ones
    // (~1/200): delta-varint costs about 1 byte per posting when gaps are
    // below 128, 2 bytes below 16384.
    let mut rng = StdRng::seed_from_u64(1);
    let mut w = IndexWriterBuilder::new().build();
    let f = w.add_file(FileMeta::default()).unwrap();
    for _ in 0..20_000 {
        let ts: Vec<Gram> = (0..100u32)
            .filter(|&t| rng.random_range(0..(if t < 50 { 4 } else { 200 }).max(1)) == 0)
            .map(|t| gram(t, 1))
            .collect();
        w.add_document(f, 0, 0, 1, &ts).unwrap();
    }
    let (_, s) = w.finish_to_vec().unwrap();
    let per = s.posting_bytes as f64 / s.postings as f64;
    eprintln!("{} postings in {} bytes: {per:.3} bytes/posting", s.postings, s.posting_bytes);
    assert!(per < 1.1, "{per}");
}
