//! How one subject is read, decided in one place for both drivers.
//!
//! [`Readings::of`] looks at a subject once and says what its search reads
//! ([`Reading`]), in one order: standard input; a packed file's frames; a
//! file an index proved holds no match (an empty haystack); the text `-z`
//! or `--pre` makes of a file (a gzip file whose text an index may
//! describe is set apart: it is searched through that index on every
//! core); and otherwise the file's own bytes, whole or in chunks. The
//! drivers differ only in *when* a reading runs: the one-thread driver runs
//! every reading in turn; the parallel one runs the cheap ones on its walker
//! threads and hands the ones that want every core over to after the walk
//! ([`super::huge`]).

use std::io;
use std::path::Path;

use super::decode::{Decoding, Format, Transform};
use super::driven::Run;
use super::packed::{Packed, PackedSearch};
use super::subject::Subject;
use crate::error::Result;
use crate::index::gz::has_index as has_gz_index;
use crate::options::SearchOptions;
use crate::stats::RunStats;
use crate::worker::{Haystack, SearchResult, SearchWorker};

/// What the search of one subject reads.
pub enum Reading {
    /// Read now, on whichever thread has the subject.
    Now(Direct),
    /// A gzip file `-z` decompresses, with an index describing its text (or
    /// at the chunk threshold, so that one is built after the search): its candidate blocks
    /// on every core, or the decompressed stream (this transform) when no
    /// index answers.
    Gzip(Transform),
    /// The file's own bytes: whole, or in chunks on every core when huge.
    Bytes,
}

/// A reading that needs no more than one thread.
pub enum Direct {
    /// Standard input, as a stream.
    Stdin,
    /// A packed file's frames ([`super::packed`]).
    Packed(Packed),
    /// A file an index proved holds no match: searched as an empty
    /// haystack, which prints exactly what such a file prints (its path
    /// for `--files-without-match`, a zero count for `--include-zero`).
    KnownEmpty,
    /// The text a transform makes of the file, as a stream (as rg reads it).
    Transformed(Transform),
}

/// A run's rules for how subjects are read.
pub struct Readings<'o> {
    opts: &'o SearchOptions,
    /// `-z` and `--pre`.
    decoding: Decoding,
    packed: PackedSearch<'o>,
}

impl<'o> Readings<'o> {
    /// The rules of the run `search`.
    pub fn new(search: Run<'o>) -> Result<Self> {
        let (opts, decoding) = (search.opts, Decoding::new(&search.opts.read)?);
        Ok(Readings { opts, decoding, packed: PackedSearch::new(search) })
    }

    /// How `subject` is read (an error: a packed file that cannot be opened).
    pub fn of(&self, subject: &Subject) -> io::Result<Reading> {
        if subject.is_stdin() {
            return Ok(Reading::Now(Direct::Stdin));
        }
        if let Some(packed) = self.packed.open(subject) {
            return Ok(Reading::Now(Direct::Packed(packed?)));
        }
        if subject.is_known_without_match() {
            return Ok(Reading::Now(Direct::KnownEmpty));
        }
        let path = subject.path();
        Ok(match self.decoding.transform(path) {
            None => Reading::Bytes,
            Some(t @ Transform::Decompress(Format::Gzip)) if self.may_be_indexed(path) => {
                Reading::Gzip(t)
            }
            Some(t) => Reading::Now(Direct::Transformed(t)),
        })
    }

    /// Whether the gzip file at `path` has an index, or is big enough to
    /// be given one (at the chunk threshold, compressed).
    fn may_be_indexed(&self, path: &Path) -> bool {
        let big = |m: std::fs::Metadata| m.is_file() && m.len() >= self.opts.run.chunk_threshold;
        has_gz_index(&self.opts.index.base, path) || path.metadata().is_ok_and(big)
    }

    /// Searches `subject` as `direct` says, counted in `run` when given.
    pub fn search<W: termcolor::WriteColor>(
        &self,
        worker: &mut SearchWorker<W>,
        subject: &Subject,
        direct: Direct,
        run: Option<&mut RunStats>,
    ) -> io::Result<SearchResult> {
        let (path, explicit) = (subject.path(), subject.is_explicit());
        match direct {
            Direct::Stdin => worker.search_stdin(),
            Direct::Packed(packed) => self.packed.search(worker, subject, packed, run),
            Direct::KnownEmpty => worker.search(path, explicit, false, Haystack::Slice(b"")),
            Direct::Transformed(t) => search_transformed(worker, path, explicit, &t, run),
        }
    }
}

/// Searches the text `transform` makes of the file at `path` (decompressed,
/// or a preprocessor's output), read as a stream, as ripgrep does.
fn search_transformed<W: termcolor::WriteColor>(
    worker: &mut SearchWorker<W>,
    path: &Path,
    explicit: bool,
    transform: &Transform,
    run: Option<&mut RunStats>,
) -> io::Result<SearchResult> {
    if let Some(run) = run {
        let kind = match transform {
            Transform::Decompress(_) => "decompressed",
            Transform::Preprocess(_) => "preprocessed",
        };
        run.file("sequential", kind);
    }
    let mut reader = transform.open(path)?;
    worker.search(path, explicit, false, Haystack::Reader(&mut reader))
}
