//! Building an index: [`IndexWriter`], configured by [`IndexWriterBuilder`].
//!
//! The caller adds files ([`IndexWriter::add_file`]) and their documents with
//! each document's trigrams and their follow masks
//! ([`IndexWriter::add_document`]). Trigrams go straight into an
//! [`ExternalSorter`] as `(trigram, doc, follow)`, so memory
//! stays near the budget however many pairs there are; the file and
//! document tables (32 bytes per document plus paths) are kept in memory.
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
//! let f = w.add_file(FileMeta { path: b"a.txt".to_vec(), size: 5, ..Default::default() });
//! let d = w.add_document(f, 0, 5, 1, &grams(b"hello"))?;
//! let (bytes, _summary) = w.finish_to_vec()?;
//! let r = IndexReader::from_bytes(bytes)?;
//! assert_eq!(r.candidates(&Query::Trigram(pack(*b"ell")))?.as_slice(), &[d]);
//! # Ok(()) }
//! ```

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::error::IndexError;
use super::extract::TrigramSet;
use super::format::{FORMAT_VERSION, FormatWriter};
use super::postings::PostingEncoder;
use super::sort::{ExternalSorter, SortStats};
use super::storage::{FsStorage, MemStorage, Storage};
use super::table::{self, DocId, DocMeta, FileId, FileMeta, flags};
use crate::query::trigram::{Gram, gram_mask, gram_trigram};

/// Default memory budget for the pair sorter: 64 MiB.
pub const DEFAULT_MEMORY_BUDGET: usize = 64 << 20;

/// Options of an [`IndexWriter`].
#[derive(Clone, Debug)]
pub struct IndexWriterBuilder {
    budget: usize,
    spill_dir: Option<PathBuf>,
    follow_masks: bool,
}

impl Default for IndexWriterBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl IndexWriterBuilder {
    /// Default options: a [`DEFAULT_MEMORY_BUDGET`] budget, spilling into
    /// the system temporary directory.
    pub fn new() -> Self {
        IndexWriterBuilder { budget: DEFAULT_MEMORY_BUDGET, spill_dir: None, follow_masks: true }
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
    /// 4). Without, the index is written in format version 2: a block
    /// index of a log, whose dense lists are most of it and whose blocks
    /// hold most bytes after most trigrams, stays small.
    pub fn follow_masks(mut self, on: bool) -> Self {
        self.follow_masks = on;
        self
    }

    /// A writer with these options.
    pub fn build(self) -> IndexWriter {
        let spill_dir = self.spill_dir.unwrap_or_else(std::env::temp_dir);
        IndexWriter {
            sorter: ExternalSorter::new(&spill_dir, self.budget),
            spill_dir,
            files: Vec::new(),
            docs: Vec::new(),
            always: Vec::new(),
            source: None,
            follow_masks: self.follow_masks,
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
}

/// Builds one index; see the module docs.
#[derive(Debug)]
pub struct IndexWriter {
    sorter: ExternalSorter,
    spill_dir: PathBuf,
    files: Vec<FileMeta>,
    docs: Vec<DocMeta>,
    always: Vec<DocId>,
    source: Option<Vec<u8>>,
    follow_masks: bool,
}

impl IndexWriter {
    /// Records what the indexed documents were cut from (the `source`
    /// section: opaque to the index, e.g. a huge file's identity; see
    /// [`crate::index::blocks`]).
    pub fn set_source(&mut self, bytes: Vec<u8>) {
        self.source = Some(bytes);
    }

    /// Adds a file and returns its id (ids count up from 0).
    ///
    /// # Panics
    /// If the index already holds `u32::MAX` files.
    pub fn add_file(&mut self, meta: FileMeta) -> FileId {
        let id = FileId::try_from(self.files.len())
            .ok()
            .filter(|&id| id < u32::MAX)
            .expect("more than u32::MAX - 1 files in one index");
        self.files.push(meta);
        id
    }

    /// Adds the byte range `offset..offset + len` of `file`, whose first line
    /// is line `first_line` (1-based), containing `trigrams`, each with its
    /// follow mask in the document (any order; a trigram repeated adds its
    /// masks), and returns its id (ids count up from 0).
    ///
    /// Documents of a file flagged [`flags::ALWAYS_CANDIDATE`] may pass no
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
        let Some(meta) = self.files.get(file as usize) else {
            return Err(IndexError::InvalidInput(format!("unknown file id {file}")));
        };
        let doc = DocId::try_from(self.docs.len())
            .ok()
            .filter(|&d| d < u32::MAX)
            .ok_or_else(|| IndexError::InvalidInput("more than u32::MAX - 1 documents".into()))?;
        if meta.flags & flags::ALWAYS_CANDIDATE != 0 {
            self.always.push(doc);
        }
        for &g in trigrams {
            self.sorter.push(gram_trigram(g), doc, gram_mask(g))?;
        }
        self.docs.push(DocMeta { file, offset, len, first_line });
        Ok(doc)
    }

    /// A trigram set for this writer's documents: with follow masks when
    /// the index keeps them.
    pub fn trigram_set(&self) -> TrigramSet {
        TrigramSet::new(self.follow_masks)
    }

    /// Writes the index and publishes it as `dir/index.tg`, atomically.
    pub fn finish(self, dir: &Path) -> Result<IndexSummary, IndexError> {
        self.finish_into(&FsStorage::new(dir))
    }

    /// Writes the index and publishes it in `storage`, atomically.
    pub fn finish_into(self, storage: &dyn Storage) -> Result<IndexSummary, IndexError> {
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
        let IndexWriter { sorter, spill_dir, files, docs, always, source, follow_masks } = self;
        let version = if follow_masks { FORMAT_VERSION } else { 2 };
        let out = BufWriter::with_capacity(256 << 10, out);
        let mut fw = FormatWriter::of_version(out, version);
        let mut pairs = sorter.finish()?;

        // Postings stream out while the trigram table is spooled to a
        // temporary file, so neither is held in memory.
        let mut spool = BufWriter::with_capacity(64 << 10, tempfile::tempfile_in(&spill_dir)?);
        let mut entry = Vec::with_capacity(32);
        let mut trigram_count: u32 = 0;
        let mut spool_entry = |e: super::postings::TrigramEntry| -> io::Result<()> {
            entry.clear();
            e.encode(&mut entry);
            trigram_count += 1;
            spool.write_all(&entry)
        };
        fw.begin_section("postings");
        let doc_count = u32::try_from(docs.len())
            .map_err(|_| IndexError::Io(io::Error::other("more than 2^32 documents")))?;
        let mut enc = PostingEncoder::new(doc_count, follow_masks);
        while let Some((t, d, follow)) = pairs.next_pair()? {
            if let Some(e) = enc.push(&mut fw, t, d, follow)? {
                spool_entry(e)?;
            }
        }
        if let Some(e) = enc.close(&mut fw)? {
            spool_entry(e)?;
        }
        fw.end_section();
        let sort = pairs.stats();
        drop(pairs);

        fw.begin_section("trigrams");
        let mut spool: File = spool.into_inner().map_err(|e| e.into_error())?;
        spool.seek(SeekFrom::Start(0))?;
        io::copy(&mut BufReader::with_capacity(64 << 10, spool), &mut fw)?;
        fw.end_section();

        let mut rec = Vec::with_capacity(table::FILE_RECORD_LEN);
        fw.begin_section("files");
        let mut path_off = 0u64;
        for f in &files {
            rec.clear();
            table::encode_file(&mut rec, f, path_off);
            fw.write_all(&rec)?;
            path_off += f.path.len() as u64;
        }
        fw.end_section();
        fw.begin_section("paths");
        for f in &files {
            fw.write_all(&f.path)?;
        }
        fw.end_section();
        fw.begin_section("docs");
        for d in &docs {
            rec.clear();
            table::encode_doc(&mut rec, d);
            fw.write_all(&rec)?;
        }
        fw.end_section();
        fw.begin_section("always");
        for d in &always {
            fw.write_all(&d.to_le_bytes())?;
        }
        fw.end_section();
        if let Some(source) = &source {
            fw.begin_section("source");
            fw.write_all(source)?;
            fw.end_section();
        }

        let (buffered, bytes) = fw.finish()?;
        let out = buffered.into_inner().map_err(|e| e.into_error())?;
        let summary = IndexSummary {
            files: files.len() as u32,
            documents: docs.len() as u32,
            trigrams: trigram_count,
            postings: enc.postings,
            posting_bytes: enc.written(),
            bytes,
            sort,
        };
        Ok((out, summary))
    }
}
