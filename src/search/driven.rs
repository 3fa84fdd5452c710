//! What a driver returns to [`super::run`].

use crate::stats::RunStats;

/// What a driver ([`super::sequential`], [`super::parallel`]) found and measured.
pub struct Driven {
    /// Something matched.
    pub matched: bool,
    /// trigrep's statistics of the search.
    pub run: RunStats,
    /// Huge files searched without a block index that describes them.
    pub unindexed_huge: Vec<std::path::PathBuf>,
}
