//! A merge's candidate ranges, placed in the merge lazily: each text's
//! ranges (from its own index) are kept in its own offsets, and a range
//! is placed (its place in the merge found by bisecting the other texts'
//! times: [`super::text::Text::place`]) only when a search reaches it.
//! A filter's screen places the ranges near it, not all of them.
//!
//! The ranges handed out are the same as placing every range, sorting
//! them by start and joining those that overlap or touch: the next one
//! after an offset starts at the least start of the texts' next ranges
//! and takes in every range starting before its end, in any text, until
//! none does (the last before an offset, the same way back). A text's
//! ranges, placed, stay in its order (the merge is a stable sort), so
//! its next range after an offset is the first that ends past the text's
//! cursor there (its bytes before that offset in the merge): only the
//! ranges handed out are placed. `prev` is asked at line starts.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Mutex;

use super::text::Text;

/// Each merged text's candidate ranges, placed as they are needed.
pub struct Placed {
    /// Each text's candidate ranges, in its own offsets, in order.
    each: Vec<Vec<Range<u64>>>,
    /// The ranges placed so far: `(text, index)` -> the merge's range.
    done: Mutex<HashMap<(usize, usize), Range<u64>>>,
}

impl Placed {
    /// The ranges of each text merged (`each[j]`: text `j`'s, in order).
    pub fn new(each: Vec<Vec<Range<u64>>>) -> Placed {
        Placed { each, done: Mutex::default() }
    }

    /// How many ranges there are, over all the texts.
    pub fn count(&self) -> usize {
        self.each.iter().map(Vec::len).sum()
    }

    /// The bytes of the texts' ranges (not counting the lines of other
    /// texts a range takes in once placed).
    pub fn bytes(&self) -> u64 {
        self.each.iter().flatten().map(|r| r.end - r.start).sum()
    }

    /// Range `i` of text `j` in the merge `text` (one past the texts'
    /// ends, as they were merged: empty, at the merge's end).
    fn at(&self, text: &dyn Text, j: usize, i: usize) -> Range<u64> {
        let done = || self.done.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = done().get(&(j, i)) {
            return r.clone();
        }
        let len = text.len();
        let r = text.place(j, self.each[j][i].clone()).unwrap_or(len..len);
        done().insert((j, i), r.clone());
        r
    }

    /// How many of each text's ranges `before` holds for (true for a
    /// first part of each list, false for the rest), given each text's
    /// bytes before the line at `at` in the merge `text` (its cursor).
    fn count_each(
        &self,
        text: &dyn Text,
        at: u64,
        before: impl Fn(&Range<u64>, u64) -> bool,
    ) -> Vec<usize> {
        let cursors = text.cursors(at).unwrap_or_default();
        let cursor = |j: usize| cursors.get(j).copied().unwrap_or(0);
        let each = self.each.iter().enumerate();
        each.map(|(j, e)| e.partition_point(|r| before(r, cursor(j)))).collect()
    }

    /// The first joined range of the merge `text` that ends after `from`.
    pub fn next(&self, text: &dyn Text, from: u64) -> Option<Range<u64>> {
        let n = self.each.len();
        // Placed, a range ends after `from` when its text's lines in it
        // reach past that text's cursor there.
        let mut next = self.count_each(text, from, |r, cursor| r.end <= cursor);
        let first =
            (0..n).filter(|&j| next[j] < self.each[j].len()).map(|j| self.at(text, j, next[j]));
        let mut joined = first.min_by_key(|r| r.start)?;
        loop {
            let mut grew = false;
            for (j, i) in next.iter_mut().enumerate() {
                while *i < self.each[j].len() {
                    let r = self.at(text, j, *i);
                    if r.start > joined.end {
                        break;
                    }
                    joined = joined.start.min(r.start)..joined.end.max(r.end);
                    (*i, grew) = (*i + 1, true);
                }
            }
            if !grew {
                return Some(joined);
            }
        }
    }

    /// The last joined range of the merge `text` that starts before `before`.
    pub fn prev(&self, text: &dyn Text, before: u64) -> Option<Range<u64>> {
        let n = self.each.len();
        // How many of each text's ranges are still to be taken in.
        let mut left = self.count_each(text, before, |r, cursor| r.start < cursor);
        let last = (0..n).filter(|&j| left[j] > 0).map(|j| self.at(text, j, left[j] - 1));
        let mut joined = last.max_by_key(|r| r.end)?;
        loop {
            let mut grew = false;
            for (j, k) in left.iter_mut().enumerate() {
                while *k > 0 {
                    let r = self.at(text, j, *k - 1);
                    if r.end < joined.start {
                        break;
                    }
                    joined = joined.start.min(r.start)..joined.end.max(r.end);
                    (*k, grew) = (*k - 1, true);
                }
            }
            if !grew {
                return Some(joined);
            }
        }
    }
}
