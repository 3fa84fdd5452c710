//! Reading an index: [`IndexReader`] opens a published index, checks it,
//! and answers [`Query`]s with [`Candidates`].
//!
//! What is checked, and when:
//! - at open: the footer (magic, version, footer CRC, body length), the TOC
//!   (CRC, every section's bounds), the CRC of the small tables (`files`,
//!   `paths`, `docs`, `always`, `trigrams`) and their structure (record
//!   sizes, ids in range, trigrams sorted, list bounds);
//! - on first use of each posting list: its own CRC, stored in the trigram
//!   table, before any id of it is decoded ([`IndexReader::postings`]);
//! - on demand: [`IndexReader::verify`] checks the CRC of the whole body and
//!   decodes every list.
//!
//! Postings are most of an index and a query reads a handful of lists, so
//! they are not checksummed at open: doing so would read the whole file on
//! every search (see `docs/INDEX-FORMAT.md` for the measured cost). A
//! corrupt list therefore surfaces as [`IndexError::Corrupt`] from the query
//! that reads it, never as a wrong answer.
//!
//! Queries: `All` gives every document; `Nothing` none; `And` evaluates its
//! children cheapest first (by posting-list length) and stops once the
//! intersection is empty; `Or` merges. Documents of files flagged
//! `flags::ALWAYS_CANDIDATE` are
//! added to the result of every satisfiable query.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use super::error::IndexError;
use super::format::{EDGES_FEATURE_VERSION, Layout, read_u32};
use super::postings::{ListKind, Postings, TRIGRAM_ENTRY_LEN, TrigramEntry, intersect, union};
use super::storage::{FsStorage, IndexBytes, Storage};
use super::table::{self, DocId, DocMeta, FileId, FileRef};
use crate::query::Query;
use crate::query::trigram::{Trigram, follow_bit};
use validate::{check_list, trigram_count, validate_always};

/// Counts describing an open index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexStats {
    /// Documents in the document table.
    pub documents: u32,
    /// Files in the file table.
    pub files: u32,
    /// Distinct trigrams (posting lists).
    pub trigrams: u32,
    /// Bytes of the `postings` section.
    pub posting_bytes: u64,
    /// Bytes of the index file.
    pub bytes: u64,
    /// The file table's identity (its sections' checksums).
    pub table_id: u64,
}

/// Candidate documents of a query: sorted, distinct doc ids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Candidates {
    docs: Vec<DocId>,
}

impl Candidates {
    /// The ids, sorted.
    pub fn as_slice(&self) -> &[DocId] {
        &self.docs
    }

    /// Number of candidates.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

/// A sorted set of documents during evaluation.
enum Set {
    All,
    Docs(Vec<DocId>),
}

/// An open, checked index.
#[derive(Debug)]
pub struct IndexReader {
    bytes: IndexBytes,
    layout: Layout,
    files: Range<usize>,
    paths: Range<usize>,
    docs: Range<usize>,
    always: Range<usize>,
    trigrams: Range<usize>,
    postings: Range<usize>,
    source: Option<Range<usize>>,
    times: Option<Range<usize>>,
    stats: IndexStats,
}

impl IndexReader {
    /// Opens `dir/index.tg` (memory-mapped; see [`FsStorage`] on why the
    /// mapping stays valid while a new index is published).
    pub fn open(dir: &Path) -> Result<IndexReader, IndexError> {
        Self::load(&FsStorage::new(dir))
    }

    /// Opens the index published in `storage`.
    pub fn load(storage: &dyn Storage) -> Result<IndexReader, IndexError> {
        Self::opened(storage.load()?, true)
    }

    /// Opens an index from its bytes.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<IndexReader, IndexError> {
        Self::opened(IndexBytes::Shared(Arc::new(bytes)), true)
    }

    /// Opens `bytes` (`table_crc` false: its trigram table was read by checked parts).
    pub(crate) fn opened(bytes: IndexBytes, table_crc: bool) -> Result<IndexReader, IndexError> {
        let layout = Layout::parse(&bytes)?;
        let range = |name: &str, check_crc: bool| -> Result<Range<usize>, IndexError> {
            let s = layout.require(name)?;
            let r = s.offset as usize..(s.offset + s.len) as usize;
            if check_crc && crc32fast::hash(&bytes[r.clone()]) != s.crc {
                return Err(IndexError::corrupt(&format!("section {name:?} checksum mismatch")));
            }
            Ok(r)
        };
        let files = range("files", true)?;
        let paths = range("paths", true)?;
        let docs = range("docs", true)?;
        let always = range("always", true)?;
        let trigrams = range("trigrams", table_crc)?;
        let postings = range("postings", false)?;
        let optional = |name: &str| layout.get(name).map(|_| range(name, true)).transpose();
        let (source, times) = (optional("source")?, optional("times")?);
        optional(super::trigram_dir::SECTION)?; // checked here, read by readers by range
        let (nfiles, ndocs) =
            table::validate(&bytes[files.clone()], &bytes[paths.clone()], &bytes[docs.clone()])?;
        validate_always(&bytes[always.clone()], ndocs)?;
        // The trigram table's order and list bounds are checked by `verify` (which `tg index` runs
        // on what it built), and each list's bounds and checksum again when a query reads it: a
        // walk over every entry here would cost each query about a millisecond.
        let ntrigrams = trigram_count(&bytes[trigrams.clone()])?;
        let stats = IndexStats {
            documents: ndocs,
            files: nfiles,
            trigrams: ntrigrams,
            posting_bytes: postings.len() as u64,
            bytes: bytes.len() as u64,
            table_id: u64::from(layout.require("files")?.crc) << 32
                | u64::from(layout.require("paths")?.crc),
        };
        Ok(IndexReader {
            bytes,
            layout,
            files,
            paths,
            docs,
            always,
            trigrams,
            postings,
            source,
            times,
            stats,
        })
    }

    /// Whether the index was built with other feature semantics (same
    /// layout, older or newer) or on another system ([`IndexReader::foreign`]):
    /// its table and trigrams may not mean what this build expects.
    pub fn needs_reindex(&self) -> bool {
        !super::style::usable(self.layout.feature_version)
    }

    /// Whether the index was built on a system of another path style.
    pub fn foreign(&self) -> bool {
        super::style::split(self.layout.feature_version).1 != crate::sys::PATH_STYLE
    }

    /// Whether the documents hold the trigrams of their edges
    /// ([`crate::query::trigram::for_each_edge`]), which plans with
    /// [`crate::query::planner::PlanOptions::edges`] require.
    pub fn has_edges(&self) -> bool {
        self.feature_version() >= EDGES_FEATURE_VERSION
    }

    /// The `source` section, if the index has one (what its documents were
    /// cut from; see `crate::index::writer::IndexWriter::set_source`).
    pub fn source(&self) -> Option<&[u8]> {
        self.source.clone().map(|r| &self.bytes[r])
    }

    /// The `times` section, if the index has one (`blocks::time_ranges`).
    pub(crate) fn times(&self) -> Option<&[u8]> {
        self.times.clone().map(|r| &self.bytes[r])
    }

    /// The feature version the index was built with.
    pub fn feature_version(&self) -> u32 {
        super::style::split(self.layout.feature_version).0
    }

    /// Counts describing the index.
    pub fn stats(&self) -> IndexStats {
        self.stats
    }

    /// Every file, in id order.
    pub fn files(&self) -> impl ExactSizeIterator<Item = FileRef<'_>> + '_ {
        (0..self.stats.files).map(|i| self.file_unchecked(i))
    }

    /// Every document, in id order.
    pub fn documents(&self) -> impl ExactSizeIterator<Item = DocMeta> + '_ {
        (0..self.stats.documents)
            .map(|i| table::decode_doc(&self.bytes[self.docs.clone()], i as usize))
    }

    /// File `id`, if it exists.
    pub fn file(&self, id: FileId) -> Option<FileRef<'_>> {
        (id < self.stats.files).then(|| self.file_unchecked(id))
    }

    /// The path of file `id` (empty when there is no such file): the key
    /// the table is sorted by.
    pub fn path(&self, id: FileId) -> &[u8] {
        self.file(id).map_or(&[], |f| f.path)
    }

    fn file_unchecked(&self, id: FileId) -> FileRef<'_> {
        table::decode_file(
            &self.bytes[self.files.clone()],
            &self.bytes[self.paths.clone()],
            id as usize,
        )
    }

    /// Document `id`, if it exists.
    pub fn doc(&self, id: DocId) -> Option<DocMeta> {
        (id < self.stats.documents)
            .then(|| table::decode_doc(&self.bytes[self.docs.clone()], id as usize))
    }

    fn entry(&self, trigram: Trigram) -> Option<(usize, TrigramEntry)> {
        let table = &self.bytes[self.trigrams.clone()];
        let (mut lo, mut hi) = (0usize, self.stats.trigrams as usize);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let t = read_u32(table, mid * TRIGRAM_ENTRY_LEN)?;
            match t.cmp(&trigram) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some((mid, TrigramEntry::decode(table, mid)?)),
            }
        }
        None
    }

    /// The bytes of list `i`, once its bounds are checked.
    fn list_bytes(&self, i: usize, e: &TrigramEntry) -> Result<&[u8], IndexError> {
        let table = &self.bytes[self.trigrams.clone()];
        let postings = &self.bytes[self.postings.clone()];
        let end = TrigramEntry::decode(table, i + 1).map_or(postings.len() as u64, |n| n.offset);
        check_list(e, end, self.stats.documents, self.kind(e))?;
        postings
            .get(e.offset as usize..end as usize)
            .ok_or_else(|| IndexError::corrupt("posting list past the postings section"))
    }

    /// Postings in all: `(trigram, doc)` pairs.
    pub fn posting_count(&self) -> u64 {
        let table = &self.bytes[self.trigrams.clone()];
        (0..self.stats.trigrams as usize)
            .filter_map(|i| TrigramEntry::decode(table, i))
            .map(|e| u64::from(e.count))
            .sum()
    }

    /// Every list's trigram and length (ids), in trigram order.
    pub(crate) fn list_lengths(&self) -> impl Iterator<Item = (Trigram, u32)> + '_ {
        let table = &self.bytes[self.trigrams.clone()];
        let entries = (0..self.stats.trigrams as usize).map(|i| TrigramEntry::decode(table, i));
        entries.map_while(|e| e.map(|e| (e.trigram, e.count)))
    }

    /// Number of documents containing `trigram` (0 when none).
    pub fn posting_len(&self, trigram: Trigram) -> u32 {
        self.entry(trigram).map_or(0, |(_, e)| e.count)
    }

    /// The documents containing `trigram`, in increasing order. Checks the
    /// list's CRC first: a corrupt list is an error, not a wrong answer.
    pub fn postings(&self, trigram: Trigram) -> Result<Postings<'_>, IndexError> {
        let Some((i, _)) = self.entry(trigram) else { return Ok(Postings::empty()) };
        Ok(self.list(i)?.map_or_else(Postings::empty, |(_, list)| list))
    }

    /// The number of the first list whose trigram is `trigram` or after it
    /// (the lists' count when none is).
    pub(crate) fn first_list_from(&self, trigram: Trigram) -> usize {
        let table = &self.bytes[self.trigrams.clone()];
        let n = self.stats.trigrams as usize;
        let below = |i: usize| read_u32(table, i * TRIGRAM_ENTRY_LEN).is_some_and(|t| t < trigram);
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if below(mid) { lo = mid + 1 } else { hi = mid }
        }
        lo
    }

    /// List `i` (`None`: past the last), its trigram and documents, its
    /// checksum checked first as [`IndexReader::postings`] does.
    pub(crate) fn list(&self, i: usize) -> Result<Option<(Trigram, Postings<'_>)>, IndexError> {
        let table = &self.bytes[self.trigrams.clone()];
        let Some(e) = TrigramEntry::decode(table, i) else { return Ok(None) };
        let bytes = self.list_bytes(i, &e)?;
        if crc32fast::hash(bytes) != e.crc {
            return Err(IndexError::corrupt(&format!(
                "posting list of trigram {:#08x} checksum mismatch",
                e.trigram
            )));
        }
        let list = Postings::of_kind(self.kind(&e), bytes, e.count, self.stats.documents)?;
        Ok(Some((e.trigram, list)))
    }

    /// How list `e` is encoded.
    fn kind(&self, e: &TrigramEntry) -> ListKind {
        ListKind::of(self.layout.format_version, e.count, self.stats.documents)
    }

    /// The candidate documents of `query`, sorted: exactly the documents
    /// holding what it asks for.
    pub fn candidates(&self, query: &Query) -> Result<Candidates, IndexError> {
        self.candidates_within(query, 0)
    }

    /// The candidate documents of `query`, sorted, where an intersection
    /// stops once at most `enough` documents are left: a superset of
    /// [`IndexReader::candidates`]. Each list read is a disk read when the
    /// index is cold; when searching a few more documents costs less than
    /// reading the remaining lists (a huge file's small blocks), stop early.
    pub fn candidates_within(
        &self,
        query: &Query,
        enough: usize,
    ) -> Result<Candidates, IndexError> {
        if unsatisfiable(query) {
            return Ok(Candidates::default());
        }
        let docs = match self.eval(query, enough)? {
            Set::All => (0..self.stats.documents).collect(),
            Set::Docs(d) => union(&d, &self.always_docs()),
        };
        Ok(Candidates { docs })
    }

    fn always_docs(&self) -> Vec<DocId> {
        self.bytes[self.always.clone()]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// An upper bound on the number of documents `q` accepts, to order
    /// intersections.
    fn cost(&self, q: &Query) -> u64 {
        match q {
            Query::All => u64::MAX,
            Query::Nothing => 0,
            Query::Trigram(t) | Query::Followed(t, _) => u64::from(self.posting_len(*t)),
            Query::And(cs) => cs.iter().map(|c| self.cost(c)).min().unwrap_or(u64::MAX),
            Query::Or(cs) => cs.iter().map(|c| self.cost(c)).fold(0, u64::saturating_add),
        }
    }

    fn eval(&self, q: &Query, enough: usize) -> Result<Set, IndexError> {
        Ok(match q {
            Query::All => Set::All,
            Query::Nothing => Set::Docs(Vec::new()),
            Query::Trigram(t) => Set::Docs(self.postings(*t)?.followed_by(None)),
            Query::Followed(t, b) => {
                Set::Docs(self.postings(*t)?.followed_by(Some(follow_bit(*b))))
            }
            Query::And(cs) => {
                let mut cs: Vec<&Query> = cs.iter().filter(|c| !matches!(c, Query::All)).collect();
                cs.sort_by_cached_key(|c| self.cost(c));
                let mut acc: Option<Vec<DocId>> = None;
                for c in cs {
                    // An OR of trigrams after a narrower term: each list is
                    // intersected with what is left, not read whole.
                    if let (Query::Or(alts), Some(a)) = (c, &acc)
                        && alts.iter().all(|alt| alt.leaf().is_some())
                    {
                        let mut hits = Vec::new();
                        for (t, next) in alts.iter().filter_map(Query::leaf) {
                            hits =
                                union(&hits, &self.postings(t)?.intersect(a, next.map(follow_bit)));
                        }
                        acc = Some(hits);
                        continue;
                    }
                    acc = match (c.leaf(), acc) {
                        (_, Some(a)) if a.len() <= enough => {
                            return Ok(Set::Docs(a));
                        }
                        (Some((t, next)), Some(a)) => {
                            Some(self.postings(t)?.intersect(&a, next.map(follow_bit)))
                        }
                        (_, a) => match (self.eval(c, enough)?, a) {
                            (Set::All, a) => a,
                            (Set::Docs(d), None) => Some(d),
                            (Set::Docs(d), Some(a)) => Some(intersect(&a, d.into_iter())),
                        },
                    };
                }
                acc.map_or(Set::All, Set::Docs)
            }
            Query::Or(cs) => {
                let mut acc = Vec::new();
                for c in cs {
                    match self.eval(c, enough)? {
                        Set::All => return Ok(Set::All),
                        Set::Docs(d) => acc = union(&acc, &d),
                    }
                }
                Set::Docs(acc)
            }
        })
    }
}

/// Whether `q` accepts no document at all, whatever the index holds.
fn unsatisfiable(q: &Query) -> bool {
    match q {
        Query::Nothing => true,
        Query::All | Query::Trigram(_) | Query::Followed(..) => false,
        Query::And(cs) => cs.iter().any(unsatisfiable),
        Query::Or(cs) => cs.iter().all(unsatisfiable),
    }
}

mod validate;
mod whole_check;

#[cfg(test)]
mod tests;
