//! How one subject is read, decided in one place for both drivers.
//!
//! [`Readings::of`] looks at a subject once and says what its search reads
//! ([`Reading`]), in one order, what a file is told by the door
//! ([`crate::kind::Door::Search`]): standard input; a packed file's frames; a
//! file an index proved holds no match (an empty haystack); the text `-z`
//! or `--pre` makes of a file (a compressed file whose text an index may
//! describe, [`crate::text::indexed_format`], is set apart: it is searched
//! through that index on every core); and otherwise the file's own bytes, whole or in chunks. A
//! remote object (`s3://…`, [`super::remote`]) is told by the door as a
//! file is and read the same way, only its bytes are fetched: a packed
//! one's frames by range, a compressed one's stream decoded, any other's
//! own bytes as one stream ([`Direct::Fetched`]). The
//! drivers differ only in *when* a reading runs: the one-thread driver runs
//! every reading in turn; the parallel one runs the cheap ones on its walker
//! threads and hands the ones that want every core over to after the walk
//! ([`super::huge`]).

use std::io;
use std::path::Path;

use super::decode::{Decoding, Transform};
use super::driven::Run;
#[cfg(feature = "remote")]
use super::fetched::FetchedSearch;
use super::packed::{Packed, PackedSearch};
use super::subject::Subject;
use crate::error::Result;
use crate::kind::Format;
use crate::options::SearchOptions;
use crate::stats::RunStats;
use crate::text::indexed_format::IndexedFormat;
use crate::worker::{Haystack, SearchResult, SearchWorker};

/// What the search of one subject reads.
pub enum Reading {
    /// Read now, on whichever thread has the subject.
    Now(Direct),
    /// A file `-z` decompresses from this format, one whose text tg
    /// indexes, with an index describing its text (or at the chunk
    /// threshold, so that one is built after the search): its candidate
    /// blocks on every core, or the decompressed stream when no index
    /// answers.
    Compressed(Format),
    /// The file's own bytes: whole, or in chunks on every core when huge.
    Bytes,
}

/// A reading that needs no more than one thread.
pub(crate) enum Direct {
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
    /// A remote object's own bytes, fetched ([`super::remote`]): whole
    /// where rg would map the file, else as a stream.
    #[cfg(feature = "remote")]
    Fetched,
}

/// A run's rules for how subjects are read.
pub(crate) struct Readings<'o> {
    opts: &'o SearchOptions,
    /// `-z` and `--pre`.
    decoding: Decoding,
    packed: PackedSearch<'o>,
    /// Remote objects' own bytes.
    #[cfg(feature = "remote")]
    fetched: FetchedSearch<'o>,
}

impl<'o> Readings<'o> {
    /// The rules of the run `search`.
    pub fn new(search: Run<'o>) -> Result<Self> {
        let (opts, decoding) = (search.opts, Decoding::new(&search.opts.read)?);
        Ok(Readings {
            opts,
            decoding,
            packed: PackedSearch::new(search),
            #[cfg(feature = "remote")]
            fetched: FetchedSearch::new(search),
        })
    }

    /// How `subject` is read (an error: a packed file that cannot be opened).
    pub fn of(&self, subject: &Subject) -> io::Result<Reading> {
        if subject.is_stdin() {
            return Ok(Reading::Now(Direct::Stdin));
        }
        let opening = self.decoding.door().opening(subject.path());
        if let Some(packed) = self.packed.open(subject, opening) {
            return Ok(Reading::Now(Direct::Packed(packed?)));
        }
        if subject.is_known_without_match() {
            return Ok(Reading::Now(Direct::KnownEmpty));
        }
        let path = subject.path();
        Ok(match self.decoding.transform(path) {
            #[cfg(feature = "remote")]
            None if subject.remote_object().is_some() => Reading::Now(Direct::Fetched),
            None => Reading::Bytes,
            Some(Transform::Decompress(format)) if self.may_be_indexed(path, format) => {
                Reading::Compressed(format)
            }
            Some(t) => Reading::Now(Direct::Transformed(t)),
        })
    }

    /// Whether the file at `path`, compressed in `format`, is of a format
    /// whose text tg indexes and has an index, or is big enough to be
    /// given one (at the chunk threshold, compressed).
    fn may_be_indexed(&self, path: &Path, format: Format) -> bool {
        let Some(indexed) = IndexedFormat::of(format) else { return false };
        let big = |m: std::fs::Metadata| m.is_file() && m.len() >= self.opts.run.chunk_threshold;
        indexed.has_index(&self.opts.index.base, path) || path.metadata().is_ok_and(big)
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
            Direct::Transformed(t) => search_transformed(worker, subject, &t, run),
            #[cfg(feature = "remote")]
            Direct::Fetched => self.fetched.search(worker, subject, run),
        }
    }
}

impl Direct {
    /// The text of a file decompressed from `format`, as a stream.
    pub(crate) fn decompressed(format: Format) -> Direct {
        Direct::Transformed(Transform::Decompress(format))
    }
}

/// Searches the text `transform` makes of the file (or remote object)
/// `subject` (decompressed, or a preprocessor's output), read as a
/// stream, as ripgrep does.
fn search_transformed<W: termcolor::WriteColor>(
    worker: &mut SearchWorker<W>,
    subject: &Subject,
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
    let (path, explicit) = (subject.path(), subject.is_explicit());
    #[cfg(feature = "remote")]
    if let Some(object) = subject.remote_object() {
        let mut reader = super::remote::transformed(transform, path, object)?;
        return worker.search(path, explicit, false, Haystack::Reader(&mut reader));
    }
    let mut reader = transform.open(path)?;
    worker.search(path, explicit, false, Haystack::Reader(&mut reader))
}
