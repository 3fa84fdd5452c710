//! A remote object's bytes for the packed-file reader
//! ([`crate::pack::Store`]): ranges asked for together are fetched
//! together ([`Store::want`]: neighbours less than `GAP` apart joined
//! into one request, the requests sent side by side), kept for the rest
//! of the search, and a range not fetched yet is fetched when read. An
//! object read by a viewer is held up to a bound
//! ([`RemoteObject::holding_at_most`]): past it, the pieces used least
//! recently are dropped (and fetched again if read again).

use std::borrow::Cow;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use super::object::RemoteObject;
use crate::index::storage::IndexBytes;
use crate::pack::Store;

/// Ranges closer than this are fetched in one request: a request costs a
/// round trip, 64 KiB more body costs less on any link where a round
/// trip is above a millisecond.
pub(crate) const GAP: u64 = 64 << 10;

/// One fetched piece of an object.
struct Piece {
    /// Where it starts in the object.
    start: u64,
    bytes: Arc<Vec<u8>>,
    /// When it was last read (a tick of [`Fetched::clock`]).
    used: AtomicU64,
}

impl Piece {
    fn end(&self) -> u64 {
        self.start + self.bytes.len() as u64
    }
}

/// The parts of one remote object fetched so far.
pub(crate) struct Fetched {
    object: RemoteObject,
    /// Where a packed object's block index is kept on disk (`None`: not kept).
    kept_index: Option<PathBuf>,
    /// Where the parts of it read by range are kept (`super::kept::part_of`),
    /// and whether some were loaded from there.
    kept_part: Option<(PathBuf, AtomicBool)>,
    /// Fetched pieces.
    pieces: RwLock<Vec<Piece>>,
    /// Ticks at each read, for the pieces' last use.
    clock: AtomicU64,
}

impl Fetched {
    /// Nothing of `object` fetched yet.
    pub fn new(object: RemoteObject) -> Fetched {
        let pieces = RwLock::new(Vec::new());
        Fetched { object, kept_index: None, kept_part: None, pieces, clock: AtomicU64::new(0) }
    }

    /// Holds `bytes`, fetched from `start`, used now.
    fn add(&self, pieces: &mut Vec<Piece>, start: u64, bytes: Arc<Vec<u8>>) {
        let used = AtomicU64::new(self.clock.fetch_add(1, Ordering::Relaxed));
        pieces.push(Piece { start, bytes, used });
    }

    /// Drops the pieces used least recently, not those used since `since`,
    /// until those held fit the object's bound.
    fn evict(&self, pieces: &mut Vec<Piece>, since: u64) {
        let Some(bound) = self.object.holding() else { return };
        let mut held: u64 = pieces.iter().map(|p| p.bytes.len() as u64).sum();
        while held > bound {
            let oldest = pieces
                .iter()
                .enumerate()
                .filter(|(_, p)| p.used.load(Ordering::Relaxed) < since)
                .min_by_key(|(_, p)| p.used.load(Ordering::Relaxed));
            let Some((i, _)) = oldest else { return };
            held -= pieces.swap_remove(i).bytes.len() as u64;
        }
    }

    /// How many bytes are held.
    #[cfg(test)]
    fn held_len(&self) -> u64 {
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        pieces.iter().map(|p| p.bytes.len() as u64).sum()
    }

    /// Nothing of the packed object `object` fetched yet but its tail as
    /// kept at `kept_index` ([`super::kept`]: the bytes from its block
    /// index to its end, which a reader fetches before any frame), kept
    /// there once fetched. What is kept is checked as what is fetched:
    /// the index against the footer's CRC, the seek table against its own.
    pub(crate) fn keeping_index(object: RemoteObject, kept_index: PathBuf) -> Fetched {
        let part = super::kept::part_of(&kept_index);
        let fetched = Fetched { kept_index: Some(kept_index), ..Fetched::new(object) };
        let kept = fetched.kept_index.as_deref().and_then(|k| std::fs::read(k).ok());
        let mut pieces = fetched.pieces.write().unwrap_or_else(|e| e.into_inner());
        if let Some(kept) = kept.filter(|k| k.len() >= 8) {
            let start = u64::from_le_bytes(kept[..8].try_into().unwrap_or_default());
            let tail = kept[8..].to_vec();
            if start.checked_add(tail.len() as u64) == Some(fetched.len()) {
                fetched.add(&mut pieces, start, Arc::new(tail));
            }
        }
        // Parts of the index kept by readers that read it by range: used
        // only when the whole is not kept.
        let parts = match pieces.is_empty() {
            true => std::fs::read(&part).ok(),
            false => None,
        };
        let parts = parts.as_deref().and_then(|p| super::kept::parse_parts(p, fetched.len()));
        let loaded = AtomicBool::new(parts.as_ref().is_some_and(|p| !p.is_empty()));
        for (start, bytes) in parts.unwrap_or_default() {
            fetched.add(&mut pieces, start, Arc::new(bytes.to_vec()));
        }
        drop(pieces);
        Fetched { kept_part: Some((part, loaded)), ..fetched }
    }

    /// Keeps the held piece that runs from `from` or before to the
    /// object's end (a packed object's index and what follows it), unless
    /// kept already.
    fn keep_tail(&self, from: u64) {
        let Some(kept) = self.kept_index.as_deref().filter(|k| !k.exists()) else { return };
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        let len = self.len();
        let tail =
            pieces.iter().filter(|p| p.start <= from && p.end() == len).min_by_key(|p| p.start);
        if let Some(piece) = tail {
            let mut out = piece.start.to_le_bytes().to_vec();
            out.extend_from_slice(&piece.bytes);
            // A failure to keep it costs a fetch next time.
            let _ = super::kept::keep(kept, &out);
        }
    }

    /// Whether the pieces held cover `range` (one piece, or several end
    /// to end).
    fn covered(&self, range: &Range<u64>) -> bool {
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        covers(&pieces, range, None)
    }

    /// The held bytes of `range`, if the pieces held cover it (one piece,
    /// or several end to end).
    fn held(&self, range: &Range<u64>) -> Option<Vec<u8>> {
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        let mut out = Vec::with_capacity((range.end - range.start) as usize);
        let mut at = range.start;
        while at < range.end {
            let piece = pieces.iter().find(|p| p.start <= at && at < p.end())?;
            piece.used.fetch_max(now, Ordering::Relaxed);
            let to = range.end.min(piece.end());
            out.extend_from_slice(
                &piece.bytes[(at - piece.start) as usize..(to - piece.start) as usize],
            );
            at = to;
        }
        Some(out)
    }

    /// Fetches `ranges` and keeps them (within the object's bound: the
    /// pieces read least recently dropped first, never those used since
    /// the tick `since`, nor those just fetched).
    fn fetch(&self, ranges: &[Range<u64>], since: u64) -> io::Result<()> {
        if ranges.is_empty() {
            return Ok(());
        }
        let got = self.object.get_ranges(ranges)?;
        let mut pieces = self.pieces.write().unwrap_or_else(|e| e.into_inner());
        for (r, bytes) in ranges.iter().zip(got) {
            self.add(&mut pieces, r.start, Arc::new(bytes));
        }
        self.evict(&mut pieces, since);
        Ok(())
    }
}

/// Whether `pieces` cover `range` (one piece, or several end to end);
/// those that do are marked used at `now` when given.
fn covers(pieces: &[Piece], range: &Range<u64>, now: Option<u64>) -> bool {
    let mut at = range.start;
    while at < range.end {
        let piece = pieces.iter().filter(|p| p.start <= at && at < p.end()).max_by_key(|p| p.end());
        match piece {
            Some(p) => {
                if let Some(now) = now {
                    p.used.fetch_max(now, Ordering::Relaxed);
                }
                at = p.end();
            }
            None => return false,
        }
    }
    true
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
        // With what follows it, in one request: what is kept.
        if range.end <= self.len() {
            self.want(std::slice::from_ref(&(range.start..self.len())))?;
        }
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
        self.fetch(std::slice::from_ref(&range), self.clock.load(Ordering::Relaxed))?;
        self.held(&range).map(Cow::Owned).ok_or_else(|| io::ErrorKind::UnexpectedEof.into())
    }

    fn want(&self, ranges: &[Range<u64>]) -> io::Result<()> {
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        // Those held are about to be read: not dropped for the others.
        let since = self.clock.fetch_add(1, Ordering::Relaxed);
        let missing: Vec<Range<u64>> =
            ranges.iter().filter(|r| !covers(&pieces, r, Some(since))).cloned().collect();
        drop(pieces);
        self.fetch(&coalesce(&missing, GAP), since)
    }

    fn holds(&self, range: Range<u64>) -> bool {
        range.is_empty() || self.covered(&range) || self.object.holds_ahead(&range)
    }

    fn forget_kept_part(&self) -> bool {
        let Some((path, loaded)) = &self.kept_part else { return false };
        if !loaded.swap(false, Ordering::Relaxed) {
            return false;
        }
        let _ = std::fs::remove_file(path);
        let mut pieces = self.pieces.write().unwrap_or_else(|e| e.into_inner());
        pieces.clear();
        true
    }

    fn keep_part(&self, ranges: &[Range<u64>]) {
        let Some((path, _)) = &self.kept_part else { return };
        if self.kept_index.as_deref().is_some_and(Path::exists) {
            return;
        }
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        let mut parts: Vec<(u64, &[u8])> = Vec::new();
        for p in pieces.iter() {
            for r in ranges {
                let (start, end) = (p.start.max(r.start), p.end().min(r.end));
                if start < end {
                    let bytes = &p.bytes[(start - p.start) as usize..(end - p.start) as usize];
                    parts.push((start, bytes));
                }
            }
        }
        parts.sort_by_key(|(start, _)| *start);
        // A failure to keep them costs a fetch next time.
        let _ = super::kept::keep(path, &super::kept::encode_parts(&parts));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An object of `len` bytes in a store in memory, read by readers
    /// holding at most `bound` bytes of it.
    fn object(len: usize, bound: u64) -> RemoteObject {
        use object_store::ObjectStoreExt;
        let store: Arc<dyn object_store::ObjectStore> =
            Arc::new(object_store::memory::InMemory::new());
        let key = object_store::path::Path::from("o.log");
        let body: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        use super::super::client::block_on;
        block_on(store.put(&key, body.into())).unwrap();
        // Without its ETag: the store in memory's are bare numbers, which
        // it compares with If-Match as they are (real stores quote theirs,
        // as tg sends them).
        let meta = object_store::ObjectMeta { e_tag: None, ..block_on(store.head(&key)).unwrap() };
        RemoteObject::new(store, meta).holding_at_most(bound)
    }

    #[test]
    fn a_bounded_reader_holds_what_it_read_last_within_its_bound() {
        let fetched = Fetched::new(object(100_000, 10_000));
        for at in (0..100_000).step_by(4_000) {
            let bytes = fetched.bytes(at..at + 4_000).unwrap();
            assert_eq!(bytes[0], (at % 251) as u8);
            assert!(fetched.held_len() <= 10_000, "{} bytes held", fetched.held_len());
        }
        // The last two pieces read are held, the first ones dropped.
        assert!(fetched.held(&(92_000..100_000)).is_some());
        assert!(fetched.held(&(0..4_000)).is_none());
        // A piece read again is fetched again, and holds its place.
        fetched.bytes(0..4_000).unwrap();
        assert!(fetched.held(&(0..4_000)).is_some() && fetched.held_len() <= 10_000);
        // Ranges wanted together are all held until read, even past the bound.
        fetched.want(&[20_000..26_000, 40_000..46_000]).unwrap();
        assert!(fetched.held(&(20_000..26_000)).is_some());
        assert!(fetched.held(&(40_000..46_000)).is_some());
    }

    #[test]
    fn an_unbounded_reader_holds_all_it_read() {
        let fetched = Fetched::new(object(50_000, u64::MAX));
        for at in (0..50_000).step_by(5_000) {
            fetched.bytes(at..at + 5_000).unwrap();
        }
        assert_eq!(fetched.held_len(), 50_000);
    }

    #[test]
    fn neighbours_are_joined() {
        assert_eq!(coalesce(&[10..20, 0..5, 30..40, 200..300], 10), vec![0..40, 200..300]);
        assert_eq!(coalesce(&[0..5, 3..4, 5..5], 0), vec![0..5]);
        assert_eq!(coalesce(&[], 10), Vec::<Range<u64>>::new());
    }
}
