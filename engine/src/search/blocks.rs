//! Huge files answered through their block index: which ranges of a huge
//! file a search reads ([`BlockLookup::pieces`]).
//!
//! When a huge file has a block index ([`crate::index::blocks`]) that still
//! describes it, only the candidate blocks of the search's trigram query
//! are read, plus, for a file that grew since the build, its new tail. The
//! chunk engine searches those pieces in parallel with their true line
//! numbers. Anything else (no index, a rewritten or replaced file, options
//! no index can answer, walked files with a NUL) leaves the file to the
//! full chunked scan, and files without an index are noted
//! ([`BlockLookup::take_unindexed`]) so that the command line may build one.

use std::fs::File;
use std::path::PathBuf;

use super::driven::Run;
use super::index_rules::{bytes_unusable_for, lists_misses};
use super::select::{Dense, Selection, counted, select, warn_unusable};
use crate::chunk::{HugeFile, Piece};
use crate::index::blocks::cut;
use crate::index::error::IndexError;
use crate::index::lock;
use crate::options::SearchOptions;
use crate::query::Query;
use crate::query::search_plan::Plans;
use crate::report::Messages;
use crate::stats::RunStats;
use crate::text::raw::RawText;
use crate::text::{Block, BlockText, Opened};

/// Candidate blocks at most this far apart are searched as one piece: the
/// bytes between them hold no match (they would be candidates), and
/// searching them costs less than a piece's own handling (a hand-off
/// between threads, a searcher set up, an ordered write).
const JOIN_GAP: u64 = 64 << 10;

/// An intersection of posting lists stops once this many candidate blocks
/// are left: searching a few 64 KiB blocks more costs less than reading
/// the remaining lists, each a disk read when the index is cold (a needle
/// on the cold 8 GiB log: 11 → 5 page faults from disk, 70 → 30 ms).
const ENOUGH_BLOCKS: usize = 8;

/// A run's block-index lookups.
pub(crate) struct BlockLookup<'o> {
    opts: &'o SearchOptions,
    msgs: &'o Messages,
    plans: &'o Plans<'o>,
    /// Huge files searched without a block index that describes them.
    unindexed: Vec<PathBuf>,
}

impl<'o> BlockLookup<'o> {
    /// Lookups for the run `search`.
    pub fn new(search: Run<'o>) -> Self {
        let Run { opts, plans, msgs, .. } = search;
        BlockLookup { opts, msgs, plans, unindexed: Vec::new() }
    }

    /// The huge files looked up so far that have no block index describing
    /// them (none, or the file grew or changed since): candidates for one.
    pub(crate) fn take_unindexed(&mut self) -> Vec<PathBuf> {
        std::mem::take(&mut self.unindexed)
    }

    /// The pieces of `huge` to search (`None`: search all of it), counted
    /// in `run`.
    pub fn pieces(&mut self, huge: &HugeFile<'_>, run: &mut RunStats) -> Option<Vec<Piece>> {
        let opts = self.opts;
        // Only a file that -z and --pre leave as it is comes here.
        if bytes_unusable_for(opts).is_some() || lists_misses(opts) {
            return None;
        }
        let file = huge.file.try_clone().ok()?;
        let unverified = match RawText::open_unverified(&opts.index.base, huge.path, file) {
            Ok(Opened::Trusted(text)) => text,
            Ok(Opened::Stale | Opened::Missing) => {
                // Rewritten, or never indexed: scan, and index it again
                // unless a build of it runs already.
                if lock::build_under_way(&opts.index.base, huge.path, None) {
                    run.being_indexed += 1;
                } else {
                    self.unindexed.push(huge.path.to_path_buf());
                }
                return None;
            }
            Err(IndexError::Io(_)) => return None,
            Err(err) => {
                warn_unusable(self.msgs, "block index", huge.path, &err, "searching without it");
                return None;
            }
        };
        let grown = unverified.is_grown();
        if grown {
            // Answered from the index and the tail, and indexed again.
            self.unindexed.push(huge.path.to_path_buf());
        }
        // First what the index alone can tell: whether it will be used.
        let index = unverified.index_of();
        let covered = index.covered();
        let quit = opts.binary_detection(huge.explicit).quit_byte().is_some();
        if quit && covered.has_nul {
            return None;
        }
        let query = self.plans.query(index.has_edges());
        if *query == Query::All {
            return None;
        }
        let candidates = match select(index, Some(query), ENOUGH_BLOCKS, Dense::Scan) {
            Ok(Selection::Blocks(c)) => c,
            Ok(Selection::Scan) => return None,
            Err(err) => {
                warn_unusable(self.msgs, "block index", huge.path, &err, "searching without it");
                return None;
            }
        };
        // Then the costly part of the rule: a grown file's indexed bytes.
        let checked = std::time::Instant::now();
        let Ok(Opened::Trusted(text)) = unverified.verify() else { return None };
        if grown {
            run.verified_bytes += covered.len;
            run.verify_time += checked.elapsed();
        }
        counted(run, &text, candidates.len());
        // Grown: the new bytes may continue the last indexed line, so the
        // last block is searched again together with them, as the tail.
        let tail_from =
            grown.then(|| text.last_block().map_or((0, 1), |b| (b.offset, b.first_line)));
        let indexed_end = tail_from.map_or(u64::MAX, |(from, _)| from);
        let before_tail: Vec<Block> =
            candidates.into_iter().filter(|b| b.offset < indexed_end).collect();
        let mut pieces = joined(&before_tail, opts.run.chunk_size(huge.size), JOIN_GAP);
        if let Some((from, line)) = tail_from {
            pieces.extend(self.tail(huge.file, from, huge.size, line)?);
        }
        Some(pieces)
    }

    /// The bytes `from..size` of `file` (a grown file's last indexed block
    /// and new tail) as pieces of about a chunk each, numbered from line
    /// `first_line`.
    fn tail(&self, file: &File, from: u64, size: u64, first_line: u64) -> Option<Vec<Piece>> {
        // SAFETY: a read-only map of a file we only read (see the chunk engine).
        let map = unsafe { memmap2::Mmap::map(file) }.ok()?;
        let tail = map.get(from as usize..size as usize)?;
        let mut line = first_line;
        let mut pieces = Vec::new();
        for (offset, len) in cut(tail, self.opts.run.chunk_size(size - from)) {
            let bytes = &tail[offset as usize..(offset + len) as usize];
            pieces.push(Piece { offset: from + offset, len, first_line: line });
            if self.opts.read.line_number {
                line += memchr::memchr_iter(b'\n', bytes).count() as u64;
            }
        }
        Some(pieces)
    }
}

/// `blocks` (in text order) as pieces: blocks at most `gap` bytes apart are
/// joined, with the bytes between them, while the piece stays within
/// `size` bytes (a longer block stands alone).
pub fn joined(blocks: &[Block], size: u64, gap: u64) -> Vec<Piece> {
    let mut pieces: Vec<Piece> = Vec::new();
    for b in blocks {
        match pieces.last_mut() {
            Some(p)
                if b.offset - (p.offset + p.len) <= gap && b.offset + b.len - p.offset <= size =>
            {
                p.len = b.offset + b.len - p.offset;
            }
            _ => pieces.push(Piece { offset: b.offset, len: b.len, first_line: b.first_line }),
        }
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_blocks_join_up_to_the_size() {
        let b = |offset, len, first_line| Block { offset, len, first_line };
        let p = |offset, len, first_line| Piece { offset, len, first_line };
        let blocks = [b(0, 10, 1), b(10, 10, 3), b(20, 10, 5), b(40, 10, 9), b(50, 30, 11)];
        assert_eq!(
            joined(&blocks, 20, 0),
            vec![p(0, 20, 1), p(20, 10, 5), p(40, 10, 9), p(50, 30, 11)]
        );
        assert_eq!(joined(&blocks, 100, 0), vec![p(0, 30, 1), p(40, 40, 9)]);
        // A gap of 10 bytes is joined with a gap of 10 allowed, not 9.
        assert_eq!(joined(&blocks, 100, 10), vec![p(0, 80, 1)]);
        assert_eq!(joined(&blocks, 100, 9), vec![p(0, 30, 1), p(40, 40, 9)]);
        assert_eq!(joined(&blocks, 60, 10), vec![p(0, 50, 1), p(50, 30, 11)]);
        assert_eq!(joined(&[], 100, 10), vec![]);
    }
}
