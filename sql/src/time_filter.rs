//! Conditions on the `time` column, pushed down (`Inexact`: DataFusion
//! still checks every row) as a [`TimeRange`], by which
//! [`crate::time_prune`] skips the blocks of a block-indexed text that
//! hold no line with a time in it.
//!
//! An index built by this version records each block's earliest and
//! latest line time, so the blocks skipped are exactly those that cannot
//! hold a row, whatever the order of the times. An older index records
//! none: then no block is skipped by time unless the user promised
//! `lines(PATH, 'times=ascending')` ([`TimeOrder`]), and blocks are
//! bisected by the time of their first lines (loggers with several
//! threads write lines out of order every day, a line stamped 15 ms
//! before the one above it: a false promise loses such rows).

use datafusion::arrow::datatypes::DataType;
use datafusion::logical_expr::{Between, Expr, Operator};
use datafusion::scalar::ScalarValue;
use serde::{Deserialize, Serialize};

use crate::rows::TIME;

/// What a table may assume of the order of its lines' times: its
/// `times` option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeOrder {
    /// `'times=any'`, the default: nothing; no block is skipped by time.
    #[default]
    Any,
    /// `'times=ascending'`: in every file each line's time is at or after
    /// the one before; blocks outside a `time` range are skipped.
    Ascending,
}

impl TimeOrder {
    /// The option's value as SQL gives it (`'any'` or `'ascending'`).
    pub fn parse(value: &str) -> Option<TimeOrder> {
        match value {
            "any" => Some(TimeOrder::Any),
            "ascending" => Some(TimeOrder::Ascending),
            _ => None,
        }
    }
}

/// The times a row's `time` can have to satisfy the conditions, in ms
/// since the epoch, both ends included (`None`: unbounded). A superset:
/// a strict bound is taken as inclusive, a finer unit rounded outwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeRange {
    /// The earliest.
    pub lo: Option<i64>,
    /// The latest.
    pub hi: Option<i64>,
}

/// A `time` range pushed down to a scan, and whether the table's user
/// promised that its times go up (`'times=ascending'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeCut {
    /// The range.
    #[serde(flatten)]
    pub range: TimeRange,
    /// Whether every file's times only go up.
    #[serde(default)]
    pub ascending: bool,
}

impl TimeRange {
    /// Both ranges at once.
    fn and(self, other: TimeRange) -> TimeRange {
        // `None` is below every `Some`: the larger start is `max`'s.
        let max = |a: Option<i64>, b: Option<i64>| a.max(b);
        let min = |a: Option<i64>, b: Option<i64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            _ => a.or(b),
        };
        TimeRange { lo: max(self.lo, other.lo), hi: min(self.hi, other.hi) }
    }

    /// Either range: the span of both.
    fn or(self, other: TimeRange) -> TimeRange {
        let lo = self.lo.zip(other.lo).map(|(a, b)| a.min(b));
        let hi = self.hi.zip(other.hi).map(|(a, b)| a.max(b));
        TimeRange { lo, hi }
    }
}

/// The range the filters among `filters` that bound `time` allow (their
/// conjunction); `None`: none does.
pub fn range_of(filters: &[Expr]) -> Option<TimeRange> {
    filters.iter().filter_map(bounds).reduce(TimeRange::and)
}

/// Whether `e` bounds `time` (a comparison with a timestamp, `BETWEEN`,
/// and `AND`/`OR` of them).
pub fn bounds_time(e: &Expr) -> bool {
    bounds(e).is_some()
}

/// The range `e` allows, if it bounds `time`.
fn bounds(e: &Expr) -> Option<TimeRange> {
    let all = TimeRange { lo: None, hi: None };
    match e {
        Expr::BinaryExpr(b) => {
            let (op, at) = match (on_time(&b.left), on_time(&b.right)) {
                (true, _) => (b.op, millis(&b.right)?),
                (_, true) => (b.op.swap()?, millis(&b.left)?),
                _ => {
                    return match b.op {
                        Operator::And => match (bounds(&b.left), bounds(&b.right)) {
                            (Some(l), Some(r)) => Some(l.and(r)),
                            (one, None) | (None, one) => one,
                        },
                        Operator::Or => Some(bounds(&b.left)?.or(bounds(&b.right)?)),
                        _ => None,
                    };
                }
            };
            let (lo, hi) = at;
            match op {
                Operator::Gt | Operator::GtEq => Some(TimeRange { lo: Some(lo), ..all }),
                Operator::Lt | Operator::LtEq => Some(TimeRange { hi: Some(hi), ..all }),
                Operator::Eq => Some(TimeRange { lo: Some(lo), hi: Some(hi) }),
                _ => None,
            }
        }
        Expr::Between(Between { expr, negated: false, low, high }) if on_time(expr) => {
            Some(TimeRange { lo: Some(millis(low)?.0), hi: Some(millis(high)?.1) })
        }
        _ => None,
    }
}

/// Whether `e` is the `time` column (possibly cast to another timestamp
/// type, which keeps its order).
fn on_time(e: &Expr) -> bool {
    match e {
        Expr::Column(c) => c.name == TIME,
        Expr::Cast(c) if matches!(c.field.data_type(), DataType::Timestamp(..)) => on_time(&c.expr),
        _ => false,
    }
}

/// A timestamp literal in ms, rounded down and up (equal unless it has
/// a finer unit).
fn millis(e: &Expr) -> Option<(i64, i64)> {
    let (v, per_ms) = match e {
        Expr::Literal(ScalarValue::TimestampSecond(Some(v), _), _) => {
            let ms = v.checked_mul(1000)?;
            return Some((ms, ms));
        }
        Expr::Literal(ScalarValue::TimestampMillisecond(Some(v), _), _) => (*v, 1),
        Expr::Literal(ScalarValue::TimestampMicrosecond(Some(v), _), _) => (*v, 1000),
        Expr::Literal(ScalarValue::TimestampNanosecond(Some(v), _), _) => (*v, 1_000_000),
        _ => return None,
    };
    let down = v.div_euclid(per_ms);
    Some((down, down + i64::from(v.rem_euclid(per_ms) != 0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::logical_expr::{col, lit};

    fn ms(v: i64) -> Expr {
        lit(ScalarValue::TimestampMillisecond(Some(v), Some("UTC".into())))
    }

    #[test]
    fn comparisons_between_and_their_combinations_bound_time() {
        let r = |lo, hi| Some(TimeRange { lo, hi });
        assert_eq!(range_of(&[col("time").gt_eq(ms(5))]), r(Some(5), None));
        assert_eq!(range_of(&[ms(5).gt(col("time"))]), r(None, Some(5)));
        assert_eq!(range_of(&[col("time").between(ms(3), ms(9))]), r(Some(3), Some(9)));
        assert_eq!(range_of(&[col("time").not_between(ms(3), ms(9))]), None);
        let both = [col("time").gt(ms(3)), col("time").lt(ms(9)), col("line").eq(lit("x"))];
        assert_eq!(range_of(&both), r(Some(3), Some(9)));
        let or = col("time").lt(ms(2)).or(col("time").gt(ms(7)));
        assert_eq!(range_of(&[or]), r(None, None));
        let or = col("time").eq(ms(2)).or(col("time").eq(ms(7)));
        assert_eq!(range_of(&[or]), r(Some(2), Some(7)));
        assert_eq!(range_of(&[col("time").eq(ms(2)).or(col("line").eq(lit("x")))]), None);
        assert_eq!(range_of(&[col("time").not_eq(ms(2))]), None);
        assert_eq!(range_of(&[col("modified").gt(ms(2))]), None);
        let ns = lit(ScalarValue::TimestampNanosecond(Some(2_500_000), None));
        assert_eq!(range_of(&[col("time").eq(ns)]), r(Some(2), Some(3)), "rounded outwards");
    }
}
