//! Building an index: [`IndexWriter`], configured by [`IndexWriterBuilder`].
//!
//! The caller adds files ([`IndexWriter::add_file`]) and their documents with
//! each document's trigrams and their follow masks
//! ([`IndexWriter::add_document`]). Trigrams go straight into an
//! `ExternalSorter` as `(trigram, doc, follow)`, so memory
//! stays near the budget however many pairs there are; the file, path and
//! document tables are encoded as they come and spooled (`Spool`: a
//! fixed amount of memory, then a temporary file), so they cost no more
//! memory for a million files than for ten.
//! [`IndexWriter::finish`] merges the pairs into posting lists and
//! publishes the index atomically through a [`Storage`]. Dropping a writer
//! without finishing leaves the previous index untouched.
//!
//! ```
//! # fn main() -> Result<(), trigrep::index::error::IndexError> {
//! use trigrep::query::Query;
//! use trigrep::index::reader::IndexReader;
//! use trigrep::index::table::FileMeta;
//! use trigrep::query::trigram::{grams, pack};
//! use trigrep::index::writer::IndexWriterBuilder;
//!
//! let mut w = IndexWriterBuilder::new().memory_budget(1 << 20).build();
//! let f = w.add_file(FileMeta { path: b"a.txt".to_vec(), size: 5, ..Default::default() })?;
//! let d = w.add_document(f, 0, 5, 1, &grams(b"hello"))?;
//! let (bytes, _summary) = w.finish_to_vec()?;
//! let r = IndexReader::from_bytes(bytes)?;
//! assert_eq!(r.candidates(&Query::Trigram(pack(*b"ell")))?.as_slice(), &[d]);
//! # Ok(()) }
//! ```

use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::error::IndexError;
use super::extract::TrigramSet;
use super::format::{FORMAT_VERSION, FormatWriter};
use super::kept_lists::KeptLists;
use super::merged_lists::{Encoded, Lists, MIN_RANGE_BYTES, RANGES_PER_THREAD};
use super::postings::{TRIGRAM_ENTRY_LEN, TrigramEntry};
use super::reader::IndexReader;
use super::sort::{ExternalSorter, SortStats};
use super::spool::Spool;
use super::storage::{FsStorage, MemStorage, Storage};
use super::table::{self, DocId, DocMeta, FileId, FileMeta, flags};
use super::trigram_dir::{DirWriter, SECTION};
use crate::query::trigram::Gram;

/// Default memory budget for the pair sorter: 64 MiB.
pub(crate) const DEFAULT_MEMORY_BUDGET: usize = 64 << 20;

/// Options of an [`IndexWriter`].
#[derive(Clone, Debug)]
pub struct IndexWriterBuilder {
    budget: usize,
    spill_dir: Option<PathBuf>,
    follow_masks: bool,
    /// The format version written, when not the one `follow_masks` says.
    version: Option<u32>,
}

impl Default for IndexWriterBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl IndexWriterBuilder {
    /// Default options: a `DEFAULT_MEMORY_BUDGET` budget, spilling into
    /// the system temporary directory.
    pub fn new() -> Self {
        let (spill_dir, version) = (None, None);
        IndexWriterBuilder { budget: DEFAULT_MEMORY_BUDGET, spill_dir, follow_masks: true, version }
    }

    /// Memory budget in bytes for sorting `(trigram, doc)` pairs and for the
    /// merge's read buffers.
    pub fn memory_budget(mut self, bytes: usize) -> Self {
        self.budget = bytes;
        self
    }

    /// Directory for temporary sort runs. Use the index directory, so runs
    /// sit on the same file system as the index; the default is
    /// [`std::env::temp_dir`].
    pub fn spill_dir(mut self, dir: &Path) -> Self {
        self.spill_dir = Some(dir.to_path_buf());
        self
    }

    /// Whether dense lists carry follow masks (the default; format version
    /// 7, coded lists). Without, the index is written in format version 2: a block
    /// index of a log, whose dense lists are most of it and whose blocks
    /// hold most bytes after most trigrams, stays small.
    pub(crate) fn follow_masks(mut self, on: bool) -> Self {
        self.follow_masks = on;
        self
    }

    /// Writes format version `version` (2, 4 or 7): tests read old ones.
    #[cfg(test)]
    pub(crate) fn format_version(mut self, version: u32) -> Self {
        self.version = Some(version);
        self
    }

    /// A writer with these options.
    pub fn build(self) -> IndexWriter {
        let spill_dir = self.spill_dir.unwrap_or_else(std::env::temp_dir);
        IndexWriter {
            sorter: ExternalSorter::new(&spill_dir, self.budget),
            tables: Tables {
                files: Spool::new(&spill_dir),
                paths: Spool::new(&spill_dir),
                docs: Spool::new(&spill_dir),
                always: Spool::new(&spill_dir),
                file_count: 0,
                doc_count: 0,
                always_files: Vec::new(),
                rec: Vec::with_capacity(table::FILE_RECORD_LEN.max(table::DOC_RECORD_LEN)),
            },
            spill_dir,
            source: Vec::new(),
            times: Vec::new(),
            version: self.version.unwrap_or(if self.follow_masks { FORMAT_VERSION } else { 2 }),
            merge_threads: None,
            kept: None,
        }
    }
}

/// What a finished build wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexSummary {
    /// Files in the file table.
    pub files: u32,
    /// Documents in the document table.
    pub documents: u32,
    /// Distinct trigrams (posting lists).
    pub trigrams: u32,
    /// Postings: distinct `(trigram, doc)` pairs.
    pub postings: u64,
    /// Bytes of the `postings` section.
    pub posting_bytes: u64,
    /// Bytes of the whole index file.
    pub bytes: u64,
    /// Counters of the external sort.
    pub sort: SortStats,
    /// Wall time of the merge of the sorted runs into posting lists.
    pub merging: Duration,
    /// Wall time of writing the index file after the merge.
    pub writing: Duration,
}

/// Builds one index; see the module docs.
#[derive(Debug)]
pub struct IndexWriter {
    sorter: ExternalSorter,
    spill_dir: PathBuf,
    tables: Tables,
    /// The `source` section, in parts (none: no section).
    source: Vec<Spool>,
    /// The `times` section (`blocks::time_ranges`), in parts (none: no section).
    times: Vec<Spool>,
    /// The format version written (follow masks from 4 on).
    version: u32,
    /// At most this many ranges merge at once (default: one per core).
    merge_threads: Option<usize>,
    /// What a rebuild keeps of the index it replaces.
    kept: Option<KeptLists>,
}

/// The tables of an index being written, encoded as they come: file
/// records, paths, document records and the documents always candidates.
#[derive(Debug)]
struct Tables {
    files: Spool,
    paths: Spool,
    docs: Spool,
    always: Spool,
    file_count: u32,
    doc_count: u32,
    /// One bit per file: flagged `flags::ALWAYS_CANDIDATE`.
    always_files: Vec<u64>,
    /// A record being encoded.
    rec: Vec<u8>,
}

impl IndexWriter {
    /// Records what the indexed documents were cut from (the `source`
    /// section: opaque to the index, e.g. a huge file's identity; see
    /// [`crate::index::blocks`]).
    pub(crate) fn set_source(&mut self, bytes: Vec<u8>) {
        self.source = vec![Spool::holding(bytes)];
    }

    /// [`IndexWriter::set_source`] of the parts' bytes, one after another,
    /// copied from their spools when the index is written.
    pub(crate) fn set_source_parts(&mut self, parts: Vec<Spool>) {
        self.source = parts;
    }

    /// Records the times of the documents' lines (the `times` section):
    /// the parts' bytes, one after another, copied from their spools when
    /// the index is written.
    pub(crate) fn set_times(&mut self, parts: Vec<Spool>) {
        self.times = parts;
    }

    /// Adds a file and returns its id (ids count up from 0). Fails when
    /// its table entry cannot be spooled to disk.
    ///
    /// # Panics
    /// If the index already holds `u32::MAX` files.
    pub fn add_file(&mut self, meta: FileMeta) -> Result<FileId, IndexError> {
        let t = &mut self.tables;
        let id = t.file_count;
        assert!(id < u32::MAX, "more than u32::MAX - 1 files in one index");
        t.rec.clear();
        table::encode_file(&mut t.rec, &meta, t.paths.len());
        t.files.push(&t.rec)?;
        t.paths.push(&meta.path)?;
        if meta.flags & flags::ALWAYS_CANDIDATE != 0 {
            let word = id as usize / 64;
            if t.always_files.len() <= word {
                t.always_files.resize(word + 1, 0);
            }
            t.always_files[word] |= 1 << (id % 64);
        }
        t.file_count += 1;
        Ok(id)
    }

    /// Adds the byte range `offset..offset + len` of `file`, whose first line
    /// is line `first_line` (1-based), containing `trigrams`, each with its
    /// follow mask in the document (any order; a trigram repeated adds its
    /// masks), and returns its id (ids count up from 0).
    ///
    /// Documents of a file flagged `flags::ALWAYS_CANDIDATE` may pass no
    /// trigrams: they are candidates for every satisfiable query.
    ///
    /// Fails on an unknown `file`, past `u32::MAX - 1` documents, or when a
    /// sort run cannot be written.
    pub fn add_document(
        &mut self,
        file: FileId,
        offset: u64,
        len: u64,
        first_line: u64,
        trigrams: &[Gram],
    ) -> Result<DocId, IndexError> {
        let t = &mut self.tables;
        if file >= t.file_count {
            return Err(IndexError::InvalidInput(format!("unknown file id {file}")));
        }
        let doc = t.doc_count;
        if doc == u32::MAX {
            return Err(IndexError::InvalidInput("more than u32::MAX - 1 documents".into()));
        }
        let word = t.always_files.get(file as usize / 64).copied().unwrap_or(0);
        if word & (1 << (file % 64)) != 0 {
            t.always.push(&doc.to_le_bytes())?;
        }
        self.sorter.push_document(doc, trigrams)?;
        t.rec.clear();
        table::encode_doc(&mut t.rec, &DocMeta { file, offset, len, first_line });
        t.docs.push(&t.rec)?;
        t.doc_count += 1;
        Ok(doc)
    }

    /// Takes the posting lists of documents of `old` (the index this one
    /// replaces) that [`IndexWriter::keep`] keeps, instead of their trigrams.
    pub(crate) fn keep_from(&mut self, old: std::sync::Arc<IndexReader>) {
        self.kept = Some(KeptLists::of(old));
    }

    /// Gives document `doc`, added without trigrams, those of document
    /// `old` of the index it replaces ([`IndexWriter::keep_from`]).
    pub(crate) fn keep(&mut self, old: DocId, doc: DocId) {
        self.kept.as_mut().expect("an index to keep from").keep(old, doc);
    }

    /// Documents kept from the index replaced.
    pub(crate) fn kept(&self) -> u32 {
        self.kept.as_ref().map_or(0, KeptLists::kept)
    }

    /// Documents added so far.
    pub(crate) fn documents(&self) -> u32 {
        self.tables.doc_count
    }

    /// Merges at most `n` ranges of trigrams at once (each holds a posting
    /// list, up to a few bytes a document), instead of one per core.
    pub(crate) fn set_merge_threads(&mut self, n: usize) {
        self.merge_threads = Some(n.max(1));
    }

    /// A trigram set for this writer's documents: with follow masks when
    /// the index keeps them.
    pub(crate) fn trigram_set(&self) -> TrigramSet {
        TrigramSet::new(self.version >= 4)
    }

    /// Writes the index and publishes it as `dir/index.tg`, atomically.
    pub fn finish(self, dir: &Path) -> Result<IndexSummary, IndexError> {
        self.finish_into(&FsStorage::new(dir))
    }

    /// Writes the index and publishes it in `storage`, atomically.
    pub(crate) fn finish_into(self, storage: &dyn Storage) -> Result<IndexSummary, IndexError> {
        let pending = storage.begin()?;
        let (pending, summary) = self.write_to(pending)?;
        pending.commit()?;
        Ok(summary)
    }

    /// Writes the index into memory and returns its bytes.
    pub fn finish_to_vec(self) -> Result<(Vec<u8>, IndexSummary), IndexError> {
        let mem = MemStorage::new();
        let summary = self.finish_into(&mem)?;
        let bytes = mem.load()?;
        Ok((bytes.to_vec(), summary))
    }

    /// Serializes the whole index into `out`.
    fn write_to<W: Write>(self, out: W) -> Result<(W, IndexSummary), IndexError> {
        let IndexWriter { sorter, spill_dir, tables, source, times, version, merge_threads, kept } =
            self;
        let out = BufWriter::with_capacity(256 << 10, out);
        let mut fw = FormatWriter::of_version(out, version);
        let runs = sorter.finish()?;
        let (file_count, doc_count) = (tables.file_count, tables.doc_count);

        // The runs are merged a range of trigrams at a time on every core,
        // each range's postings and table entries into temporary files,
        // which are then joined in order.
        let started = Instant::now();
        let cores = rayon::current_num_threads();
        let lanes = merge_threads.unwrap_or(cores).clamp(1, cores);
        let weights = kept.as_ref().map(KeptLists::partition_postings).unwrap_or_default();
        let ranges = runs.ranges(lanes * RANGES_PER_THREAD, MIN_RANGE_BYTES, &weights);
        let lists = Lists { runs: &runs, kept: kept.as_ref(), doc_count, version };
        let encode = |parts| lists.encode(parts, &spill_dir);
        let encoded = if lanes < cores {
            // At most `lanes` ranges at once: consecutive ranges per lane.
            let lanes = ranges.chunks(ranges.len().div_ceil(lanes)).collect::<Vec<_>>();
            let lanes = lanes.into_par_iter().map(|lane| {
                lane.iter().cloned().map(encode).collect::<Result<Vec<Encoded>, IndexError>>()
            });
            let lanes = lanes.collect::<Result<Vec<Vec<Encoded>>, IndexError>>()?;
            lanes.into_iter().flatten().collect()
        } else {
            ranges.into_par_iter().map(encode).collect::<Result<Vec<Encoded>, IndexError>>()?
        };
        let sort = runs.stats();
        drop((runs, kept));
        let merging = started.elapsed();
        let started = Instant::now();

        fw.begin_section("postings");
        for e in &encoded {
            io::copy(&mut BufReader::with_capacity(256 << 10, &e.postings), &mut fw)?;
        }
        fw.end_section();
        fw.begin_section("trigrams");
        let mut entry = Vec::with_capacity(TRIGRAM_ENTRY_LEN);
        let mut base = 0;
        let (mut dir, mut at) = (DirWriter::default(), 0u32);
        for e in &encoded {
            let mut r = BufReader::with_capacity(64 << 10, &e.entries);
            let mut raw = [0u8; TRIGRAM_ENTRY_LEN];
            for _ in 0..e.trigrams {
                r.read_exact(&mut raw)?;
                let mut t = TrigramEntry::decode(&raw, 0).expect("a whole entry");
                t.offset += base;
                entry.clear();
                t.encode(&mut entry);
                fw.write_all(&entry)?;
                dir.add(at, &t, &entry);
                at += 1;
            }
            base += e.bytes;
        }
        fw.end_section();

        for (name, spool) in
            [("files", tables.files), ("paths", tables.paths), ("docs", tables.docs)]
                .into_iter()
                .chain([("always", tables.always)])
        {
            fw.begin_section(name);
            spool.copy_to(&mut fw)?;
            fw.end_section();
        }
        for (name, parts) in [("source", source), ("times", times)] {
            if !parts.is_empty() {
                fw.begin_section(name);
                for part in parts {
                    part.copy_to(&mut fw)?;
                }
                fw.end_section();
            }
        }
        // Last: in the tail a reader by range fetches first.
        fw.section(SECTION, &dir.finish())?;

        let (buffered, bytes) = fw.finish()?;
        let out = buffered.into_inner().map_err(|e| e.into_error())?;
        let summary = IndexSummary {
            files: file_count,
            documents: doc_count,
            trigrams: encoded.iter().map(|e| e.trigrams).sum(),
            postings: encoded.iter().map(|e| e.postings_count).sum(),
            posting_bytes: base,
            bytes,
            sort,
            merging,
            writing: started.elapsed(),
        };
        Ok((out, summary))
    }
}
