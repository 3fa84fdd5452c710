//! Freshness: which files of a tree need reading, given its index, so that
//! an answer is never stale.
//!
//! [`IndexFilter::locate`] plans the trigram query and finds the index
//! covering the search; [`IndexFilter::open_planned`] opens it for
//! the search and marks the files with a candidate document. Then either
//! the search walks as a scan would (same filters, same order) and
//! [`IndexFilter::should_search`] answers per walked file, or
//! [`IndexFilter::sweep`] lists the files from the index's table instead of
//! walking ([`sweep`]). Either way, a file the index knows, unchanged since
//! the build (same size and status-change time), is read only if it is a
//! candidate; a file that is new, changed or unknown to the index is always
//! read; a deleted file is never read, so never printed. [`crate::sys::dirstat`] stats
//! many paths cheaply for the sweep.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::index::error::IndexError;
use crate::index::location;
use crate::index::reader::IndexReader;
use crate::index::recorded::changed_ns;
use crate::index::table::{FileId, flags};
use crate::kind::maybe_compressed;
pub use crate::kind::maybe_packed;
use crate::options::WalkOptions;
use crate::query::Query;
use crate::query::search_plan::{Plans, Unused};
use crate::report::Messages;
pub use rules::{Reads, Rules};

mod above;
pub mod changes;
pub mod judge;
mod links;
mod rules;
pub mod sweep;
pub mod verdict;
pub mod view;

/// Decides per walked file whether it must be searched; see the module docs.
pub struct IndexFilter {
    reader: IndexReader,
    /// The canonical root of the indexed tree.
    root: PathBuf,
    dir: PathBuf,
    /// For each search path as given: its path relative to the index root,
    /// or `None` when it lies outside the indexed tree.
    roots: Vec<(PathBuf, Option<PathBuf>)>,
    /// Bit `i` set: file `i` has a candidate document.
    candidate_files: Vec<u64>,
    candidate_docs: usize,
    plan_time: Duration,
    open_time: Duration,
    sweep_time: std::sync::Mutex<Option<Duration>>,
    /// Which files are read whatever their candidacy.
    reads: Reads,
    counters: Counters,
    /// Where the freshness of the table came from, when a server was asked.
    served: Option<Result<u32, String>>,
}

/// The index a search can use, found but not yet opened.
pub struct Located {
    /// The canonical root of the indexed tree.
    pub root: PathBuf,
    /// The index directory.
    pub dir: PathBuf,
    /// The search's trigram query.
    pub query: Query,
    /// Time spent planning it.
    pub plan_time: Duration,
}

/// What the filter saw; every counter counts walked (or swept) files.
#[derive(Default)]
struct Counters {
    /// Files found in the index, unchanged, and not candidates: not read.
    pruned: AtomicU64,
    /// Files found in the index, unchanged, and candidates: read.
    candidates: AtomicU64,
    /// Files in the index whose size or status-change time changed: read.
    changed: AtomicU64,
    /// Files the index does not know (new, outside the tree, or left out): read.
    unknown: AtomicU64,
}

impl IndexFilter {
    /// The index covering the search of `rules`, if one exists and the
    /// query `plans` make can use it: where it is, and the planned query
    /// (see [`IndexFilter::open_planned`]). The search has checked that its
    /// options allow an index at all.
    pub fn locate(rules: &Rules<'_>, plans: &Plans<'_>) -> Result<Located, Unused> {
        let started = Instant::now();
        // Planned for an index with edges, as a server's always has; an
        // older one is planned for again once opened.
        let query = plans.query(true).clone();
        if query == Query::All {
            return Err(plans.why_all());
        }
        let plan_time = started.elapsed();
        let found = location::find(rules.base, &rules.start()).ok_or(Unused::NoIndex)?;
        Ok(Located { root: found.root, dir: found.dir, query, plan_time })
    }

    /// The index covering a listing of the files a walk yields (`--files`):
    /// as [`IndexFilter::locate`], every file a candidate.
    pub fn locate_listing(rules: &Rules<'_>) -> Result<Located, Unused> {
        let found = location::find(rules.base, &rules.start()).ok_or(Unused::NoIndex)?;
        let plan_time = Duration::ZERO;
        Ok(Located { root: found.root, dir: found.dir, query: Query::All, plan_time })
    }

    /// The index covering the walk of `rules`, found as
    /// [`IndexFilter::locate`] finds it, for a caller that plans its own
    /// trigram query rather than a search's patterns (the SQL crate's
    /// conditions on lines): `plan(edges)` is the query for an index with
    /// edges or without. `Err(Unused::NoTrigrams)` when the query reads
    /// every file.
    pub fn locate_planned(
        rules: &Rules<'_>,
        plan: &dyn Fn(bool) -> Query,
    ) -> Result<Located, Unused> {
        let started = Instant::now();
        let query = plan(true);
        if query == Query::All {
            return Err(Unused::NoTrigrams);
        }
        let plan_time = started.elapsed();
        let found = location::find(rules.base, &rules.start()).ok_or(Unused::NoIndex)?;
        Ok(Located { root: found.root, dir: found.dir, query, plan_time })
    }

    /// Opens the index `found` (by [`IndexFilter::locate`] or
    /// [`IndexFilter::locate_planned`]) for the walk of `rules` and marks
    /// the files with a candidate document; `plan(edges)` is the query for
    /// an index with edges or without. An unusable index prints one warning
    /// (one this user may not read is passed over in silence, as if absent).
    pub fn open_planned(
        rules: &Rules<'_>,
        plan: &dyn Fn(bool) -> Query,
        msgs: &Messages,
        found: Located,
    ) -> Result<IndexFilter, Unused> {
        IndexFilter::open_with(rules, plan, msgs, found)
    }

    /// Opens the index `found` for the walk of `rules` (see
    /// [`IndexFilter::open_planned`]).
    fn open_with(
        rules: &Rules<'_>,
        plan: &dyn Fn(bool) -> Query,
        msgs: &Messages,
        found: Located,
    ) -> Result<IndexFilter, Unused> {
        let Located { mut query, plan_time, .. } = found;
        let started = Instant::now();
        let reader = match IndexReader::open(&found.dir) {
            Ok(r) => r,
            Err(IndexError::NotFound(_)) => return Err(Unused::NoIndex),
            Err(IndexError::Io(e)) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                return Err(Unused::Unreadable);
            }
            Err(err) => {
                msgs.warn(format!(
                    "index at {} is unusable ({err}); searching without it (rebuild: tg index {})",
                    found.dir.display(),
                    found.root.display()
                ));
                return Err(Unused::Unusable);
            }
        };
        if reader.foreign() {
            msgs.warn(format!(
                "index at {} was built on another operating system (its paths are of another \
                 style); searching without it (rebuild: tg index {})",
                found.dir.display(),
                found.root.display()
            ));
            return Err(Unused::Unusable);
        }
        if reader.needs_reindex() {
            msgs.warn(format!(
                "index at {} was built by another version of tg (feature version {}); \
                 searching without it (rebuild: tg index {})",
                found.dir.display(),
                reader.feature_version(),
                found.root.display()
            ));
            return Err(Unused::Unusable);
        }
        if !reader.has_edges() && query != Query::All {
            query = plan(false);
        }
        let candidates = match reader.candidates(&query) {
            Ok(c) => c,
            Err(err) => {
                msgs.warn(format!(
                    "index at {} is unusable ({err}); searching without it",
                    found.dir.display()
                ));
                return Err(Unused::Unusable);
            }
        };
        let candidate_files = judge::candidate_files(&reader, candidates.as_slice());
        let roots = roots_for(rules.walk, &found.root);
        Ok(IndexFilter {
            served: None,
            open_time: started.elapsed(),
            candidate_docs: candidates.len(),
            dir: found.dir,
            root: found.root,
            reader,
            sweep_time: std::sync::Mutex::new(None),
            reads: rules.reads,
            roots,
            candidate_files,
            plan_time,
            counters: Counters::default(),
        })
    }

    /// Whether the walked file at `path` (as the walker produced it) must be searched.
    /// `explicit`: the file was named on the command line (binary files are
    /// then searched whole).
    pub fn should_search(
        &self,
        path: &Path,
        md: Option<std::fs::Metadata>,
        explicit: bool,
    ) -> bool {
        let c = &self.counters;
        let found = self.relative(path).and_then(|rel| self.lookup(&crate::sys::rel_bytes(&rel)));
        let (Some(id), Some(md)) = (found, md) else {
            c.unknown.fetch_add(1, Ordering::Relaxed);
            return true;
        };
        let Some(meta) = self.reader.file(id).filter(|m| m.flags & flags::NOT_A_FILE == 0) else {
            c.unknown.fetch_add(1, Ordering::Relaxed);
            return true;
        };
        if meta.size != md.len() || meta.changed_ns != changed_ns(&md) {
            c.changed.fetch_add(1, Ordering::Relaxed);
            return true;
        }
        let name = path.as_os_str().as_encoded_bytes();
        let candidate = self.is_candidate(id)
            || self.binary_needs_search(meta.flags, explicit)
            || maybe_packed(name)
            || (self.reads.zip && maybe_compressed(name));
        let counter = if candidate { &c.candidates } else { &c.pruned };
        counter.fetch_add(1, Ordering::Relaxed);
        candidate
    }

    /// Whether files ruled out must still be reported, as files without a
    /// match (they are then reported without being read).
    pub fn lists_misses(&self) -> bool {
        self.reads.misses
    }

    /// Whether a binary file must be read whatever its candidacy: one
    /// named on the command line is searched whole, and see
    /// [`Reads::binary_whole`].
    fn binary_needs_search(&self, file_flags: u32, explicit: bool) -> bool {
        file_flags & flags::SKIPPED_BINARY != 0 && (explicit || self.reads.binary_whole)
    }

    /// Whether file `id` has a candidate document.
    fn is_candidate(&self, id: FileId) -> bool {
        judge::is_candidate(&self.candidate_files, id)
    }

    /// The rules this search's sweep judges the table by, its walk
    /// leaving out the entries flagged `out`.
    fn judge(&self, out: u32) -> judge::Judge<'_> {
        judge::Judge {
            reader: &self.reader,
            root: &self.root,
            candidate_files: &self.candidate_files,
            reads: self.reads,
            out,
            summary: None,
        }
    }

    /// `path` relative to the index root, if it lies under a search path inside the tree.
    fn relative(&self, path: &Path) -> Option<PathBuf> {
        self.roots.iter().find_map(|(given, rel)| {
            let rest = path.strip_prefix(given).ok()?;
            let rel = rel.as_ref()?;
            Some(if rest.as_os_str().is_empty() { rel.clone() } else { rel.join(rest) })
        })
    }

    /// The id of the file with this relative path (file ids follow path order).
    fn lookup(&self, rel: &[u8]) -> Option<FileId> {
        changes::lookup(&self.reader, rel)
    }

    /// The canonical root of the indexed tree.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The identity of the opened index's file table.
    pub fn table_id(&self) -> u64 {
        self.reader.stats().table_id
    }

    /// Records, for `--stats`, that a server (process `pid`) told what
    /// changed, or why none did.
    pub fn set_served(&mut self, served: Result<u32, String>) {
        self.served = Some(served);
    }

    /// What the index did in this search, for `--stats`.
    pub fn report(&self) -> IndexReport {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let (c, st) = (&self.counters, self.reader.stats());
        IndexReport {
            dir: self.dir.clone(),
            files: st.files,
            documents: st.documents,
            plan_time: self.plan_time,
            open_time: self.open_time,
            sweep_time: *self.sweep_time.lock().unwrap(),
            candidate_documents: self.candidate_docs as u64,
            read_as_candidates: get(&c.candidates),
            not_read: get(&c.pruned),
            changed: get(&c.changed),
            unknown: get(&c.unknown),
            served: self.served.clone(),
            server_time: None,
        }
    }
}

/// What the index did in one search.
#[derive(Clone, Debug)]
pub struct IndexReport {
    /// The index directory.
    pub dir: PathBuf,
    /// Entries of its file table.
    pub files: u32,
    /// Documents it holds.
    pub documents: u32,
    /// Time to plan the trigram query.
    pub plan_time: Duration,
    /// Time to open the index and find the candidates.
    pub open_time: Duration,
    /// Time of the sweep of the file table (`None`: freshness was checked
    /// during the walk).
    pub sweep_time: Option<Duration>,
    /// Candidate documents of the query.
    pub candidate_documents: u64,
    /// Files read because they are candidates.
    pub read_as_candidates: u64,
    /// Files not read: unchanged, and not candidates.
    pub not_read: u64,
    /// Files read because they changed since the build.
    pub changed: u64,
    /// Files read because the index does not know them.
    pub unknown: u64,
    /// The server that told what changed since the build (its pid), or why
    /// none did; `None` when no server was asked.
    pub served: Option<Result<u32, String>>,
    /// The server's time to find the candidates and judge the table, when
    /// it did both (then [`IndexReport::open_time`] is the time to ask it,
    /// and [`IndexReport::sweep_time`] the time to list its answer).
    pub server_time: Option<Duration>,
}

/// Each search path of `walk` as given, with its path relative to `root`
/// (an indexed tree's canonical root), or `None` when it lies outside.
pub fn roots_for(walk: &WalkOptions, root: &Path) -> Vec<(PathBuf, Option<PathBuf>)> {
    walk.paths
        .iter()
        .map(|p| {
            let rel = p
                .canonicalize()
                .ok()
                .and_then(|c| c.strip_prefix(root).ok().map(Path::to_path_buf));
            (p.clone(), rel)
        })
        .collect()
}
