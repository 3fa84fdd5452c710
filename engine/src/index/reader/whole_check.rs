//! [`IndexReader::verify`]: the check of a whole index, which `tg index`
//! runs on what it built before publishing it.

use rayon::prelude::*;

use super::IndexReader;
use super::validate::validate_trigrams;
use crate::index::error::IndexError;
use crate::index::postings::{TrigramEntry, validate_list};

impl IndexReader {
    /// Checks everything: the CRC of the whole body and of every section,
    /// the trigram table's order and list bounds, and that every posting
    /// list decodes to valid, increasing ids.
    pub fn verify(&self) -> Result<(), IndexError> {
        let body = &self.bytes[..self.layout.body_len as usize];
        // The body's CRC and each section's, on every core.
        let (whole, sections) = rayon::join(
            || crc32fast::hash(body) == self.layout.body_crc,
            || {
                self.layout.sections.par_iter().find_first(|s| {
                    crc32fast::hash(&body[s.offset as usize..(s.offset + s.len) as usize]) != s.crc
                })
            },
        );
        if !whole {
            return Err(IndexError::corrupt("body checksum mismatch"));
        }
        if let Some(s) = sections {
            return Err(IndexError::corrupt(&format!("section {:?} checksum mismatch", s.name)));
        }
        let table = &self.bytes[self.trigrams.clone()];
        let (len, docs) = (self.postings.len() as u64, self.stats.documents);
        validate_trigrams(table, len, docs, self.layout.format_version)?;
        (0..self.stats.trigrams as usize).into_par_iter().with_min_len(4096).try_for_each(|i| {
            let e = TrigramEntry::decode(table, i)
                .ok_or_else(|| IndexError::corrupt("trigram table"))?;
            let bytes = self.list_bytes(i, &e)?;
            if crc32fast::hash(bytes) != e.crc {
                return Err(IndexError::corrupt("posting list checksum mismatch"));
            }
            validate_list(bytes, e.count, self.stats.documents, self.kind(&e))
        })
    }
}
