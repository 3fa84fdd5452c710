//! Writing posting lists: [`PostingEncoder`] streams `(trigram, doc)`
//! pairs, sorted, into a list per trigram (encoded as the index's format
//! version says; see [`super::postings`]) and its table entry.

use std::io::{self, Write};

use super::postings::{
    ListKind, TrigramEntry, bitmap_len, coded, is_bitmap, pack_masks, put_varint, validate_list,
};
use super::table::DocId;
use crate::query::trigram::Trigram;

/// The list being written: its trigram, ids and their follow masks.
#[derive(Debug)]
struct OpenList {
    trigram: Trigram,
    ids: Vec<DocId>,
    masks: Vec<u8>,
}

/// Streams posting lists into a writer, one trigram at a time, and returns
/// a [`TrigramEntry`] per list. The open list's ids are held until it
/// ends (its encoding depends on its length), so memory is bounded by the
/// number of documents, not by the number of postings.
#[derive(Debug)]
pub(crate) struct PostingEncoder {
    doc_count: u32,
    version: u32,
    current: Option<OpenList>,
    bytes: Vec<u8>,
    written: u64,
    /// Total postings written.
    pub postings: u64,
}

impl PostingEncoder {
    /// A fresh encoder at offset 0 of the postings section of an index of
    /// `doc_count` documents (every id pushed must be below it), its lists
    /// encoded as format `version` (2, 4 or 7) has them.
    pub(crate) fn new(doc_count: u32, version: u32) -> Self {
        let bytes = Vec::new();
        PostingEncoder { doc_count, version, current: None, bytes, written: 0, postings: 0 }
    }

    /// Adds `(trigram, doc)` with the follow mask of the trigram in the
    /// document (the [`follow_bit`](crate::query::trigram::follow_bit)s of the
    /// bytes after it); pairs must come sorted by trigram then doc. A
    /// repeated pair adds its mask.
    /// Returns the entry of the previous list when this pair starts a new one.
    pub(crate) fn push(
        &mut self,
        out: &mut impl Write,
        trigram: Trigram,
        doc: DocId,
        follow: u8,
    ) -> io::Result<Option<TrigramEntry>> {
        debug_assert!(doc < self.doc_count, "doc id past the documents");
        if let Some(list) = &mut self.current
            && list.trigram == trigram
        {
            if list.ids.last() == Some(&doc) {
                *list.masks.last_mut().expect("a mask per id") |= follow;
            } else {
                debug_assert!(list.ids.last() < Some(&doc), "pairs out of order");
                list.ids.push(doc);
                list.masks.push(follow);
                self.postings += 1;
            }
            return Ok(None);
        }
        let done = self.close(out)?;
        self.current = Some(OpenList { trigram, ids: vec![doc], masks: vec![follow] });
        self.postings += 1;
        Ok(done)
    }

    /// Adds `pairs` of `trigram` (documents increasing, each after any
    /// pair pushed before), as [`PostingEncoder::push`] does one by one.
    pub(crate) fn push_all(
        &mut self,
        out: &mut impl Write,
        trigram: Trigram,
        pairs: &[(DocId, u8)],
    ) -> io::Result<Option<TrigramEntry>> {
        let Some((&(first, mask), rest)) = pairs.split_first() else { return Ok(None) };
        let done = self.push(out, trigram, first, mask)?;
        let list = self.current.as_mut().expect("the list just pushed to");
        debug_assert!(rest.iter().all(|&(d, _)| d < self.doc_count), "doc id past the documents");
        list.ids.extend(rest.iter().map(|&(d, _)| d));
        list.masks.extend(rest.iter().map(|&(_, m)| m));
        self.postings += rest.len() as u64;
        Ok(done)
    }

    /// Ends the open list, writing its bytes, and returns its entry. The
    /// bytes are checked before they are written (while they are in the
    /// cache): a list that would not decode as its entry says (for format 7,
    /// to the very ids and masks given: [`coded::holds`]) is an error here,
    /// so the check of a whole new index before it is published needs only
    /// the lists' checksums ([`IndexReader::verify_built`]).
    ///
    /// [`IndexReader::verify_built`]: super::reader::IndexReader::verify_built
    pub(crate) fn close(&mut self, out: &mut impl Write) -> io::Result<Option<TrigramEntry>> {
        let Some(OpenList { trigram, ids, masks }) = self.current.take() else { return Ok(None) };
        let count = ids.len() as u32;
        self.bytes.clear();
        if self.version >= 7 {
            coded::encode(&ids, &masks, self.doc_count, &mut self.bytes);
        } else if is_bitmap(count, self.doc_count) {
            self.bytes.resize(bitmap_len(self.doc_count) as usize, 0);
            for &d in &ids {
                self.bytes[(d / 8) as usize] |= 1 << (d % 8);
            }
            if self.version >= 4 {
                pack_masks(&masks, &mut self.bytes);
            }
        } else {
            let mut prev = None;
            for &d in &ids {
                put_varint(&mut self.bytes, prev.map_or(d, |p: DocId| d - p - 1));
                prev = Some(d);
            }
        }
        let kind = ListKind::of(self.version, count, self.doc_count);
        // Coded lists are checked against their ids and masks.
        let checked = match kind {
            ListKind::Coded if coded::holds(&self.bytes, &ids, &masks, self.doc_count) => Ok(()),
            ListKind::Coded => Err("it does not decode to its ids and masks".to_string()),
            _ => validate_list(&self.bytes, count, self.doc_count, kind).map_err(|e| e.to_string()),
        };
        checked.map_err(|e| io::Error::other(format!("a posting list just encoded: {e}")))?;
        out.write_all(&self.bytes)?;
        let offset = self.written;
        self.written += self.bytes.len() as u64;
        Ok(Some(TrigramEntry { trigram, count, offset, crc: crc32fast::hash(&self.bytes) }))
    }

    /// Bytes written so far.
    pub(crate) fn written(&self) -> u64 {
        self.written
    }
}
