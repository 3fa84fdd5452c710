//! Checks of an index's sections that the reader runs before trusting them.

use super::super::postings::{ListKind, TRIGRAM_ENTRY_LEN, TrigramEntry};
use crate::index::error::IndexError;

pub(super) fn validate_always(always: &[u8], ndocs: u32) -> Result<(), IndexError> {
    if !always.len().is_multiple_of(4) {
        return Err(IndexError::corrupt("always section has a partial id"));
    }
    let mut prev: Option<u32> = None;
    for c in always.chunks_exact(4) {
        let d = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        if d >= ndocs || prev.is_some_and(|p| p >= d) {
            return Err(IndexError::corrupt("always section: bad doc id"));
        }
        prev = Some(d);
    }
    Ok(())
}

/// The number of entries of a trigram table.
pub(super) fn trigram_count(table: &[u8]) -> Result<u32, IndexError> {
    let c = IndexError::corrupt;
    if !table.len().is_multiple_of(TRIGRAM_ENTRY_LEN) {
        return Err(c("trigram table has a partial entry"));
    }
    u32::try_from(table.len() / TRIGRAM_ENTRY_LEN).map_err(|_| c("too many trigrams"))
}

/// Checks that the trigram table is sorted and its lists tile the postings.
/// `bitmaps`: the format stores dense lists as bitmaps.
pub(super) fn validate_trigrams(
    table: &[u8],
    postings_len: u64,
    ndocs: u32,
    format: u32,
) -> Result<(), IndexError> {
    let dense = |e: &TrigramEntry| ListKind::of(format, e.count, ndocs);
    let c = IndexError::corrupt;
    let n = trigram_count(table)?;
    let mut prev: Option<TrigramEntry> = None;
    for i in 0..n as usize {
        let e = TrigramEntry::decode(table, i).ok_or_else(|| c("trigram table"))?;
        if let Some(p) = prev {
            if p.trigram >= e.trigram {
                return Err(c("trigram table not sorted"));
            }
            check_list(&p, e.offset, ndocs, dense(&p))?;
        } else if e.offset != 0 {
            return Err(c("first posting list does not start at 0"));
        }
        prev = Some(e);
    }
    match prev {
        Some(p) => check_list(&p, postings_len, ndocs, dense(&p)),
        None if postings_len != 0 => Err(c("postings without trigrams")),
        None => Ok(()),
    }
}

/// A list of `e.count` ids ending at `end`, encoded as `kind`: a bitmap
/// of one bit per document (and its follow masks), or varints of 1 to 5
/// bytes each.
pub(super) fn check_list(
    e: &TrigramEntry,
    end: u64,
    ndocs: u32,
    kind: ListKind,
) -> Result<(), IndexError> {
    let len =
        end.checked_sub(e.offset).ok_or_else(|| IndexError::corrupt("posting offsets decrease"))?;
    if e.count == 0 || e.count > ndocs || !kind.fits(len, e.count, ndocs) {
        return Err(IndexError::corrupt(&format!(
            "posting list of {:#08x} has bad bounds",
            e.trigram
        )));
    }
    Ok(())
}
