//! `.gz` files answered through the index of their text
//! ([`crate::index::gz`]): which blocks of the text a `-z` search reads
//! ([`GzLookup::plan`]), decompressed from their access points on the
//! chunk engine's threads ([`GzPieces`]).
//!
//! The index is used only when it describes the file as it is now (same
//! inode, size, times, first and last 64 KiB), the text has no NUL byte
//! (rg's read path would treat it as binary from there: the streaming
//! search does that), the search has a trigram query, the chunk engine
//! can reproduce its output ([`crate::chunk::fallback_reason`] on the
//! text's first bytes), and the candidates are at most half of the text.
//! Anything else decompresses the whole file as a stream, as before; a
//! big `.gz` without a usable index is noted ([`GzLookup::take_unindexed`])
//! so that the command line may build one.

use std::cell::RefCell;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::chunk::{self, Piece, PieceSource};
use crate::index::gz::{AUTO_INDEX_MIN, GzIndex, TextReader};
use crate::index::query::Query;
use crate::index::search_plan::{lists_misses, query_for, text_unusable_for};
use crate::options::SearchOptions;
use crate::report::Messages;
use crate::search::blocks::joined;
use crate::stats::RunStats;

/// When the candidate blocks hold more than 1/`SCAN_ABOVE` of the text,
/// all of it is searched, in long pieces (each decompressed from an access
/// point close to its start, rather than read on to through the gaps).
const SCAN_ABOVE: u64 = 2;

/// The candidate blocks of an indexed `.gz` file, and how to read them.
pub struct GzPieces {
    /// The index.
    pub index: GzIndex,
    /// The compressed file.
    pub gz: Arc<File>,
    /// The blocks to search, in text order.
    pub pieces: Vec<Piece>,
    /// Tells this search's readers from any other's.
    id: u64,
}

thread_local! {
    /// The reader a search thread left where its last piece ended (with
    /// its search's id): the thread's next piece usually lies ahead of it,
    /// often closer than an access point, and is then read on to.
    static READER: RefCell<Option<(u64, TextReader)>> = const { RefCell::new(None) };
}

/// Ids of searches through `.gz` indexes.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

impl PieceSource for GzPieces {
    fn count(&self) -> usize {
        self.pieces.len()
    }

    fn first_line(&self, i: usize) -> Option<u64> {
        Some(self.pieces[i].first_line)
    }

    fn load(&self, i: usize, buf: &mut Vec<u8>) -> std::io::Result<(u64, u64)> {
        let Piece { offset, len, .. } = self.pieces[i];
        buf.resize(len as usize, 0);
        let kept = READER.with_borrow_mut(Option::take);
        let kept = kept.filter(|(id, _)| *id == self.id).map(|(_, r)| r);
        let reader = self.index.read_text(&self.gz, offset, buf, kept)?;
        READER.with_borrow_mut(|r| *r = Some((self.id, reader)));
        Ok((offset, len))
    }
}

/// A run's lookups of `.gz` indexes.
pub struct GzLookup<'o> {
    opts: &'o SearchOptions,
    msgs: &'o Messages,
    /// The planned query (`None`: not planned yet).
    query: [Option<Query>; 2],
    /// Big `.gz` files decompressed whole for want of a usable index.
    unindexed: Vec<PathBuf>,
}

impl<'o> GzLookup<'o> {
    /// Lookups for a run with `opts`, warnings through `msgs`.
    pub fn new(opts: &'o SearchOptions, msgs: &'o Messages) -> GzLookup<'o> {
        GzLookup { opts, msgs, query: [None, None], unindexed: Vec::new() }
    }

    /// The big `.gz` files looked up so far that have no index describing them.
    pub fn take_unindexed(&mut self) -> Vec<PathBuf> {
        std::mem::take(&mut self.unindexed)
    }

    /// The blocks of the `.gz` file at `path` (open as `gz`) to search
    /// (`None`: decompress all of it), counted in `run`.
    pub fn plan(
        &mut self,
        path: &Path,
        explicit: bool,
        gz: File,
        run: &mut RunStats,
    ) -> Option<GzPieces> {
        let opts = self.opts;
        if text_unusable_for(opts).is_some() {
            return None;
        }
        let index = match GzIndex::open(&opts.index.base, path) {
            Ok(Some(index)) => index,
            Ok(None) => return self.unindexed(path, &gz),
            Err(err) => {
                self.msgs.warn(format!(
                    "the index of {} is unusable ({err}); decompressing it whole \
                     (rebuild: tg index {})",
                    path.display(),
                    path.display()
                ));
                return None;
            }
        };
        if !index.is_fresh(&gz).unwrap_or(false) {
            return self.unindexed(path, &gz);
        }
        let text = index.record.text;
        if text.has_nul {
            return None;
        }
        let gz = Arc::new(gz);
        let mut head = vec![0; text.len.min(chunk::HEAD_LEN as u64) as usize];
        index.read_text(&gz, 0, &mut head, None).ok()?;
        if let Some(why) = chunk::fallback_reason(opts, explicit, &head) {
            *run.fallbacks.entry(why).or_default() += 1;
            return None;
        }
        let edges = index.has_edges();
        let query =
            self.query[usize::from(edges)].get_or_insert_with(|| query_for(&opts.matcher, edges));
        let selective = !(opts.read.invert_match || lists_misses(opts) || *query == Query::All);
        let candidates = match index.candidates(if selective { query } else { &Query::All }) {
            Ok(c) => c,
            Err(err) => {
                self.msgs.warn(format!(
                    "the index of {} is unusable ({err}); decompressing it whole",
                    path.display()
                ));
                return None;
            }
        };
        let candidate_bytes: u64 = candidates.iter().map(|b| b.len).sum();
        let blocks = if candidate_bytes > text.len / SCAN_ABOVE {
            // Most of the text can match: all of it, in long pieces.
            index.candidates(&Query::All).ok()?
        } else {
            candidates
        };
        let pieces = joined(&blocks, opts.run.chunk_size(text.len), 0);
        run.block_indexes += 1;
        run.blocks_total += u64::from(index.block_count());
        run.blocks_searched += blocks.len() as u64;
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        Some(GzPieces { index, gz, pieces, id })
    }

    /// Notes `path` as a `.gz` worth an index when it is big enough; `None`.
    fn unindexed(&mut self, path: &Path, gz: &File) -> Option<GzPieces> {
        if gz.metadata().is_ok_and(|m| m.is_file() && m.len() >= AUTO_INDEX_MIN) {
            self.unindexed.push(path.to_path_buf());
        }
        None
    }
}
