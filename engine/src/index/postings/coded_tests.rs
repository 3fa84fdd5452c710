//! Tests of format 7's coded lists: random and edge-case lists and masks
//! round-trip, broken bytes are refused, and an index of format 4 answers
//! as one of format 7.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::tests::round_trip_as;
use super::*;
use crate::index::format::Layout;
use crate::index::reader::IndexReader;
use crate::index::table::FileMeta;
use crate::index::writer::IndexWriterBuilder;

/// Encodes `ids` and `masks` as a format 7 list, checks it validates, and
/// decodes it back four ways: ids, ids with masks, intersections and
/// filters by each follow bit, against what was encoded.
fn check(ids: &[DocId], masks: &[u8], docs: u32, rng: &mut StdRng) -> Vec<u8> {
    let count = ids.len() as u32;
    let masked = is_bitmap(count, docs);
    let mut bytes = Vec::new();
    coded::encode(ids, masks, docs, &mut bytes);
    assert!(ListKind::Coded.fits(bytes.len() as u64, count, docs));
    validate_list(&bytes, count, docs, ListKind::Coded).unwrap();
    assert!(coded::holds(&bytes, ids, masks, docs), "the writer's check of {count} ids");
    let list = || Postings::of_kind(ListKind::Coded, &bytes, count, docs).unwrap();
    assert_eq!(list().collect::<Vec<_>>(), ids);
    let mut got = Vec::new();
    list().for_each_with_mask(|d, m| got.push((d, m)));
    let mask = |k: usize| if masked { masks[k] } else { 0x0f };
    let want: Vec<(DocId, u8)> = ids.iter().enumerate().map(|(k, &d)| (d, mask(k))).collect();
    assert_eq!(got, want);
    let some: Vec<DocId> = (0..docs.min(1 << 17)).filter(|_| rng.random_bool(0.3)).collect();
    for bit in [None, Some(1), Some(2), Some(4), Some(8)] {
        let keep = |&&(_, m): &&(DocId, u8)| bit.is_none_or(|b| m & b != 0);
        let followed: Vec<DocId> = want.iter().filter(keep).map(|&(d, _)| d).collect();
        assert_eq!(list().followed_by(bit), followed);
        let within: Vec<DocId> =
            followed.iter().copied().filter(|d| some.binary_search(d).is_ok()).collect();
        assert_eq!(list().intersect(&some, bit), within, "bit {bit:?}");
        // A few far apart: masks found through the starts kept.
        let few: Vec<DocId> = followed.iter().copied().step_by(300).collect();
        assert_eq!(list().intersect(&few, bit), few, "bit {bit:?}");
    }
    bytes
}

/// Masks skewed as a tree's are (a few common), or uniform.
fn masks(n: usize, rng: &mut StdRng) -> Vec<u8> {
    let skew = rng.random_bool(0.5);
    let common = [8u8, 4, 2, 1, 12, 15];
    let pick = |rng: &mut StdRng| match skew && rng.random_bool(0.8) {
        true => common[rng.random_range(0..common.len())],
        false => rng.random_range(0..16),
    };
    (0..n).map(|_| pick(rng)).collect()
}

#[test]
fn issue_0038_random_and_edge_lists_round_trip() {
    let mut rng = StdRng::seed_from_u64(38);
    for docs in [1u32, 2, 7, 8, 9, 100, 1000, 70_000] {
        let all: Vec<DocId> = (0..docs).collect();
        let mut lists: Vec<Vec<DocId>> = vec![vec![0], vec![docs - 1], all.clone()];
        lists.push(vec![0, docs - 1]);
        for density in [0.001, 0.01, 0.1, 0.13, 0.2, 0.3, 0.6, 0.99] {
            lists.push(all.iter().copied().filter(|_| rng.random_bool(density)).collect());
        }
        // Clustered: runs of a directory's files, far apart.
        let mut clustered = Vec::new();
        let mut d = 0u64;
        while d < u64::from(docs) {
            let run = rng.random_range(1..40u64);
            clustered.extend((d..(d + run).min(u64::from(docs))).map(|d| d as DocId));
            d += run + rng.random_range(1..3000u64);
        }
        lists.push(clustered);
        for mut ids in lists.into_iter().filter(|l| !l.is_empty()) {
            ids.dedup();
            let m = masks(ids.len(), &mut rng);
            check(&ids, &m, docs, &mut rng);
            // One distinct mask: a code of one symbol.
            check(&ids, &vec![4; ids.len()], docs, &mut rng);
        }
    }
    // Ids as far apart as a u32 allows.
    check(&[0, u32::MAX - 1], &[], u32::MAX, &mut rng);
    check(&[u32::MAX - 2], &[], u32::MAX - 1, &mut rng);
}

#[test]
fn issue_0038_the_encoder_writes_coded_lists() {
    // 13 documents; lists as in format 4's test, here coded.
    let pairs = [(1, 0), (1, 12), (2, 3), (3, 0), (3, 1), (3, 7), (3, 8), (3, 9), (3, 12)];
    let (_, lists) = round_trip_as(&pairs, 13, 7);
    assert_eq!(lists, vec![vec![0, 12], vec![3], vec![0, 1, 7, 8, 9, 12]]);
    let pairs: Vec<(u32, DocId)> = (0..5000).filter(|d| d % 3 != 0).map(|d| (9, d)).collect();
    round_trip_as(&pairs, 5000, 7);
}

#[test]
fn issue_0038_broken_coded_lists_are_refused_or_decode_within_bounds() {
    let mut rng = StdRng::seed_from_u64(7);
    let docs = 300;
    for density in [0.02, 0.2, 0.5, 0.9] {
        let ids: Vec<DocId> = (0..docs).filter(|_| rng.random_bool(density)).collect();
        let m = masks(ids.len(), &mut rng);
        let bytes = check(&ids, &m, docs, &mut rng);
        let count = ids.len() as u32;
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                let valid = validate_list(&b, count, docs, ListKind::Coded).is_ok();
                // Never a panic; what validates decodes to `count` ids.
                let mut same = false;
                if let Ok(list) = Postings::of_kind(ListKind::Coded, &b, count, docs) {
                    let got: Vec<DocId> = list.clone().collect();
                    let mut got_masks = Vec::new();
                    list.for_each_with_mask(|_, m| got_masks.push(m));
                    let masked = is_bitmap(count, docs);
                    let masks_same = !masked || got_masks == m;
                    if valid {
                        assert_eq!(got.len(), count as usize);
                        assert!(
                            got.windows(2).all(|w| w[0] < w[1]) && got[count as usize - 1] < docs
                        );
                    }
                    same = got == ids && masks_same;
                }
                // The writer's check says yes exactly when the list is valid
                // and its ids and masks are the ones written.
                assert_eq!(coded::holds(&b, &ids, &m, docs), valid && same, "byte {i} bit {bit}");
            }
        }
        // Cut short or lengthened: refused.
        assert!(validate_list(&bytes[..bytes.len() - 1], count, docs, ListKind::Coded).is_err());
        let longer = [&bytes[..], &[0]].concat();
        assert!(validate_list(&longer, count, docs, ListKind::Coded).is_err());
        assert!(!coded::holds(&bytes[..bytes.len() - 1], &ids, &m, docs));
        assert!(!coded::holds(&longer, &ids, &m, docs));
        // Other ids than those written.
        let mut other = ids.clone();
        *other.last_mut().unwrap() -= 1;
        if other.windows(2).all(|w| w[0] < w[1]) {
            assert!(!coded::holds(&bytes, &other, &m, docs));
        }
        // Other masks than those written.
        if is_bitmap(count, docs) {
            let mut other = m.clone();
            other[0] ^= 1;
            assert!(!coded::holds(&bytes, &ids, &other, docs));
        }
    }
    // An unknown tag, and a mask code over-subscribing the code space.
    assert!(validate_list(&[40, 0], 1, 100, ListKind::Coded).is_err());
    let ids: Vec<DocId> = (0..100).collect();
    let mut b = Vec::new();
    coded::encode(&ids, &[1; 100], 100, &mut b);
    // The code: the 8 bytes after the 100 ids' bitmap and its tag.
    b[14..22].fill(0x11);
    assert!(Postings::of_kind(ListKind::Coded, &b, 100, 100).is_err());
}

/// An index of `texts` (one file each) in format `version`.
fn index(texts: &[Vec<u8>], version: u32) -> Vec<u8> {
    let mut w = IndexWriterBuilder::new().format_version(version).build();
    for (i, text) in texts.iter().enumerate() {
        let path = format!("d{}/f{i:04}", i / 50).into_bytes();
        let f = w.add_file(FileMeta { path, size: text.len() as u64, ..FileMeta::default() });
        let grams = crate::query::trigram::grams(text);
        w.add_document(f.unwrap(), 0, text.len() as u64, 1, &grams).unwrap();
    }
    w.finish_to_vec().unwrap().0
}

#[test]
fn issue_0038_a_format_4_index_answers_as_format_7_and_a_flipped_byte_is_an_error() {
    use crate::query::planner::{PlanOptions, plan};
    let mut rng = StdRng::seed_from_u64(4);
    let words = ["race", "trace", "grace", "rack", "acer", "ace ", "brace", "spam", "eggs"];
    let texts: Vec<Vec<u8>> = (0..600)
        .map(|i| {
            let n = if i % 50 < 10 { 30 } else { 3 };
            let w = (0..n).map(|_| words[rng.random_range(0..words.len())]);
            w.collect::<Vec<_>>().join(" ").into_bytes()
        })
        .collect();
    let bytes = index(&texts, 7);
    let layout = |b: &[u8]| Layout::parse(b).unwrap();
    assert_eq!(layout(&index(&texts, 4)).format_version, 4);
    assert_eq!(layout(&bytes).format_version, 7);
    let old = IndexReader::from_bytes(index(&texts, 4)).unwrap();
    let new = IndexReader::from_bytes(bytes.clone()).unwrap();
    old.verify().unwrap();
    new.verify().unwrap();
    for w in words.iter().chain(&["race trace", "ace", "xyz", "gs", "spam eggs"]) {
        let q = plan(&[(*w).into()], &PlanOptions::default());
        let docs = |r: &IndexReader| r.candidates(&q).unwrap().as_slice().to_vec();
        let holds = |i: &DocId| texts[*i as usize].windows(w.len()).any(|x| x == w.as_bytes());
        let truth: Vec<DocId> = (0..600).filter(holds).collect();
        assert_eq!(docs(&old), docs(&new), "{w}");
        assert!(truth.iter().all(|d| docs(&new).contains(d)), "{w}");
    }
    // Every byte of the postings flipped in turn: an error, or the right
    // list (a byte of no list read).
    let postings = layout(&bytes).get("postings").unwrap().clone();
    let (start, len) = (postings.offset, postings.len);
    let t = plan(&["race".into()], &PlanOptions::default());
    for i in (start..start + len).step_by(3) {
        let mut b = bytes.clone();
        b[i as usize] ^= 0x10;
        let r = IndexReader::from_bytes(b).unwrap();
        assert!(r.verify().is_err());
        if let Ok(c) = r.candidates(&t) {
            assert_eq!(c.as_slice(), new.candidates(&t).unwrap().as_slice());
        }
    }
}
