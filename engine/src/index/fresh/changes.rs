//! What may have changed in a tree since its index was built.
//!
//! The freshness sweep ([`super::sweep`]) must know, for every entry of the
//! file table, whether the tree still holds what the build recorded. Alone,
//! it cannot know without looking: it stats every entry ([`Changes::Unknown`]).
//! A server that watches the tree ([`crate::serve`]) knows which paths were
//! touched since the build, so the sweep stats only those
//! ([`Changes::Watched`]) and trusts the table for the rest. [`reconcile`]
//! is the one full look a watcher takes when it starts, or when it has lost
//! events: every entry whose stat differs from the table.

use std::collections::HashSet;
use std::path::Path;

use rayon::prelude::*;

use super::verdict::{Recorded, differs};
use crate::index::reader::IndexReader;
use crate::index::recorded::child_rel;
use crate::index::table::flags;
use crate::sys::dirstat::{DirStat, Meta};

/// Which entries of the file table may differ from the tree.
#[derive(Clone, Debug, Default)]
pub enum Changes {
    /// Nobody watched: any entry may have changed, so each is stat-ed.
    #[default]
    Unknown,
    /// A watcher's account of what changed since the build.
    Watched(Touched),
}

/// The paths a watcher saw touched (relative to the tree's root,
/// `/`-separated, as in the file table).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Touched {
    /// Paths created, written, renamed, deleted or re-permissioned.
    pub paths: HashSet<Vec<u8>>,
    /// Directories below which anything may have changed (moved or
    /// deleted directories, directories the watcher could not watch).
    pub subtrees: Vec<Vec<u8>>,
}

impl Changes {
    /// The ids of the table entries that may differ from the tree (and
    /// must be stat-ed), for a table of `n` entries sorted by path, whose
    /// entry `id` has path `path_of(id)`. Paths outside the tree (ignore
    /// files of parent directories, global ignore files) are never watched.
    pub fn may_differ<'p>(&self, n: u32, path_of: impl Fn(u32) -> &'p [u8]) -> MayDiffer {
        let Changes::Watched(t) = self else { return MayDiffer::All };
        let mut bits = vec![0u64; n as usize / 64 + 1];
        let mut set = |ids: std::ops::Range<u32>| {
            for id in ids {
                bits[id as usize / 64] |= 1 << (id % 64);
            }
        };
        // A path's entries are the path itself and the range under `path/`.
        let exact = |p: &[u8]| {
            let lo = first_at_least(n, &path_of, p);
            lo..if lo < n && path_of(lo) == p { lo + 1 } else { lo }
        };
        let below = |p: &[u8]| {
            let (lo, hi) = below(n, &path_of, p);
            lo..hi
        };
        for p in &t.paths {
            set(exact(p));
        }
        for s in &t.subtrees {
            if s.is_empty() {
                return MayDiffer::All;
            }
            set(exact(s));
            set(below(s));
        }
        set(exact(b".."));
        set(below(b".."));
        set(below(b""));
        MayDiffer::Some(bits)
    }
}

/// Which table entries may differ from the tree ([`Changes::may_differ`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MayDiffer {
    /// Any entry may.
    All,
    /// Bit `id % 64` of word `id / 64` set: entry `id` may.
    Some(Vec<u64>),
}

impl MayDiffer {
    /// Whether entry `id` may differ from the tree.
    pub fn contains(&self, id: u32) -> bool {
        match self {
            MayDiffer::All => true,
            MayDiffer::Some(bits) => {
                bits.get(id as usize / 64).is_some_and(|w| w & (1 << (id % 64)) != 0)
            }
        }
    }
}

/// The ids of the entries below `p/` in a table of `n` entries sorted by
/// path: `lo..hi`.
pub fn below<'p>(n: u32, path_of: &impl Fn(u32) -> &'p [u8], p: &[u8]) -> (u32, u32) {
    let mut prefix = p.to_vec();
    prefix.push(b'/');
    let lo = first_at_least(n, path_of, &prefix);
    *prefix.last_mut().expect("pushed") += 1;
    (lo, first_at_least(n, path_of, &prefix))
}

/// The first id of a table of `n` entries sorted by path whose path is at
/// least `p` (`n` when none is).
fn first_at_least<'p>(n: u32, path_of: &impl Fn(u32) -> &'p [u8], p: &[u8]) -> u32 {
    let (mut lo, mut hi) = (0u32, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if path_of(mid) < p { lo = mid + 1 } else { hi = mid }
    }
    lo
}

/// The id of the table entry of `reader` with path `rel` (ids follow path order).
pub fn lookup(reader: &IndexReader, rel: &[u8]) -> Option<crate::index::table::FileId> {
    let path_of = |id| reader.path(id);
    let id = first_at_least(reader.stats().files, &path_of, rel);
    (id < reader.stats().files && path_of(id) == rel).then_some(id)
}

/// The entries of `reader`'s table directly below directory `dir` (a
/// table path; `b""`: the root), each with whether it is a directory.
pub fn children<'r>(reader: &'r IndexReader, dir: &[u8]) -> Vec<(&'r [u8], bool)> {
    let n = reader.stats().files;
    let path_of = |id| reader.path(id);
    let prefix = if dir.is_empty() { Vec::new() } else { child_rel(dir, b"") };
    let mut out = Vec::new();
    let mut id = first_at_least(n, &path_of, &prefix);
    while let Some(f) = reader.file(id).filter(|f| f.path.starts_with(&prefix)) {
        match f.path[prefix.len()..].iter().position(|&b| b == b'/') {
            None => {
                out.push((f.path, f.flags & flags::DIR != 0));
                id += 1;
            }
            // Below a child: skip that child's subtree, all of whose
            // paths sort before the child's path followed by '/' + 1.
            Some(slash) => {
                let mut past = f.path[..prefix.len() + slash].to_vec();
                past.push(b'/' + 1);
                id = first_at_least(n, &path_of, &past);
            }
        }
    }
    out
}

/// A table path that does not name something below the root.
fn outside_tree(rel: &[u8]) -> bool {
    rel.starts_with(b"/") || rel == b".." || rel.starts_with(b"../")
}

/// The watched paths outside the tree that `reader`'s table records (a
/// parent directory's ignore file, the global ignore file, git's
/// configuration): no watch reports their changes, so a watcher stats them.
pub fn outside_watched(reader: &IndexReader) -> Vec<(Vec<u8>, Recorded)> {
    reader
        .files()
        .filter(|f| outside_tree(f.path) && f.flags & (flags::WATCH | flags::WATCH_EXISTS) != 0)
        .map(|f| {
            (f.path.to_vec(), Recorded { flags: f.flags, size: f.size, changed_ns: f.changed_ns })
        })
        .collect()
}

/// A stat of each of `watched` (from [`outside_watched`]) now; `root` is
/// the tree's root.
pub fn stat_each(watched: &[(Vec<u8>, Recorded)], root: &Path) -> Vec<Option<Meta>> {
    watched.iter().map(|(rel, _)| Meta::of_path(&root.join(crate::sys::rel_path(rel)))).collect()
}

/// Whether the stats `now` (from [`stat_each`]) show any of `watched`
/// changed since the table recorded it.
pub fn any_differs(watched: &[(Vec<u8>, Recorded)], now: &[Option<Meta>]) -> bool {
    watched.iter().zip(now).any(|((_, e), m)| differs(*e, *m))
}

/// The table entries of `reader` (an index of the tree at `root`) that
/// differ from the tree now: stats every entry, on every core.
pub fn reconcile(reader: &IndexReader, root: &Path) -> Vec<Vec<u8>> {
    let n = reader.stats().files;
    (0..n)
        .into_par_iter()
        .with_min_len(1024)
        .map_init(
            || DirStat::new(root),
            |stat, id| {
                let f = reader.file(id)?;
                if f.flags & flags::VIA_LINK != 0 {
                    // Every query stats what a link leads to itself.
                    return None;
                }
                let e = Recorded { flags: f.flags, size: f.size, changed_ns: f.changed_ns };
                let now = if outside_tree(f.path) || f.flags & flags::NOT_A_FILE & !flags::DIR != 0
                {
                    Meta::of_path(&root.join(crate::sys::rel_path(f.path)))
                } else {
                    let stat = stat.as_mut()?;
                    let md = if f.flags & flags::DIR != 0 {
                        stat.lstat_dir(f.path)
                    } else {
                        stat.lstat(f.path)
                    };
                    // Unreadable: let every query look for itself.
                    md.unwrap_or(None)
                };
                differs(e, now).then(|| f.path.to_vec())
            },
        )
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watched_changes_name_paths_and_subtrees() {
        let table: Vec<&[u8]> = vec![
            b"../.gitignore",
            b"/home/u/.config/git/ignore",
            b"a",
            b"a/b.c",
            b"a/b.cc",
            b"gone",
            b"gone-not",
            b"gone/x",
            b"gone/x/y",
            b"gonex",
        ];
        let mut sorted = table.clone();
        sorted.sort();
        let mut t = Touched::default();
        t.paths.insert(b"a/b.c".to_vec());
        t.paths.insert(b"not/in/the/table".to_vec());
        t.subtrees.push(b"gone".to_vec());
        let ids = Changes::Watched(t).may_differ(sorted.len() as u32, |id| sorted[id as usize]);
        let differing: Vec<&[u8]> = (0..sorted.len() as u32)
            .filter(|&id| ids.contains(id))
            .map(|id| sorted[id as usize])
            .collect();
        let want: Vec<&[u8]> = vec![
            b"../.gitignore",
            b"/home/u/.config/git/ignore",
            b"a/b.c",
            b"gone",
            b"gone/x",
            b"gone/x/y",
        ];
        let mut want_sorted = want.clone();
        want_sorted.sort();
        assert_eq!(differing, want_sorted);
        let all = Changes::Unknown.may_differ(3, |id| sorted[id as usize]);
        assert!((0..3).all(|id| all.contains(id)));
        let mut root = Touched::default();
        root.subtrees.push(Vec::new());
        assert_eq!(Changes::Watched(root).may_differ(3, |id| sorted[id as usize]), MayDiffer::All);
    }
}
