//! The finder's tests: next and previous matching lines, long lines,
//! pieces, and candidate ranges known to hold no match.

use super::*;
use crate::view::text::Memory;

#[test]
fn next_and_previous_matching_lines() {
    let t = Memory(b"alpha\nbeta err\ngamma\nerr delta\nepsilon\n".to_vec());
    let f = Finder::new(&t, "err", Case::Sensitive).unwrap();
    let go = &mut |_| true;
    assert_eq!(f.next_line(&t, 0, go), Some(6));
    assert_eq!(f.next_line(&t, 15, go), Some(21));
    assert_eq!(f.next_line(&t, 31, go), None);
    assert_eq!(f.prev_line(&t, 31, go), Some(21));
    assert_eq!(f.prev_line(&t, 21, go), Some(6));
    assert_eq!(f.prev_line(&t, 6, go), None);
    assert_eq!(f.matches_in(b"err x err"), vec![0..3, 6..9]);
    let i = Finder::new(&t, "ERR", Case::Insensitive).unwrap();
    assert_eq!(i.next_line(&t, 0, go), Some(6));
    assert!(Finder::new(&t, "(", Case::Sensitive).is_err());
    // `!`: the lines that do not match, none marked.
    let v = Finder::new(&t, "!err", Case::Sensitive).unwrap();
    assert_eq!(v.next_line(&t, 0, go), Some(0));
    assert_eq!(v.next_line(&t, 6, go), Some(15));
    assert_eq!(v.prev_line(&t, t.len(), go), Some(31));
    assert_eq!(v.prev_line(&t, 31, go), Some(15));
    assert!(v.matches_in(b"err").is_empty());
    let (mut hits, mut go_on) = (Vec::new(), || true);
    v.each_line(&t, 0..t.len(), &mut |at| hits.push(at), &mut go_on);
    assert_eq!(hits, vec![0, 15, 31]);
}

#[test]
fn a_line_longer_than_a_piece_is_searched_whole() {
    // A match across the first piece's end, and text that `^` must
    // not take for a line start.
    let mut data = b"short line\n".to_vec();
    data.extend(std::iter::repeat_n(b'x', PIECE - 4));
    data.extend_from_slice(b"NEEDLE");
    data.extend(std::iter::repeat_n(b'y', 2 * PIECE));
    data.extend_from_slice(b"\nlast\n");
    let t = Memory(data.clone());
    let go = &mut |_| true;
    let f = Finder::new(&t, "NEEDLE", Case::Sensitive).unwrap();
    assert_eq!(f.next_line(&t, 0, go), Some(11));
    assert_eq!(f.prev_line(&t, t.len(), go), Some(11));
    let (mut hits, mut none) = (Vec::new(), 0);
    f.each_line(&t, 0..t.len(), &mut |at| hits.push(at), &mut || true);
    assert_eq!(hits, vec![11 + PIECE as u64 - 4], "the match, once");
    let anchored = Finder::new(&t, "^y", Case::Sensitive).unwrap();
    assert_eq!(anchored.next_line(&t, 0, go), None);
    assert_eq!(anchored.prev_line(&t, t.len(), go), None);
    anchored.each_line(&t, 0..t.len(), &mut |_| none += 1, &mut || true);
    assert_eq!(none, 0);
}

#[test]
fn pieces_cross_at_line_ends() {
    let mut data = Vec::new();
    for i in 0..300_000 {
        data.extend_from_slice(format!("line {i}\n").as_bytes());
    }
    let t = Memory(data.clone());
    let f = Finder::new(&t, "^line 2999[0-9]{2}$", Case::Sensitive).unwrap();
    let go = &mut |_| true;
    let at = f.next_line(&t, 0, go).unwrap();
    assert!(data[at as usize..].starts_with(b"line 299900\n"));
    let back = f.prev_line(&t, t.len(), go).unwrap();
    assert!(data[back as usize..].starts_with(b"line 299999\n"));
    let mut n = 0;
    f.each_line(&t, 0..t.len(), &mut |_| n += 1, &mut || true);
    assert_eq!(n, 100);
}

/// A text whose index lists `ranges` as candidates, counting bytes read.
pub(crate) struct Listed {
    /// The text.
    pub text: Memory,
    /// Its candidate ranges, whatever the pattern.
    pub ranges: Vec<Range<u64>>,
    /// Bytes read so far.
    pub read: std::sync::atomic::AtomicU64,
}

impl Text for Listed {
    fn len(&self) -> u64 {
        self.text.len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.text.read_at(offset, buf)?;
        self.read.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }

    fn candidates(&self, _m: &MatchOptions) -> Option<Vec<Range<u64>>> {
        Some(self.ranges.clone())
    }

    fn kind(&self) -> &str {
        "listed"
    }
}

/// 10 blocks of 100 lines, `needle` on line 50 of block 7; blocks 1, 3,
/// 5, 7 and 9 candidates.
fn blocks() -> Listed {
    let mut data = Vec::new();
    let mut starts = Vec::new();
    for b in 0..10 {
        starts.push(data.len() as u64);
        for l in 0..100 {
            let word = if (b, l) == (7, 50) { "needle" } else { "hay" };
            data.extend_from_slice(format!("block {b} line {l} {word}\n").as_bytes());
        }
    }
    starts.push(data.len() as u64);
    let ranges = [1, 3, 5, 7, 9].iter().map(|&b| starts[b]..starts[b + 1]).collect();
    Listed { text: Memory(data), ranges, read: Default::default() }
}

#[test]
fn ranges_a_scan_found_nothing_in_are_skipped_after() {
    use std::sync::atomic::Ordering::Relaxed;
    let t = blocks();
    let f = Finder::new(&t, "needle", Case::Sensitive).unwrap();
    let block = t.ranges[0].end - t.ranges[0].start;
    // A stopped scan and a refused read mark nothing.
    assert_eq!(f.next_line(&t, 0, &mut |_| false), None);
    let cut = crate::view::metered::Metered::budget(std::sync::Arc::new(blocks()), block - 10);
    assert_eq!(f.next_line(&cut, 0, &mut |_| true), None);
    assert!(cut.cut());
    assert_eq!(f.ranges(&t, 0).count(), 5, "nothing known yet");
    // The search reads blocks 1, 3, 5 whole and finds nothing there.
    let at = f.next_line(&t, 0, &mut |_| true).unwrap();
    assert!(t.text.0[at as usize..].starts_with(b"block 7 line 50 needle"));
    let kept: Vec<_> = f.ranges(&t, 0).collect();
    assert_eq!(kept, t.ranges[3..].to_vec(), "blocks 1, 3 and 5 skipped");
    // A count reads what is left: blocks 7 and 9, and finds the line.
    t.read.store(0, Relaxed);
    let mut hits = Vec::new();
    for r in f.ranges(&t, 0) {
        f.each_line(&t, r, &mut |m| hits.push(m), &mut || true);
    }
    let (b7, b9) = (&t.ranges[3], &t.ranges[4]);
    assert_eq!(t.read.load(Relaxed), b7.end - b7.start + b9.end - b9.start, "blocks 7, 9 read");
    assert_eq!(hits.iter().map(|&m| nav::line_start(&t, m)).collect::<Vec<_>>(), vec![at]);
    assert_eq!(f.ranges(&t, 0).collect::<Vec<_>>(), vec![t.ranges[3].clone()], "9 known now");
    // Backward: the same line, past the known blocks.
    assert_eq!(f.prev_line(&t, t.len(), &mut |_| true), Some(at));
    assert_eq!(f.prev_line(&t, at, &mut |_| true), None);
    let below = nav::next_line_start(&t, at).unwrap();
    assert_eq!(f.next_line(&t, below, &mut |_| true), None);
}
