//! The fast freshness check: list the files to search from the index's file
//! table instead of walking the tree.
//!
//! A walk reads every directory and matches every name against the ignore
//! rules; the index already holds the result of that walk. When the search
//! uses the default filters (the ones `tg index` walked with), [`IndexFilter::sweep`]
//! instead stats, in parallel, every entry of the table below the search
//! paths ([`super::judge`]), and [`super::verdict`] decides from each stat:
//!
//! - a file that is unchanged (same size and ctime) is searched
//!   only if it is a candidate; a changed one is searched; a vanished one is
//!   not (and so never printed);
//! - a directory whose ctime changed had entries added or
//!   removed: it is walked one level deep with the search's own walker (new
//!   files are searched, new directories walked whole);
//! - a watched path (ignore files, repository markers, git configuration)
//!   that changed, appeared or vanished changes what a walk yields, so the
//!   sweep gives up and the search walks (see [`super`]).
//!
//! A server watching the tree tells which entries may have changed
//! ([`Changes`]); only those are stat-ed then, and the pass over the table
//! runs on one thread (starting the pool would cost more than the pass).
//! A server can also run the pass itself and send what it judged; [`list`]
//! turns judged entries, from either, into the files to search.
//!
//! The files come out in the walker's order (`--sort path`: by path
//! components), so the output is the scan's.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::IndexFilter;
use super::changes::Changes;
use super::judge::Counts;
use super::rules::Rules;
use super::verdict::Verdict;
use super::view::{
    Decided, View, any_admitted, display, follows, outside_dirs, standing, table_admits,
};
use crate::index::recorded::{WATCHED_NAMES, child_rel, under};
use crate::index::table::flags;
use crate::report::Messages;

/// A file the sweep lists for the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Swept {
    /// The path as printed.
    pub path: PathBuf,
    /// Unchanged and not a candidate: listed only because the output
    /// reports files without a match; it need not be read.
    pub known_without_match: bool,
}

impl IndexFilter {
    /// The files to search, listed from the index (see the module docs), and
    /// whether a walk would have found any file; `None` when the search must
    /// walk instead.
    /// `changes` says which entries may differ from the tree: each of them
    /// is stat-ed, the rest are taken as the table recorded them.
    pub fn sweep(
        &self,
        rules: &Rules<'_>,
        msgs: &Messages,
        changes: &Changes,
    ) -> Option<(Vec<Swept>, bool)> {
        let started = Instant::now();
        let scopes = scopes_for(rules, &self.roots)?;
        let view = View::of(rules.filters())?;
        let prefixes: Vec<Vec<u8>> = scopes.iter().map(|(_, p)| p.clone()).collect();
        let admitted = table_admits(&self.reader, &self.root, &prefixes, view.out, view.no_parent)?;
        let outside: Vec<Vec<u8>> = match view.includes {
            true => outside_dirs(&self.reader, &prefixes, view.out, view.judged)
                .into_iter()
                .map(<[u8]>::to_vec)
                .collect(),
            false => Vec::new(),
        };
        if !view.answers(&scopes, &admitted, &outside) {
            return None;
        }
        let n = self.reader.stats().files;
        let may_differ = changes.may_differ(n, |id| self.reader.path(id));
        let judged = self.judge(view.judged).table(&prefixes, &may_differ)?;
        self.count(&judged.counts);
        let follow = follows(view.out);
        let entries: Vec<(&[u8], Verdict, bool)> = judged
            .kept
            .iter()
            .filter_map(|(id, v)| {
                let f = self.reader.file(*id)?;
                Some((f.path, *v, standing(&self.reader, &f, view.out, follow)?))
            })
            .collect();
        let known = |rel: &[u8]| {
            let f = self.reader.file(self.lookup(rel)?)?;
            Some(f.flags & flags::DIR != 0)
        };
        let listing = Listing { view: &view, scopes: &scopes, admitted: false };
        if entries.iter().any(|(_, v, _)| *v == Verdict::GiveUp) {
            return None;
        }
        let (out, unknown) = list(rules, msgs, &listing, &self.root, entries, &known)?;
        self.counters.unknown.fetch_add(unknown, Ordering::Relaxed);
        let any_file = !out.is_empty()
            || if view.has_filters() && judged.counts.pruned > 0 {
                // The files not read may all be ones the filters leave out.
                any_admitted(&self.reader, &self.root, &view, &scopes)
            } else {
                judged.counts.pruned > 0
            };
        *self.sweep_time.lock().unwrap() = Some(started.elapsed());
        Some((out, any_file))
    }

    /// Adds a pass's counts to the filter's.
    fn count(&self, counts: &Counts) {
        let c = &self.counters;
        c.changed.fetch_add(counts.changed, Ordering::Relaxed);
        c.candidates.fetch_add(counts.candidates, Ordering::Relaxed);
        c.pruned.fetch_add(counts.pruned, Ordering::Relaxed);
    }
}

/// The search paths of a sweep, each as given and as a table path (see
/// [`super::roots_for`]); `None` when the search must walk instead: its
/// order is not path order, or a search path is not a directory inside
/// the indexed tree, or lies inside another. Its walk rules are checked
/// apart ([`View::of`]).
pub fn scopes_for(
    rules: &Rules<'_>,
    roots: &[(PathBuf, Option<PathBuf>)],
) -> Option<Vec<(PathBuf, Vec<u8>)>> {
    if rules.walk.one_file {
        return None;
    }
    match rules.walk.sort {
        Some(sort) if !sort.is_path_order() => return None,
        // One thread without sorting prints in walk (directory) order.
        None if rules.threads == 1 => return None,
        _ => {}
    }
    let mut scopes = Vec::new();
    for (given, rel) in roots {
        let rel = rel.as_ref()?;
        if !given.is_dir() {
            return None;
        }
        scopes.push((given.clone(), crate::sys::rel_bytes(rel).into_owned()));
    }
    // Overlapping search paths are searched once per path by a walk.
    let overlap = scopes
        .iter()
        .enumerate()
        .any(|(i, (_, a))| scopes.iter().enumerate().any(|(j, (_, b))| i != j && under(a, b)));
    (!overlap).then_some(scopes)
}

/// What a listing's entries are judged by: the search's walk as the
/// table answers it, below its search paths.
pub struct Listing<'a> {
    /// Which entries the search's walk yields.
    pub view: &'a View,
    /// The search paths, each as given and as a table path.
    pub scopes: &'a [(PathBuf, Vec<u8>)],
    /// The entries were already judged by the view's filters (a server
    /// applied the globs): each is listed.
    pub admitted: bool,
}

/// The files to search, in the walker's order, from the judged table
/// `entries` (table path, verdict and whether it stands outside the base
/// walk, [`super::view::standing`]; in table order) of the tree at
/// `root`, and how many of them the table does not know; `None` when the
/// table cannot stand in for a walk (an ignore file or repository marker
/// appeared; the caller gives up before on a watched path that changed,
/// [`Verdict::GiveUp`]). `listing` says which entries the
/// search's walk yields. `known(path)` says whether the
/// table holds `path`, and whether as a directory.
pub fn list<'e>(
    rules: &Rules<'_>,
    msgs: &Messages,
    listing: &Listing<'_>,
    root: &Path,
    entries: impl IntoIterator<Item = (&'e [u8], Verdict, bool)>,
    known: &dyn Fn(&[u8]) -> Option<bool>,
) -> Option<(Vec<Swept>, u64)> {
    let entries = entries.into_iter();
    let strip = rules.walk.implicit_path;
    let mut unknown = 0;
    // (search path index, file): the walker visits the search paths in
    // the order given, each in path order.
    let mut out: Vec<(usize, Swept)> = Vec::with_capacity(entries.size_hint().0);
    let mut dirs = Decided::default();
    let (view, scopes) = (listing.view, listing.scopes);
    for (path, v, outside) in entries {
        let Some(scope) = scopes.iter().position(|(_, p)| under(path, p)) else { continue };
        let is_dir = v == Verdict::DirChanged;
        if !listing.admitted && !view.admits(&scopes[scope], path, is_dir, outside, &mut dirs) {
            continue;
        }
        let listed = |without_match| Swept {
            path: display(&scopes[scope], path, strip),
            known_without_match: without_match,
        };
        match v {
            Verdict::Candidate | Verdict::Changed => out.push((scope, listed(false))),
            Verdict::Skip => out.push((scope, listed(true))),
            Verdict::DirChanged => {
                let dir = display(&scopes[scope], path, false);
                let found = new_entries(rules, msgs, root, &dir, path, known)?;
                unknown += found.len() as u64;
                out.extend(
                    found
                        .into_iter()
                        .map(|path| (scope, Swept { path, known_without_match: false })),
                );
            }
            Verdict::GiveUp => {}
        }
    }
    if rules.walk.sort.is_some() {
        out.sort_by(|a, b| (a.0, &a.1.path).cmp(&(b.0, &b.1.path)));
    }
    Some((out.into_iter().map(|(_, s)| s).collect(), unknown))
}

/// The files a walk would find in the changed directory `dir` (printed
/// form; `rel` in the table of the tree at `root`) that the table does not
/// know; `None` when an ignore file or repository marker appeared.
fn new_entries(
    rules: &Rules<'_>,
    msgs: &Messages,
    root: &Path,
    dir: &Path,
    rel: &[u8],
    known: &dyn Fn(&[u8]) -> Option<bool>,
) -> Option<Vec<PathBuf>> {
    let abs = root.join(crate::sys::rel_path(rel));
    let join = |name: &[u8]| child_rel(rel, name);
    for name in WATCHED_NAMES {
        if abs.join(name).symlink_metadata().is_ok() && known(&join(name.as_bytes())).is_none() {
            return None;
        }
    }
    if nothing_new(&abs, &join, known) {
        // The walker would find nothing the table does not hold: its
        // ignore rules, and those of every child directory it passes, are
        // not read.
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    let mut new_dirs = Vec::new();
    let builder = rules.walk_builder_at(&[dir.to_path_buf()]).ok()?;
    for entry in builder.clone().max_depth(Some(1)).build().skip(1) {
        let entry = entry.ok()?;
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        if known(&join(entry.file_name().as_encoded_bytes())) == Some(is_dir) {
            continue;
        }
        match entry.file_type() {
            Some(t) if t.is_dir() => new_dirs.push(entry.into_path()),
            Some(t) if t.is_file() => out.push(entry.into_path()),
            _ => {}
        }
    }
    for d in new_dirs {
        for entry in rules.walk_builder_at(&[d]).ok()?.build() {
            match entry {
                Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => out.push(e.into_path()),
                Ok(_) => {}
                Err(err) => msgs.error(err),
            }
        }
    }
    if rules.walk.implicit_path {
        for p in &mut out {
            if let Ok(stripped) = p.strip_prefix("./") {
                *p = stripped.to_path_buf();
            }
        }
    }
    Some(out)
}

/// Whether every entry of the directory `abs` is one the table holds, as
/// what it is now (`join` makes a child's table path); `false` when
/// unsure (a symbolic link, whose walk depends on `-L`, or an error).
fn nothing_new(
    abs: &Path,
    join: &dyn Fn(&[u8]) -> Vec<u8>,
    known: &dyn Fn(&[u8]) -> Option<bool>,
) -> bool {
    let Ok(entries) = std::fs::read_dir(abs) else { return false };
    entries.into_iter().all(|e| {
        let Ok(e) = e else { return false };
        match e.file_type() {
            Ok(t) if t.is_dir() || t.is_file() => {
                known(&join(e.file_name().as_encoded_bytes())) == Some(t.is_dir())
            }
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_paths_join_the_search_path() {
        let scope = (PathBuf::from("./"), Vec::new());
        assert_eq!(display(&scope, b"a/b.rs", true), PathBuf::from("a/b.rs"));
        assert_eq!(display(&scope, b"a/b.rs", false), PathBuf::from("./a/b.rs"));
        let scope = (PathBuf::from("src"), b"pkg/src".to_vec());
        assert_eq!(display(&scope, b"pkg/src/x.go", false), PathBuf::from("src/x.go"));
    }
}
