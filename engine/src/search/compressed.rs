//! Compressed files answered through the index of their text, in any
//! format tg indexes ([`crate::text::indexed_format`]; a `.gz` file's today):
//! which blocks of the text a `-z` search reads ([`CompressedLookup::plan`]),
//! decompressed from the places before them on the chunk engine's threads
//! ([`TextPieces`]).
//!
//! The index is used only when the format's text opens trusted through it
//! (the file as it was indexed: for `.gz`, the same inode, size, times,
//! first and last 64 KiB), the text has no NUL byte
//! (rg's read path would treat it as binary from there: the streaming
//! search does that), the search has a trigram query, the chunk engine
//! can reproduce its output ([`crate::chunk::fallback_reason`] on the
//! text's first bytes), and the candidates are at most half of the text.
//! Anything else decompresses the whole file as a stream, as before; a
//! big file without a usable index is noted ([`CompressedLookup::take_unindexed`])
//! so that the command line may build one.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::blocks::joined;
use super::driven::Run;
use super::index_rules::{lists_misses, text_unusable_for};
use super::select::{Dense, Selection, counted, select, warn_unusable};
use crate::chunk::{self, Piece, PieceSource};
use crate::index::error::IndexError;
use crate::kind::Format;
use crate::options::SearchOptions;
use crate::query::Query;
use crate::query::search_plan::Plans;
use crate::report::Messages;
use crate::stats::RunStats;
use crate::text::indexed_format::IndexedFormat;
use crate::text::{BlockText, Opened};

/// The candidate blocks of an indexed compressed file's text, as pieces
/// read through it.
pub(crate) struct TextPieces {
    /// The text.
    pub text: Box<dyn BlockText>,
    /// The blocks to search, in text order.
    pub pieces: Vec<Piece>,
}

impl PieceSource for TextPieces {
    fn count(&self) -> usize {
        self.pieces.len()
    }

    fn first_line(&self, i: usize) -> Option<u64> {
        Some(self.pieces[i].first_line)
    }

    fn load(&self, i: usize, buf: &mut Vec<u8>) -> std::io::Result<(u64, u64)> {
        let Piece { offset, len, .. } = self.pieces[i];
        buf.resize(len as usize, 0);
        self.text.read_at(offset, buf)?;
        Ok((offset, len))
    }
}

/// A run's lookups of the indexes of compressed files' texts.
pub(crate) struct CompressedLookup<'o> {
    opts: &'o SearchOptions,
    msgs: &'o Messages,
    plans: &'o Plans<'o>,
    /// Big compressed files decompressed whole for want of a usable index.
    unindexed: Vec<PathBuf>,
}

impl<'o> CompressedLookup<'o> {
    /// Lookups for the run `search`.
    pub fn new(search: Run<'o>) -> Self {
        let Run { opts, plans, msgs, .. } = search;
        CompressedLookup { opts, msgs, plans, unindexed: Vec::new() }
    }

    /// The big files looked up so far that have no index describing them.
    pub(crate) fn take_unindexed(&mut self) -> Vec<PathBuf> {
        std::mem::take(&mut self.unindexed)
    }

    /// The blocks of the file at `path` (open as `file`, compressed in
    /// `format`) to search (`None`: decompress all of it), counted in `run`.
    pub fn plan(
        &mut self,
        path: &Path,
        explicit: bool,
        file: File,
        format: Format,
        run: &mut RunStats,
    ) -> Option<TextPieces> {
        let opts = self.opts;
        let indexed = IndexedFormat::of(format)?;
        if text_unusable_for(opts).is_some() {
            return None;
        }
        let big = file.metadata().is_ok_and(|m| m.is_file() && m.len() >= opts.run.chunk_threshold);
        let text = match (indexed.open)(&opts.index.base, path, file) {
            Ok(Opened::Trusted(text)) => text,
            Ok(Opened::Stale | Opened::Missing) | Err(IndexError::Io(_)) => {
                if indexed.build_under_way(&opts.index.base, path) {
                    run.being_indexed += 1;
                } else if big {
                    self.unindexed.push(path.to_path_buf());
                }
                return None;
            }
            Err(err) => {
                warn_unusable(self.msgs, "index", path, &err, "decompressing it whole");
                return None;
            }
        };
        let covered = text.covered();
        if covered.has_nul {
            return None;
        }
        let mut head = vec![0; covered.len.min(chunk::HEAD_LEN as u64) as usize];
        text.read_at(0, &mut head).ok()?;
        if let Some(why) = chunk::fallback_reason(opts, explicit, &head) {
            *run.fallbacks.entry(why).or_default() += 1;
            return None;
        }
        let query = self.plans.query(text.has_edges());
        let selective = !(opts.read.invert_match || lists_misses(opts) || *query == Query::All);
        let blocks = match select(&*text, selective.then_some(query), 0, Dense::AllBlocks) {
            Ok(Selection::Blocks(blocks)) => blocks,
            Ok(Selection::Scan) => return None,
            Err(err) => {
                warn_unusable(self.msgs, "index", path, &err, "decompressing it whole");
                return None;
            }
        };
        // Long pieces, each decompressed from an access point close to its
        // start rather than read on to through the gaps.
        counted(run, &*text, blocks.len());
        let pieces = joined(&blocks, opts.run.chunk_size(covered.len), 0);
        Some(TextPieces { text, pieces })
    }
}
