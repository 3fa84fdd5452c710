//! What a driver is given by [`super::run`] ([`Run`]), and what it
//! returns ([`Driven`]).

use crate::options::{OutputMode, SearchOptions};
use crate::query::search_plan::Plans;
use crate::report::Messages;
use crate::stats::RunStats;

/// One search, as its driver and every reading of a subject see it.
#[derive(Clone, Copy)]
pub struct Run<'o> {
    /// The search's options.
    pub opts: &'o SearchOptions,
    /// Its trigram queries, planned once for every index it reads.
    pub plans: &'o Plans<'o>,
    /// How it prints.
    pub mode: OutputMode,
    /// Where its warnings and errors go.
    pub msgs: &'o Messages,
}

/// What a driver ([`super::sequential`], [`super::parallel`]) found and measured.
pub(crate) struct Driven {
    /// Something matched.
    pub matched: bool,
    /// trigrep's statistics of the search.
    pub run: RunStats,
    /// Huge files searched without a block index that describes them.
    pub unindexed_huge: Vec<std::path::PathBuf>,
}
