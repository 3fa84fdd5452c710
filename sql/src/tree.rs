//! Which files of one scanned path a scan reads, found as `tg` finds the
//! files of a search: by the engine's one call for freshness
//! ([`search::files_to_read`]) with the predicate's own trigram query.
//!
//! With a tree index covering the path and a predicate it can plan, the
//! files come from a server of the index (`tg serve`) or the index's file
//! table, without walking: the candidates of the predicate's query plus the
//! files changed or added since the build, exactly the files a walk with
//! the same rules would read, in the walk's order. When the table cannot
//! stand in for the walk, the path is walked and the index rules out each
//! unchanged file without a candidate ([`IndexFilter::should_search`]);
//! without a usable index, or a predicate that needs every line, every
//! walked file is read.

use std::path::{Path, PathBuf};

use datafusion::error::{DataFusionError, Result};
use trigrep::index::fresh::sweep::Swept;
use trigrep::index::fresh::{IndexFilter, Reads, Rules};
use trigrep::options::{Sort, SortBy, WalkFilters, WalkOptions};
use trigrep::report::Messages;
use trigrep::search::{self, Plan};

use crate::pushdown::Pred;
use crate::text::Compression;

/// The files of one scanned path to read.
pub struct Files {
    /// Each file's path (as a walk gives it) and size, in walk order.
    pub files: Vec<(PathBuf, u64)>,
    /// How many files an index ruled out.
    pub pruned: u64,
}

/// The files of `source` (a file or directory) to read for rows that
/// satisfy `pred` (every file for `None`), with indexes under `base`, a
/// compressed file read as `compression` says; see the module docs.
pub fn files(
    source: &Path,
    base: &Path,
    pred: Option<&Pred>,
    compression: Compression,
) -> Result<Files> {
    let walk = WalkOptions {
        paths: vec![source.to_path_buf()],
        implicit_path: false,
        one_file: false,
        filters: WalkFilters::default(),
        sort: Some(Sort { by: SortBy::Path, reverse: false }),
    };
    let rules = Rules {
        walk: &walk,
        base,
        threads: 1,
        skip_stdout: false,
        reads: Reads {
            // A walked file is read up to its first NUL (`read.rs`), as
            // far as the index saw it.
            binary_whole: false,
            misses: false,
            // A compressed file is read as its text, which a tree index
            // (holding its compressed bytes) never saw; with
            // `'compression=none'`, as the bytes it did see.
            zip: compression == Compression::Auto,
        },
    };
    // Per-file errors are the walk's to report (it fails the scan).
    let msgs = Messages::stderr(true);
    let Some(pred) = pred else { return walked(&rules, None) };
    let plan = |edges| pred.query(edges);
    let tree = search::files_to_read(&rules, Plan::Own(&plan), &msgs, true);
    let index = tree.index.as_ref().ok();
    match tree.listed {
        // A listing that met an error is walked again: the walk reports it.
        Some((swept, _)) if !msgs.errored() => {
            let pruned = index.map_or(0, |i| i.report().not_read);
            let by = if index.is_some_and(|i| i.opened().is_some()) { "index" } else { "server" };
            log::debug!("{} files listed by the {by} for {}", swept.len(), source.display());
            Ok(sized(swept, pruned))
        }
        _ => walked(&rules, index.and_then(|i| i.opened())),
    }
}

/// Listed files, each stat-ed for its size.
fn sized(swept: Vec<Swept>, pruned: u64) -> Files {
    let files = swept
        .into_iter()
        // A file gone since it was listed is read (and reported) as a
        // walk that met it would.
        .map(|s| {
            let size = std::fs::metadata(&s.path).map_or(0, |m| m.len());
            (s.path, size)
        })
        .collect();
    Files { files, pruned }
}

/// The files a walk with `rules` yields, less those `index` rules out.
fn walked(rules: &Rules<'_>, index: Option<&IndexFilter>) -> Result<Files> {
    let (mut files, mut pruned) = (Vec::new(), 0);
    for entry in rules.walk_builder_at(&rules.walk.paths).map_err(error)?.build() {
        let entry = entry.map_err(error)?;
        let md = entry.metadata().ok();
        let is_file = if entry.depth() == 0 {
            std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file())
        } else {
            entry.file_type().is_some_and(|t| t.is_file())
        };
        if !is_file {
            continue;
        }
        let size = md.as_ref().map_or(0, |m| m.len());
        if index.is_some_and(|i| !i.should_search(entry.path(), md, false)) {
            pruned += 1;
        } else {
            files.push((entry.into_path(), size));
        }
    }
    Ok(Files { files, pruned })
}

/// A walk's error, as the scan's.
fn error(e: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(e.to_string())
}
