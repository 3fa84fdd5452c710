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
//! The files come out in the walker's order (`--sort path`: by path
//! components), so the output is the scan's.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use rayon::prelude::*;

use super::fstat::{DirStat, Meta};
use super::{IndexFilter, maybe_packed};
use crate::index::table::{FileId, FileRef, flags};
use crate::index::tree::{WATCHED_NAMES, changed_ns, child_rel, under};
use crate::options::SearchOptions;
use crate::report::Messages;

/// What the stat of one table entry decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Unchanged and not a candidate: not read (only counted).
    Skip,
    /// Unchanged and a candidate: read it.
    Candidate,
    /// Changed since the build: read it.
    Changed,
    /// A directory whose entries changed: walk it one level deep.
    DirChanged,
    /// A watched path changed: the table cannot be trusted for this search.
    GiveUp,
}

/// A file the sweep lists for the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Swept {
    /// The path as printed.
    pub path: PathBuf,
    /// Unchanged and not a candidate: listed only because the output
    /// reports files without a match; it need not be read.
    pub known_without_match: bool,
}

/// What the table recorded of an entry, as [`verdict`] needs it.
#[derive(Clone, Copy, Debug)]
pub struct Recorded {
    /// The entry's flags (`table::flags`).
    pub flags: u32,
    /// Its size at the build.
    pub size: u64,
    /// Its ctime at the build ([`crate::index::table::RACY`]: always changed;
    /// `i64::MIN`: a watched path that was absent).
    pub changed_ns: i64,
}

/// The verdict on one table entry, given what a stat of it found now
/// (`None`: it is gone) and whether its document is a candidate; `None`
/// when it needs nothing (a vanished file, or a file now something else).
pub fn verdict(entry: Recorded, now: Option<Meta>, candidate: bool) -> Option<Verdict> {
    if entry.flags & flags::WATCH_EXISTS != 0 {
        let was = entry.changed_ns != i64::MIN;
        return (now.is_some() != was).then_some(Verdict::GiveUp);
    }
    if entry.flags & flags::WATCH != 0 {
        let same = match &now {
            Some(m) => m.size == entry.size && m.changed_ns == entry.changed_ns,
            None => entry.changed_ns == i64::MIN,
        };
        return (!same).then_some(Verdict::GiveUp);
    }
    let now = now?;
    if entry.flags & flags::DIR != 0 {
        if !now.is_dir && !now.is_file {
            // Replaced by a link (or stranger): a walk does not enter
            // it, but a walk started at it would; let the walk decide.
            return Some(Verdict::GiveUp);
        }
        // Replaced by a file: its parent changed too, and lists it.
        let changed = !now.is_dir || now.changed_ns != entry.changed_ns;
        return changed.then_some(Verdict::DirChanged);
    }
    if !now.is_file {
        // Now a symlink or something else: a walk would not search it.
        return None;
    }
    Some(if now.size != entry.size || now.changed_ns != entry.changed_ns {
        Verdict::Changed
    } else if candidate {
        Verdict::Candidate
    } else {
        Verdict::Skip
    })
}

impl IndexFilter {
    /// The files to search, listed from the index (see the module docs), and
    /// whether a walk would have found any file; `None` when the search must
    /// walk instead.
    pub fn sweep(&self, opts: &SearchOptions, msgs: &Messages) -> Option<(Vec<Swept>, bool)> {
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
            .filter(|(_, v)| *v != Verdict::Skip || self.lists_misses())
            .collect();
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

    /// Stats one table entry and counts its verdict; `None` when it needs
    /// nothing (out of scope, vanished).
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
        let now = if is_watch {
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
        let entry = Recorded { flags: f.flags, size: f.size, changed_ns: f.changed_ns };
        let candidate = self.is_candidate(id)
            || self.binary_needs_search(f.flags, false)
            || maybe_packed(f.path);
        let v = verdict(entry, now, candidate)?;
        let c = &self.counters;
        match v {
            Verdict::Changed => c.changed.fetch_add(1, Ordering::Relaxed),
            Verdict::Candidate => c.candidates.fetch_add(1, Ordering::Relaxed),
            Verdict::Skip => c.pruned.fetch_add(1, Ordering::Relaxed),
            Verdict::DirChanged | Verdict::GiveUp => 0,
        };
        Some(v)
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

    const T: i64 = 1_700_000_000_000_000_000;

    fn file(size: u64) -> Recorded {
        Recorded { flags: 0, size, changed_ns: T }
    }

    fn now_file(size: u64, changed_ns: i64) -> Option<Meta> {
        Some(Meta { is_file: true, is_dir: false, size, changed_ns })
    }

    fn now_dir(changed_ns: i64) -> Option<Meta> {
        Some(Meta { is_file: false, is_dir: true, size: 4096, changed_ns })
    }

    #[test]
    fn unchanged_files_are_read_only_as_candidates() {
        assert_eq!(verdict(file(10), now_file(10, T), false), Some(Verdict::Skip));
        assert_eq!(verdict(file(10), now_file(10, T), true), Some(Verdict::Candidate));
    }

    #[test]
    fn changed_size_or_ctime_is_read_and_racy_entries_always_are() {
        assert_eq!(verdict(file(10), now_file(11, T), false), Some(Verdict::Changed));
        assert_eq!(verdict(file(10), now_file(10, T + 1), false), Some(Verdict::Changed));
        let racy = Recorded { changed_ns: crate::index::table::RACY, ..file(10) };
        assert_eq!(verdict(racy, now_file(10, T), false), Some(Verdict::Changed));
    }

    #[test]
    fn vanished_files_and_files_turned_into_links_are_not_read() {
        assert_eq!(verdict(file(10), None, true), None);
        let link = Some(Meta { is_file: false, is_dir: false, size: 10, changed_ns: T });
        assert_eq!(verdict(file(10), link, true), None);
    }

    #[test]
    fn directories_walk_when_changed_and_give_up_when_linked() {
        let dir = Recorded { flags: flags::DIR, size: 0, changed_ns: T };
        assert_eq!(verdict(dir, now_dir(T), false), None);
        assert_eq!(verdict(dir, now_dir(T + 5), false), Some(Verdict::DirChanged));
        assert_eq!(verdict(dir, now_file(3, T), false), Some(Verdict::DirChanged));
        let link = Some(Meta { is_file: false, is_dir: false, size: 0, changed_ns: T });
        assert_eq!(verdict(dir, link, false), Some(Verdict::GiveUp));
        assert_eq!(verdict(dir, None, false), None);
    }

    #[test]
    fn watched_paths_give_up_on_any_change() {
        let w = Recorded { flags: flags::WATCH, size: 12, changed_ns: T };
        assert_eq!(verdict(w, now_file(12, T), false), None);
        assert_eq!(verdict(w, now_file(13, T), false), Some(Verdict::GiveUp));
        assert_eq!(verdict(w, None, false), Some(Verdict::GiveUp));
        let absent = Recorded { flags: flags::WATCH, size: 0, changed_ns: i64::MIN };
        assert_eq!(verdict(absent, None, false), None);
        assert_eq!(verdict(absent, now_file(0, T), false), Some(Verdict::GiveUp));
        let marker = Recorded { flags: flags::WATCH_EXISTS, size: 0, changed_ns: 0 };
        assert_eq!(verdict(marker, now_dir(T), false), None);
        assert_eq!(verdict(marker, None, false), Some(Verdict::GiveUp));
    }

    #[test]
    fn printed_paths_join_the_search_path() {
        let scope = (PathBuf::from("./"), Vec::new());
        assert_eq!(display(&scope, b"a/b.rs", true), PathBuf::from("a/b.rs"));
        assert_eq!(display(&scope, b"a/b.rs", false), PathBuf::from("./a/b.rs"));
        let scope = (PathBuf::from("src"), b"pkg/src".to_vec());
        assert_eq!(display(&scope, b"pkg/src/x.go", false), PathBuf::from("src/x.go"));
    }
}
