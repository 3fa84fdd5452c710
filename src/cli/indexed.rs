//! The index path of a search: which walked files need reading at all.
//!
//! The walk is the scan's own walk (same filters, same order), so output is
//! the scan's. For each walked file, [`IndexFilter::should_search`] answers:
//! a file the index knows, unchanged since the build (same size and
//! status-change time), is read only if its document is a candidate of the
//! planned trigram query; a file that is new, changed or unknown to the index
//! is always read. Deleted files are never walked, so never printed.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use trigrep::index::error::IndexError;
use trigrep::index::location;
use trigrep::index::planner::{PlanOptions, plan};
use trigrep::index::query::Query;
use trigrep::index::reader::IndexReader;
use trigrep::index::table::{FileId, flags};

use super::config::{Config, Mode, SearchMode};
use super::index_cmd::changed_ns;
use super::messages;

/// Decides per walked file whether it must be searched; see the module docs.
pub struct IndexFilter {
    pub(super) reader: IndexReader,
    /// The canonical root of the indexed tree.
    pub(super) root: PathBuf,
    dir: PathBuf,
    /// For each search path as given: its path relative to the index root,
    /// or `None` when it lies outside the indexed tree.
    pub(super) roots: Vec<(PathBuf, Option<PathBuf>)>,
    /// Bit `i` set: file `i` has a candidate document.
    candidate_files: Vec<u64>,
    candidate_docs: usize,
    plan_time: Duration,
    open_time: Duration,
    pub(super) sweep_time: std::sync::Mutex<Option<Duration>>,
    /// Walked binary files are read only up to their first NUL.
    binary_prefix_only: bool,
    pub(super) counters: Counters,
}

/// What the filter saw; every counter counts walked (or swept) files.
#[derive(Default)]
pub(super) struct Counters {
    /// Files found in the index, unchanged, and not candidates: not read.
    pub(super) pruned: AtomicU64,
    /// Files found in the index, unchanged, and candidates: read.
    pub(super) candidates: AtomicU64,
    /// Files in the index whose size or status-change time changed: read.
    pub(super) changed: AtomicU64,
    /// Files the index does not know (new, outside the tree, or left out): read.
    pub(super) unknown: AtomicU64,
}

impl IndexFilter {
    /// Opens the index covering the search, if one exists and the query can use it.
    ///
    /// Returns `None` (scan everything) when there is no index, when the query
    /// cannot be narrowed by trigrams, or when the index is unusable; the last
    /// case prints one warning.
    pub fn open(config: &Config) -> Option<IndexFilter> {
        if !usable_for(config) {
            return None;
        }
        let started = Instant::now();
        let query = plan(
            &config.patterns,
            &PlanOptions {
                case_insensitive: config.case_insensitive,
                fixed_strings: config.fixed_strings,
                multi_line: config.multiline,
                dot_matches_new_line: config.multiline_dotall,
                unicode: config.unicode,
                ..PlanOptions::default()
            },
        );
        if query == Query::All {
            return None;
        }
        let plan_time = started.elapsed();
        let base = config.index_dir.clone().unwrap_or_else(location::default_base);
        let first = &config.paths[0];
        let start = if first.is_dir() { first.clone() } else { parent_or_dot(first) };
        let found = location::find(&base, &start)?;
        let started = Instant::now();
        let reader = match IndexReader::open(&found.dir) {
            Ok(r) => r,
            Err(IndexError::NotFound(_)) => return None,
            Err(err) => {
                messages::warn(format!(
                    "index at {} is unusable ({err}); searching without it (rebuild: tg index {})",
                    found.dir.display(),
                    found.root.display()
                ));
                return None;
            }
        };
        if reader.needs_reindex() {
            messages::warn(format!(
                "index at {} was built by another version of tg (feature version {}); \
                 searching without it (rebuild: tg index {})",
                found.dir.display(),
                reader.feature_version(),
                found.root.display()
            ));
            return None;
        }
        let candidates = match reader.candidates(&query) {
            Ok(c) => c,
            Err(err) => {
                messages::warn(format!(
                    "index at {} is unusable ({err}); searching without it",
                    found.dir.display()
                ));
                return None;
            }
        };
        let mut candidate_files = vec![0u64; reader.stats().files as usize / 64 + 1];
        for &d in candidates.as_slice() {
            if let Some(doc) = reader.doc(d)
                && let Some(w) = candidate_files.get_mut(doc.file as usize / 64)
            {
                *w |= 1 << (doc.file % 64);
            }
        }
        let roots = config
            .paths
            .iter()
            .map(|p| {
                let rel = p
                    .canonicalize()
                    .ok()
                    .and_then(|c| c.strip_prefix(&found.root).ok().map(Path::to_path_buf));
                (p.clone(), rel)
            })
            .collect();
        Some(IndexFilter {
            open_time: started.elapsed(),
            candidate_docs: candidates.len(),
            dir: found.dir,
            root: found.root,
            reader,
            sweep_time: std::sync::Mutex::new(None),
            binary_prefix_only: config.walked_binary_stops_at_nul(),
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
        let found = self.relative(path).and_then(|rel| self.lookup(rel.as_os_str().as_bytes()));
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
        let candidate = self.is_candidate(id) || self.binary_needs_search(meta.flags, explicit);
        let counter = if candidate { &c.candidates } else { &c.pruned };
        counter.fetch_add(1, Ordering::Relaxed);
        candidate
    }

    /// Whether a binary file must be read whatever its candidacy: its index
    /// holds only the text before its first NUL, which is all a walk reads
    /// of it with default binary detection, and nothing more.
    pub(super) fn binary_needs_search(&self, file_flags: u32, explicit: bool) -> bool {
        file_flags & flags::SKIPPED_BINARY != 0 && (explicit || !self.binary_prefix_only)
    }

    /// Whether file `id` has a candidate document.
    pub(super) fn is_candidate(&self, id: FileId) -> bool {
        self.candidate_files[id as usize / 64] & (1 << (id % 64)) != 0
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
    pub(super) fn lookup(&self, rel: &[u8]) -> Option<FileId> {
        let (mut lo, mut hi) = (0u32, self.reader.stats().files);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let path = self.reader.file(mid)?.path;
            match path.cmp(rel) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// Writes the index's part of `--stats` to stderr.
    pub fn print_stats(&self) {
        let c = &self.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let st = self.reader.stats();
        messages::line(&format!(
            "index: {} ({} entries, {} documents); plan {:.3} ms, open+candidates {:.3} ms, \
             freshness {}; \
             candidate documents {}; walked files: {} read as candidates, {} not read, \
             {} changed since the build (read), {} not in the index (read)",
            self.dir.display(),
            st.files,
            st.documents,
            self.plan_time.as_secs_f64() * 1e3,
            self.open_time.as_secs_f64() * 1e3,
            match *self.sweep_time.lock().unwrap() {
                Some(t) => format!("sweep of the file table {:.3} ms", t.as_secs_f64() * 1e3),
                None => "checked during the walk".to_string(),
            },
            self.candidate_docs,
            get(&c.candidates),
            get(&c.pruned),
            get(&c.changed),
            get(&c.unknown),
        ));
    }
}

/// Whether this query can be answered from an index at all.
///
/// `--json` always ends with a summary whose counters (files searched, bytes
/// searched) describe reading every file, as ripgrep does; files ruled out
/// by the index are never read, so JSON output comes from the scan.
fn usable_for(config: &Config) -> bool {
    let mode_ok = matches!(
        config.mode,
        Mode::Search(
            SearchMode::Standard
                | SearchMode::Count
                | SearchMode::CountMatches
                | SearchMode::FilesWithMatches
        )
    );
    let stdin_only = config.paths.iter().all(|p| p == Path::new("-"));
    mode_ok && !config.no_index && !config.invert_match && config.encoding.is_none() && !stdin_only
}

fn parent_or_dot(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
