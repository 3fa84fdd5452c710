//! The build's walk: the files the recorded search walks yield (the
//! default one, `--hidden`, an editor's `--hidden --no-require-git
//! --follow`; `table::views`), each flagged with the walks that leave it
//! out, plus the directories and watched paths (ignore files, repository
//! markers, git configuration) that let a query trust the table later,
//! in a `Listing` sorted by path.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::listing::{Listing, Seen};
use crate::index::error::IndexError;
use crate::index::recorded::{WATCHED_NAMES, child_rel, is_store, recorded_ns};
use crate::index::table::{RACY, flags, views};
use crate::options::WalkFilters;
use crate::sys::dirstat::{DirStat, Meta};

/// Where the build's walk failed: a directory it could not read, a path
/// too long to open. A search's walk fails there too and says so.
#[derive(Clone, Debug)]
pub struct WalkError {
    /// The path (below the root as walked: absolute).
    pub path: PathBuf,
    /// The walker's message, as a search prints it (it names the path).
    pub message: String,
}

/// The fewest threads the first walk runs on.
const WALK_THREADS: usize = 8;

/// Lists the files under `root` that any recorded walk yields (the
/// union, [`views::UNION`], with the search's own walk builder), each
/// flagged with the recorded walks that leave it out, plus the
/// directories and the watched paths that let a query trust this list
/// later, sorted by path ([`Listing::sort`]), and where the walk failed.
/// The listing holds up to `memory` bytes in memory, the rest in
/// temporary files in `dir`.
pub(super) fn walk(
    root: &Path,
    dir: &Path,
    memory: usize,
) -> Result<(Listing, Vec<WalkError>), IndexError> {
    let found = Mutex::new(Listing::new(dir, memory));
    // The first error writing the listing: the walk stops there.
    let unlisted = Mutex::new(None);
    let failed = Mutex::new(Vec::new());
    // The links followed, and those that close a loop.
    let links = Mutex::new((HashSet::new(), HashSet::new()));
    // More threads than cores: on a cold tree each waits on the disk for
    // its directories and inodes, and more requests in flight finish
    // sooner; on a warm one the extra threads cost little.
    let threads = rayon::current_num_threads().max(WALK_THREADS);
    let mut builder = filters(views::UNION)
        .builder(&[root.to_path_buf()], threads, false, false)
        .map_err(|e| IndexError::Io(std::io::Error::other(e)))?;
    // A repository's store is no text a search wants; a search whose walk
    // would enter one is not answered from the table (`fresh::view`).
    builder.filter_entry(|e| !is_store(e.file_name().as_encoded_bytes()));
    builder.build_parallel().run(|| {
        let (found, failed, links, unlisted) = (&found, &failed, &links, &unlisted);
        // Each thread stats what it meets through handles of the
        // directories it walks (one path component resolved a stat).
        let mut handles = DirStat::new(root);
        Box::new(move |entry| {
            let entry = match entry {
                Ok(entry) => entry,
                Err(err) => {
                    let message = err.to_string();
                    let path = error_path(&err).map(Path::to_path_buf);
                    if let (true, Some(p)) = (closes_loop(&err), &path) {
                        let rel = crate::sys::rel_bytes(p.strip_prefix(root).unwrap_or(p));
                        links.lock().unwrap().1.insert(rel.into_owned());
                    }
                    failed.lock().unwrap().extend(path.map(|path| WalkError { path, message }));
                    return ignore::WalkState::Continue;
                }
            };
            let Some(kind) = entry.file_type() else { return ignore::WalkState::Continue };
            let flags = if kind.is_file() {
                0
            } else if kind.is_dir() {
                flags::DIR
            } else {
                return ignore::WalkState::Continue;
            };
            let is_link = entry.path_is_symlink();
            let path = entry.path();
            let rel = crate::sys::rel_bytes(path.strip_prefix(root).unwrap_or(path)).into_owned();
            // A link followed is stat-ed through it (by the walker).
            let meta = match (&mut handles, is_link) {
                (Some(h), false) => h.lstat_entry(&rel).ok().flatten(),
                _ => entry.metadata().ok().map(|md| Meta::of(&md)),
            };
            let Some(meta) = meta else { return ignore::WalkState::Continue };
            if is_link {
                links.lock().unwrap().0.insert(rel.clone());
            }
            // Stat the watched names before taking the lock, so walker
            // threads do not wait on each other's syscalls.
            let mine: Vec<(Vec<u8>, Seen)> = if flags == flags::DIR {
                let mut stat = |child: &[u8]| match &mut handles {
                    Some(h) => h.lstat_entry(child).ok().flatten(),
                    None => Meta::of_path(&root.join(crate::sys::rel_path(child))),
                };
                WATCHED_NAMES
                    .iter()
                    .map(|name| child_rel(&rel, name.as_bytes()))
                    .filter_map(|child| watched(child.clone(), stat(&child), false))
                    .collect()
            } else {
                Vec::new()
            };
            let seen = Seen { size: meta.size, changed_ns: recorded_ns(meta.changed_ns), flags };
            let mut found = found.lock().unwrap();
            let pushed = mine.iter().try_for_each(|(path, seen)| found.push(path, *seen));
            if let Err(err) = pushed.and_then(|()| found.push(&rel, seen)) {
                unlisted.lock().unwrap().get_or_insert(err);
                return ignore::WalkState::Quit;
            }
            ignore::WalkState::Continue
        })
    });
    if let Some(err) = unlisted.into_inner().unwrap() {
        return Err(IndexError::Io(err));
    }
    let mut found = found.into_inner().unwrap();
    found.settle()?;
    let mut errors = failed.into_inner().unwrap();
    errors.sort_by(|a, b| a.path.cmp(&b.path));
    // Where the walk failed, a search's walk fails too and says so: the
    // directory is recorded as left out (unreadable) and changed since the
    // build, so a query walks it itself.
    let mut failed: HashSet<Vec<u8>> = errors
        .iter()
        .map(|e| crate::sys::rel_bytes(e.path.strip_prefix(root).unwrap_or(&e.path)).into_owned())
        .collect();
    let unreadable = flags::DIR | flags::SKIPPED_UNREADABLE;
    for i in 0..found.len() {
        let seen = found.seen(i);
        if seen.flags == flags::DIR && failed.remove(found.path(i)) {
            found.set(i, Seen { changed_ns: RACY, flags: unreadable, ..seen });
        }
    }
    for rel in failed {
        found.push(&rel, Seen { size: 0, changed_ns: RACY, flags: unreadable })?;
    }
    // Outside the tree, absent paths are watched too: creating one changes
    // the walk, and no directory of the tree would show it.
    for w in outside_watched(root) {
        let meta = Meta::of_path(&root.join(crate::sys::rel_path(&w)));
        if let Some((path, seen)) = watched(w, meta, true) {
            found.push(&path, seen)?;
        }
    }
    found.settle()?;
    // What the walk's threads freed goes back to the system before the
    // extraction's buffers are taken.
    crate::sys::release_free_heap();
    found.sort();
    let (links, loops) = links.into_inner().unwrap();
    flag_views(root, &mut found, &links, &loops, errors.is_empty())?;
    Ok((found, errors))
}

/// A walker over `dir` (not followed below), one thread, entering the
/// directories the build's walk enters, links not followed: what a
/// server watches (a linked entry is stat-ed by every query instead).
pub fn watched_walk(dir: &Path) -> Result<ignore::WalkBuilder, ignore::Error> {
    let rules = views::Rules { follow: false, ..views::UNION };
    let mut builder = filters(rules).builder(&[dir.to_path_buf()], 1, false, false)?;
    builder.filter_entry(|e| !is_store(e.file_name().as_encoded_bytes()));
    Ok(builder)
}

/// The walk filters of a recorded walk.
fn filters(rules: views::Rules) -> WalkFilters {
    WalkFilters {
        hidden: rules.hidden,
        no_require_git: rules.no_require_git,
        follow: rules.follow,
        ..WalkFilters::default()
    }
}

/// Flags each file and directory of `found` (the union's walk, sorted;
/// `links` the symbolic links it followed, `loops` those that close a
/// loop; `clean` when it met no error) with the recorded walks that leave
/// it out (each walked again, names only, but for the one that only does
/// not follow links, below) and whether a link leads to it.
fn flag_views(
    root: &Path,
    found: &mut Listing,
    links: &HashSet<Vec<u8>>,
    loops: &HashSet<Vec<u8>>,
    clean: bool,
) -> Result<(), IndexError> {
    let is_entry =
        |found: &Listing, i| found.seen(i).flags & (flags::WATCH | flags::WATCH_EXISTS) == 0;
    for (rules, out) in views::RECORDED.into_iter().filter(|(_, out)| *out != 0) {
        // A walk with the union's rules but links not followed yields what
        // the union's yielded, but the links and what lies below them
        // (same ignore files, same hidden entries). Not so where the union
        // met an error: a link leading nowhere is an error of a walk that
        // follows it, and an entry of one that does not.
        let walked = if clean && rules == (views::Rules { follow: false, ..views::UNION }) {
            not_via_links(found, links)
        } else {
            walked_by(root, filters(rules), found)?
        };
        let walks = |r: std::ops::Range<usize>| r.into_iter().any(|i| walked.has(i));
        for i in 0..found.len() {
            if !is_entry(found, i) {
                continue;
            }
            // A link that closes a loop is an error of a walk that follows
            // links (where its directory is walked), and a link another
            // walk passes over. Recorded as a directory that can no longer
            // be one (no `VIA_LINK`: its `lstat` shows a link), a following
            // walk's sweep gives up there and the search walks, to say so.
            let rel = found.path(i);
            let walked_here = if loops.contains(rel) {
                let parent = rel.iter().rposition(|&b| b == b'/').map_or(&rel[..0], |i| &rel[..i]);
                rules.follow && walks(found.find(parent))
            } else {
                walked.has(i)
            };
            if !walked_here {
                found.add_flag(i, out);
            }
        }
    }
    if !links.is_empty() {
        for i in 0..found.len() {
            let rel = found.path(i);
            if is_entry(found, i) && !loops.contains(rel) && via_link(rel, links) {
                found.add_flag(i, flags::VIA_LINK);
            }
        }
    }
    Ok(())
}

/// One bit per entry of a listing: the entries a walk yielded.
struct Marks(Vec<AtomicU64>);

impl Marks {
    /// Whether entry `i` is marked.
    fn has(&self, i: usize) -> bool {
        self.0[i / 64].load(Ordering::Relaxed) & (1 << (i % 64)) != 0
    }
}

/// The entries of `found` that no link of `links` leads to (nor is one).
fn not_via_links(found: &Listing, links: &HashSet<Vec<u8>>) -> Marks {
    let marks = Marks((0..found.len().div_ceil(64)).map(|_| AtomicU64::new(0)).collect());
    for i in 0..found.len() {
        if links.is_empty() || !via_link(found.path(i), links) {
            marks.0[i / 64].fetch_or(1 << (i % 64), Ordering::Relaxed);
        }
    }
    marks
}

/// Whether a walk error is a loop a followed link closes.
fn closes_loop(err: &ignore::Error) -> bool {
    match err {
        ignore::Error::Loop { .. } => true,
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => closes_loop(err),
        _ => false,
    }
}

/// Whether `rel` or one of its parents is one of `links`.
fn via_link(rel: &[u8], links: &HashSet<Vec<u8>>) -> bool {
    links.contains(rel)
        || rel.iter().enumerate().any(|(i, &b)| b == b'/' && links.contains(&rel[..i]))
}

/// The entries of `found` (sorted) whose paths a walk with `filters`
/// yields as files or directories: looked up as the walk goes, so that
/// no set of a big tree's paths is built beside the listing.
fn walked_by(root: &Path, filters: WalkFilters, found: &Listing) -> Result<Marks, IndexError> {
    let marks = Marks((0..found.len().div_ceil(64)).map(|_| AtomicU64::new(0)).collect());
    let mut builder = filters
        .builder(&[root.to_path_buf()], 0, false, false)
        .map_err(|e| IndexError::Io(std::io::Error::other(e)))?;
    builder.filter_entry(|e| !is_store(e.file_name().as_encoded_bytes()));
    builder.build_parallel().run(|| {
        let marks = &marks;
        Box::new(move |entry| {
            if let Ok(e) = entry
                && e.file_type().is_some_and(|t| t.is_file() || t.is_dir())
            {
                let rel = e.path().strip_prefix(root).unwrap_or(e.path());
                for i in found.find(&crate::sys::rel_bytes(rel)) {
                    marks.0[i / 64].fetch_or(1 << (i % 64), Ordering::Relaxed);
                }
            }
            ignore::WalkState::Continue
        })
    });
    Ok(marks)
}

/// The path a walk error is about, if it names one (for a loop, the
/// link that closes it).
fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::Loop { child, .. } => Some(child),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Partial(errs) => errs.iter().find_map(error_path),
        _ => None,
    }
}

/// The watch entry for `rel` (relative to the root, or absolute), whose
/// `lstat` is `meta`; absent paths give an entry only when `keep_absent`.
fn watched(rel: Vec<u8>, meta: Option<Meta>, keep_absent: bool) -> Option<(Vec<u8>, Seen)> {
    let is_marker = rel.ends_with(b".git") || rel.ends_with(b".jj");
    let flags = if is_marker { flags::WATCH_EXISTS } else { flags::WATCH };
    match meta {
        Some(m) => {
            let (size, mtime) =
                if is_marker { (0, 0) } else { (m.size, recorded_ns(m.changed_ns)) };
            Some((rel, Seen { size, changed_ns: mtime, flags }))
        }
        None if keep_absent => Some((rel, Seen { size: 0, changed_ns: i64::MIN, flags })),
        None => None,
    }
}

/// Paths outside the tree that steer the walk: ignore files and repository
/// markers of every ancestor (as `../…`), git's exclude files, and the
/// user's git configuration and global ignore file (absolute).
fn outside_watched(root: &Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut up = Vec::new();
    for _ in root.ancestors().skip(1) {
        up.extend_from_slice(b"../");
        for name in WATCHED_NAMES.iter().chain(&[".git/info/exclude"]) {
            let mut p = up.clone();
            p.extend_from_slice(name.as_bytes());
            out.push(p);
        }
    }
    out.push(b".git/info/exclude".to_vec());
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|x| !x.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let mut absolute = Vec::new();
    if let Some(h) = &home {
        absolute.push(h.join(".gitconfig"));
    }
    if let Some(c) = &config {
        absolute.push(c.join("git/ignore"));
        absolute.push(c.join("git/config"));
    }
    out.extend(absolute.into_iter().map(|p| p.into_os_string().into_encoded_bytes()));
    out
}
