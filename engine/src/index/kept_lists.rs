//! What a rebuild keeps of the index it replaces: the posting lists of the
//! documents of files unchanged since it was built, renumbered, so that
//! only the files that changed are read again ([`KeptLists`]).
//!
//! A kept document's postings are the old index's, its id mapped to the
//! new one (ids follow path order in both indexes, so a list stays in
//! order), and merged pair by pair with the new documents' pairs from the
//! sort ([`KeptPairs::before`]). A list the old index kept as varints has
//! no follow masks: its documents are given every follow bit (any byte
//! may follow), which a query reads as a query reads a varint list: never
//! a missed match, at most a document read in vain.

use std::io;
use std::ops::Range;
use std::sync::Arc;

use super::error::IndexError;
use super::reader::IndexReader;
use super::sort::{PARTITIONS, partition};
use super::table::DocId;
use crate::query::trigram::Trigram;

/// The id of an old document that is not kept.
const GONE: DocId = DocId::MAX;

/// The old index and which of its documents are kept, under which new ids.
#[derive(Debug)]
pub(crate) struct KeptLists {
    reader: Arc<IndexReader>,
    /// The new id of each old document ([`GONE`]: not kept).
    renumbered: Vec<DocId>,
    /// Documents kept.
    kept: u32,
}

impl KeptLists {
    /// Nothing kept yet of the index `reader` reads.
    pub(crate) fn of(reader: Arc<IndexReader>) -> KeptLists {
        let renumbered = vec![GONE; reader.stats().documents as usize];
        KeptLists { reader, renumbered, kept: 0 }
    }

    /// Keeps old document `old` as new document `new`; ids must be kept in
    /// increasing order, old and new alike.
    pub(crate) fn keep(&mut self, old: DocId, new: DocId) {
        debug_assert!(self.renumbered[old as usize] == GONE, "a document kept twice");
        self.renumbered[old as usize] = new;
        self.kept += 1;
    }

    /// How many documents are kept.
    pub(crate) fn kept(&self) -> u32 {
        self.kept
    }

    /// The old postings in each trigram partition: the merge's weights.
    pub(crate) fn partition_postings(&self) -> Vec<u64> {
        let mut out = vec![0; PARTITIONS];
        for (trigram, count) in self.reader.list_lengths() {
            out[partition(trigram).min(PARTITIONS - 1)] += u64::from(count);
        }
        out
    }

    /// The kept pairs of trigram partitions `parts`, in `(trigram, new
    /// doc)` order.
    pub(crate) fn pairs(&self, parts: Range<usize>) -> KeptPairs<'_> {
        let first = (parts.start as u32) << 12;
        let end = if parts.end >= PARTITIONS { None } else { Some((parts.end as u32) << 12) };
        let next = self.reader.first_list_from(first);
        KeptPairs { kept: self, next, end, trigram: 0, pairs: Vec::new(), at: 0, done: false }
    }
}

/// The kept pairs of a range of partitions, a list at a time.
pub(crate) struct KeptPairs<'k> {
    kept: &'k KeptLists,
    /// The next old list to read.
    next: usize,
    /// The first trigram past the range (`None`: the last partition's).
    end: Option<Trigram>,
    /// The current list's trigram, and its kept pairs.
    trigram: Trigram,
    pairs: Vec<(DocId, u8)>,
    /// The first pair not given yet.
    at: usize,
    /// Whether every list of the range was read.
    done: bool,
}

impl KeptPairs<'_> {
    /// Gives `f` the kept pairs before `(trigram, doc)` (every one left
    /// when `until` is `None`), a list's run of them at a time: a trigram
    /// and its pairs, in document order.
    pub(crate) fn before(
        &mut self,
        until: Option<(Trigram, DocId)>,
        f: &mut impl FnMut(Trigram, &[(DocId, u8)]) -> io::Result<()>,
    ) -> io::Result<()> {
        loop {
            if self.at == self.pairs.len() && !self.load().map_err(io::Error::other)? {
                return Ok(());
            }
            let left = &self.pairs[self.at..];
            let n = match until {
                None => left.len(),
                Some((t, _)) if t > self.trigram => left.len(),
                Some((t, _)) if t < self.trigram => 0,
                Some((_, doc)) => left.partition_point(|&(d, _)| d < doc),
            };
            if n > 0 {
                f(self.trigram, &left[..n])?;
                self.at += n;
            }
            if self.at < self.pairs.len() {
                return Ok(());
            }
        }
    }

    /// Reads the next old list with a kept document in the range; false
    /// when there is none.
    fn load(&mut self) -> Result<bool, IndexError> {
        let KeptLists { reader, renumbered, .. } = self.kept;
        self.pairs.clear();
        self.at = 0;
        while !self.done {
            let list = reader.list(self.next)?;
            let Some((trigram, list)) = list.filter(|(t, _)| self.end.is_none_or(|end| *t < end))
            else {
                self.done = true;
                break;
            };
            self.next += 1;
            let pairs = &mut self.pairs;
            list.for_each_with_mask(|d, m| match renumbered.get(d as usize) {
                Some(&d) if d != GONE => pairs.push((d, m)),
                _ => {}
            });
            if !self.pairs.is_empty() {
                self.trigram = trigram;
                return Ok(true);
            }
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::table::FileMeta;
    use crate::index::writer::IndexWriterBuilder;
    use crate::query::trigram::grams;

    /// The text of document `i` as written `version`: words of a small
    /// vocabulary, a few in most documents (bitmap lists), most in few
    /// (varint lists).
    fn text(i: u32, version: u32) -> Vec<u8> {
        let mut seed = u64::from(i) * 7919 + u64::from(version) * 104_729 + 1;
        let mut out = Vec::new();
        for _ in 0..12 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let w = (seed >> 33) % 40;
            let w = if w < 30 { w % 4 } else { w * 13 + u64::from(i % 5) };
            out.extend_from_slice(format!("w{w}x{} ", w % 3).as_bytes());
        }
        out
    }

    /// A document: its path, its text, and the old document it keeps.
    type Doc = (String, Vec<u8>, Option<DocId>);

    /// The bytes of an index of `docs` in format `version`, keeping lists
    /// of `old` where a document says so, sorting in `budget` bytes.
    fn index(docs: &[Doc], old: Option<&[u8]>, budget: usize, version: u32) -> Vec<u8> {
        let builder = IndexWriterBuilder::new().memory_budget(budget);
        let mut w = builder.format_version(version).build();
        if let Some(old) = old {
            w.keep_from(Arc::new(IndexReader::from_bytes(old.to_vec()).unwrap()));
        }
        for (path, text, kept) in docs {
            let size = text.len() as u64;
            let meta = FileMeta { path: path.clone().into_bytes(), size, ..FileMeta::default() };
            let f = w.add_file(meta).unwrap();
            let trigrams = if kept.is_some() { Vec::new() } else { grams(text) };
            let d = w.add_document(f, 0, size, 1, &trigrams).unwrap();
            if let Some(old) = kept {
                w.keep(*old, d);
            }
        }
        w.finish_to_vec().unwrap().0
    }

    #[test]
    fn a_rebuild_keeping_lists_indexes_as_a_build_from_scratch() {
        let reader = |bytes: Vec<u8>| IndexReader::from_bytes(bytes).unwrap();
        // Several sort runs, and one; an old index of format 4 or 7.
        for (budget, v) in [(16 << 10, 7), (8 << 20, 7), (16 << 10, 4)] {
            let old: Vec<Doc> = (0..300).map(|i| (format!("p{i:04}"), text(i, 0), None)).collect();
            let old = index(&old, None, budget, v);
            // A new file first; every 7th file changed, every 11th gone, a
            // new one after every 3rd.
            let (mut kept, mut scratch) = (Vec::new(), Vec::new());
            let mut add = |path: String, text: Vec<u8>, old: Option<DocId>| {
                kept.push((path.clone(), text.clone(), old));
                scratch.push((path, text, None));
            };
            add("a".into(), text(999, 0), None);
            for i in 0..300u32 {
                match (i % 11, i % 7) {
                    (0, _) => {}
                    (_, 0) => add(format!("p{i:04}"), text(i, 1), None),
                    _ => add(format!("p{i:04}"), text(i, 0), Some(i)),
                }
                if i % 3 == 0 {
                    add(format!("p{i:04}n"), text(1000 + i, 0), None);
                }
            }
            let kept = reader(index(&kept, Some(&old), budget, 7));
            let scratch = reader(index(&scratch, None, budget, 7));
            assert_eq!(kept.stats().documents, scratch.stats().documents);
            let trigrams: Vec<Trigram> = scratch.list_lengths().map(|(t, _)| t).collect();
            let kept_trigrams: Vec<Trigram> = kept.list_lengths().map(|(t, _)| t).collect();
            assert_eq!(kept_trigrams, trigrams, "budget {budget}");
            for t in trigrams {
                let docs = |r: &IndexReader| r.postings(t).unwrap().collect::<Vec<_>>();
                assert_eq!(docs(&kept), docs(&scratch), "trigram {t:#x}, budget {budget}");
                for bit in [1, 2, 4, 8] {
                    let followed = |r: &IndexReader| r.postings(t).unwrap().followed_by(Some(bit));
                    let (k, s) = (followed(&kept), followed(&scratch));
                    assert!(s.iter().all(|d| k.contains(d)), "trigram {t:#x} followed by {bit}");
                }
            }
        }
    }
}
