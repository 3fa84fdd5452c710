//! What a search asks of an index: the trigram query, planned from its
//! patterns and matching options.
//!
//! [`trigram`] defines the unit every index is built on, [`Query`] the
//! boolean tree over trigrams, [`planner`] builds that tree from a regex,
//! [`search_plan`] plans a search's patterns with its options and says why
//! a search cannot use an index at all, and [`wire`] carries a query to a
//! server as bytes. Nothing here reads or writes an index: [`crate::index`]
//! stores documents' trigrams and answers a [`Query`] against them.

mod expr;
pub mod planner;
pub mod search_plan;
pub mod trigram;
pub mod wire;

pub use expr::{Query, grams_have};
