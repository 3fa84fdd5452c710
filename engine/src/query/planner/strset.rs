//! Bounded sets of folded byte strings: the algebra the planner runs on.
//!
//! A [`StrSet`] holds strings that are already case-folded with
//! [`trigram::fold`]. The planner uses a set in three roles — every match
//! *is* one of the strings (exact), *starts with* one (prefix) or *ends
//! with* one (suffix) — and the operations here are the same for all three:
//! union, concatenation ([`StrSet::cross`]), the trigram query the set
//! implies ([`StrSet::query`]) and trimming a prefix or suffix set to short
//! strings ([`StrSet::trim`]). The empty set means "cannot match at all".

use regex_syntax::hir::Class;
use std::collections::{BTreeSet, HashSet};

use crate::query::Query;
use crate::query::trigram;

/// Which end of the strings a prefix/suffix set describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Side {
    /// Every match starts with one of the strings.
    Prefix,
    /// Every match ends with one of the strings.
    Suffix,
}

/// A set of case-folded byte strings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct StrSet(BTreeSet<Vec<u8>>);

impl StrSet {
    /// The empty set (no string at all: the node cannot match).
    pub(super) fn empty() -> StrSet {
        StrSet(BTreeSet::new())
    }

    /// The set holding only `s`, folded.
    pub(super) fn single(s: &[u8]) -> StrSet {
        let mut set = StrSet::empty();
        set.insert(s);
        set
    }

    /// The characters of `class` (each its UTF-8 bytes, folded), when the
    /// class has at most `scan` characters and folds to at most `cap`
    /// strings.
    pub(super) fn of_class(class: &Class, scan: u64, cap: usize) -> Option<StrSet> {
        let mut set = StrSet::empty();
        match class {
            Class::Unicode(c) => {
                let size: u64 =
                    c.ranges().iter().map(|r| u64::from(r.end()) - u64::from(r.start()) + 1).sum();
                if size > scan {
                    return None;
                }
                let mut buf = [0; 4];
                for ch in c.ranges().iter().flat_map(|r| r.start()..=r.end()) {
                    set.insert(ch.encode_utf8(&mut buf).as_bytes());
                }
            }
            Class::Bytes(c) => {
                let size: u64 =
                    c.ranges().iter().map(|r| u64::from(r.end()) - u64::from(r.start()) + 1).sum();
                if size > scan {
                    return None;
                }
                for b in c.ranges().iter().flat_map(|r| r.start()..=r.end()) {
                    set.insert(&[b]);
                }
            }
        }
        (set.len() <= cap).then_some(set)
    }

    /// Adds `s`, folded.
    pub(super) fn insert(&mut self, s: &[u8]) {
        self.0.insert(s.iter().map(|&b| trigram::fold(b)).collect());
    }

    /// The strings, in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &[u8]> {
        self.0.iter().map(Vec::as_slice)
    }

    /// Number of strings.
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the set holds the empty string.
    pub(super) fn has_empty(&self) -> bool {
        self.0.contains(&[][..])
    }

    /// Length of the shortest string (0 for the empty set).
    pub(super) fn min_len(&self) -> usize {
        self.0.iter().map(Vec::len).min().unwrap_or(0)
    }

    /// Total bytes held.
    pub(super) fn total_bytes(&self) -> usize {
        self.0.iter().map(Vec::len).sum()
    }

    /// Adds every string of `other`.
    pub(super) fn union(&mut self, other: &StrSet) {
        self.0.extend(other.0.iter().cloned());
    }

    /// Every `a ++ b` for `a` in `self` and `b` in `other`.
    pub(super) fn cross(&self, other: &StrSet) -> StrSet {
        let mut out = BTreeSet::new();
        for a in &self.0 {
            for b in &other.0 {
                let mut s = Vec::with_capacity(a.len() + b.len());
                s.extend_from_slice(a);
                s.extend_from_slice(b);
                out.insert(s);
            }
        }
        StrSet(out)
    }

    /// The query every text containing one of the strings satisfies: OR over
    /// the strings of AND over their trigrams. A string with no usable
    /// trigram (shorter than 3 bytes) makes it `All`; the empty set gives
    /// `Nothing`. Line terminators are treated as [`string_query`] says.
    pub(super) fn query(&self) -> Query {
        let mut q = Query::Nothing;
        for s in &self.0 {
            q = q.or(string_query(s));
            if q == Query::All {
                break;
            }
        }
        q
    }

    /// Shortens a prefix or suffix set so it stays small, keeping the end of
    /// each string named by `side`: first every string is cut to at most
    /// `longest` bytes (2 for a prefix: all a trigram across a
    /// concatenation can use; 3 for a suffix: a trigram ending there and the
    /// byte after it across the next concatenation, [`Query::Followed`]),
    /// then shorter while more than `max` strings remain. Finally strings
    /// made redundant by a shorter one (`"ab"` when `"a"` is a prefix
    /// already) are dropped. The caller must have taken the set's
    /// [`query`](StrSet::query) first: trimming loses it.
    pub(super) fn trim(&mut self, side: Side, max: usize, longest: usize) {
        let mut keep = longest;
        loop {
            if self.0.iter().any(|s| s.len() > keep) {
                let cut = std::mem::take(&mut self.0);
                self.0 = cut
                    .into_iter()
                    .map(|mut s| {
                        if s.len() > keep {
                            match side {
                                Side::Prefix => s.truncate(keep),
                                Side::Suffix => {
                                    s.drain(..s.len() - keep);
                                }
                            }
                        }
                        s
                    })
                    .collect();
            }
            if self.0.len() <= max || keep == 0 {
                break;
            }
            keep -= 1;
        }
        if self.has_empty() {
            *self = StrSet::single(b"");
            return;
        }
        // A string whose shorter end is in the set says nothing more.
        let all = self.0.clone();
        self.0.retain(|s| {
            !all.iter().any(|t| {
                t.len() < s.len()
                    && match side {
                        Side::Prefix => s.starts_with(t),
                        Side::Suffix => s.ends_with(t),
                    }
            })
        });
    }
}

/// The trigrams of the folded string `s` that a text containing `s` must
/// contain, ANDed: every trigram of `s` but those with a `\n` in the
/// middle, each with the byte after it in `s` ([`Query::Followed`]) unless
/// it is the last, or it or the byte after it ends in a `\n` or a NUL.
///
/// A `\n` at either end of a trigram may be a NUL in the document: the
/// searcher turns NUL bytes into line terminators in binary files, so
/// such a trigram is required in either spelling. One in the middle is
/// left out: a huge file's blocks are cut after a line terminator, so no
/// block holds the bytes on both sides of one (an edge of a block is
/// indexed as if it had one, [`trigram::for_each_edge`]).
pub(super) fn string_query(s: &[u8]) -> Query {
    let mut seen = HashSet::new();
    let ts: Vec<Query> = s
        .windows(3)
        .enumerate()
        .map(|(i, w)| window_query([w[0], w[1], w[2]], s.get(i + 3).copied()))
        .filter(|q| *q != Query::All && seen.insert(q.clone()))
        .collect();
    match ts.len() {
        0 => Query::All,
        1 => ts.into_iter().next().unwrap_or(Query::All),
        _ => Query::And(ts),
    }
}

/// What a text holding the (folded) bytes `w`, then `next` if known, must
/// hold, as [`string_query`] says: `All` for a `\n` in the middle, both
/// spellings of a `\n` at either end, the byte after unless either ends
/// in a line terminator or a NUL.
pub(super) fn window_query(w: [u8; 3], next: Option<u8>) -> Query {
    if w[1] == b'\n' {
        return Query::All;
    }
    let firsts = if w[0] == b'\n' { &[b'\n', 0][..] } else { &w[..1] };
    let lasts = if w[2] == b'\n' { &[b'\n', 0][..] } else { &w[2..] };
    let follower = next.filter(|&b| b != b'\n' && b != 0 && w[2] != b'\n' && w[2] != 0);
    let mut q = Query::Nothing;
    for &first in firsts {
        for &last in lasts {
            let t = trigram::pack([first, w[1], last]);
            q = q.or(match follower {
                // Nothing follows a line terminator that ends a block.
                Some(b) => Query::Followed(t, trigram::fold(b)),
                None => Query::Trigram(t),
            });
        }
    }
    q
}
