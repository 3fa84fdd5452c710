//! The walk's list of entries, each path held once: [`Listing`].
//!
//! A tree of half a million files has half a million paths; held as a
//! vector each, with a struct around it, they cost several times their
//! bytes. A `Listing` keeps every path in one buffer and a fixed
//! [`Entry`] (32 bytes) per entry, pointing into it; sorted, it answers
//! "which entries have this path" by binary search, so the build needs
//! no set of paths beside it.

use std::cmp::Ordering;
use std::ops::Range;

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

/// One entry: where its path lies in the buffer, and what the walk saw.
#[derive(Clone, Copy, Debug)]
struct Entry {
    path_off: u64,
    path_len: u32,
    flags: u32,
    size: u64,
    changed_ns: i64,
}

/// Entries found by the build's walk: files to index, directories and
/// watched paths (see [`flags::NOT_A_FILE`]).
#[derive(Debug, Default)]
pub(super) struct Listing {
    paths: Vec<u8>,
    entries: Vec<Entry>,
}

impl Listing {
    /// Adds an entry for `path`.
    pub(super) fn push(&mut self, path: &[u8], seen: Seen) {
        let path_len = u32::try_from(path.len()).expect("a path shorter than 4 GiB");
        let path_off = self.paths.len() as u64;
        self.paths.extend_from_slice(path);
        let Seen { size, changed_ns, flags } = seen;
        self.entries.push(Entry { path_off, path_len, flags, size, changed_ns });
    }

    /// Entries listed.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Entry `i`'s path (relative to the root, or outside it for a
    /// watched path: `../…` or absolute).
    pub(super) fn path(&self, i: usize) -> &[u8] {
        let e = &self.entries[i];
        &self.paths[e.path_off as usize..e.path_off as usize + e.path_len as usize]
    }

    /// What the walk saw of entry `i`.
    pub(super) fn seen(&self, i: usize) -> Seen {
        let e = &self.entries[i];
        Seen { size: e.size, changed_ns: e.changed_ns, flags: e.flags }
    }

    /// Sets what is recorded of entry `i`.
    pub(super) fn set(&mut self, i: usize, seen: Seen) {
        let e = &mut self.entries[i];
        (e.size, e.changed_ns, e.flags) = (seen.size, seen.changed_ns, seen.flags);
    }

    /// Adds `flag` to entry `i`'s flags.
    pub(super) fn add_flag(&mut self, i: usize, flag: u32) {
        self.entries[i].flags |= flag;
    }

    /// Sorts the entries by path (so file ids follow path order); a
    /// watched path that is also a file or directory comes first, so that
    /// a lookup by path finds the watch.
    pub(super) fn sort(&mut self) {
        let paths = &self.paths;
        let path =
            |e: &Entry| &paths[e.path_off as usize..e.path_off as usize + e.path_len as usize];
        let watch = |e: &Entry| e.flags & (flags::WATCH | flags::WATCH_EXISTS) == 0;
        self.entries.sort_unstable_by(|a, b| path(a).cmp(path(b)).then(watch(a).cmp(&watch(b))));
    }

    /// The entries whose path is `path`, once sorted ([`Listing::sort`]).
    pub(super) fn find(&self, path: &[u8]) -> Range<usize> {
        let at = |i: usize| self.path(i).cmp(path);
        let start = partition(self.len(), |i| at(i) == Ordering::Less);
        let end = start + partition(self.len() - start, |i| at(start + i) != Ordering::Greater);
        start..end
    }

    /// Gives back the room the walk's growth left unused.
    pub(super) fn shrink_to_fit(&mut self) {
        self.paths.shrink_to_fit();
        self.entries.shrink_to_fit();
    }

    /// Bytes the listing holds.
    pub(super) fn bytes(&self) -> usize {
        self.paths.capacity() + self.entries.capacity() * size_of::<Entry>()
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
        let mut l = Listing::default();
        for (p, f) in
            [(&b"b/c"[..], 0), (b"a", flags::DIR), (b"b", flags::DIR), (b"a", flags::WATCH)]
        {
            l.push(p, seen(f));
        }
        l.push(b"a\xff", seen(0));
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
        // Each path once, and 32 bytes an entry.
        l.shrink_to_fit();
        assert_eq!(l.bytes(), 3 + 1 + 1 + 1 + 2 + 5 * 32);
    }
}
