//! Packed files searched in place ([`crate::pack`]): the text inside a
//! seekable zstd file, printed exactly as ripgrep prints a search of the
//! original text.
//!
//! A file is taken for packed when the door says to look for one
//! ([`crate::kind::Door::Search`]: named `.zst` or `.zstd`, no `--pre`) and
//! it opens with tg's header frame (with or without `-z`), or, with `-z`,
//! when it is another tool's seekable zstd file whose seek table describes
//! its frames. Anything else is left to the other ways of searching (a
//! plain zstd file with `-z` is decompressed as a stream, as rg does). A
//! damaged tg container is an error for that file; the search goes on.
//!
//! The frames are searched on every core by the chunk engine, as pieces
//! with their true first line numbers and offsets ([`PieceSource`]): a tg
//! container's frames end at line ends and its block index says which
//! frames can match and where their lines start (`pieces::FramePieces`);
//! another tool's frames end anywhere, so each piece runs from a frame's
//! first line end to the next frame's (`pieces::LinePieces`) and line
//! numbers are counted. What the chunk engine cannot reproduce (context,
//! `-m`, …, or a walked file's text that may hold a NUL) is searched as one
//! stream of the decompressed text; when rg would map the original and the
//! text may hold a NUL, the text is first decompressed whole into memory.

mod pieces;

use std::fs::File;
use std::io;
use std::path::Path;

use grep_searcher::BinaryDetection;
use termcolor::WriteColor;

use super::driven::Run;
use super::index_rules::{bytes_unusable_for, lists_misses};
use super::select::{Dense, Selection, counted, select};
use super::subject::Subject;
use crate::chunk::strategy::advise_willneed;
use crate::chunk::{ChunkEngine, DecodedText, HEAD_LEN, PieceSource, fallback_reason};
use crate::kind::Opening;
use crate::options::{OutputMode, SearchOptions};
use crate::pack::PackError;
use crate::pack::read::PackedFile;
use crate::query::Query;
use crate::query::search_plan::Plans;
use crate::report::Messages;
use crate::stats::RunStats;
use crate::text::BlockText;
use crate::text::packed::PackedText;
use crate::worker::{Haystack, SearchResult, SearchWorker};
use pieces::{FramePieces, LinePieces};

/// A packed file opened for searching: the file (`None`: a remote
/// object) and its frame table.
pub struct Packed {
    file: Option<File>,
    packed: PackedFile,
}

/// A run's searches of packed files.
pub(crate) struct PackedSearch<'o> {
    opts: &'o SearchOptions,
    mode: OutputMode,
    msgs: &'o Messages,
    plans: &'o Plans<'o>,
}

impl<'o> PackedSearch<'o> {
    /// Searches for the run `search`.
    pub fn new(search: Run<'o>) -> PackedSearch<'o> {
        let Run { opts, plans, mode, msgs } = search;
        PackedSearch { opts, mode, msgs, plans }
    }

    /// Opens the file `subject` when `opening` (the door's word on it) says
    /// to look for a packed file and it is one to search in place (`None`:
    /// it is not; see the module docs).
    pub fn open(&self, subject: &Subject, opening: Opening) -> Option<io::Result<Packed>> {
        if !opening.packed {
            return None;
        }
        #[cfg(feature = "remote")]
        if let Some(object) = subject.remote_object() {
            let name = subject.path().to_string_lossy();
            let packed = crate::remote::open_packed(object, &name, &self.opts.index.base);
            return self.opened(packed, None, opening);
        }
        let file = File::open(subject.path()).ok()?;
        self.opened(PackedFile::open(&file), Some(file), opening)
    }

    /// What opening a packed file (local: `file`; `None`: a remote object)
    /// found, as a search takes it (see [`PackedSearch::open`]).
    fn opened(
        &self,
        packed: Result<Option<PackedFile>, PackError>,
        file: Option<File>,
        opening: Opening,
    ) -> Option<io::Result<Packed>> {
        match packed {
            Ok(Some(packed)) if packed.is_tg() || opening.seekable => {
                Some(Ok(Packed { file, packed }))
            }
            Ok(_) => None,
            Err(e) => Some(Err(e.into())),
        }
    }

    /// Searches the packed file `subject`, opened by [`PackedSearch::open`],
    /// counting it in `run` when given.
    pub fn search<W: WriteColor>(
        &self,
        worker: &mut SearchWorker<W>,
        subject: &Subject,
        opened: Packed,
        run: Option<&mut RunStats>,
    ) -> io::Result<SearchResult> {
        let Packed { file, packed } = opened;
        let path = subject.path();
        let text = match packed.is_tg() {
            true => self.text(&packed, file.as_ref(), path)?,
            false => None,
        };
        let mut mine = RunStats::default();
        let run = run.unwrap_or(&mut mine);
        let explicit = subject.is_explicit();
        let file = file.as_ref();
        let target = Target { path, explicit, file, packed: &packed, text: text.as_ref() };
        self.search_packed(worker, &target, run)
    }

    /// The text of the tg container `packed` (open as `file`; `None`: a
    /// remote object, checked as it is read) through the block index it
    /// carries: `None` when that index is unusable (a warning says so); an
    /// error when the container is damaged.
    fn text(
        &self,
        packed: &PackedFile,
        file: Option<&File>,
        path: &Path,
    ) -> Result<Option<PackedText>, PackError> {
        let opened = match file {
            Some(file) => PackedText::of(packed, file, path, &self.opts.index.base),
            None => PackedText::read_for(packed, &|edges| self.lists(edges)),
        };
        match opened {
            Ok(opened) => Ok(opened.trusted()),
            Err(e @ (PackError::Damaged(_) | PackError::Io(_))) => Err(e),
            Err(err) => {
                self.msgs.warn(format!(
                    "{}: the block index is unusable ({err}); searching every frame",
                    path.display()
                ));
                Ok(None)
            }
        }
    }

    fn search_packed<W: WriteColor>(
        &self,
        worker: &mut SearchWorker<W>,
        t: &Target<'_>,
        run: &mut RunStats,
    ) -> io::Result<SearchResult> {
        let opts = self.opts;
        let selected = t.packed.is_tg().then(|| self.frames(t));
        if t.file.is_none() {
            // A remote object: its head's frames and those its index
            // names, fetched together (one round trip, not one each).
            let frames = t.packed.frames();
            let head = frames.iter().take_while(|f| f.text_offset < HEAD_LEN as u64).count();
            let mut first: Vec<usize> = (0..head.max(1).min(frames.len())).collect();
            if let Some(Selected { chosen, narrowed: true, .. }) = &selected {
                first.extend(chosen);
            }
            first.sort_unstable();
            first.dedup();
            t.packed.want_frames(&first)?;
        }
        let head = t.packed.head(HEAD_LEN)?;
        let quit = opts.binary_detection(t.explicit).quit_byte().is_some();
        let may_have_nul = t.packed.has_nul().unwrap_or(true);
        if let Some(why) = fallback_reason(opts, t.explicit, &head) {
            *run.fallbacks.entry(why).or_default() += 1;
            return self.search_stream(worker, t, may_have_nul, run);
        }
        if quit && may_have_nul {
            *run.fallbacks.entry("a walked packed file that may hold a NUL").or_default() += 1;
            return self.search_stream(worker, t, may_have_nul, run);
        }
        let engine = ChunkEngine::new(opts, self.mode).map_err(io::Error::other)?;
        let text = DecodedText { path: t.path, explicit: t.explicit, size: t.packed.text_len() };
        let frames = t.packed.frames();
        // Every frame but the last holds at least this much (the chunk
        // engine sizes its look-ahead window by it).
        let rest = frames.len().saturating_sub(1).max(1);
        let size = frames.iter().take(rest).map(|f| f.text_len).min().unwrap_or(0);
        let source: Box<dyn PieceSource + '_> = match selected {
            Some(Selected { chosen, first_lines, narrowed }) => {
                if let (true, Some(text)) = (narrowed, t.text) {
                    counted(run, text, chosen.len());
                }
                // Ask the kernel (or the object store) for every chosen
                // frame up front: cold reads overlap.
                if let Some(file) = t.file {
                    chosen
                        .iter()
                        .for_each(|&i| advise_willneed(file, frames[i].offset, frames[i].len));
                }
                t.packed.want_frames(&chosen)?;
                Box::new(FramePieces::new(t.packed, chosen, first_lines))
            }
            None => {
                t.packed.want_frames(&(0..frames.len()).collect::<Vec<_>>())?;
                Box::new(LinePieces::new(t.packed))
            }
        };
        if source.count() == 0 {
            // No text, or no frame can match: an empty haystack prints
            // exactly what the text would.
            return worker.search(t.path, t.explicit, true, Haystack::Slice(b""));
        }
        engine.search_decoded(&text, source.as_ref(), size, worker.printer().get_mut(), run)
    }

    /// What this search asks of a block index whose documents hold their
    /// edges or not (`edges`): `All` when it reads no list.
    fn lists(&self, edges: bool) -> Query {
        match bytes_unusable_for(self.opts).is_none() && !lists_misses(self.opts) {
            true => self.plans.query(edges).clone(),
            false => Query::All,
        }
    }

    /// The frames of a tg container to search, in order, and their first
    /// line numbers (`None`: unknown, all frames are searched): the block
    /// index's candidates when this search can use an index (`narrowed`).
    fn frames(&self, t: &Target<'_>) -> Selected {
        let opts = self.opts;
        let all: Vec<usize> = (0..t.packed.frames().len()).collect();
        let Some(text) = t.text else {
            return Selected { chosen: all, first_lines: None, narrowed: false };
        };
        let lines: Vec<u64> = text.blocks().iter().map(|b| b.first_line).collect();
        let every = Selected { chosen: all, first_lines: Some(lines.clone()), narrowed: false };
        if bytes_unusable_for(opts).is_some() || lists_misses(opts) {
            return every;
        }
        if let Some(chosen) = text.directory_frames() {
            let first_lines = Some(chosen.iter().map(|&i| lines[i]).collect());
            return Selected { chosen: chosen.to_vec(), first_lines, narrowed: true };
        }
        let query = text.readable(self.plans.query(text.has_edges()));
        let query = query.as_ref();
        if *query == Query::All {
            return every;
        }
        // Exact: a frame more costs an inflate, more than a list read.
        let candidates = match select(text, Some(query), 0, Dense::Keep) {
            Ok(Selection::Blocks(c)) => c,
            Ok(Selection::Scan) => return every,
            Err(err) => {
                self.msgs.warn(format!(
                    "{}: the block index is unusable ({err}); searching every frame",
                    t.path.display()
                ));
                return every;
            }
        };
        let frames = t.packed.frames();
        let chosen: Vec<usize> = candidates
            .iter()
            .filter_map(|b| frames.binary_search_by_key(&b.offset, |f| f.text_offset).ok())
            .collect();
        let first_lines = Some(chosen.iter().map(|&i| lines[i]).collect());
        Selected { chosen, first_lines, narrowed: true }
    }

    /// Searches the whole text as one stream (what chunks cannot do),
    /// reading it as rg reads the original: from a map when rg would map it
    /// and the two reads may differ (a NUL, or a pattern anchored at the
    /// haystack's start, which matches where each read buffer starts),
    /// else as a stream.
    fn search_stream<W: WriteColor>(
        &self,
        worker: &mut SearchWorker<W>,
        t: &Target<'_>,
        may_have_nul: bool,
        run: &mut RunStats,
    ) -> io::Result<SearchResult> {
        let binary = self.opts.binary_detection(t.explicit) != BinaryDetection::none();
        run.bytes_read += t.packed.len();
        t.packed.want_frames(&(0..t.packed.frames().len()).collect::<Vec<_>>())?;
        let anchored = self.opts.matcher.anchors_at_haystack_start();
        if self.opts.rg_mmap() && (may_have_nul && binary || anchored) {
            run.file("sequential", "decompressed whole");
            let mut text = Vec::with_capacity(t.packed.text_len() as usize);
            t.packed.unpack(&mut text)?;
            return worker.search(t.path, t.explicit, true, Haystack::Slice(&text));
        }
        run.file("sequential", "decompressed");
        let mut reader = Frames { packed: t.packed, next: 0, buf: Vec::new(), at: 0, dctx: None };
        worker.search(t.path, t.explicit, false, Haystack::Reader(&mut reader))
    }
}

/// The frames of a tg container a search reads.
struct Selected {
    /// The frames, in order.
    chosen: Vec<usize>,
    /// Their first line numbers (`None`: unknown).
    first_lines: Option<Vec<u64>>,
    /// Whether the block index chose them (else: every frame).
    narrowed: bool,
}

/// One packed file being searched.
struct Target<'a> {
    path: &'a Path,
    explicit: bool,
    /// The local file (`None`: a remote object).
    file: Option<&'a File>,
    packed: &'a PackedFile,
    /// Its text through its block index (`None`: not tg's, or unusable).
    text: Option<&'a PackedText>,
}

/// The text of a packed file read frame by frame, each checked as it is
/// decompressed. A read fills all it is given (frames joined), as a read
/// of the original file does: rg's 64 KiB buffers, and so where binary
/// detection strikes, are the original's.
struct Frames<'a> {
    packed: &'a PackedFile,
    next: usize,
    buf: Vec<u8>,
    at: usize,
    dctx: Option<zstd::bulk::Decompressor<'static>>,
}

impl io::Read for Frames<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < out.len() {
            if self.at == self.buf.len() {
                if self.next == self.packed.frames().len() {
                    break;
                }
                // A damaged frame: the bytes before it first, then its
                // error (the next read decompresses it again).
                if let Err(e) = self.load() {
                    return if n == 0 { Err(e) } else { Ok(n) };
                }
            }
            let k = (out.len() - n).min(self.buf.len() - self.at);
            out[n..n + k].copy_from_slice(&self.buf[self.at..self.at + k]);
            self.at += k;
            n += k;
        }
        Ok(n)
    }
}

impl Frames<'_> {
    /// Decompresses the next frame into the buffer.
    fn load(&mut self) -> io::Result<()> {
        let dctx = match &mut self.dctx {
            Some(d) => d,
            None => self.dctx.insert(zstd::bulk::Decompressor::new()?),
        };
        self.at = 0;
        if let Err(e) = self.packed.frame(self.next, dctx, &mut self.buf) {
            self.buf.clear();
            return Err(e.into());
        }
        self.next += 1;
        Ok(())
    }
}
