//! Regex → trigram query planning. Pure: no I/O.
//!
//! [`plan`] turns the patterns of a search (with the matcher's flags in
//! [`PlanOptions`]) into a [`Query`] over case-folded trigrams. The guarantee is **no false
//! negatives**: for every text a pattern matches, the query accepts the
//! text's trigrams. The query may admit more; `Query::All` is always a
//! correct (if useless) answer and is what unindexable patterns get.
//!
//! # Algorithm
//!
//! The classic one (Russ Cox, "Regular Expression Matching with a Trigram
//! Index"). Every HIR node is summarised bottom-up in an `Info`:
//!
//! * `emptyable` — whether the node can match the empty string;
//! * `exact` — when known, a small set holding every string the node
//!   matches;
//! * `prefix` / `suffix` — otherwise, sets such that every match starts
//!   (ends) with one of their strings;
//! * `query` — a trigram query every match's own trigrams satisfy.
//!
//! One addition to the classic design: a trigram of a string that goes on
//! is required together with the byte after it ([`Query::Followed`]), which
//! the index checks against the follow masks of its dense lists, so
//! `race condition` no longer admits every file holding `rac`, `ace` and
//! `ce ` apart.
//!
//! Strings live in bounded sets (the private `strset` module) and are
//! ASCII-folded like the index, so ASCII case variants collapse; non-ASCII
//! variants the parser adds under `(?i)` (such as the Kelvin sign for `k`)
//! stay alternatives. Literals and small character classes (up to 32
//! strings after folding, a character being its UTF-8 bytes) are exact
//! sets; bigger classes match "any character". Concatenation takes cross
//! products of exact sets, or extends the prefix (suffix) set with the next
//! (previous) node's strings, and adds the trigrams that straddle the seam.
//! Alternation unions the sets and ORs the queries. `x?` is `x|""`; `x*` is
//! `x+|""`; `x+` keeps `x`'s prefixes and suffixes but loses exactness;
//! `x{n,m}` concatenates at most 8 copies of `x`, then `x+`. Anchors and
//! word boundaries match the empty string inside a pattern; at an edge of
//! it they say which bytes sit just outside the match (`^` a line
//! terminator, `\b` before a word character a non-word byte: the private
//! `edge` module), and the plan requires those bytes with the match. An
//! index holds each document as if a line terminator came before and
//! after it, so that holds at a document's edges too. `-w` and `-x` wrap
//! the pattern in assertions, as the matcher does. Groups are transparent.
//!
//! Sets are kept small: an exact set with more than 16 strings, or whose
//! strings are all at least 4 bytes long, is turned into a query (the OR
//! over its strings of the AND of their trigrams) plus prefix and suffix
//! sets; prefix and suffix sets add their own query, then are cut to two
//! bytes per prefix string and three per suffix string (a trigram and,
//! after the next concatenation, the byte that follows it; two when a
//! seam would pair more than 20 strings), or fewer while more than 20
//! strings remain. The result is simplified (`Query::simplify`) and
//! replaced by `Query::All` if it still has more than 100,000 nodes.
//!
//! A line terminator in the middle of a trigram is never required (a huge
//! file's blocks are cut after one), and one at either end of a trigram
//! may also be a NUL byte in the document, which the searcher turns into a
//! line terminator in binary files.
//!
//! # Known limits
//!
//! Sound, but wider than necessary: Unicode `\d`, `\w`, `\s` and other
//! classes of more than 32 characters match anything (`\d{4}-\d{2}` plans
//! to `All`; with `--no-unicode` it does not); `x+` forgets how many copies
//! it saw (`ab+c` plans to `All`, not `(abb|abc) & (abc|bbc)`); sets cut
//! to two or three bytes lose trigrams that need more context. `-S` plans
//! like `-i`, which only widens non-ASCII letters.
//!
//! ```
//! use trigrep::query::planner::{plan, PlanOptions};
//! use trigrep::query::grams_have;
//! use trigrep::query::trigram::grams;
//!
//! let q = plan(&["food.*bar".into()], &PlanOptions::default());
//! assert_eq!(q.to_string(), r#"("foo"+d & "ood" & "bar")"#);
//! assert!(q.accepts(&grams_have(&grams(b"FOOD, then bar"))));
//! assert!(!q.accepts(&grams_have(&grams(b"FOO, then bar"))));
//! ```

mod edge;
mod options;
pub mod pcre2;
mod strset;

pub use self::options::PlanOptions;
use self::options::{parser_builder, pattern_text, wrapped};

use regex_syntax::hir::{Class, Hir, HirKind};

use self::strset::{Side, StrSet};
use super::Query;

/// An exact set with more strings than this becomes a query plus
/// prefix/suffix sets.
const MAX_EXACT: usize = 16;
/// Prefix and suffix sets are cut to shorter strings until at most this
/// many remain.
const MAX_SET: usize = 20;
/// A character class is expanded into an exact set when it folds to at most
/// this many strings; otherwise it matches "any character".
const CLASS_CAP: usize = 32;
/// Classes with more characters than this (before folding) are not even
/// enumerated.
const CLASS_SCAN: u64 = 128;
/// An exact set holding more bytes than this is turned into a query.
const MAX_EXACT_BYTES: usize = 4096;
/// `x{n,m}` is analysed with at most this many copies of `x` concatenated.
const MAX_COPIES: u32 = 8;
/// A final query with more nodes than this is replaced by `Query::All`
/// (the index would spend longer on the query than on a scan).
const MAX_QUERY_NODES: usize = 100_000;

/// Plans a search for any of `patterns`: the OR of each pattern's query.
///
/// A pattern that does not parse makes the whole plan `Query::All` (the
/// matcher reports the error; the planner only has to stay correct). No
/// patterns at all match nothing, as in ripgrep, so the plan is
/// `Query::Nothing`.
///
/// Under `-w` or `-x` the patterns are planned wrapped as the matcher wraps
/// them; when that makes the plan too big (a long word list: each word's
/// boundaries add two alternatives per non-word byte), they are planned
/// bare, which admits a superset.
pub fn plan(patterns: &[String], opts: &PlanOptions) -> Query {
    let q = plan_wrapped(patterns, opts, true);
    if q == Query::All && (opts.word || opts.whole_line) {
        plan_wrapped(patterns, opts, false)
    } else {
        q
    }
}

/// [`plan`], with the patterns wrapped for `-w` and `-x` or not.
fn plan_wrapped(patterns: &[String], opts: &PlanOptions, wrap: bool) -> Query {
    let parser = parser_builder(opts);
    let (mut q, mut nodes) = (Query::Nothing, 0);
    for p in patterns {
        let one = match parser.build().parse(&pattern_text(p, opts)) {
            Ok(hir) if wrap => plan_one(&wrapped(hir, opts), opts.edges),
            Ok(hir) => plan_one(&hir, opts.edges),
            Err(_) => return Query::All,
        };
        // Counted as they come: the OR's size is about their sum.
        nodes += one.node_count();
        if nodes > MAX_QUERY_NODES {
            return Query::All;
        }
        q = q.or(one);
    }
    // One pattern's plan is simplified already.
    let q = if patterns.len() == 1 { q } else { q.simplify() };
    if q.node_count() > MAX_QUERY_NODES { Query::All } else { q }
}

/// Plans one parsed regex: a query that accepts the trigrams of every text
/// `hir` matches, asking for the bytes outside a match only when the index
/// holds the `edges` of its documents.
fn plan_one(hir: &Hir, edges: bool) -> Query {
    let mut info = analyze(hir);
    let edges = if edges { edge::query(hir, info.prefixes(), info.suffixes()) } else { Query::All };
    info.simplify(true);
    let q = match info.exact {
        Some(exact) => info.query.and(exact.query()),
        None => info.query,
    }
    .and(edges)
    .simplify();
    if q.node_count() > MAX_QUERY_NODES { Query::All } else { q }
}

/// What the planner knows about the strings one HIR node matches.
#[derive(Clone, Debug)]
struct Info {
    /// The node can match the empty string.
    emptyable: bool,
    /// If `Some`, every match is one of these strings (and `prefix` and
    /// `suffix` are unused).
    exact: Option<StrSet>,
    /// Every match starts with one of these (when `exact` is `None`).
    prefix: StrSet,
    /// Every match ends with one of these (when `exact` is `None`).
    suffix: StrSet,
    /// Every match's own trigrams satisfy this.
    query: Query,
}

impl Info {
    /// Matches exactly the strings of `set`.
    fn exact(set: StrSet) -> Info {
        Info {
            emptyable: set.has_empty(),
            exact: Some(set),
            prefix: StrSet::empty(),
            suffix: StrSet::empty(),
            query: Query::All,
        }
    }

    /// Matches the empty string only.
    fn empty_string() -> Info {
        Info::exact(StrSet::single(b""))
    }

    /// Matches one character we know nothing about.
    fn any_char() -> Info {
        Info {
            emptyable: false,
            exact: None,
            prefix: StrSet::single(b""),
            suffix: StrSet::single(b""),
            query: Query::All,
        }
    }

    /// The strings every match starts with.
    fn prefixes(&self) -> &StrSet {
        self.exact.as_ref().unwrap_or(&self.prefix)
    }

    /// The strings every match ends with.
    fn suffixes(&self) -> &StrSet {
        self.exact.as_ref().unwrap_or(&self.suffix)
    }

    /// Gives up exactness: the exact set's query joins `query` and the set
    /// becomes the prefix and suffix sets (not yet trimmed).
    fn drop_exact(&mut self) {
        if let Some(exact) = self.exact.take() {
            self.and_query(exact.query());
            self.prefix = exact.clone();
            self.suffix = exact;
        }
    }

    /// `query = query AND q`.
    fn and_query(&mut self, q: Query) {
        self.query = std::mem::replace(&mut self.query, Query::All).and(q);
    }

    /// Keeps the sets bounded (see the module docs). `force` also gives up
    /// exact sets whose strings all hold a trigram: done once, at the end.
    fn simplify(&mut self, force: bool) {
        if let Some(exact) = &self.exact {
            let min = exact.min_len();
            if exact.len() > MAX_EXACT
                || min >= 4
                || (force && min >= 3)
                || exact.total_bytes() > MAX_EXACT_BYTES
            {
                self.drop_exact();
            }
        }
        if self.exact.is_none() {
            let q = self.prefix.query().and(self.suffix.query());
            self.and_query(q);
            self.prefix.trim(Side::Prefix, MAX_SET, 2);
            self.suffix.trim(Side::Suffix, MAX_SET, 3);
        }
    }
}

/// Summarises `hir`.
fn analyze(hir: &Hir) -> Info {
    let mut info = match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => return Info::empty_string(),
        HirKind::Literal(lit) => return Info::exact(StrSet::single(&lit.0)),
        HirKind::Class(class) => return class_info(class),
        HirKind::Capture(cap) => return analyze(&cap.sub),
        HirKind::Repetition(rep) => repeat(analyze(&rep.sub), rep.min, rep.max),
        HirKind::Concat(subs) => {
            let mut acc = Info::empty_string();
            for sub in subs {
                acc = concat(acc, analyze(sub));
            }
            acc
        }
        HirKind::Alternation(subs) => {
            let mut acc: Option<Info> = None;
            for sub in subs {
                let next = analyze(sub);
                acc = Some(match acc {
                    None => next,
                    Some(acc) => alternate(acc, next),
                });
            }
            acc.unwrap_or_else(|| Info::exact(StrSet::empty()))
        }
    };
    // Composite nodes deduplicate their query once, not at every step.
    info.query = info.query.simplify();
    info
}

/// A character class: an exact set of its (folded) characters when small,
/// else "any character".
fn class_info(class: &Class) -> Info {
    StrSet::of_class(class, CLASS_SCAN, CLASS_CAP).map_or_else(Info::any_char, Info::exact)
}

/// `x` followed by `y`.
fn concat(mut x: Info, mut y: Info) -> Info {
    if let (Some(xs), Some(ys)) = (&x.exact, &y.exact)
        && xs.len() * ys.len() > CLASS_CAP * CLASS_CAP
    {
        x.drop_exact();
        y.drop_exact();
    }
    let query = std::mem::replace(&mut x.query, Query::All)
        .and(std::mem::replace(&mut y.query, Query::All));
    let emptyable = x.emptyable && y.emptyable;
    if let (Some(xs), Some(ys)) = (&x.exact, &y.exact) {
        let mut xy = Info::exact(xs.cross(ys));
        xy.query = query;
        xy.simplify(false);
        return xy;
    }
    let mut xy =
        Info { emptyable, exact: None, prefix: StrSet::empty(), suffix: StrSet::empty(), query };
    xy.prefix = match &x.exact {
        Some(xs) => xs.cross(y.prefixes()),
        None => {
            let mut p = x.prefix.clone();
            if x.emptyable {
                p.union(y.prefixes());
            }
            p
        }
    };
    xy.suffix = match &y.exact {
        Some(ys) => x.suffixes().cross(ys),
        None => {
            let mut s = y.suffix.clone();
            if y.emptyable {
                s.union(x.suffixes());
            }
            s
        }
    };
    if x.exact.is_none() && y.exact.is_none() {
        // Trigrams straddling the seam are in neither set: a match ends
        // some string of x's suffixes followed by one of y's prefixes.
        // Many pairs: the suffixes' last two bytes are enough (a trigram's
        // follower across the seam is not worth a longer query).
        let mut ends = x.suffix.clone();
        if ends.len() * y.prefix.len() > MAX_SET {
            ends.trim(Side::Suffix, MAX_SET, 2);
        }
        xy.and_query(ends.cross(&y.prefix).query());
    }
    xy.simplify(false);
    xy
}

/// `x` or `y`.
fn alternate(mut x: Info, mut y: Info) -> Info {
    let emptyable = x.emptyable || y.emptyable;
    let mut xy = if let (Some(xs), Some(ys)) = (&mut x.exact, &y.exact) {
        let mut set = std::mem::take(xs);
        set.union(ys);
        let mut xy = Info::exact(set);
        xy.query = x.query.or(y.query);
        xy
    } else {
        // Keep each side's exact knowledge in its query before it is
        // blurred into prefix and suffix sets.
        x.drop_exact();
        y.drop_exact();
        let mut prefix = x.prefix;
        prefix.union(&y.prefix);
        let mut suffix = x.suffix;
        suffix.union(&y.suffix);
        Info { emptyable, exact: None, prefix, suffix, query: x.query.or(y.query) }
    };
    xy.emptyable = emptyable;
    xy.simplify(false);
    xy
}

/// One or more copies of `x`.
fn plus(mut x: Info) -> Info {
    x.drop_exact();
    x.simplify(false);
    x
}

/// `x{min,max}` (`max == None`: unbounded).
fn repeat(x: Info, min: u32, max: Option<u32>) -> Info {
    if max == Some(0) {
        return Info::empty_string();
    }
    if min == 0 {
        // x{0,m} is "" or x{1,m}.
        return alternate(repeat(x, 1, max), Info::empty_string());
    }
    if max == Some(min) && min <= MAX_COPIES {
        let mut acc = x.clone();
        for _ in 1..min {
            acc = concat(acc, x.clone());
        }
        return acc;
    }
    // x{n,m} lies within x^(k-1) x+ for any 1 <= k <= n.
    let k = min.min(MAX_COPIES);
    let mut acc = Info::empty_string();
    for _ in 1..k {
        acc = concat(acc, x.clone());
    }
    concat(acc, plus(x))
}

#[cfg(test)]
mod prop;

#[cfg(test)]
mod tests;
