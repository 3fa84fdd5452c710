//! The files a rebuild need not read: those the index it replaces holds
//! as they are now ([`Unchanged::of`]), by the rule a query's freshness
//! check applies (same size and status-change time, not changed too close
//! to the build that recorded it). Their documents keep the old index's
//! posting lists ([`crate::index::kept_lists`]); only the other files are
//! read, so a tree where a checkout changed a few thousand files is
//! indexed again in about the time it takes to rewrite the index.

use std::sync::Arc;

use super::listing::Seen;
use crate::index::fresh::changes::lookup;
use crate::index::reader::IndexReader;
use crate::index::storage::FsStorage;
use crate::index::table::{DocId, RACY, flags};

/// An old document with nothing to read of its file.
const NONE: DocId = DocId::MAX;

/// The index a rebuild replaces, for its unchanged files.
pub(super) struct Unchanged {
    reader: Arc<IndexReader>,
    /// The document of each old file ([`NONE`]: none, or several).
    doc_of: Vec<DocId>,
}

/// An unchanged file: its old document and what reading it found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Kept {
    /// Its document in the old index.
    pub(super) doc: DocId,
    /// The flags its reading set (left out, and why; always a candidate).
    pub(super) flags: u32,
    /// Its document's length.
    pub(super) len: u64,
}

impl Unchanged {
    /// The index published in `storage`, when a rebuild may keep what it
    /// holds (`None`: there is none, or it was built with other trigram
    /// or path semantics, or it does not open), and the reader the writer
    /// shares with it.
    pub(super) fn of(storage: &FsStorage) -> Option<(Unchanged, Arc<IndexReader>)> {
        let reader = IndexReader::load(storage).ok();
        let reader = Arc::new(reader.filter(|r| !r.needs_reindex() && !r.foreign())?);
        let mut doc_of = vec![NONE; reader.stats().files as usize];
        let mut docs = vec![0u8; doc_of.len()];
        for (id, d) in reader.documents().enumerate() {
            let file = d.file as usize;
            doc_of[file] = id as DocId;
            docs[file] = docs[file].saturating_add(1);
        }
        for (doc, n) in doc_of.iter_mut().zip(docs) {
            if n != 1 {
                *doc = NONE;
            }
        }
        Some((Unchanged { reader: Arc::clone(&reader), doc_of }, reader))
    }

    /// What the old index holds of the file at `rel`, seen by the walk as
    /// `seen`, when that is the file as it is now (`None`: read it).
    pub(super) fn kept(&self, rel: &[u8], seen: Seen) -> Option<Kept> {
        // An ignore file is listed twice, watched and searched: the file.
        let first = lookup(&self.reader, rel)?;
        let entries = (first..).map_while(|id| Some((id, self.reader.file(id)?)));
        let mut same_path = entries.take_while(|(_, f)| f.path == rel);
        let (id, old) = same_path.find(|(_, f)| f.flags & flags::NOT_A_FILE == 0)?;
        let doc = *self.doc_of.get(id as usize)?;
        let same = old.size == seen.size && old.changed_ns == seen.changed_ns;
        let file = seen.flags & flags::NOT_A_FILE == 0;
        // A file that could not be read is tried again.
        let read = old.flags & flags::SKIPPED_UNREADABLE == 0;
        if !same || seen.changed_ns == RACY || !file || !read || doc == NONE {
            return None;
        }
        let len = self.reader.doc(doc)?.len;
        let flags = old.flags & (flags::ALWAYS_CANDIDATE | flags::SKIPPED_ANY);
        Some(Kept { doc, flags, len })
    }
}
