//! Which blocks of a text with a block index ([`crate::text::BlockText`])
//! a search reads: one rule for huge files, `.gz` texts and packed files.
//!
//! The search's patterns are planned once per kind of index (with or
//! without edges: [`crate::query::search_plan::Plans`]); the text's candidate blocks for that plan
//! are taken unless they hold more than half of what the index covers,
//! when the search reads all of the text instead ([`Dense`]: by its own
//! scan, or block by block). Each use is counted in [`RunStats`].

use std::path::Path;

use crate::index::error::IndexError;
use crate::query::Query;
use crate::report::Messages;
use crate::stats::RunStats;
use crate::text::{Block, BlockText};

/// When the candidate blocks hold more than 1/`SCAN_ABOVE` of the indexed
/// text, the search reads all of it.
const SCAN_ABOVE: u64 = 2;

/// What a search does when most of a text can match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dense {
    /// Reads the file with its own scan (a huge file's read-ahead in file
    /// order beats reading it block by block).
    Scan,
    /// Reads every block, in long pieces (a `.gz` text: fewer pieces
    /// decompressed from fewer access points).
    AllBlocks,
    /// Reads the candidates all the same (a packed file's frames are
    /// decompressed one by one: a frame less is always less work).
    Keep,
}

/// The blocks a search reads.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Selection {
    /// None through the index: the search scans the file.
    Scan,
    /// These, in text order.
    Blocks(Vec<Block>),
}

/// The blocks of `text` to read for `query` (`None`: every block), the
/// list intersection stopping at `enough` candidates when above 0. A use
/// is counted by [`counted`] once the search takes it.
pub fn select(
    text: &dyn BlockText,
    query: Option<&Query>,
    enough: usize,
    dense: Dense,
) -> Result<Selection, IndexError> {
    let covered = text.covered();
    let mut blocks = text.candidates(query.unwrap_or(&Query::All), enough)?;
    let candidate_bytes: u64 = blocks.iter().map(|b| b.len).sum();
    if query.is_some() && candidate_bytes > covered.len / SCAN_ABOVE {
        match dense {
            Dense::Scan => return Ok(Selection::Scan),
            Dense::AllBlocks => blocks = text.blocks(),
            Dense::Keep => {}
        }
    }
    Ok(Selection::Blocks(blocks))
}

/// Counts in `run` a search of `searched` blocks of `text` through its index.
pub fn counted(run: &mut RunStats, text: &dyn BlockText, searched: usize) {
    run.block_indexes += 1;
    run.blocks_total += u64::from(text.covered().blocks);
    run.blocks_searched += searched as u64;
}

/// Warns that the index of the file at `path` (of `kind`) cannot be used
/// (`err`), and what the search does instead (`instead`).
pub(crate) fn warn_unusable(
    msgs: &Messages,
    kind: &str,
    path: &Path,
    err: &IndexError,
    instead: &str,
) {
    msgs.warn(format!(
        "the {kind} of {} is unusable ({err}); {instead} (rebuild: tg index {})",
        path.display(),
        path.display()
    ));
}
