//! Filter pushdown: the `WHERE` conditions on `line` that a trigram index
//! can prune with, turned into a [`Pred`] and then, per index, into the
//! same trigram [`Query`] `tg` plans for a pattern.
//!
//! Accepted (and answered `Inexact`: DataFusion still checks every row):
//! `line LIKE p`, `line ILIKE p`, `line ~ r`, `line ~* r`,
//! `regexp_like(line, r [, 'i'])`, `line = s`, `starts_with(line, s)`,
//! `contains(line, s)`, and `AND`/`OR` of them. DataFusion rewrites
//! literal regexes before a provider sees them (`~ 'foo'` arrives as
//! `LIKE '%foo%'`, `~ 'a|b'` as two `LIKE`s joined by `OR`): every form is
//! read. A `LIKE` pattern is planned as the literal runs between its
//! wildcards (all required, case folded for `ILIKE`), which admits a
//! superset of the lines it matches.
//!
//! The `line` column holds each line decoded lossily (an invalid byte is
//! U+FFFD): a pattern that names U+FFFD could match such a line without
//! its bytes, so it is not pushed down; a regex that can match U+FFFD
//! otherwise (a class holding it) is planned with what can match it
//! widened to any character ([`crate::lossy`]).

use datafusion::arrow::datatypes::DataType;
use datafusion::logical_expr::{Expr, Like, Operator};
use datafusion::scalar::ScalarValue;
use serde::{Deserialize, Serialize};
use trigrep::options::{Case, MatchOptions};
use trigrep::query::Query;
use trigrep::query::search_plan::query_for;

use crate::lossy;

/// The name of the column conditions are pushed down on.
pub const LINE: &str = "line";

/// What a line must satisfy to be returned, as far as an index can tell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pred {
    /// A line holding a match of `pattern` (a regex, or a literal when
    /// `fixed`), case folded when `case_insensitive`.
    Pattern {
        /// The regex or literal.
        pattern: String,
        /// `pattern` is a literal.
        fixed: bool,
        /// Case does not matter.
        case_insensitive: bool,
    },
    /// Every one of these.
    And(Vec<Pred>),
    /// At least one of these.
    Or(Vec<Pred>),
}

impl Pred {
    /// The trigram query every line satisfying this predicate satisfies,
    /// planned by trigrep's planner for an index with (`edges`) or
    /// without the trigrams of its documents' edges.
    pub fn query(&self, edges: bool) -> Query {
        match self {
            Pred::Pattern { pattern, fixed, case_insensitive } => {
                let planned = if *fixed {
                    pattern.clone()
                } else {
                    lossy::planned(pattern, *case_insensitive)
                };
                let mut m = MatchOptions::new(vec![planned]);
                m.fixed_strings = *fixed;
                m.case = if *case_insensitive { Case::Insensitive } else { Case::Sensitive };
                query_for(&m, edges)
            }
            Pred::And(all) => all.iter().fold(Query::All, |q, p| q.and(p.query(edges))),
            Pred::Or(any) => any.iter().fold(Query::Nothing, |q, p| q.or(p.query(edges))),
        }
    }
}

/// The predicate of the pushable filters among `filters` (`None`: none
/// can prune): their conjunction.
pub fn pred_of(filters: &[Expr]) -> Option<Pred> {
    let all: Vec<Pred> = filters.iter().filter_map(pred_of_expr).collect();
    match all.len() {
        0 => None,
        1 => all.into_iter().next(),
        _ => Some(Pred::And(all)),
    }
}

/// Whether `e` can prune (it becomes a [`Pred`]).
pub fn is_pushable(e: &Expr) -> bool {
    pred_of_expr(e).is_some()
}

/// `e` as a predicate on `line`, if it is one the index can use. A
/// conjunction keeps the conjuncts it can read (dropping a condition
/// only admits more lines); a disjunction needs all of its sides.
fn pred_of_expr(e: &Expr) -> Option<Pred> {
    match e {
        Expr::BinaryExpr(b) => match b.op {
            Operator::And => match (pred_of_expr(&b.left), pred_of_expr(&b.right)) {
                (Some(l), Some(r)) => Some(Pred::And(vec![l, r])),
                (one, None) | (None, one) => one,
            },
            Operator::Or => Some(Pred::Or(vec![pred_of_expr(&b.left)?, pred_of_expr(&b.right)?])),
            Operator::RegexMatch | Operator::RegexIMatch => {
                on_line(&b.left)?;
                let r = literal(&b.right)?;
                regex(r, b.op == Operator::RegexIMatch)
            }
            Operator::LikeMatch | Operator::ILikeMatch => {
                on_line(&b.left)?;
                like(literal(&b.right)?, None, b.op == Operator::ILikeMatch)
            }
            Operator::Eq => {
                let s = match (on_line(&b.left), on_line(&b.right)) {
                    (Some(()), _) => literal(&b.right)?,
                    (_, Some(())) => literal(&b.left)?,
                    _ => return None,
                };
                fixed(s, false)
            }
            _ => None,
        },
        Expr::Like(Like { negated: false, expr, pattern, escape_char, case_insensitive }) => {
            on_line(expr)?;
            like(literal(pattern)?, *escape_char, *case_insensitive)
        }
        Expr::ScalarFunction(f) => {
            let args = &f.args;
            on_line(args.first()?)?;
            let arg = literal(args.get(1)?)?;
            match (f.func.name(), args.len()) {
                ("regexp_like", 2) => regex(arg, false),
                ("regexp_like", 3) => match literal(&args[2])? {
                    "i" | "iu" => regex(arg, true),
                    "" | "u" => regex(arg, false),
                    _ => None,
                },
                ("starts_with" | "contains" | "strpos", 2) => fixed(arg, false),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `Some` when `e` is the `line` column (possibly cast to another string
/// type: a cast through another type can change the text, as "1e3" cast
/// to a double and back is "1000").
fn on_line(e: &Expr) -> Option<()> {
    match e {
        Expr::Column(c) if c.name == LINE => Some(()),
        Expr::Cast(c) if is_string(c.field.data_type()) => on_line(&c.expr),
        _ => None,
    }
}

/// The string literal `e`, if it is one (possibly cast to another string type).
pub(crate) fn literal(e: &Expr) -> Option<&str> {
    match e {
        Expr::Literal(
            ScalarValue::Utf8(Some(s))
            | ScalarValue::LargeUtf8(Some(s))
            | ScalarValue::Utf8View(Some(s)),
            _,
        ) => Some(s),
        Expr::Cast(c) if is_string(c.field.data_type()) => literal(&c.expr),
        _ => None,
    }
}

/// Whether `t` is a string type (a string cast to it keeps its text).
fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

/// Whether `s` names U+FFFD, which a lossily decoded line may hold where
/// its bytes do not (see the module docs).
fn names_replacement(s: &str) -> bool {
    s.contains('\u{FFFD}') || s.to_ascii_lowercase().contains("fffd")
}

/// A regex predicate.
fn regex(r: &str, case_insensitive: bool) -> Option<Pred> {
    (!names_replacement(r)).then(|| Pred::Pattern {
        pattern: r.to_string(),
        fixed: false,
        case_insensitive,
    })
}

/// A literal predicate.
fn fixed(s: &str, case_insensitive: bool) -> Option<Pred> {
    (!names_replacement(s)).then(|| Pred::Pattern {
        pattern: s.to_string(),
        fixed: true,
        case_insensitive,
    })
}

/// A `LIKE` pattern as the conjunction of its literal runs (`%` and `_`
/// cut them; `escape`, `\` by default, makes the next character literal).
fn like(p: &str, escape: Option<char>, case_insensitive: bool) -> Option<Pred> {
    let escape = escape.unwrap_or('\\');
    let (mut runs, mut run) = (Vec::new(), String::new());
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c == escape => run.push(chars.next().unwrap_or(escape)),
            '%' | '_' => runs.push(std::mem::take(&mut run)),
            c => run.push(c),
        }
    }
    runs.push(run);
    let parts: Vec<Pred> = runs
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| fixed(r, case_insensitive))
        .collect::<Option<_>>()?;
    Some(Pred::And(parts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::logical_expr::{cast, col, lit};

    fn pat(p: &str, fixed: bool, ci: bool) -> Pred {
        Pred::Pattern { pattern: p.into(), fixed, case_insensitive: ci }
    }

    #[test]
    fn like_patterns_become_their_literal_runs() {
        let e = col("line").like(lit("%ab_cd%e\\%f"));
        assert_eq!(
            pred_of(&[e]),
            Some(Pred::And(vec![
                pat("ab", true, false),
                pat("cd", true, false),
                pat("e%f", true, false)
            ]))
        );
        let e = col("line").ilike(lit("ERROR%"));
        assert_eq!(pred_of(&[e]), Some(Pred::And(vec![pat("ERROR", true, true)])));
    }

    #[test]
    fn or_needs_both_sides_and_and_keeps_what_it_can() {
        let l = col("line").like(lit("%a%"));
        let other = col("path").like(lit("%b%"));
        assert_eq!(pred_of(&[l.clone().or(other.clone())]), None);
        assert_eq!(pred_of(&[l.clone().and(other)]), Some(Pred::And(vec![pat("a", true, false)])));
        assert!(!is_pushable(&col("line").not_like(lit("%a%"))));
    }

    #[test]
    fn only_casts_to_strings_leave_the_line_as_it_is() {
        // "1e3" cast to a double and back is "1000": the line does not hold
        // the pattern's literal, yet the condition holds.
        let through_double = cast(cast(col("line"), DataType::Float64), DataType::Utf8);
        assert_eq!(pred_of(&[through_double.clone().like(lit("1000%"))]), None);
        assert_eq!(pred_of(&[through_double.eq(lit("1000"))]), None);
        let as_int = cast(lit("007"), DataType::Int32);
        assert_eq!(pred_of(&[col("line").eq(cast(as_int, DataType::Utf8))]), None);
        let view = cast(col("line"), DataType::Utf8View);
        assert_eq!(
            pred_of(&[view.like(lit("%ab%"))]),
            Some(Pred::And(vec![pat("ab", true, false)]))
        );
    }

    #[test]
    fn the_replacement_character_is_never_pushed() {
        assert_eq!(pred_of(&[col("line").like(lit("%\u{FFFD}%"))]), None);
        assert_eq!(pred_of(&[col("line").eq(lit("x\\x{FFFD}"))]), None);
    }

    #[test]
    fn a_class_holding_the_replacement_character_requires_no_bytes_of_it() {
        let p = r"bad[\x{FFFC}-\x{FFFE}]{2}bytes";
        let as_bytes = query_for(&MatchOptions::new(vec![p.to_string()]), true);
        assert_ne!(pat(p, false, false).query(true), as_bytes, "tg's own plan needs its bytes");
        assert_eq!(
            pat(p, false, false).query(true),
            pat(r"bad(?s:.){2}bytes", false, false).query(true)
        );
    }

    #[test]
    fn queries_are_trigrep_plans() {
        assert_eq!(pat("ab", true, false).query(true), Query::All);
        assert_ne!(pat("abcd", true, false).query(true), Query::All);
        assert_eq!(
            Pred::Or(vec![pat("ab", true, false), pat("abcd", true, false)]).query(true),
            Query::All
        );
    }
}
