//! The walker: ripgrep's filters (types, globs, ignore files) as
//! [`WalkFilters`], and the one builder every walk uses. The default
//! filters are the ones `tg index` walks with, so an index's file table is
//! exactly what a default search walk yields.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};

/// `--sort` and `--sortr`: what results are sorted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    /// File path.
    Path,
    /// Last modification time.
    Modified,
    /// Last access time.
    Accessed,
    /// Creation time.
    Created,
}

/// The order of the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    /// The key.
    pub by: SortBy,
    /// Largest first (`--sortr`).
    pub reverse: bool,
}

impl Sort {
    /// Ascending by path: the order a walk sorted by file name yields.
    pub fn is_path_order(&self) -> bool {
        self.by == SortBy::Path && !self.reverse
    }
}

/// One change to the file type definitions (`-t`, `-T`, `--type-add`,
/// `--type-clear`); they apply in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeChange {
    /// Remove every glob of a type (`--type-clear`).
    Clear(String),
    /// Add a definition, `name:glob` or `name:include:other,...` (`--type-add`).
    Add(String),
    /// Only search files of this type (`-t`).
    Select(String),
    /// Do not search files of this type (`-T`).
    Negate(String),
}

/// Which files a walk yields: ripgrep's filters. The default value is a
/// plain `rg` walk's, and the one `tg index` records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WalkFilters {
    /// `-g` globs (`!` excludes).
    pub globs: Vec<String>,
    /// `--iglob` globs.
    pub iglobs: Vec<String>,
    /// `-g` globs are case insensitive too.
    pub glob_case_insensitive: bool,
    /// `-t`, `-T`, `--type-add` and `--type-clear`, in the order given.
    pub type_changes: Vec<TypeChange>,
    /// Hidden files and directories are searched.
    pub hidden: bool,
    /// `.gitignore` and git's exclude files are not respected.
    pub no_ignore_vcs: bool,
    /// `.ignore` and `.rgignore` files are not respected.
    pub no_ignore_dot: bool,
    /// Ignore files of parent directories are not read.
    pub no_ignore_parent: bool,
    /// Git's global excludes file is not respected (`--no-ignore-global`).
    pub no_ignore_global: bool,
    /// `.git/info/exclude` is not respected (`--no-ignore-exclude`).
    pub no_ignore_exclude: bool,
    /// `--ignore-file` paths: gitignore-style files that apply to every path.
    pub ignore_files: Vec<PathBuf>,
    /// The `--ignore-file` paths are not used (`--no-ignore-files`).
    pub no_ignore_files: bool,
    /// Ignore files match case insensitively (`--ignore-file-case-insensitive`).
    pub ignore_file_case_insensitive: bool,
    /// Errors in ignore files are not reported (`--no-ignore-messages`).
    pub no_ignore_messages: bool,
    /// `.gitignore` is respected outside git repositories too.
    pub no_require_git: bool,
    /// Symbolic links are followed.
    pub follow: bool,
    /// Descend at most this deep.
    pub max_depth: Option<usize>,
    /// Skip files larger than this.
    pub max_filesize: Option<u64>,
    /// Stay on one file system.
    pub one_file_system: bool,
}

impl WalkFilters {
    /// Whether these are the default filters (those `tg index` walks with).
    pub fn is_default(&self) -> bool {
        *self == WalkFilters::default()
    }

    /// The file types, with the type changes applied in order.
    pub fn types(&self) -> Result<Types, ignore::Error> {
        let mut b = TypesBuilder::new();
        b.add_defaults();
        for change in &self.type_changes {
            match change {
                TypeChange::Clear(name) => {
                    b.clear(name);
                }
                TypeChange::Add(def) => b.add_def(def)?,
                TypeChange::Select(name) => {
                    b.select(name);
                }
                TypeChange::Negate(name) => {
                    b.negate(name);
                }
            }
        }
        b.build()
    }

    /// Why some `--ignore-file` paths cannot be used (missing, unreadable,
    /// or holding invalid globs), as ripgrep reports them; the walk skips
    /// what it cannot read.
    pub fn ignore_file_errors(&self) -> Vec<ignore::Error> {
        if self.no_ignore_files {
            return Vec::new();
        }
        self.ignore_files.iter().filter_map(|p| WalkBuilder::new(".").add_ignore(p)).collect()
    }

    /// The `-g` and `--iglob` globs as the walker matches them, rooted at
    /// `cwd` (the empty matcher without globs).
    pub fn overrides(&self, cwd: &Path) -> Result<Override, ignore::Error> {
        if self.globs.is_empty() && self.iglobs.is_empty() {
            return Ok(Override::empty());
        }
        let mut b = OverrideBuilder::new(cwd);
        if self.glob_case_insensitive {
            b.case_insensitive(true)?;
        }
        for g in &self.globs {
            b.add(g)?;
        }
        b.case_insensitive(true)?;
        for g in &self.iglobs {
            b.add(g)?;
        }
        b.build()
    }

    /// A walker over `paths` (not empty) with these filters, on `threads`
    /// threads when run in parallel (0: one per core), sorted by file name
    /// when `by_name`; `skip_stdout` leaves out the file stdout writes to.
    pub fn builder(
        &self,
        paths: &[PathBuf],
        threads: usize,
        by_name: bool,
        skip_stdout: bool,
    ) -> Result<WalkBuilder, ignore::Error> {
        let cwd = std::env::current_dir().map_err(ignore::Error::Io)?;
        let mut b = WalkBuilder::new(&paths[0]);
        for p in &paths[1..] {
            b.add(p);
        }
        if !self.no_ignore_files {
            for p in &self.ignore_files {
                // Reported once by `ignore_file_errors`; the rest of the file is used.
                let _ = b.add_ignore(p);
            }
        }
        b.max_depth(self.max_depth)
            .follow_links(self.follow)
            .max_filesize(self.max_filesize)
            .threads(threads)
            .same_file_system(self.one_file_system)
            .skip_stdout(skip_stdout)
            .overrides(self.overrides(&cwd)?)
            .types(self.types()?)
            .hidden(!self.hidden)
            .parents(!self.no_ignore_parent)
            .ignore(!self.no_ignore_dot)
            .git_global(!self.no_ignore_vcs && !self.no_ignore_global)
            .git_ignore(!self.no_ignore_vcs)
            .git_exclude(!self.no_ignore_vcs && !self.no_ignore_exclude)
            .require_git(!self.no_require_git)
            .ignore_case_insensitive(self.ignore_file_case_insensitive)
            .current_dir(cwd);
        if !self.no_ignore_dot {
            b.add_custom_ignore_filename(".rgignore");
        }
        if by_name {
            b.sort_by_file_name(|a, b| a.cmp(b));
        }
        Ok(b)
    }
}

/// What is searched.
#[derive(Clone, Debug)]
pub struct WalkOptions {
    /// The paths to search (`-` is stdin).
    pub paths: Vec<PathBuf>,
    /// No path was given: `./` is searched and its prefix stripped from output.
    pub implicit_path: bool,
    /// Exactly one file (or stdin) is searched.
    pub one_file: bool,
    /// Which walked files count.
    pub filters: WalkFilters,
    /// The order of the results, if sorted.
    pub sort: Option<Sort>,
}

impl WalkOptions {
    /// A walker over `paths` with these filters and order, on `threads`
    /// threads, leaving out stdout's file when `skip_stdout`.
    pub fn builder_at(
        &self,
        paths: &[PathBuf],
        threads: usize,
        skip_stdout: bool,
    ) -> Result<ignore::WalkBuilder, ignore::Error> {
        let by_name = self.sort.is_some_and(|s| s.is_path_order());
        self.filters.builder(paths, threads, by_name, skip_stdout)
    }
}
