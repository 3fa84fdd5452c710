//! The fast freshness check: list the files to search from the index's file
//! table instead of walking the tree.
//!
//! A walk reads every directory and matches every name against the ignore
//! rules; the index already holds the result of that walk. When the search
//! uses the default filters (the ones `tg index` walked with), [`IndexFilter::sweep`]
//! instead stats, in parallel, every entry of the table below the search
//! paths, and [`verdict`] decides from each stat:
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
//!
//! The files come out in the walker's order (`--sort path`: by path
//! components), so the output is the scan's.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use rayon::prelude::*;

use super::changes::{Changes, MayDiffer};
use super::fstat::{DirStat, Meta};
use super::verdict::{Recorded, Verdict, as_recorded, verdict};
use super::{IndexFilter, maybe_packed};
use crate::index::table::{FileId, FileRef, flags};
use crate::index::tree::{WATCHED_NAMES, child_rel, under};
use crate::options::SearchOptions;
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
        opts: &SearchOptions,
        msgs: &Messages,
        changes: &Changes,
    ) -> Option<(Vec<Swept>, bool)> {
        let started = Instant::now();
        if !opts.walk.filters.is_default() || opts.walk.one_file {
            return None;
        }
        match opts.walk.sort {
            Some(sort) if !sort.is_path_order() => return None,
            // One thread without sorting prints in walk (directory) order.
            None if opts.run.threads == 1 => return None,
            _ => {}
        }
        // Every search path must be a directory inside the indexed tree.
        let mut scopes = Vec::new();
        for (given, rel) in &self.roots {
            let rel = rel.as_ref()?;
            if !given.is_dir() {
                return None;
            }
            scopes.push((given.clone(), rel.as_os_str().as_bytes().to_vec()));
        }
        // Overlapping search paths are searched once per path by a walk.
        let overlap = scopes
            .iter()
            .enumerate()
            .any(|(i, (_, a))| scopes.iter().enumerate().any(|(j, (_, b))| i != j && under(a, b)));
        if overlap {
            return None;
        }
        DirStat::new(&self.root)?;
        let n = self.reader.stats().files;
        let may_differ =
            changes.may_differ(n, |id| self.reader.file(id).map_or(&[][..], |f| f.path));
        // Entries not read and not listed are only counted.
        let keep = |v: &Verdict| *v != Verdict::Skip || self.lists_misses();
        let judge = |stat: &mut Option<DirStat>, id: FileId| {
            let f = self.reader.file(id)?;
            let in_scope = scopes.iter().any(|(_, p)| under(f.path, p));
            Some((id, self.judge(stat.as_mut()?, &f, id, in_scope, &may_differ)?))
        };
        let tally = |(mut kept, mut skipped): (Vec<(FileId, Verdict)>, u64), judged| {
            match judged {
                Some((id, v)) if keep(&v) => kept.push((id, v)),
                Some(_) => skipped += 1,
                None => {}
            }
            (kept, skipped)
        };
        // Stat-ing every entry is worth every core; taking a server's word
        // for most of them is a pass over the table, cheaper than starting
        // the thread pool.
        let (verdicts, skipped) = if matches!(changes, Changes::Unknown) {
            (0..n)
                .into_par_iter()
                .with_min_len(1024)
                .map_init(|| DirStat::new(&self.root), judge)
                .fold(|| (Vec::new(), 0), tally)
                .reduce(
                    || (Vec::new(), 0),
                    |(mut a, m), (b, k)| {
                        a.extend(b);
                        (a, m + k)
                    },
                )
        } else {
            let mut stat = DirStat::new(&self.root);
            (0..n).map(|id| judge(&mut stat, id)).fold((Vec::new(), 0), tally)
        };
        self.count(&verdicts, skipped);
        if verdicts.iter().any(|(_, v)| *v == Verdict::GiveUp) {
            return None;
        }
        let strip = opts.walk.implicit_path;
        // (search path index, file): the walker visits the search paths in
        // the order given, each in path order.
        let mut out: Vec<(usize, Swept)> = Vec::new();
        for (id, v) in &verdicts {
            let Some(f) = self.reader.file(*id) else { continue };
            let Some(scope) = scopes.iter().position(|(_, p)| under(f.path, p)) else { continue };
            let path = || display(&scopes[scope], f.path, strip);
            match v {
                Verdict::Candidate | Verdict::Changed => {
                    out.push((scope, Swept { path: path(), known_without_match: false }));
                }
                Verdict::Skip => {
                    out.push((scope, Swept { path: path(), known_without_match: true }));
                }
                Verdict::DirChanged => {
                    let dir = display(&scopes[scope], f.path, false);
                    let found = self.new_entries(opts, msgs, &dir, f.path)?;
                    out.extend(
                        found
                            .into_iter()
                            .map(|path| (scope, Swept { path, known_without_match: false })),
                    );
                }
                Verdict::GiveUp => {}
            }
        }
        if opts.walk.sort.is_some() {
            out.sort_by(|a, b| (a.0, &a.1.path).cmp(&(b.0, &b.1.path)));
        }
        let out: Vec<Swept> = out.into_iter().map(|(_, s)| s).collect();
        let any_file = !out.is_empty() || self.counters.pruned.load(Ordering::Relaxed) > 0;
        *self.sweep_time.lock().unwrap() = Some(started.elapsed());
        Some((out, any_file))
    }

    /// Stats one table entry (when it may differ from the tree) and judges
    /// it; `None` when it needs nothing (out of scope, vanished).
    fn judge(
        &self,
        stat: &mut DirStat,
        f: &FileRef<'_>,
        id: FileId,
        in_scope: bool,
        may_differ: &MayDiffer,
    ) -> Option<Verdict> {
        let is_watch = f.flags & (flags::WATCH | flags::WATCH_EXISTS) != 0;
        if !in_scope && !is_watch {
            return None;
        }
        let entry = Recorded { flags: f.flags, size: f.size, changed_ns: f.changed_ns };
        // Watched paths may lie outside the tree (`../.gitignore`, absolute).
        let now = if !may_differ.contains(id) {
            as_recorded(entry)
        } else if is_watch {
            Meta::of_path(&self.root.join(OsStr::from_bytes(f.path)))
        } else {
            let md =
                if f.flags & flags::DIR != 0 { stat.lstat_dir(f.path) } else { stat.lstat(f.path) };
            match md {
                Ok(m) => m,
                // Unreadable: a walk would report it; let the walk do so.
                Err(_) => return Some(Verdict::GiveUp),
            }
        };
        let candidate = self.is_candidate(id)
            || self.binary_needs_search(f.flags, false)
            || maybe_packed(f.path);
        verdict(entry, now, candidate)
    }

    /// Counts the verdicts of a sweep, and `skipped` entries judged
    /// [`Verdict::Skip`] and left out of them.
    fn count(&self, verdicts: &[(FileId, Verdict)], skipped: u64) {
        let c = &self.counters;
        let of = |want: Verdict| verdicts.iter().filter(|(_, v)| *v == want).count() as u64;
        c.changed.fetch_add(of(Verdict::Changed), Ordering::Relaxed);
        c.candidates.fetch_add(of(Verdict::Candidate), Ordering::Relaxed);
        c.pruned.fetch_add(of(Verdict::Skip) + skipped, Ordering::Relaxed);
    }

    /// The files a walk would find in the changed directory `dir` (printed
    /// form; `rel` in the table) that the table does not know; `None` when
    /// an ignore file or repository marker appeared.
    fn new_entries(
        &self,
        opts: &SearchOptions,
        msgs: &Messages,
        dir: &Path,
        rel: &[u8],
    ) -> Option<Vec<PathBuf>> {
        let abs = self.root.join(OsStr::from_bytes(rel));
        let join = |name: &[u8]| child_rel(rel, name);
        for name in WATCHED_NAMES {
            if abs.join(name).symlink_metadata().is_ok()
                && self.lookup(&join(name.as_bytes())).is_none()
            {
                return None;
            }
        }
        let mut out = Vec::new();
        let mut new_dirs = Vec::new();
        let builder = opts.walk_builder_at(&[dir.to_path_buf()]).ok()?;
        for entry in builder.clone().max_depth(Some(1)).build().skip(1) {
            let entry = entry.ok()?;
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            let known = self
                .lookup(&join(entry.file_name().as_bytes()))
                .and_then(|id| self.reader.file(id));
            if known.is_some_and(|f| (f.flags & flags::DIR != 0) == is_dir) {
                continue;
            }
            match entry.file_type() {
                Some(t) if t.is_dir() => new_dirs.push(entry.into_path()),
                Some(t) if t.is_file() => out.push(entry.into_path()),
                _ => {}
            }
        }
        for d in new_dirs {
            for entry in opts.walk_builder_at(&[d]).ok()?.build() {
                match entry {
                    Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => out.push(e.into_path()),
                    Ok(_) => {}
                    Err(err) => msgs.error(err),
                }
            }
        }
        self.counters.unknown.fetch_add(out.len() as u64, Ordering::Relaxed);
        if opts.walk.implicit_path {
            for p in &mut out {
                if let Ok(stripped) = p.strip_prefix("./") {
                    *p = stripped.to_path_buf();
                }
            }
        }
        Some(out)
    }
}

/// The printed path of the table entry `rel`: its search path joined with
/// the rest, the `./` prefix stripped when no path was given (`strip`).
fn display(scope: &(PathBuf, Vec<u8>), rel: &[u8], strip: bool) -> PathBuf {
    let (given, prefix) = scope;
    let rest = rel[prefix.len()..].strip_prefix(b"/").unwrap_or(&rel[prefix.len()..]);
    let joined = if rest.is_empty() { given.clone() } else { given.join(OsStr::from_bytes(rest)) };
    match joined.strip_prefix("./") {
        Ok(p) if strip => p.to_path_buf(),
        _ => joined,
    }
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
