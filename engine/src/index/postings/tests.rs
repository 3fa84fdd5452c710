//! Tests of posting-list encoding and decoding.

use super::*;
use crate::index::posting_encoder::PostingEncoder;

#[test]
fn varint_round_trip_and_truncation() {
    for v in [0u32, 1, 127, 128, 16383, 16384, u32::MAX] {
        let mut b = Vec::new();
        put_varint(&mut b, v);
        let mut pos = 0;
        assert_eq!(get_varint(&b, &mut pos), Some(v));
        assert_eq!(pos, b.len());
        let mut pos = 0;
        assert_eq!(get_varint(&b[..b.len() - 1], &mut pos), None);
    }
    let mut pos = 0;
    assert_eq!(get_varint(&[0xff; 6], &mut pos), None);
    // A 5th byte carrying bits beyond u32 is rejected.
    let mut pos = 0;
    assert_eq!(get_varint(&[0xff, 0xff, 0xff, 0xff, 0x7f], &mut pos), None);
}

/// Encodes `pairs` for an index of `docs` documents in format 4 and
/// decodes each list back, checking CRCs and validation on the way.
fn round_trip(pairs: &[(Trigram, DocId)], docs: u32) -> (Vec<TrigramEntry>, Vec<Vec<u32>>) {
    round_trip_as(pairs, docs, 4)
}

/// [`round_trip`] in format `version`.
pub(super) fn round_trip_as(
    pairs: &[(Trigram, DocId)],
    docs: u32,
    version: u32,
) -> (Vec<TrigramEntry>, Vec<Vec<u32>>) {
    let mut out = Vec::new();
    let mut enc = PostingEncoder::new(docs, version);
    let mut entries = Vec::new();
    for &(t, d) in pairs {
        // Each document's mask has the bit of its id's parity.
        entries.extend(enc.push(&mut out, t, d, 1 << (d % 2)).unwrap());
    }
    entries.extend(enc.close(&mut out).unwrap());
    assert_eq!(enc.written(), out.len() as u64);
    let ends: Vec<u64> =
        entries.iter().skip(1).map(|e| e.offset).chain([out.len() as u64]).collect();
    let lists = entries
        .iter()
        .zip(&ends)
        .map(|(e, &end)| {
            let bytes = &out[e.offset as usize..end as usize];
            assert_eq!(crc32fast::hash(bytes), e.crc);
            let kind = ListKind::of(version, e.count, docs);
            validate_list(bytes, e.count, docs, kind).unwrap();
            let list = Postings::of_kind(kind, bytes, e.count, docs).unwrap();
            let ids: Vec<u32> = list.clone().collect();
            // Intersecting with every id keeps the list; with none, nothing.
            let all: Vec<u32> = (0..docs).collect();
            assert_eq!(list.clone().intersect(&all, None), ids);
            assert_eq!(list.clone().intersect(&[], None), Vec::<u32>::new());
            // Masks keep the ids of one parity (a dense list's), or all
            // (a list without masks).
            let masked = kind != ListKind::Varints && is_bitmap(e.count, docs);
            let even: Vec<u32> = ids.iter().copied().filter(|d| !masked || d % 2 == 0).collect();
            assert_eq!(list.clone().intersect(&all, Some(1)), even);
            assert_eq!(list.clone().followed_by(Some(1)), even);
            assert_eq!(list.clone().followed_by(None), ids);
            let mut with_masks = Vec::new();
            list.for_each_with_mask(|d, m| with_masks.push((d, m)));
            let want = ids.iter().map(|&d| (d, if masked { 1 << (d % 2) } else { 0x0f }));
            assert_eq!(with_masks, want.collect::<Vec<_>>());
            ids
        })
        .collect();
    (entries, lists)
}

#[test]
fn encoder_streams_lists() {
    let pairs = [(1, 0), (1, 5), (1, 5), (1, 300), (2, 7), (9, 2999)];
    let (entries, lists) = round_trip(&pairs, 3000);
    assert_eq!(entries.len(), 3);
    assert_eq!(lists, vec![vec![0, 5, 300], vec![7], vec![2999]]);
    let mut t = Vec::new();
    entries[0].encode(&mut t);
    assert_eq!(TrigramEntry::decode(&t, 0), Some(entries[0]));
    assert_eq!(TrigramEntry::decode(&t, 1), None);
}

#[test]
fn dense_lists_are_bitmaps_with_follow_masks() {
    // 13 documents: a list of 2 ids is a bitmap (2 * 8 >= 13), of 1 not.
    let pairs = [(1, 0), (1, 12), (2, 3), (3, 0), (3, 1), (3, 7), (3, 8), (3, 9), (3, 12)];
    let (entries, lists) = round_trip(&pairs, 13);
    assert_eq!(lists, vec![vec![0, 12], vec![3], vec![0, 1, 7, 8, 9, 12]]);
    let lens: Vec<u64> = entries.windows(2).map(|w| w[1].offset - w[0].offset).collect();
    // Two bytes of bitmap and one of masks (two ids); one varint.
    assert_eq!(lens, [3, 1]);
    // Every document: a bitmap of all ones, however many documents.
    for docs in [1, 7, 8, 9, 64, 1000, 4099] {
        let pairs: Vec<(Trigram, DocId)> = (0..docs).map(|d| (5, d)).collect();
        let (e, lists) = round_trip(&pairs, docs);
        assert_eq!(lists[0], (0..docs).collect::<Vec<_>>());
        assert_eq!(e[0].count, docs);
    }
}

#[test]
fn bitmap_validation_rejects_wrong_counts_lengths_and_stray_bits() {
    // 10 documents: 2 bytes, 6 unused bits in the last.
    let good = [0b0000_0101u8, 0b0000_0010];
    let b = ListKind::Bitmap;
    assert!(validate_list(&good, 3, 10, b).is_ok());
    assert!(validate_list(&good, 2, 10, b).is_err());
    assert!(validate_list(&good[..1], 2, 10, b).is_err());
    assert!(validate_list(&[0b101, 0b110], 4, 10, b).is_err());
    // With follow masks: two bytes for three ids, the last high half unused.
    let m = ListKind::BitmapMasks;
    assert!(validate_list(&[good[0], good[1], 0x21, 0x04], 3, 10, m).is_ok());
    assert!(validate_list(&[good[0], good[1], 0x21, 0x14], 3, 10, m).is_err());
    assert!(validate_list(&[good[0], good[1], 0x21], 3, 10, m).is_err());
    assert!(validate_list(&good, 3, 10, m).is_err());
    // A stray bit past the last document is not decoded as an id.
    let ids: Vec<u32> = Postings::bitmap(&good, 3).collect();
    assert_eq!(ids, [0, 2, 9]);
}

#[test]
fn set_operations() {
    assert_eq!(intersect(&[1, 3, 5, 7], [0, 3, 4, 7, 9].into_iter()), vec![3, 7]);
    assert_eq!(union(&[1, 3, 5], &[2, 3, 9]), vec![1, 2, 3, 5, 9]);
    assert_eq!(intersect(&[], [1].into_iter()), Vec::<u32>::new());
}

#[test]
fn follow_masks_reject_documents_whose_trigrams_do_not_line_up() {
    use crate::index::reader::IndexReader;
    use crate::index::table::FileMeta;
    use crate::index::writer::IndexWriterBuilder;
    use crate::query::planner::{PlanOptions, plan};
    use crate::query::trigram::{follow_bit, grams};
    // A byte whose follow bit differs from `e`'s: "rac" then it is no "race".
    let other = (b'a'..=b'z').find(|&b| follow_bit(b) != follow_bit(b'e')).unwrap();
    let apart = [b"rac".as_slice(), &[other], b" ace"].concat();
    let mut w = IndexWriterBuilder::new().build();
    let f = w.add_file(FileMeta::default()).unwrap();
    // Even documents hold "race", odd ones its trigrams apart: every
    // list is dense, so every list keeps masks.
    for d in 0..16 {
        let text: &[u8] = if d % 2 == 0 { b"a race" } else { &apart };
        w.add_document(f, 0, 1, 1, &grams(text)).unwrap();
    }
    let r = IndexReader::from_bytes(w.finish_to_vec().unwrap().0).unwrap();
    let q = plan(&["race".into()], &PlanOptions::default());
    assert_eq!(q.to_string(), r#"("rac"+e & "ace")"#);
    let even: Vec<u32> = (0..16).step_by(2).collect();
    assert_eq!(r.candidates(&q).unwrap().as_slice().to_vec(), even);
}

/// The bytes of a fixed set of lists in `version`: sparse, dense and
/// clustered lists, with varied masks, among 3,000 documents.
fn pinned_lists(version: u32) -> Vec<u8> {
    let docs = 3000;
    let mut out = Vec::new();
    let mut enc = PostingEncoder::new(docs, version);
    let mut seed = 12_345u64;
    for t in 0..64u32 {
        let step = 1 + t % 13;
        for d in (t % 5..docs).step_by(step as usize * (1 + (t as usize % 3) * 20)) {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let mask = 1u8 << ((seed >> 60) & 3) | u8::from(seed >> 63 == 1) << 3;
            enc.push(&mut out, t * 1031, d, mask).unwrap();
        }
    }
    enc.close(&mut out).unwrap();
    out
}

/// A list's layout is pinned to its format version. A rebuild keeps an
/// old index's lists when their CRCs match, so lists of a changed layout
/// under the same version are read with the wrong layout: queries then
/// miss documents (it happened once, in development). When this fails,
/// the layout changed: give it a new `FORMAT_VERSION`, keep reading the
/// old one, and pin the new version's bytes here.
#[test]
fn each_format_s_list_layout_is_pinned_to_its_version() {
    let got: Vec<(u32, usize, u32)> = [2, 4, 7]
        .into_iter()
        .map(|v| {
            let bytes = pinned_lists(v);
            (v, bytes.len(), crc32fast::hash(&bytes))
        })
        .collect();
    assert_eq!(got, PINNED, "the bytes of a format's lists changed");
}

/// Each pinned version's list bytes: (version, length, CRC32).
const PINNED: [(u32, usize, u32); 3] =
    [(2, 8859, 4_272_515_748), (4, 15775, 4_024_769_603), (7, 12874, 998_666_179)];
