//! The frame directory's tests: lookups hold every frame of their
//! trigram, damage is an error, queries combine lookups.

use super::*;

/// Bucket `b` built of `trigrams` (trigram, its frames), as the
/// writer builds it.
fn built(b: u32, trigrams: &[(Trigram, Vec<u32>)]) -> [u8; BUCKET_LEN] {
    let mut entries: Vec<(u32, u16, Trigram)> =
        trigrams.iter().map(|(t, f)| (f.len() as u32, place(*t).1, *t)).collect();
    entries.sort_unstable();
    let of = |t: Trigram| Ok(trigrams.iter().find(|(x, _)| *x == t).unwrap().1.clone());
    bucket(b, &entries, &of).unwrap()
}

#[test]
fn a_lookup_holds_every_frame_of_its_trigram() {
    // Trigrams of one bucket, with frames as a log's: most rare, some
    // in every frame, enough of them to fill a bucket and more.
    for many in [1usize, 5, 12, 29, 40, 90] {
        let b = 77;
        let mut trigrams = Vec::new();
        let mut t: Trigram = 0;
        while trigrams.len() < many {
            t += 1;
            if place(t).0 != b {
                continue;
            }
            let k = trigrams.len() as u32;
            let frames: Vec<u32> = match k % 4 {
                0 => (0..300).collect(),
                1 => vec![k],
                _ => vec![k, k + 7, 299],
            };
            trigrams.push((t, frames));
        }
        let bytes = built(b as u32, &trigrams);
        for (t, frames) in &trigrams {
            let got = lookup(&bytes, b as u32, place(*t).1, 300).unwrap();
            if let Some(got) = got {
                assert!(frames.iter().all(|f| got.contains(f)), "{many}: {t} lost a frame");
            }
        }
        // A trigram no frame holds: no frame, unless the bucket is
        // incomplete (or its fingerprint is shared).
        let absent = (t + 1..).find(|&x| place(x).0 == b).unwrap();
        let got = lookup(&bytes, b as u32, place(absent).1, 300).unwrap();
        if 2 * many <= BUCKET_LEN - 6 {
            assert_eq!(got, Some(vec![]), "{many}");
        }
    }
}

#[test]
fn a_damaged_or_misplaced_bucket_is_an_error() {
    let t = (1..).find(|&x| place(x).0 == 5).unwrap();
    let bytes = built(5, &[(t, vec![3, 9])]);
    assert_eq!(lookup(&bytes, 5, place(t).1, 10).unwrap(), Some(vec![3, 9]));
    assert!(lookup(&bytes, 6, place(t).1, 10).is_err());
    assert!(lookup(&bytes, 5, place(t).1, 9).is_err(), "a frame past the container");
    for i in 0..BUCKET_LEN * 8 {
        let mut bad = bytes;
        bad[i / 8] ^= 1 << (i % 8);
        assert!(lookup(&bad, 5, place(t).1, 10).is_err(), "bit {i}");
    }
}

#[test]
fn an_identifier_s_trigrams_are_fetched_before_a_word_s() {
    use crate::query::trigram::pack;
    let r = |s: &[u8; 3]| rarity(pack(*s));
    assert!(r(b"7f3") > r(b"nee") && r(b"e-4") > r(b"le-") && r(b"le-") > r(b"ne "));
    assert_eq!(r(b"ne "), r(b"nee"));
    let words = Query::And([b"nee", b"eed", b"edl"].map(|s| Query::Trigram(pack(*s))).to_vec());
    let mut many: Vec<Query> = (0..40u32).map(|i| Query::Trigram(0x616100 + i)).collect();
    many.push(Query::Trigram(pack(*b"7f3")));
    let ranges = first_ranges(&Query::And(many));
    let buckets: usize = ranges.iter().map(|r| (r.end - r.start) as usize / BUCKET_LEN).sum();
    assert_eq!(buckets, FIRST_BUCKETS);
    assert!(ranges.iter().any(|r| r.contains(&bucket_range(place(pack(*b"7f3")).0).start)));
    assert_eq!(first_ranges(&words).len(), 3);
}

#[test]
fn queries_take_the_union_and_the_intersection() {
    let (x, y) = ((1..).find(|&t| place(t).0 == 9).unwrap(), 0x616263);
    let bx = built(9, &[(x, vec![1, 2])]);
    let by = built(place(y).0 as u32, &[(y, vec![2, 3])]);
    let held = |r: Range<u64>| match r {
        r if r == bucket_range(9) => Some(bx.to_vec()),
        r if r == bucket_range(place(y).0) => Some(by.to_vec()),
        _ => None,
    };
    let q = |q: Query| frames_for(&q, &held, 5).unwrap();
    let (tx, ty) = (Query::Trigram(x), Query::Trigram(y));
    assert_eq!(q(Query::And(vec![tx.clone(), ty.clone()])), Some(vec![2]));
    assert_eq!(q(Query::Or(vec![tx.clone(), ty.clone()])), Some(vec![1, 2, 3]));
    // A bucket not at hand: any frame.
    let z = (1..).find(|&t| ![9, place(y).0].contains(&place(t).0)).unwrap();
    assert_eq!(q(Query::Or(vec![tx.clone(), Query::Trigram(z)])), None);
    assert_eq!(q(Query::And(vec![tx, Query::Trigram(z)])), Some(vec![1, 2]));
    assert_eq!(first_ranges(&Query::And(vec![ty.clone(), ty])), vec![bucket_range(place(y).0)]);
}
