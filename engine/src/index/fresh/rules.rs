//! What freshness needs to know of a search, and no more: the walk it
//! stands in for, where the indexes are, and which files its output needs
//! read whatever their candidacy. The search builds these from its
//! options; the server judges by the same [`Reads`].

use std::path::{Path, PathBuf};

use crate::options::{WalkFilters, WalkOptions};

/// A search's rules, as freshness reads them.
#[derive(Clone, Copy)]
pub struct Rules<'a> {
    /// The search paths, the walk's filters and the order of its results.
    pub walk: &'a WalkOptions,
    /// The base directory of indexes.
    pub base: &'a Path,
    /// Threads of the search (one thread without sorting prints in the
    /// walk's directory order, which a table cannot give).
    pub threads: usize,
    /// The walk leaves out the file stdout writes to (a search's, not a
    /// listing's).
    pub skip_stdout: bool,
    /// Which files are read whatever their candidacy.
    pub reads: Reads,
}

/// Which files a search reads (or lists) whatever their candidacy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reads {
    /// Binary files are read whole: the index saw them only up to their
    /// first NUL (the search's rule: `crate::search`).
    pub binary_whole: bool,
    /// Files without a match are listed too (`--files-without-match`,
    /// `--include-zero` counts): files ruled out are still reported.
    pub misses: bool,
    /// `-z`: compressed files are read.
    pub zip: bool,
}

impl Rules<'_> {
    /// The walk's filters.
    pub fn filters(&self) -> &WalkFilters {
        &self.walk.filters
    }

    /// A walker over `paths` with the search's filters, order and threads.
    pub fn walk_builder_at(&self, paths: &[PathBuf]) -> Result<ignore::WalkBuilder, ignore::Error> {
        self.walk.builder_at(paths, self.threads, self.skip_stdout)
    }

    /// Where the search of the first search path looks for its index: the
    /// path itself when a directory, else its parent.
    pub fn start(&self) -> PathBuf {
        let first = &self.walk.paths[0];
        if first.is_dir() {
            return first.clone();
        }
        match first.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }
}
