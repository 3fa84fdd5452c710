//! The trigram query: what the planner produces and the index evaluates.
//!
//! A [`Query`] is a boolean tree over [`Trigram`]s. A document is a
//! *candidate* for a query when the query accepts the document's set of
//! trigrams and their follow masks. The planner guarantees that every
//! document containing a match of the regex is a candidate; the index may
//! admit more, never fewer.

use std::collections::HashSet;
use std::fmt;

use super::trigram::{Gram, Trigram, follow_bit, gram_mask, gram_trigram};

/// A boolean query over case-folded trigrams.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Query {
    /// Every document is a candidate (nothing constrains the match).
    All,
    /// No document can match (e.g. an empty character class).
    Nothing,
    /// Documents that contain this trigram.
    Trigram(Trigram),
    /// Documents that contain this trigram followed by this (folded) byte:
    /// the index admits those whose follow mask for the trigram has the
    /// byte's [`follow_bit`], or that hold the trigram when its list keeps
    /// no masks.
    Followed(Trigram, u8),
    /// Documents accepted by every sub-query.
    And(Vec<Query>),
    /// Documents accepted by at least one sub-query.
    Or(Vec<Query>),
}

impl Query {
    /// `self AND other`, with `All`/`Nothing` absorbed and nested `And`s
    /// flattened. Cheap (no deduplication); call `Query::simplify` once
    /// the tree is built.
    pub fn and(self, other: Query) -> Query {
        match (self, other) {
            (Query::Nothing, _) | (_, Query::Nothing) => Query::Nothing,
            (Query::All, q) | (q, Query::All) => q,
            (Query::And(mut a), Query::And(b)) => {
                a.extend(b);
                Query::And(a)
            }
            (Query::And(mut a), q) | (q, Query::And(mut a)) => {
                a.push(q);
                Query::And(a)
            }
            (a, b) => Query::And(vec![a, b]),
        }
    }

    /// `self OR other`, with `All`/`Nothing` absorbed and nested `Or`s
    /// flattened. Cheap (no deduplication); call `Query::simplify` once
    /// the tree is built.
    pub fn or(self, other: Query) -> Query {
        match (self, other) {
            (Query::All, _) | (_, Query::All) => Query::All,
            (Query::Nothing, q) | (q, Query::Nothing) => q,
            (Query::Or(mut a), Query::Or(b)) => {
                a.extend(b);
                Query::Or(a)
            }
            (Query::Or(mut a), q) | (q, Query::Or(mut a)) => {
                a.push(q);
                Query::Or(a)
            }
            (a, b) => Query::Or(vec![a, b]),
        }
    }

    /// Whether a document whose trigrams are described by `has` is a
    /// candidate: `has(t, None)` answers "does the document contain trigram
    /// `t`?", `has(t, Some(b))` "... followed by byte `b`?" (see
    /// [`grams_have`] for what an index answers).
    ///
    /// ```
    /// use trigrep::query::{Query, grams_have};
    /// use trigrep::query::trigram::{grams, pack};
    /// let q = Query::Trigram(pack(*b"foo")).and(Query::Followed(pack(*b"bar"), b'!'));
    /// let doc = grams(b"Foo and BAR!");
    /// assert!(q.accepts(&grams_have(&doc)));
    /// assert!(!q.accepts(&|t, _| t == pack(*b"foo")));
    /// ```
    pub fn accepts(&self, has: &impl Fn(Trigram, Option<u8>) -> bool) -> bool {
        match self {
            Query::All => true,
            Query::Nothing => false,
            Query::Trigram(t) => has(*t, None),
            Query::Followed(t, b) => has(*t, Some(*b)),
            Query::And(qs) => qs.iter().all(|q| q.accepts(has)),
            Query::Or(qs) => qs.iter().any(|q| q.accepts(has)),
        }
    }

    /// A leaf's trigram and, for [`Query::Followed`], the byte after it.
    pub fn leaf(&self) -> Option<(Trigram, Option<u8>)> {
        match self {
            Query::Trigram(t) => Some((*t, None)),
            Query::Followed(t, b) => Some((*t, Some(*b))),
            _ => None,
        }
    }

    /// The number of nodes in the tree (a size measure for caps).
    pub(crate) fn node_count(&self) -> usize {
        match self {
            Query::All | Query::Nothing | Query::Trigram(_) | Query::Followed(..) => 1,
            Query::And(qs) | Query::Or(qs) => 1 + qs.iter().map(Query::node_count).sum::<usize>(),
        }
    }

    /// An equivalent, smaller tree: nested `And`/`Or` flattened, `All` and
    /// `Nothing` absorbed, duplicate children removed, single-child nodes
    /// collapsed, and absorption applied one level deep
    /// (`a AND (a OR b)` → `a`, `a OR (a AND b)` → `a`).
    pub(crate) fn simplify(self) -> Query {
        match self {
            Query::And(qs) => simplify_node(qs, true),
            Query::Or(qs) => simplify_node(qs, false),
            q => q,
        }
    }
}

/// What an index answers for a document with trigrams and follow masks
/// `grams` (sorted, as [`super::trigram::grams`] makes them), as
/// [`Query::accepts`] asks it.
pub fn grams_have(grams: &[Gram]) -> impl Fn(Trigram, Option<u8>) -> bool + '_ {
    move |t, next| match grams.binary_search_by_key(&t, |&g| gram_trigram(g)) {
        Ok(i) => next.is_none_or(|b| gram_mask(grams[i]) & follow_bit(b) != 0),
        Err(_) => false,
    }
}

/// Simplifies an `And` (`is_and`) or `Or` node with children `qs`.
fn simplify_node(qs: Vec<Query>, is_and: bool) -> Query {
    // The value that absorbs the whole node, and the one that vanishes in it.
    let (absorbing, neutral) =
        if is_and { (Query::Nothing, Query::All) } else { (Query::All, Query::Nothing) };
    let mut seen = HashSet::new();
    let mut out: Vec<Query> = Vec::with_capacity(qs.len());
    let mut add = |q: Query| {
        if seen.insert(q.clone()) {
            out.push(q);
        }
    };
    for q in qs {
        match q.simplify() {
            // A simplified node never has a child of its own kind, so the
            // grandchildren need no further work.
            Query::And(sub) if is_and => sub.into_iter().for_each(&mut add),
            Query::Or(sub) if !is_and => sub.into_iter().for_each(&mut add),
            q if q == absorbing => return absorbing,
            q if q == neutral => {}
            q => add(q),
        }
    }
    // Absorption: in an AND, drop a child that a sibling implies (`abc`
    // beside `abc`+d, `(a | b)` beside `a`); in an OR, drop a child that
    // implies a sibling (`abc`+d beside `abc`, `(a & b)` beside `a`).
    if out.len() <= GENERAL_ABSORPTION {
        absorb(&mut out, is_and);
    } else {
        // Many children (a long list of words): only what a lookup shows.
        let leaves = |followed: bool| -> HashSet<Trigram> {
            let leaf = |q: &Query| q.leaf().filter(|l| l.1.is_some() == followed).map(|l| l.0);
            out.iter().filter_map(leaf).collect()
        };
        let (followed, plain) = (leaves(true), leaves(false));
        let sibling = |s: &Query| {
            seen.contains(s)
                || match s {
                    Query::Trigram(t) if is_and => followed.contains(t),
                    Query::Followed(t, _) if !is_and => plain.contains(t),
                    _ => false,
                }
        };
        out.retain(|q| match q {
            Query::Or(sub) if is_and => !sub.iter().any(sibling),
            Query::And(sub) if !is_and => !sub.iter().any(sibling),
            Query::Trigram(t) if is_and => !followed.contains(t),
            Query::Followed(t, _) if !is_and => !plain.contains(t),
            _ => true,
        });
    }
    match out.len() {
        0 => neutral,
        1 => out.into_iter().next().unwrap_or(neutral),
        _ if is_and => Query::And(out),
        _ => factor_or(out),
    }
}

/// Nodes with at most this many children get the general absorption
/// ([`absorb`], quadratic); bigger ones only lookups.
const GENERAL_ABSORPTION: usize = 32;

/// Node visits one [`implies`] check may spend before it answers `false`.
const IMPLIES_BUDGET: u32 = 256;

/// Drops from the children `out` of an AND (`is_and`) each that a kept
/// sibling implies, of an OR each that implies a kept sibling. A dropped
/// child no longer absorbs others, so of two children that imply each
/// other one stays.
fn absorb(out: &mut Vec<Query>, is_and: bool) {
    // A wide OR (the bytes around a word) is not worth a check.
    let wide = |q: &Query| matches!(q, Query::Or(alts) if alts.len() > GENERAL_ABSORPTION);
    let mut i = 0;
    while i < out.len() {
        let absorbed = !wide(&out[i])
            && out.iter().enumerate().any(|(j, x)| {
                let mut budget = IMPLIES_BUDGET;
                j != i
                    && !wide(x)
                    && if is_and {
                        implies(x, &out[i], &mut budget)
                    } else {
                        implies(&out[i], x, &mut budget)
                    }
            });
        if absorbed {
            out.remove(i);
        } else {
            i += 1;
        }
    }
}

/// Whether every document `a` accepts is accepted by `b`, as far as the
/// trees' shapes show (`false` when unsure, or past `budget` visits):
/// `a` is `b`; `a` is trigram `t` followed by a byte and `b` is `t`; some
/// term of an AND `a`, or every alternative of an OR `a`, implies `b`;
/// `a` implies an alternative of an OR `b`, or every term of an AND `b`.
fn implies(a: &Query, b: &Query, budget: &mut u32) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    if a == b || matches!((a, b), (Query::Followed(t, _), Query::Trigram(u)) if t == u) {
        return true;
    }
    match (a, b) {
        (Query::Or(r#as), _) => r#as.iter().all(|x| implies(x, b, budget)),
        (_, Query::And(bs)) => bs.iter().all(|y| implies(a, y, budget)),
        (Query::And(r#as), _) if r#as.iter().any(|x| implies(x, b, budget)) => true,
        (_, Query::Or(bs)) => bs.iter().any(|y| implies(a, y, budget)),
        _ => false,
    }
}

/// Builds `Or(alts)` (already simplified, at least two alternatives), with
/// the terms every alternative requires pulled out:
/// `(c & a) | (c & b)` → `c & (a | b)`.
fn factor_or(alts: Vec<Query>) -> Query {
    let terms = |q: &Query| -> Vec<Query> {
        match q {
            Query::And(sub) => sub.clone(),
            q => vec![q.clone()],
        }
    };
    let mut common: Vec<Query> = terms(&alts[0]);
    for alt in &alts[1..] {
        let here: HashSet<Query> = terms(alt).into_iter().collect();
        common.retain(|t| here.contains(t));
        if common.is_empty() {
            return Query::Or(alts);
        }
    }
    let factored: HashSet<&Query> = common.iter().collect();
    let mut rest = Query::Nothing;
    for alt in &alts {
        let left: Vec<Query> = terms(alt).into_iter().filter(|t| !factored.contains(t)).collect();
        // An alternative made only of common terms makes the OR true.
        rest = rest.or(Query::And(left));
    }
    Query::And(common).and(rest).simplify()
}

impl fmt::Display for Query {
    /// Writes the tree compactly: trigrams quoted (`"foo"`, bytes escaped),
    /// a trigram and the byte after it `"foo"+d`, `(a & b)`, `(a | b)`,
    /// `ALL`, `NONE`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Query::All => f.write_str("ALL"),
            Query::Nothing => f.write_str("NONE"),
            Query::Trigram(t) => {
                f.write_str("\"")?;
                for b in &t.to_be_bytes()[1..] {
                    write!(f, "{}", b.escape_ascii())?;
                }
                f.write_str("\"")
            }
            Query::Followed(t, b) => write!(f, "{}+{}", Query::Trigram(*t), b.escape_ascii()),
            Query::And(qs) | Query::Or(qs) => {
                let sep = if matches!(self, Query::And(_)) { " & " } else { " | " };
                f.write_str("(")?;
                for (i, q) in qs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(sep)?;
                    }
                    write!(f, "{q}")?;
                }
                f.write_str(")")
            }
        }
    }
}
