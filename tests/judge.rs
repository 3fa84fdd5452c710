//! A server judges a query's file table with a sparse pass that
//! visits only the entries that may have changed, the candidates and the
//! files read whatever the query ([`TableSummary`]), and counts the rest.
//! It must decide exactly what the full pass a query runs on its own
//! decides: the same entries kept, in the same order, with the same
//! verdicts and counts, for random candidates, random changes, deleted,
//! grown and replaced files, a directory with a new file, and every kind
//! of search path.

use std::path::Path;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use trigrep::index::fresh::Reads;
use trigrep::index::fresh::changes::{Changes, Touched};
use trigrep::index::fresh::judge::{Judge, Judged, TableSummary};
use trigrep::index::reader::IndexReader;
use trigrep::index::table::flags;

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

#[test]
fn the_sparse_pass_judges_as_the_full_pass() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    let base = dir.path().join("indexes");
    for i in 0..300 {
        let sub = ["a", "a/b", "a/b-c", "c", "c/d", ""][i % 6];
        let rel = if sub.is_empty() { format!("f{i}.txt") } else { format!("{sub}/f{i}.txt") };
        write(&root, &rel, format!("line {i} needle\n").as_bytes());
    }
    write(&root, ".gitignore", b"*.log\n");
    write(&root, "a/bin.dat", b"text before\0binary after\n");
    write(&root, "c/old.zst", b"not really zstd\n");
    write(&root, "c/skip.log", b"ignored\n");
    let root = root.canonicalize().unwrap();
    trigrep::index::build::build(&root, &base, 64 << 20, &()).unwrap();
    let reader = IndexReader::open(&trigrep::index::location::index_dir_for(&base, &root)).unwrap();
    let summary = TableSummary::of(&reader, &root);
    // The tree changes behind the index: deleted, grown, replaced by a
    // directory, and a new file in an old directory.
    std::fs::remove_file(root.join("a/f0.txt")).unwrap();
    write(&root, "c/f3.txt", b"grown and rewritten\n");
    std::fs::remove_file(root.join("f5.txt")).unwrap();
    write(&root, "f5.txt/inner.txt", b"now a directory\n");
    write(&root, "a/b/new.txt", b"new needle\n");
    let n = reader.stats().files;
    let paths: Vec<Vec<u8>> = (0..n).map(|id| reader.file(id).unwrap().path.to_vec()).collect();
    let scopes: [&[&[u8]]; 5] = [&[b""], &[b"a"], &[b"a/b", b"c"], &[b"c/d"], &[b"nowhere"]];
    let mut rng = StdRng::seed_from_u64(11);
    let mut sparse_kept = 0;
    for round in 0..400 {
        let mut touched = Touched::default();
        for p in &paths {
            if rng.random_range(0..8) == 0 {
                touched.paths.insert(p.clone());
            }
        }
        for p in ["a/f0.txt", "c/f3.txt", "f5.txt", "a/b", "", "a/b/new.txt"] {
            if rng.random_bool(0.5) {
                touched.paths.insert(p.as_bytes().to_vec());
            }
        }
        if round % 7 == 0 {
            touched.subtrees.push(b"c".to_vec());
        }
        let may_differ = Changes::Watched(touched).may_differ(n, |id| &paths[id as usize]);
        let candidates: Vec<u64> =
            (0..=n / 64).map(|_| rng.random::<u64>() & rng.random::<u64>()).collect();
        let scope: Vec<Vec<u8>> = scopes[round % scopes.len()].iter().map(|s| s.to_vec()).collect();
        let judge = |summary: Option<&TableSummary>| -> Judged {
            Judge {
                reader: &reader,
                root: &root,
                candidate_files: &candidates,
                reads: Reads {
                    binary_whole: round % 3 == 0,
                    misses: round % 11 == 0,
                    zip: round % 5 == 0,
                },
                out: [flags::OUT_OF_PLAIN, 0, flags::OUT_OF_EDITOR][round % 3],
                summary,
            }
            .table(&scope, &may_differ)
            .unwrap()
        };
        let (full, sparse) = (judge(None), judge(Some(&summary)));
        assert_eq!(full.kept, sparse.kept, "round {round}");
        assert_eq!(full.counts, sparse.counts, "round {round}");
        sparse_kept += sparse.kept.len();
    }
    assert!(sparse_kept > 1000, "the rounds judged too little to tell: {sparse_kept}");
}
