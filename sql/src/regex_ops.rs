//! A regex operator whose pattern holds a backslash, made a `regexp_like`
//! call before DataFusion's optimizer sees it. DataFusion 55's simplifier
//! rewrites `x ~ 'literal'` into `x LIKE '%literal%'` without escaping a
//! backslash in the literal, which LIKE then reads as its escape: `line ~
//! '\\'` (a backslash) became `LIKE '%\%'` (a percent sign), and `line ~
//! 'k\\s'` matched "ks". So such an operator (or a `regexp_like` call,
//! which the simplifier turns into one) becomes `regexp_like(x, p, 'u')`
//! (`'iu'` for `~*`): the same match (`u`, Unicode, is on by default),
//! NULL included, with flags the simplifier leaves alone.

use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::error::Result;
use datafusion::functions::regex::expr_fn::regexp_like;
use datafusion::logical_expr::{BinaryExpr, Expr, LogicalPlan, Operator, lit};
use datafusion::optimizer::AnalyzerRule;

use crate::pushdown::literal;

/// The analyzer rule (see the module docs).
#[derive(Debug, Default)]
pub struct RegexOpsAsCalls;

impl AnalyzerRule for RegexOpsAsCalls {
    fn analyze(&self, plan: LogicalPlan, _: &ConfigOptions) -> Result<LogicalPlan> {
        plan.transform_up_with_subqueries(|plan| {
            plan.map_expressions(|e| e.transform_up(|e| Ok(as_call(e))))
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "regex_ops_as_calls"
    }
}

/// `e` as a `regexp_like` call the simplifier keeps when it is a regex
/// operator or a `regexp_like` call whose literal pattern holds a
/// backslash; else `e`.
fn as_call(e: Expr) -> Transformed<Expr> {
    let (subject, pattern, case_insensitive, negated) = match &e {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => match op {
            Operator::RegexMatch => (left.as_ref(), right.as_ref(), false, false),
            Operator::RegexIMatch => (left.as_ref(), right.as_ref(), true, false),
            Operator::RegexNotMatch => (left.as_ref(), right.as_ref(), false, true),
            Operator::RegexNotIMatch => (left.as_ref(), right.as_ref(), true, true),
            _ => return Transformed::no(e),
        },
        Expr::ScalarFunction(f) if f.func.name() == "regexp_like" => {
            let case_insensitive = match f.args.get(2).map(literal) {
                None | Some(Some("")) => false,
                Some(Some("i")) => true,
                // Other flags: the simplifier keeps the call as it is.
                _ => return Transformed::no(e),
            };
            match &f.args[..] {
                [subject, pattern, ..] => (subject, pattern, case_insensitive, false),
                _ => return Transformed::no(e),
            }
        }
        _ => return Transformed::no(e),
    };
    if !literal(pattern).is_some_and(|p| p.contains('\\')) {
        return Transformed::no(e);
    }
    // `u` (Unicode, already on) is a flag the simplifier has no operator
    // for, so it leaves the call alone.
    let flags = lit(if case_insensitive { "iu" } else { "u" });
    let call = regexp_like(subject.clone(), pattern.clone(), Some(flags));
    Transformed::yes(if negated { !call } else { call })
}
