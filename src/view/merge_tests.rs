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

/// A text with a block index: its candidates for any pattern are the
/// blocks of about 4 KiB (cut at line ends) holding "needle", and every
/// 20th block besides (a candidate without a match); it counts the bytes
/// read from it.
struct Indexed {
    text: Memory,
    blocks: Vec<std::ops::Range<u64>>,
    read: std::sync::atomic::AtomicU64,
}

impl Indexed {
    fn new(data: Vec<u8>) -> Indexed {
        let mut blocks = Vec::new();
        let (mut start, mut k) = (0, 0);
        while start < data.len() {
            let end = data[(start + 4096).min(data.len())..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(data.len(), |i| (start + 4096).min(data.len()) + i + 1);
            let block = &data[start..end];
            if block.windows(6).any(|w| w == b"needle") || k % 20 == 0 {
                blocks.push(start as u64..end as u64);
            }
            (start, k) = (end, k + 1);
        }
        Indexed { text: Memory(data), blocks, read: Default::default() }
    }
}

impl Text for Indexed {
    fn len(&self) -> u64 {
        self.text.len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.text.read_at(offset, buf)?;
        self.read.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }

    fn candidates(&self, _m: &MatchOptions) -> Option<Vec<std::ops::Range<u64>>> {
        Some(self.blocks.clone())
    }

    fn kind(&self) -> &str {
        "indexed"
    }
}

/// A filter on a merge of indexed texts with far more than 64 candidate
/// ranges: the matching lines found forward, backward and all at once are
/// those of the stable sort; a screen of them (39 from the start, as `&`
/// shows) places the ranges up to them, not all (main's build placed
/// none and read the whole merge up to the 39th match).
#[test]
fn a_filter_places_candidates_as_it_reaches_them() {
    use std::sync::atomic::Ordering::Relaxed;
    let mut texts = logs(40_000);
    for (f, t) in texts.iter_mut().enumerate() {
        let mut out = Vec::new();
        for (k, line) in t.split_inclusive(|&b| b == b'\n').enumerate() {
            let hit = k % 1000 == 300 * f + 100 && line.ends_with(b"\n");
            out.extend_from_slice(if hit { &line[..line.len() - 1] } else { line });
            if hit {
                out.extend_from_slice(b" needle\n");
            }
        }
        *t = out;
    }
    let want = sorted(&texts);
    let mut starts = Vec::new();
    let mut at = 0;
    for line in want.split_inclusive(|&b| b == b'\n') {
        if line.windows(6).any(|w| w == b"needle") {
            starts.push(at);
        }
        at += line.len() as u64;
    }
    assert!(starts.len() > 100, "{} matching lines", starts.len());
    let indexed: Vec<Arc<Indexed>> =
        texts.iter().map(|t| Arc::new(Indexed::new(t.clone()))).collect();
    let sources = indexed
        .iter()
        .enumerate()
        .map(|(i, t)| Source::new(Arc::clone(t) as Arc<dyn Text>, Format::Iso, format!("f{i}")));
    let merge = Merge::new(sources.collect());
    let total = merge.len();
    let counted = Placing { merge: &merge, placed: Default::default() };
    let text: &dyn Text = &counted;
    let f = Finder::new(text, "needle", Case::Sensitive).unwrap();
    let ranges: usize = indexed.iter().map(|t| t.blocks.len()).sum();
    assert!(ranges > 64 && f.few_ranges(text).is_none(), "{ranges} candidate ranges");
    let whole = Finder::new(&merge, "needle", Case::Sensitive).unwrap();
    assert_eq!(whole.candidate_bytes(), None, "the merge itself: 5 MB, read whole");
    let read = || -> u64 { indexed.iter().map(|t| t.read.load(Relaxed)).sum() };
    // A screen of the filter from the start.
    let before = read();
    let go = &mut |_| true;
    let (mut shown, mut at) = (Vec::new(), 0);
    while shown.len() < 39 {
        let Some(s) = f.next_line(text, at, go) else { break };
        shown.push(s);
        at = nav::next_line_start(text, s).unwrap_or(total);
    }
    assert_eq!(shown, starts[..39], "the first screen of &needle");
    let (placed, spent) = (counted.placed.load(Relaxed), read() - before);
    eprintln!("a screen of &needle: {placed} of {ranges} ranges placed, {spent} bytes read");
    assert!(placed < ranges / 2, "a screen placed {placed} of {ranges} ranges");
    // Every match, forward and backward, and all at once.
    for (i, &s) in starts.iter().enumerate() {
        let from = if i == 0 { 0 } else { nav::next_line_start(text, starts[i - 1]).unwrap() };
        assert_eq!(f.next_line(text, from, go), Some(s), "next from {from}");
        let end = starts.get(i + 1).copied().unwrap_or(total);
        assert_eq!(f.prev_line(text, end, go), Some(s), "previous before {end}");
    }
    let mut hits = Vec::new();
    for r in f.ranges(text, 0) {
        f.each_line(text, r, &mut |at| hits.push(nav::line_start(text, at)), &mut || true);
    }
    assert_eq!(hits, starts, "every match");
}

/// A merge that counts the ranges placed in it.
struct Placing<'a> {
    merge: &'a Merge,
    placed: std::sync::atomic::AtomicUsize,
}

impl Text for Placing<'_> {
    fn len(&self) -> u64 {
        self.merge.len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        self.merge.read_at(offset, buf)
    }

    /// The texts' ranges, however many (the merge reads a small merge
    /// with many whole).
    fn candidates_each(&self, m: &MatchOptions) -> Option<Vec<Vec<std::ops::Range<u64>>>> {
        self.merge.sources().iter().map(|s| s.text.candidates(m)).collect()
    }

    fn place(&self, j: usize, r: std::ops::Range<u64>) -> Option<std::ops::Range<u64>> {
        self.placed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.merge.place(j, r)
    }

    fn cursors(&self, at: u64) -> Option<Vec<u64>> {
        self.merge.cursors(at)
    }

    fn kind(&self) -> &str {
        "counting placements"
    }
}
