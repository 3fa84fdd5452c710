//! Tests of posting-list encoding and decoding.

use super::*;

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

/// Encodes `pairs` for an index of `docs` documents and decodes each
/// list back, checking CRCs and validation on the way.
fn round_trip(pairs: &[(Trigram, DocId)], docs: u32) -> (Vec<TrigramEntry>, Vec<Vec<u32>>) {
    let mut out = Vec::new();
    let mut enc = PostingEncoder::new(docs);
    let mut entries = Vec::new();
    for &(t, d) in pairs {
        entries.extend(enc.push(&mut out, t, d).unwrap());
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
            let bitmap = is_bitmap(e.count, docs);
            validate_list(bytes, e.count, docs, bitmap).unwrap();
            let list = if bitmap {
                Postings::bitmap(bytes, e.count)
            } else {
                Postings::new(bytes, e.count)
            };
            let ids: Vec<u32> = list.clone().collect();
            // Intersecting with every id keeps the list; with none, nothing.
            let all: Vec<u32> = (0..docs).collect();
            assert_eq!(list.clone().intersect(&all), ids);
            assert_eq!(list.intersect(&[]), Vec::<u32>::new());
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
fn dense_lists_are_bitmaps_never_longer_than_varints() {
    // 13 documents: a list of 2 ids is a bitmap (2 * 8 >= 13), of 1 not.
    let pairs = [(1, 0), (1, 12), (2, 3), (3, 0), (3, 1), (3, 7), (3, 8), (3, 9), (3, 12)];
    let (entries, lists) = round_trip(&pairs, 13);
    assert_eq!(lists, vec![vec![0, 12], vec![3], vec![0, 1, 7, 8, 9, 12]]);
    let lens: Vec<u64> = entries.windows(2).map(|w| w[1].offset - w[0].offset).collect();
    assert_eq!(lens, [2, 1]);
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
    assert!(validate_list(&good, 3, 10, true).is_ok());
    assert!(validate_list(&good, 2, 10, true).is_err());
    assert!(validate_list(&good[..1], 2, 10, true).is_err());
    assert!(validate_list(&[0b101, 0b110], 4, 10, true).is_err());
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
