//! [`IndexReader::verify`]: the check of a whole index; and
//! [`IndexReader::verify_built`], the one `tg index` runs on what it
//! built before publishing it.

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
        self.check(true)
    }

    /// [`IndexReader::verify`] of an index this process just wrote, whose
    /// writer decoded each posting list as it encoded it: each list's
    /// checksum and length are checked (the bytes on disk are the bytes
    /// decoded, where the table says), not decoded again.
    pub(crate) fn verify_built(&self) -> Result<(), IndexError> {
        self.check(false)
    }

    /// Checks everything but, unless `decode`, what decoding the lists
    /// checks.
    fn check(&self, decode: bool) -> Result<(), IndexError> {
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
            let (count, docs, kind) = (e.count, self.stats.documents, self.kind(&e));
            match decode {
                true => validate_list(bytes, count, docs, kind),
                false if kind.fits(bytes.len() as u64, count, docs) => Ok(()),
                false => Err(IndexError::corrupt("posting list of the wrong length")),
            }
        })
    }
}
