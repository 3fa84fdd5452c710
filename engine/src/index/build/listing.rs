//! The walk's list of entries, each path held once: [`Listing`].
//!
//! A tree of half a million files has half a million paths; held as a
//! vector each, with a struct around it, they cost several times their
//! bytes. A `Listing` keeps every path in one store and a fixed 32-byte
//! record per entry pointing into it, each store in memory up to a limit
//! and beyond it in a mapped temporary file ([`Paged`]), so that the
//! listing's private memory does not grow with the tree; sorted, it
//! answers "which entries have this path" by binary search, so the build
//! needs no set of paths beside it.

use std::cmp::Ordering;
use std::io;
use std::ops::Range;
use std::path::Path;

use super::paged::Paged;
use crate::index::table::flags;

/// What the walk saw of an entry besides its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Seen {
    /// Size at the walk.
    pub(super) size: u64,
    /// ctime at the walk, `RACY`, or `i64::MIN` for an absent watched path.
    pub(super) changed_ns: i64,
    /// Table flags (0 for a file to index).
    pub(super) flags: u32,
}

/// Bytes of an entry's record: where its path lies in the paths (offset
/// u64, length u32), its flags (u32), size (u64) and ctime (i64), LE.
const ENTRY: usize = 32;

/// An entry's record.
type Record = [u8; ENTRY];

/// The little-endian integer of `N` bytes at `at` of `r`.
fn field<const N: usize>(r: &Record, at: usize) -> [u8; N] {
    r[at..at + N].try_into().expect("a field inside the record")
}

/// Where record `r`'s path lies in the paths.
fn path_range(r: &Record) -> Range<usize> {
    let off = u64::from_le_bytes(field(r, 0)) as usize;
    off..off + u32::from_le_bytes(field(r, 8)) as usize
}

/// Record `r`'s flags.
fn flags_of(r: &Record) -> u32 {
    u32::from_le_bytes(field(r, 12))
}

/// Entries found by the build's walk: files to index, directories and
/// watched paths (see [`flags::NOT_A_FILE`]).
#[derive(Debug)]
pub(super) struct Listing {
    paths: Paged,
    entries: Paged,
}

impl Listing {
    /// An empty listing holding up to `memory` bytes in memory, the rest in
    /// temporary files in `dir`.
    pub(super) fn new(dir: &Path, memory: usize) -> Listing {
        Listing { paths: Paged::new(dir, memory / 2), entries: Paged::new(dir, memory / 2) }
    }

    /// Adds an entry for `path` (unsettles: [`Listing::settle`] before
    /// reading).
    pub(super) fn push(&mut self, path: &[u8], seen: Seen) -> io::Result<()> {
        let path_len = u32::try_from(path.len()).expect("a path shorter than 4 GiB");
        let mut r = [0u8; ENTRY];
        r[0..8].copy_from_slice(&(self.paths.len() as u64).to_le_bytes());
        r[8..12].copy_from_slice(&path_len.to_le_bytes());
        r[12..16].copy_from_slice(&seen.flags.to_le_bytes());
        r[16..24].copy_from_slice(&seen.size.to_le_bytes());
        r[24..32].copy_from_slice(&seen.changed_ns.to_le_bytes());
        self.paths.push(path)?;
        self.entries.push(&r)
    }

    /// Makes every entry pushed readable (gives back the room growth left
    /// unused, or maps the temporary files).
    pub(super) fn settle(&mut self) -> io::Result<()> {
        self.paths.settle()?;
        self.entries.settle()
    }

    /// Entries listed.
    pub(super) fn len(&self) -> usize {
        self.entries.len() / ENTRY
    }

    /// Entry `i`'s record.
    fn record(&self, i: usize) -> &Record {
        self.entries.bytes()[i * ENTRY..(i + 1) * ENTRY].try_into().expect("a whole record")
    }

    /// Entry `i`'s record, to change.
    fn record_mut(&mut self, i: usize) -> &mut Record {
        let all = self.entries.bytes_mut();
        (&mut all[i * ENTRY..(i + 1) * ENTRY]).try_into().expect("a whole record")
    }

    /// Entry `i`'s path (relative to the root, or outside it for a
    /// watched path: `../…` or absolute).
    pub(super) fn path(&self, i: usize) -> &[u8] {
        &self.paths.bytes()[path_range(self.record(i))]
    }

    /// What the walk saw of entry `i`.
    pub(super) fn seen(&self, i: usize) -> Seen {
        let r = self.record(i);
        let size = u64::from_le_bytes(field(r, 16));
        Seen { size, changed_ns: i64::from_le_bytes(field(r, 24)), flags: flags_of(r) }
    }

    /// Sets what is recorded of entry `i`.
    pub(super) fn set(&mut self, i: usize, seen: Seen) {
        let r = self.record_mut(i);
        r[12..16].copy_from_slice(&seen.flags.to_le_bytes());
        r[16..24].copy_from_slice(&seen.size.to_le_bytes());
        r[24..32].copy_from_slice(&seen.changed_ns.to_le_bytes());
    }

    /// Adds `flag` to entry `i`'s flags.
    pub(super) fn add_flag(&mut self, i: usize, flag: u32) {
        let r = self.record_mut(i);
        let flags = flags_of(r) | flag;
        r[12..16].copy_from_slice(&flags.to_le_bytes());
    }

    /// Sorts the entries by path (so file ids follow path order), in place;
    /// a watched path that is also a file or directory comes first, so that
    /// a lookup by path finds the watch.
    pub(super) fn sort(&mut self) {
        let paths = self.paths.bytes();
        let path = |r: &Record| &paths[path_range(r)];
        let watch = |r: &Record| flags_of(r) & (flags::WATCH | flags::WATCH_EXISTS) == 0;
        let (records, rest) = self.entries.bytes_mut().as_chunks_mut::<ENTRY>();
        debug_assert!(rest.is_empty());
        records.sort_unstable_by(|a, b| path(a).cmp(path(b)).then(watch(a).cmp(&watch(b))));
    }

    /// The entries whose path is `path`, once sorted ([`Listing::sort`]).
    pub(super) fn find(&self, path: &[u8]) -> Range<usize> {
        let at = |i: usize| self.path(i).cmp(path);
        let start = partition(self.len(), |i| at(i) == Ordering::Less);
        let end = start + partition(self.len() - start, |i| at(start + i) != Ordering::Greater);
        start..end
    }

    /// Private memory the listing holds (what is in memory, or the write
    /// buffers of its temporary files).
    pub(super) fn memory(&self) -> usize {
        self.paths.memory() + self.entries.memory()
    }

    /// Whether the listing went to temporary files.
    #[cfg(test)]
    pub(super) fn in_files(&self) -> bool {
        self.paths.in_file() || self.entries.in_file()
    }
}

/// The first of `0..n` for which `before` is false (it is true of a
/// prefix).
fn partition(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) { lo = mid + 1 } else { hi = mid }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(flags: u32) -> Seen {
        Seen { size: 1, changed_ns: 2, flags }
    }

    #[test]
    fn sorted_by_path_watches_first_and_found_by_path() {
        let dir = tempfile::tempdir().unwrap();
        // In memory, and with every byte in temporary files.
        for memory in [1 << 20, 0] {
            let mut l = Listing::new(dir.path(), memory);
            sorted_and_found(&mut l);
            assert_eq!(l.in_files(), memory == 0);
        }
    }

    fn sorted_and_found(l: &mut Listing) {
        for (p, f) in
            [(&b"b/c"[..], 0), (b"a", flags::DIR), (b"b", flags::DIR), (b"a", flags::WATCH)]
        {
            l.push(p, seen(f)).unwrap();
        }
        l.push(b"a\xff", seen(0)).unwrap();
        l.settle().unwrap();
        l.sort();
        let order: Vec<(&[u8], u32)> = (0..l.len()).map(|i| (l.path(i), l.seen(i).flags)).collect();
        let want: Vec<(&[u8], u32)> = vec![
            (b"a", flags::WATCH),
            (b"a", flags::DIR),
            (b"a\xff", 0),
            (b"b", flags::DIR),
            (b"b/c", 0),
        ];
        assert_eq!(order, want);
        assert_eq!(l.find(b"a"), 0..2);
        assert_eq!(l.find(b"b/c"), 4..5);
        assert_eq!(l.find(b"a/"), 2..2);
        assert_eq!(l.find(b""), 0..0);
        assert_eq!(l.find(b"z"), 5..5);
        l.add_flag(4, flags::VIA_LINK);
        assert_eq!(l.seen(4), Seen { flags: flags::VIA_LINK, ..seen(0) });
        l.set(0, Seen { size: 7, changed_ns: -3, flags: flags::DIR });
        assert_eq!(
            (l.path(0), l.seen(0)),
            (&b"a"[..], Seen { size: 7, changed_ns: -3, flags: flags::DIR })
        );
        if !l.in_files() {
            // Each path once, and 32 bytes an entry.
            assert_eq!(l.memory(), 3 + 1 + 1 + 1 + 2 + 5 * 32);
        }
    }
}
