//! A remote object's own bytes searched ([`super::reading::Direct::Fetched`]):
//! through the index object beside it when one describes this very object
//! (`crate::remote::indexed`: its candidate blocks fetched by range and
//! searched on every core by the chunk engine), else its body whole
//! (where rg would map the local copy) or as a stream. An object fetched
//! whole ahead of its search (a small one) is searched from memory, its
//! index object not asked for.

use std::io::{self, Read};

use termcolor::WriteColor;

use super::driven::Run;
use super::index_rules::{bytes_unusable_for, lists_misses};
use super::select::{Dense, Selection, counted, select};
use super::subject::Subject;
use crate::chunk::{ChunkEngine, DecodedText, HEAD_LEN, PieceSource, fallback_reason};
use crate::query::Query;
use crate::remote::indexed::{self, RemoteText};
use crate::remote::object::RemoteObject;
use crate::stats::RunStats;
use crate::text::{Block, BlockText};
use crate::worker::{Haystack, SearchResult, SearchWorker};

/// The largest object read whole into memory where rg would map the
/// local file; a larger one is streamed.
const WHOLE_MAX: u64 = 1 << 30;

/// A run's searches of remote objects' own bytes.
pub(crate) struct FetchedSearch<'o> {
    run: Run<'o>,
}

impl<'o> FetchedSearch<'o> {
    /// Searches for the run `search`.
    pub fn new(run: Run<'o>) -> FetchedSearch<'o> {
        FetchedSearch { run }
    }

    /// Searches the remote object `subject`, counted in `run` when given.
    pub fn search<W: WriteColor>(
        &self,
        worker: &mut SearchWorker<W>,
        subject: &Subject,
        run: Option<&mut RunStats>,
    ) -> io::Result<SearchResult> {
        let Some(object) = subject.remote_object() else {
            return Err(io::Error::other("not a remote object"));
        };
        let mut mine = RunStats::default();
        let run = run.unwrap_or(&mut mine);
        if !object.held_whole()
            && let Some(result) = self.through_index(worker, subject, object, run)
        {
            return result;
        }
        let (path, explicit) = (subject.path(), subject.is_explicit());
        let whole = self.run.opts.rg_mmap() && object.size() <= WHOLE_MAX;
        run.bytes_read += object.size();
        let body = object.reader()?;
        if whole {
            run.file("sequential", "fetched whole");
            let mut text = Vec::with_capacity(object.size() as usize);
            { body }.read_to_end(&mut text)?;
            return worker.search(path, explicit, true, Haystack::Slice(&text));
        }
        run.file("sequential", "fetched");
        worker.search(path, explicit, false, Haystack::Reader(&mut { body }))
    }

    /// Searches `object` through its index object: its candidate blocks
    /// only (`None`: no index object describes it, or this search must
    /// read all of it).
    fn through_index<W: WriteColor>(
        &self,
        worker: &mut SearchWorker<W>,
        subject: &Subject,
        object: &RemoteObject,
        run: &mut RunStats,
    ) -> Option<io::Result<SearchResult>> {
        let (opts, path, explicit) = (self.run.opts, subject.path(), subject.is_explicit());
        if bytes_unusable_for(opts).is_some() || lists_misses(opts) {
            return None;
        }
        let name = path.to_string_lossy();
        let text = match indexed::open(object, &name, &opts.index.base) {
            Ok(text) => text?,
            Err(err) => {
                self.run.msgs.warn(format!("{name}: {err}; reading the object whole"));
                return None;
            }
        };
        let query = self.run.plans.query(text.has_edges());
        let walked_binary = opts.binary_detection(explicit).quit_byte().is_some();
        if *query == Query::All || (walked_binary && text.covered().has_nul) {
            return None;
        }
        let head = match text.bytes(0..text.len().min(HEAD_LEN as u64)) {
            Ok(head) => head,
            Err(e) => return Some(Err(e)),
        };
        if let Some(why) = fallback_reason(opts, explicit, &head) {
            *run.fallbacks.entry(why).or_default() += 1;
            return None;
        }
        let blocks = match select(&text, Some(query), 0, Dense::Scan) {
            Ok(Selection::Blocks(blocks)) => blocks,
            Ok(Selection::Scan) => return None,
            Err(err) => {
                self.run
                    .msgs
                    .warn(format!("{name}: its index is unusable ({err}); reading it whole"));
                return None;
            }
        };
        counted(run, &text, blocks.len());
        Some(self.search_blocks(worker, subject, &text, blocks, run))
    }

    /// Searches `blocks` of `text` (the remote object `subject`) on every core.
    fn search_blocks<W: WriteColor>(
        &self,
        worker: &mut SearchWorker<W>,
        subject: &Subject,
        text: &RemoteText,
        blocks: Vec<Block>,
        run: &mut RunStats,
    ) -> io::Result<SearchResult> {
        let (path, explicit) = (subject.path(), subject.is_explicit());
        if blocks.is_empty() {
            // No block can match: an empty haystack prints what the text would.
            return worker.search(path, explicit, true, Haystack::Slice(b""));
        }
        let ranges: Vec<_> = blocks.iter().map(|b| b.offset..b.offset + b.len).collect();
        run.bytes_read += blocks.iter().map(|b| b.len).sum::<u64>();
        text.want(&ranges)?;
        // Every block but the last holds at least this much (the chunk
        // engine sizes its look-ahead window by it).
        let all = text.blocks();
        let size = all.iter().take(all.len().saturating_sub(1).max(1)).map(|b| b.len).min();
        let engine = ChunkEngine::new(self.run.opts, self.run.mode).map_err(io::Error::other)?;
        let decoded = DecodedText { path, explicit, size: text.len() };
        let pieces = BlockPieces { text, blocks };
        let out = worker.printer().get_mut();
        engine.search_decoded(&decoded, &pieces, size.unwrap_or(0), out, run)
    }
}

/// Candidate blocks of a remote text, each a piece of the chunk engine.
struct BlockPieces<'a> {
    text: &'a RemoteText,
    blocks: Vec<Block>,
}

impl PieceSource for BlockPieces<'_> {
    fn count(&self) -> usize {
        self.blocks.len()
    }

    fn first_line(&self, i: usize) -> Option<u64> {
        Some(self.blocks[i].first_line)
    }

    fn load(&self, i: usize, buf: &mut Vec<u8>) -> io::Result<(u64, u64)> {
        let b = self.blocks[i];
        buf.clear();
        buf.extend_from_slice(&self.text.bytes(b.offset..b.offset + b.len)?);
        Ok((b.offset, b.len))
    }
}
