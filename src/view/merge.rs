//! Several texts shown as one timeline: a [`Text`] whose bytes are the
//! lines of all of them in time order ([`super::merge_walk`]: a stable
//! sort by time, lines of equal times in each text's order), made lazily
//! as they are read, so that every key works on it as on one text.
//!
//! A place in the merge is a cursor in each text: the merge's byte offset
//! there is the sum of the cursors (the bytes of every line before it).
//! Places already found are remembered, every MiB walked and at the end
//! of every read; a read far from one finds its place by bisecting the
//! times (the cursors at a time `t` are each text's first line at or
//! after `t`, bisected in that text, so through its block index, `.gz`
//! access points or packed frames). A search asks each text for the
//! ranges that can hold a match and reads the merge's range that holds
//! each (the lines of another text interleaved in it too), each placed
//! when a search reaches it ([`super::placed`]).
//!
//! Memory: the remembered places (at most [`PLACES`] of `8 × N` bytes),
//! each text's probes (at most 64 Ki times), and a window of up to
//! 64 KiB per text for each read being made.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Mutex;

use trigrep::options::{Case, MatchOptions};

use super::finder::{Finder, Progress};
use super::merge_walk::{Source, Walk};
use super::nav;
use super::text::Text;
use super::times;

/// Places remembered at most (then forgotten, but the start).
const PLACES: usize = 4096;

/// A walk longer than this from a remembered place bisects times instead.
const FAR: u64 = 1 << 20;

/// A walk remembers where it is every this many bytes.
const NEAR: u64 = 16 << 10;

/// A search reads the merge's ranges holding the texts' candidate ranges
/// (each placed when reached) when they are at most this many, or when
/// the merge has at least [`PLACING`] bytes for each; else all of it.
const FEW: u64 = 64;

/// About what placing a range reads (bisections of the other texts' times).
const PLACING: u64 = 1 << 20;

/// Several texts as one, their lines in time order.
pub struct Merge {
    sources: Vec<Source>,
    len: u64,
    /// Places found: the merge's offset there -> each text's cursor.
    known: Mutex<BTreeMap<u64, Vec<u64>>>,
    /// The first and last time of any text.
    span: (i64, i64),
}

impl Merge {
    /// The merge of `sources` (each with a time format, its times in order).
    pub fn new(sources: Vec<Source>) -> Merge {
        let go = &mut |_| true;
        let first = sources.iter().filter_map(|s| times::first_time(&*s.text, s.format, go));
        let first = first.min().unwrap_or(0);
        let last = sources.iter().filter_map(|s| times::last_time(&*s.text, s.format, go));
        let last = last.max().unwrap_or(first).max(first);
        let len = sources.iter().map(Source::merged_len).sum();
        let known = Mutex::new(BTreeMap::from([(0, vec![0; sources.len()])]));
        Merge { sources, len, known, span: (first, last) }
    }

    /// The texts merged.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// The first and last time in any text.
    pub fn span(&self) -> (i64, i64) {
        self.span
    }

    /// Where the first line at or after time `t` is in the merge.
    pub fn offset_of_time(&self, t: i64) -> u64 {
        self.sources.iter().map(|s| s.at_time(t)).sum()
    }

    /// Which text the line at `at` (a line start) is from.
    pub fn source_of(&self, at: u64) -> Option<usize> {
        self.locate(at).peek()
    }

    /// The time of the line at `at` (its own or its text's last before it).
    pub fn time_of(&self, at: u64) -> Option<i64> {
        self.locate(at).time()
    }

    /// Remembers that the merge is at `cursors` at `offset`.
    fn remember(&self, offset: u64, cursors: &[u64]) {
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        if known.len() >= PLACES {
            known.retain(|&o, _| o == 0);
        }
        known.entry(offset).or_insert_with(|| cursors.to_vec());
    }

    /// A walk whose next line holds byte `v` (or at the end).
    fn locate(&self, v: u64) -> Walk<'_> {
        let (mut from, mut cursors) = {
            let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
            let (o, c) = known.range(..=v).next_back().expect("the start is always known");
            (*o, c.clone())
        };
        if v - from > FAR {
            // The last time whose place is at or before `v`.
            let (mut lo, mut hi) = (self.span.0, self.span.1.saturating_add(1));
            let mut best = None;
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let at: Vec<u64> = self.sources.iter().map(|s| s.at_time(mid)).collect();
                let o: u64 = at.iter().sum();
                if o <= v {
                    best = Some((o, at));
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if let Some((o, at)) = best.filter(|b| b.0 > from) {
                self.remember(o, &at);
                (from, cursors) = (o, at);
            }
        }
        let mut walk = Walk::new(&self.sources, cursors);
        while let Some(line) = walk.line() {
            if walk.offset() + (line.2 - line.1) > v {
                break;
            }
            walk.pass(line);
            if walk.offset() - from > NEAR {
                from = walk.offset();
                self.remember(from, &walk.at);
            }
        }
        walk
    }

    /// The finders of `pattern` with `case` in each text, each planned
    /// against its own text's index.
    pub fn finders(&self, pattern: &str, case: Case) -> Result<Vec<Finder>, String> {
        self.sources.iter().map(|s| Finder::new(&*s.text, pattern, case)).collect()
    }

    /// The first matching line at or after `from` (a line start of the
    /// merge): each text searched from its cursor there through its own
    /// finder (`finders`, one per text), the earliest in the merge's order.
    pub fn next_match(&self, from: u64, finders: &[Finder], progress: Progress<'_>) -> Option<u64> {
        let at = self.locate(from).at;
        let mut best: Option<(i64, usize, u64)> = None;
        for (j, (s, f)) in self.sources.iter().zip(finders).enumerate() {
            let Some(o) = f.next_line(&*s.text, at[j], progress).filter(|&o| o < s.len) else {
                continue;
            };
            let key = s.key_at(o);
            if best.is_none_or(|b| (key, j) < (b.0, b.1)) {
                best = Some((key, j, o));
            }
        }
        best.map(|(_, j, o)| self.offset_of(j, o))
    }

    /// The last matching line starting before `before` (a line start of
    /// the merge), as [`Merge::next_match`] finds the first.
    pub fn prev_match(
        &self,
        before: u64,
        finders: &[Finder],
        progress: Progress<'_>,
    ) -> Option<u64> {
        let at = self.locate(before).at;
        let mut best: Option<(i64, usize, u64)> = None;
        for (j, (s, f)) in self.sources.iter().zip(finders).enumerate() {
            let Some(o) = f.prev_line(&*s.text, at[j], progress) else { continue };
            let key = s.key_at(o);
            if best.is_none_or(|b| (key, j) > (b.0, b.1)) {
                best = Some((key, j, o));
            }
        }
        best.map(|(_, j, o)| self.offset_of(j, o))
    }

    /// Where the line of text `j` starting at `o` is in the merge: the
    /// lines of the texts before `j` of its time or earlier, and those of
    /// the texts after `j` of an earlier time, come before it.
    fn offset_of(&self, j: usize, o: u64) -> u64 {
        let key = self.sources[j].key_at(o);
        let cursor = |(i, s): (usize, &Source)| match i.cmp(&j) {
            std::cmp::Ordering::Equal => o,
            std::cmp::Ordering::Less => s.at_time(key.saturating_add(1)),
            std::cmp::Ordering::Greater if key == i64::MIN => 0,
            std::cmp::Ordering::Greater => s.at_time(key),
        };
        self.sources.iter().enumerate().map(cursor).sum()
    }

    /// The merge's range holding the lines of text `j` in `r` (line starts).
    fn range_of(&self, j: usize, r: Range<u64>) -> Option<Range<u64>> {
        let s = &self.sources[j];
        let end = r.end.min(s.len);
        if r.start >= end {
            return None;
        }
        let last = nav::line_start(&*s.text, end - 1);
        let last_end = nav::next_line_start(&*s.text, last).unwrap_or(s.merged_len());
        Some(self.offset_of(j, r.start)..self.offset_of(j, last) + (last_end - last))
    }
}

impl Text for Merge {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        if offset >= self.len || buf.is_empty() {
            return Ok(0);
        }
        let mut walk = self.locate(offset);
        let (mut n, mut skip) = (0, offset - walk.offset());
        while n < buf.len() {
            let Some(line) = walk.line() else { break };
            let rest = line.2 - line.1 - skip;
            let k = walk.copy(line.0, (line.1, line.2), skip, &mut buf[n..]);
            n += k;
            // The buffer is full, or the text was short.
            if (k as u64) < rest {
                break;
            }
            walk.pass(line);
            skip = 0;
        }
        if walk.offset() > offset {
            self.remember(walk.offset(), &walk.at);
        }
        Ok(n)
    }

    fn candidates_each(&self, m: &MatchOptions) -> Option<Vec<Vec<Range<u64>>>> {
        let each: Vec<_> =
            self.sources.iter().map(|s| s.text.candidates(m)).collect::<Option<_>>()?;
        // Placing a range bisects the other texts' times: many ranges in
        // a small merge are cheaper read whole.
        let count = each.iter().map(Vec::len).sum::<usize>() as u64;
        (count <= FEW || count.saturating_mul(PLACING) <= self.len).then_some(each)
    }

    fn place(&self, j: usize, r: Range<u64>) -> Option<Range<u64>> {
        self.range_of(j, r)
    }

    fn cursors(&self, at: u64) -> Option<Vec<u64>> {
        Some(self.locate(at).at)
    }

    fn kind(&self) -> &str {
        "merged by time"
    }
}

#[cfg(test)]
#[path = "merge_tests.rs"]
mod tests;
