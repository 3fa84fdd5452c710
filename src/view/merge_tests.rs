//! The merge read anywhere equals a stable sort of the texts' lines by
//! time, computed here from the lines as written (continuation lines
//! carry the time before them).

use std::sync::Arc;

use trigrep::logline::time::Format;

use super::*;
use crate::view::text::Memory;

/// Three logs of `n` lines each: times that repeat within and across
/// them, continuation lines, the last one without a newline.
fn logs(n: usize) -> Vec<Vec<u8>> {
    let mut seed = 7u64;
    let mut next = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    (0..3)
        .map(|f| {
            let (mut t, mut out) = (0usize, String::new());
            for i in 0..n {
                t += [0, 0, 1, 2, 7][next() % 5];
                let (h, m, s) = (t / 3600, t / 60 % 60, t % 60);
                out.push_str(&format!("2026-01-03T{h:02}:{m:02}:{s:02} INFO f{f} line {i}\n"));
                if next() % 10 == 0 {
                    out.push_str(&format!("    at f{f}.continued {i}\n"));
                }
            }
            if f == 2 {
                out.pop();
            }
            out.into_bytes()
        })
        .collect()
}

/// The texts' lines, stably sorted by their time as written.
fn sorted(texts: &[Vec<u8>]) -> Vec<u8> {
    let mut lines = Vec::new();
    for t in texts {
        let mut key = Vec::new();
        for line in t.split_inclusive(|&b| b == b'\n') {
            if line[0].is_ascii_digit() {
                key = line[..19].to_vec();
            }
            let mut l = line.to_vec();
            if l.last() != Some(&b'\n') {
                l.push(b'\n');
            }
            lines.push((key.clone(), l));
        }
    }
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    lines.into_iter().flat_map(|l| l.1).collect()
}

fn merge_of(texts: &[Vec<u8>]) -> Merge {
    let sources = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let text: Arc<dyn Text> = Arc::new(Memory(t.clone()));
            Source::new(text, Format::Iso, format!("f{i}"))
        })
        .collect();
    Merge::new(sources)
}

#[test]
fn reads_anywhere_equal_a_stable_sort() {
    let texts = logs(40_000);
    let want = sorted(&texts);
    let merge = merge_of(&texts);
    assert_eq!(merge.len(), want.len() as u64);
    // Far places first (found by bisecting times), then near ones.
    let mut at = 7u64;
    for k in 0..200 {
        at = (at * 7919 + k * 104_729) % merge.len();
        let mut buf = vec![0; 1 + (k as usize * 37) % 5000];
        let n = nav::read_full(&merge, at, &mut buf);
        let end = (at as usize + buf.len()).min(want.len());
        assert_eq!(&buf[..n], &want[at as usize..end], "read at {at}");
    }
    let mut all = Vec::new();
    nav::each_chunk(&merge, 0..merge.len(), &mut |b| {
        all.extend_from_slice(b);
        true
    });
    assert!(all == want, "read in order");
}

#[test]
fn times_and_sources_of_lines() {
    let texts = logs(20_000);
    let want = sorted(&texts);
    let merge = merge_of(&texts);
    for t in ["2026-01-03T05:00:00", "2026-01-03T11:11:11", "2026-01-03T00:00:00"] {
        let ms = trigrep::logline::time::parse(Format::Iso, t.as_bytes()).unwrap();
        let at = merge.offset_of_time(ms) as usize;
        // The first line at or after the time, every line before it earlier.
        let first = want[at..].split(|&b| b == b'\n').next().unwrap();
        assert!(&first[..19] >= t.as_bytes(), "{t}: {}", String::from_utf8_lossy(first));
        let before =
            want[..at].rsplit(|&b| b == b'\n').find(|l| l.first().is_some_and(u8::is_ascii_digit));
        assert!(before.is_none_or(|l| &l[..19] < t.as_bytes()));
        let tag = merge.source_of(at as u64).unwrap();
        let line = String::from_utf8_lossy(first);
        assert!(line.contains(&format!("f{tag}")), "{line} from f{tag}");
        let own = trigrep::logline::time::parse(Format::Iso, &first[..19]);
        assert_eq!(merge.time_of(at as u64), own);
    }
}
