//! A remote object's bytes for the packed-file reader
//! ([`crate::pack::Store`]): ranges asked for together are fetched
//! together ([`Store::want`]: neighbours less than `GAP` apart joined
//! into one request, the requests sent side by side), kept for the rest
//! of the search, and a range not fetched yet is fetched when read.

use std::borrow::Cow;
use std::io;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use super::object::RemoteObject;
use crate::index::storage::IndexBytes;
use crate::pack::Store;

/// Ranges closer than this are fetched in one request: a request costs a
/// round trip, 64 KiB more body costs less on any link where a round
/// trip is above a millisecond.
pub(crate) const GAP: u64 = 64 << 10;

/// The parts of one remote object fetched so far.
pub(crate) struct Fetched {
    object: RemoteObject,
    /// Where a packed object's block index is kept on disk (`None`: not kept).
    kept_index: Option<PathBuf>,
    /// Fetched pieces: where each starts, and its bytes.
    pieces: RwLock<Vec<(u64, Arc<Vec<u8>>)>>,
}

impl Fetched {
    /// Nothing of `object` fetched yet.
    pub fn new(object: RemoteObject) -> Fetched {
        Fetched { object, kept_index: None, pieces: RwLock::new(Vec::new()) }
    }

    /// Nothing of the packed object `object` fetched yet but its tail as
    /// kept at `kept_index` ([`super::kept`]: the bytes from its block
    /// index to its end, which a reader fetches before any frame), kept
    /// there once fetched. What is kept is checked as what is fetched:
    /// the index against the footer's CRC, the seek table against its own.
    pub(crate) fn keeping_index(object: RemoteObject, kept_index: PathBuf) -> Fetched {
        let fetched = Fetched { kept_index: Some(kept_index), ..Fetched::new(object) };
        let kept = fetched.kept_index.as_deref().and_then(|k| std::fs::read(k).ok());
        if let Some(kept) = kept.filter(|k| k.len() >= 8) {
            let start = u64::from_le_bytes(kept[..8].try_into().unwrap_or_default());
            let tail = kept[8..].to_vec();
            if start.checked_add(tail.len() as u64) == Some(fetched.len()) {
                let mut pieces = fetched.pieces.write().unwrap_or_else(|e| e.into_inner());
                pieces.push((start, Arc::new(tail)));
            }
        }
        fetched
    }

    /// Keeps the held piece that runs from `from` or before to the
    /// object's end (a packed object's index and what follows it), unless
    /// kept already.
    fn keep_tail(&self, from: u64) {
        let Some(kept) = self.kept_index.as_deref().filter(|k| !k.exists()) else { return };
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        let len = self.len();
        let tail = pieces
            .iter()
            .filter(|(start, bytes)| *start <= from && start + bytes.len() as u64 == len)
            .min_by_key(|(start, _)| *start);
        if let Some((start, bytes)) = tail {
            let mut out = start.to_le_bytes().to_vec();
            out.extend_from_slice(bytes);
            // A failure to keep it costs a fetch next time.
            let _ = super::kept::keep(kept, &out);
        }
    }

    /// The held bytes of `range`, if the pieces held cover it (one piece,
    /// or several end to end).
    fn held(&self, range: &Range<u64>) -> Option<Vec<u8>> {
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::with_capacity((range.end - range.start) as usize);
        let mut at = range.start;
        while at < range.end {
            let (start, bytes) = pieces
                .iter()
                .find(|(start, bytes)| *start <= at && at < start + bytes.len() as u64)?;
            let to = range.end.min(start + bytes.len() as u64);
            out.extend_from_slice(&bytes[(at - start) as usize..(to - start) as usize]);
            at = to;
        }
        Some(out)
    }

    /// Fetches `ranges` and keeps them.
    fn fetch(&self, ranges: &[Range<u64>]) -> io::Result<()> {
        if ranges.is_empty() {
            return Ok(());
        }
        let got = self.object.get_ranges(ranges)?;
        let mut pieces = self.pieces.write().unwrap_or_else(|e| e.into_inner());
        pieces.extend(ranges.iter().zip(got).map(|(r, bytes)| (r.start, Arc::new(bytes))));
        Ok(())
    }
}

/// `ranges` sorted and joined where less than `gap` apart.
pub(crate) fn coalesce(ranges: &[Range<u64>], gap: u64) -> Vec<Range<u64>> {
    let mut sorted: Vec<Range<u64>> = ranges.iter().filter(|r| r.start < r.end).cloned().collect();
    sorted.sort_by_key(|r| r.start);
    let mut joined: Vec<Range<u64>> = Vec::with_capacity(sorted.len());
    for r in sorted {
        match joined.last_mut() {
            Some(last) if r.start <= last.end.saturating_add(gap) => last.end = last.end.max(r.end),
            _ => joined.push(r),
        }
    }
    joined
}

impl Store for Fetched {
    fn len(&self) -> u64 {
        self.object.size()
    }

    fn index_bytes(&self, range: Range<u64>) -> io::Result<IndexBytes> {
        let bytes = self.bytes(range.clone())?.into_owned();
        self.keep_tail(range.start);
        Ok(IndexBytes::Shared(Arc::new(bytes)))
    }

    fn bytes(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        if range.start > range.end || range.end > self.len() {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        if range.is_empty() {
            return Ok(Cow::Borrowed(&[][..]));
        }
        if let Some(bytes) = self.held(&range) {
            return Ok(Cow::Owned(bytes));
        }
        self.fetch(std::slice::from_ref(&range))?;
        self.held(&range).map(Cow::Owned).ok_or_else(|| io::ErrorKind::UnexpectedEof.into())
    }

    fn want(&self, ranges: &[Range<u64>]) -> io::Result<()> {
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        let holds = |r: &Range<u64>| {
            pieces.iter().any(|(s, b)| *s <= r.start && r.end <= s + b.len() as u64)
        };
        let missing: Vec<Range<u64>> = ranges.iter().filter(|r| !holds(r)).cloned().collect();
        drop(pieces);
        self.fetch(&coalesce(&missing, GAP))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_are_joined() {
        assert_eq!(coalesce(&[10..20, 0..5, 30..40, 200..300], 10), vec![0..40, 200..300]);
        assert_eq!(coalesce(&[0..5, 3..4, 5..5], 0), vec![0..5]);
        assert_eq!(coalesce(&[], 10), Vec::<Range<u64>>::new());
    }
}
