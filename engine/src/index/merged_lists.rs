//! The posting lists of a new index, a range of trigram partitions at a
//! time ([`Lists::encode`]): the sort's pairs, merged with what a rebuild
//! keeps of the index it replaces ([`super::kept_lists`]), encoded into
//! temporary files that the writer then joins in order.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::Path;

use super::error::IndexError;
use super::kept_lists::KeptLists;
use super::posting_encoder::PostingEncoder;
use super::postings::{TRIGRAM_ENTRY_LEN, TrigramEntry};
use super::sort::SortedRuns;

/// Ranges of trigrams merged per thread: many, so that a thread slowed by
/// other work or by a range of costly lists does not hold the others up
/// at the end.
pub(super) const RANGES_PER_THREAD: usize = 16;

/// The fewest bytes of runs worth a range (and its two temporary files) of
/// their own.
pub(super) const MIN_RANGE_BYTES: u64 = 1 << 20;

/// One range of trigrams merged: its postings (offsets from its start)
/// and table entries, in temporary files read from the start.
pub(super) struct Encoded {
    pub(super) postings: File,
    pub(super) entries: File,
    /// Bytes of postings.
    pub(super) bytes: u64,
    /// Table entries (lists).
    pub(super) trigrams: u32,
    /// Postings.
    pub(super) postings_count: u64,
}

/// Where the lists of an index of `doc_count` documents come from.
pub(super) struct Lists<'a> {
    /// The sort's pairs.
    pub(super) runs: &'a SortedRuns,
    /// What a rebuild keeps.
    pub(super) kept: Option<&'a KeptLists>,
    /// Documents of the new index (every id is below it).
    pub(super) doc_count: u32,
    /// The format version of the lists.
    pub(super) version: u32,
}

impl Lists<'_> {
    /// Merges partitions `parts` into posting lists, in temporary files in
    /// `dir`.
    pub(super) fn encode(&self, parts: Range<usize>, dir: &Path) -> Result<Encoded, IndexError> {
        let mut postings = BufWriter::with_capacity(256 << 10, tempfile::tempfile_in(dir)?);
        let mut entries = BufWriter::with_capacity(64 << 10, tempfile::tempfile_in(dir)?);
        let mut enc = PostingEncoder::new(self.doc_count, self.version);
        let mut trigrams = 0u32;
        let mut entry = Vec::with_capacity(TRIGRAM_ENTRY_LEN);
        let mut put = |e: Option<TrigramEntry>| -> io::Result<()> {
            let Some(e) = e else { return Ok(()) };
            entry.clear();
            e.encode(&mut entry);
            trigrams += 1;
            entries.write_all(&entry)
        };
        let mut kept = self.kept.map(|k| k.pairs(parts.clone()));
        let mut keep = |t, pairs: &[(u32, u8)]| put(enc.push_all(&mut postings, t, pairs)?);
        self.runs.merge(parts, |t, pairs| match kept.as_mut() {
            // A rebuild's kept documents fall between the new ones.
            Some(kept) => pairs.iter().try_for_each(|&(d, follow)| {
                kept.before(Some((t, d)), &mut keep)?;
                keep(t, &[(d, follow)])
            }),
            None => keep(t, pairs),
        })?;
        if let Some(kept) = kept.as_mut() {
            kept.before(None, &mut keep)?;
        }
        put(enc.close(&mut postings)?)?;
        let rewound = |w: BufWriter<File>| -> io::Result<File> {
            let mut f = w.into_inner().map_err(|e| e.into_error())?;
            f.seek(SeekFrom::Start(0))?;
            Ok(f)
        };
        Ok(Encoded {
            postings: rewound(postings)?,
            entries: rewound(entries)?,
            bytes: enc.written(),
            trigrams,
            postings_count: enc.postings,
        })
    }
}
