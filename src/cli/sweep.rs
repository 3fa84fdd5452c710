//! The fast freshness check: list the files to search from the index's file
//! table instead of walking the tree.
//!
//! A walk reads every directory and matches every name against the ignore
//! rules; the index already holds the result of that walk. When the search
//! uses the default filters (the ones `tg index` walked with), [`IndexFilter::sweep`]
//! instead stats, in parallel, every entry of the table below the search
//! paths:
//!
//! - a file that is unchanged (same size and ctime) is searched
//!   only if it is a candidate; a changed one is searched; a vanished one is
//!   not (and so never printed);
//! - a directory whose ctime changed had entries added or
//!   removed: it is walked one level deep with the search's own walker (new
//!   files are searched, new directories walked whole);
//! - a watched path (ignore files, repository markers, git configuration)
//!   that changed, appeared or vanished changes what a walk yields, so the
//!   sweep gives up and the search walks (see [`super::indexed`]).
//!
//! The files come out in the walker's order (`--sort path`: by path
//! components), so the output is the scan's.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use rayon::prelude::*;
use trigrep::index::table::{FileId, FileRef, flags};

use super::args::SortBy;
use super::config::Config;
use super::fstat::{DirStat, Meta};
use super::index_cmd::{WATCHED_NAMES, changed_ns, child_rel};
use super::indexed::IndexFilter;
use super::scan::Subject;

/// What the stat of one table entry decided.
enum Verdict {
    /// Unchanged and not a candidate: not read (only counted).
    Skip,
    /// Read it: a candidate, or changed since the build.
    Search,
    /// A directory whose entries changed: walk it one level deep.
    DirChanged,
    /// A watched path changed: the table cannot be trusted for this search.
    GiveUp,
}

impl IndexFilter {
    /// The files to search, listed from the index (see the module docs), and
    /// whether a walk would have found any file; `None` when the search must
    /// walk instead.
    pub fn sweep(&self, config: &Config) -> Option<(Vec<Subject>, bool)> {
        let started = Instant::now();
        if !config.walk_is_default() || config.is_one_file {
            return None;
        }
        if matches!(config.sort, Some((kind, reverse)) if kind != SortBy::Path || reverse) {
            return None;
        }
        if config.threads == 1 && config.sort.is_none() {
            // One thread without sorting prints in walk (directory) order.
            return None;
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
        let verdicts: Vec<(FileId, Verdict)> = (0..n)
            .into_par_iter()
            .with_min_len(1024)
            .map_init(
                || DirStat::new(&self.root),
                |stat, id| {
                    let f = self.reader.file(id)?;
                    let in_scope = scopes.iter().any(|(_, p)| under(f.path, p));
                    let v = self.judge(stat.as_mut()?, &f, id, in_scope)?;
                    Some((id, v))
                },
            )
            .flatten()
            .filter(|(_, v)| !matches!(v, Verdict::Skip))
            .collect();
        if verdicts.iter().any(|(_, v)| matches!(v, Verdict::GiveUp)) {
            return None;
        }
        let strip = config.has_implicit_path;
        // (search path index, subject): the walker visits the search paths in
        // the order given, each in path order.
        let mut out: Vec<(usize, Subject)> = Vec::new();
        for (id, v) in &verdicts {
            let Some(f) = self.reader.file(*id) else { continue };
            let Some(scope) = scopes.iter().position(|(_, p)| under(f.path, p)) else { continue };
            match v {
                Verdict::Search => out.extend(
                    Self::display(&scopes[scope], f.path, strip)
                        .map(|p| (scope, Subject::listed(p))),
                ),
                Verdict::DirChanged => {
                    let dir = Self::display(&scopes[scope], f.path, false)?;
                    let found = self.new_entries(config, &dir, f.path)?;
                    out.extend(found.into_iter().map(|s| (scope, s)));
                }
                Verdict::Skip | Verdict::GiveUp => {}
            }
        }
        if config.sort.is_some() {
            out.sort_by(|a, b| (a.0, a.1.path()).cmp(&(b.0, b.1.path())));
        }
        let out: Vec<Subject> = out.into_iter().map(|(_, s)| s).collect();
        let any_file = !out.is_empty() || self.counters.pruned.load(Ordering::Relaxed) > 0;
        *self.sweep_time.lock().unwrap() = Some(started.elapsed());
        Some((out, any_file))
    }

    /// Stats one table entry; `None` when it needs nothing (out of scope, vanished).
    fn judge(
        &self,
        stat: &mut DirStat,
        f: &FileRef<'_>,
        id: FileId,
        in_scope: bool,
    ) -> Option<Verdict> {
        let is_watch = f.flags & (flags::WATCH | flags::WATCH_EXISTS) != 0;
        if !in_scope && !is_watch {
            return None;
        }
        // Watched paths may lie outside the tree (`../.gitignore`, absolute).
        let md = if is_watch {
            std::fs::symlink_metadata(self.root.join(OsStr::from_bytes(f.path))).ok().map(|m| {
                Meta {
                    is_file: m.is_file(),
                    is_dir: m.is_dir(),
                    size: m.len(),
                    changed_ns: changed_ns(&m),
                }
            })
        } else {
            let md =
                if f.flags & flags::DIR != 0 { stat.lstat_dir(f.path) } else { stat.lstat(f.path) };
            match md {
                Ok(m) => m,
                // Unreadable: a walk would report it; let the walk do so.
                Err(_) => return Some(Verdict::GiveUp),
            }
        };
        let c = &self.counters;
        if f.flags & flags::WATCH_EXISTS != 0 {
            let was = f.changed_ns != i64::MIN;
            return (md.is_some() != was).then_some(Verdict::GiveUp);
        }
        if f.flags & flags::WATCH != 0 {
            let same = match &md {
                Some(m) => m.size == f.size && m.changed_ns == f.changed_ns,
                None => f.changed_ns == i64::MIN,
            };
            return (!same).then_some(Verdict::GiveUp);
        }
        let md = md?;
        if f.flags & flags::DIR != 0 {
            if !md.is_dir && !md.is_file {
                // Replaced by a link (or stranger): a walk does not enter
                // it, but a walk started at it would; let the walk decide.
                return Some(Verdict::GiveUp);
            }
            // Replaced by a file: its parent changed too, and lists it.
            let changed = !md.is_dir || md.changed_ns != f.changed_ns;
            return changed.then_some(Verdict::DirChanged);
        }
        if !md.is_file {
            // Now a symlink or something else: a walk would not search it.
            return None;
        }
        if md.size != f.size || md.changed_ns != f.changed_ns {
            c.changed.fetch_add(1, Ordering::Relaxed);
            return Some(Verdict::Search);
        }
        if self.is_candidate(id) || self.binary_needs_search(f.flags, false) {
            c.candidates.fetch_add(1, Ordering::Relaxed);
            Some(Verdict::Search)
        } else {
            c.pruned.fetch_add(1, Ordering::Relaxed);
            Some(Verdict::Skip)
        }
    }

    /// The printed path of the table entry `rel`: its search path joined
    /// with the rest, the `./` prefix stripped when no path was given.
    fn display(scope: &(PathBuf, Vec<u8>), rel: &[u8], strip: bool) -> Option<PathBuf> {
        let (given, prefix) = scope;
        let rest = rel[prefix.len()..].strip_prefix(b"/").unwrap_or(&rel[prefix.len()..]);
        let joined =
            if rest.is_empty() { given.clone() } else { given.join(OsStr::from_bytes(rest)) };
        match joined.strip_prefix("./") {
            Ok(p) if strip => Some(p.to_path_buf()),
            _ => Some(joined),
        }
    }

    /// The files a walk would find in the changed directory `dir` (printed
    /// form; `rel` in the table) that the table does not know; `None` when
    /// an ignore file or repository marker appeared.
    fn new_entries(&self, config: &Config, dir: &Path, rel: &[u8]) -> Option<Vec<Subject>> {
        let abs = self.root.join(OsStr::from_bytes(rel));
        let join = |name: &[u8]| child_rel(rel, name);
        for name in WATCHED_NAMES {
            if abs.join(name).symlink_metadata().is_ok()
                && self.lookup(&join(name.as_bytes())).is_none()
            {
                return None;
            }
        }
        let strip = config.has_implicit_path;
        let mut out: Vec<Subject> = Vec::new();
        let mut new_dirs = Vec::new();
        let builder = config.walk_builder_at(&[dir.to_path_buf()]).ok()?;
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
                Some(t) if t.is_file() => {
                    self.counters.unknown.fetch_add(1, Ordering::Relaxed);
                    out.push(Subject::listed(entry.into_path()));
                }
                _ => {}
            }
        }
        for d in new_dirs {
            let walk = config.walk_builder_at(&[d]).ok()?.build();
            for subject in walk.filter_map(|r| Subject::from_walk(r, false)) {
                self.counters.unknown.fetch_add(1, Ordering::Relaxed);
                out.push(Subject::listed(subject.path().to_path_buf()));
            }
        }
        if strip {
            for s in &mut out {
                if let Ok(p) = s.path().strip_prefix("./") {
                    *s = Subject::listed(p.to_path_buf());
                }
            }
        }
        Some(out)
    }
}

/// Whether table path `rel` is `prefix` or below it (`prefix` empty: the root).
fn under(rel: &[u8], prefix: &[u8]) -> bool {
    prefix.is_empty()
        || (rel.starts_with(prefix) && (rel.len() == prefix.len() || rel[prefix.len()] == b'/'))
}
