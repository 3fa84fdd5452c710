//! The trigram query: what the planner produces and the index evaluates.
//!
//! A [`Query`] is a boolean tree over [`Trigram`]s. A document is a
//! *candidate* for a query when the query accepts the document's set of
//! trigrams. The planner guarantees that every document containing a match
//! of the regex is a candidate; the index may admit more, never fewer.

use super::trigram::Trigram;

/// A boolean query over case-folded trigrams.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Query {
    /// Every document is a candidate (nothing constrains the match).
    All,
    /// No document can match (e.g. an empty character class).
    Nothing,
    /// Documents that contain this trigram.
    Trigram(Trigram),
    /// Documents accepted by every sub-query.
    And(Vec<Query>),
    /// Documents accepted by at least one sub-query.
    Or(Vec<Query>),
}
