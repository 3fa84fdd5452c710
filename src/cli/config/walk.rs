//! The walker a [`Config`] builds, with ripgrep's filters (types, globs,
//! ignore files), and whether those filters are the default ones that
//! `tg index` walks with.

use std::path::PathBuf;

use ignore::WalkBuilder;
use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};

use super::{Config, Mode, SortBy};

impl Config {
    /// The file types, with `-t`/`-T`/`--type-add` applied.
    pub fn types(&self) -> anyhow::Result<Types> {
        let mut b = TypesBuilder::new();
        b.add_defaults();
        for def in &self.args.type_add {
            b.add_def(def)?;
        }
        for t in &self.args.type_select {
            b.select(t);
        }
        for t in &self.args.type_not {
            b.negate(t);
        }
        Ok(b.build()?)
    }

    fn overrides(&self) -> anyhow::Result<Override> {
        let a = &self.args;
        if a.glob.is_empty() && a.iglob.is_empty() {
            return Ok(Override::empty());
        }
        let cwd = std::env::current_dir()?;
        let mut b = OverrideBuilder::new(cwd);
        if a.glob_case_insensitive {
            b.case_insensitive(true)?;
        }
        for g in &a.glob {
            b.add(g)?;
        }
        b.case_insensitive(true)?;
        for g in &a.iglob {
            b.add(g)?;
        }
        Ok(b.build()?)
    }

    /// Whether the walk uses only the default filters, the ones `tg index` walks with.
    pub fn walk_is_default(&self) -> bool {
        let a = &self.args;
        a.glob.is_empty()
            && a.iglob.is_empty()
            && a.type_select.is_empty()
            && a.type_not.is_empty()
            && a.type_add.is_empty()
            && !self.hidden
            && !self.no_ignore
            && !a.no_ignore_vcs
            && !a.no_ignore_dot
            && !a.no_ignore_parent
            && !a.no_require_git
            && !a.follow
            && a.max_depth.is_none()
            && self.max_filesize.is_none()
            && !a.one_file_system
    }

    /// Builds the directory walker over [`Config::paths`], with ripgrep's filters.
    pub fn walk_builder(&self) -> anyhow::Result<WalkBuilder> {
        self.walk_builder_at(&self.paths)
    }

    /// Builds the walker with ripgrep's filters over `paths` (not empty).
    pub fn walk_builder_at(&self, paths: &[PathBuf]) -> anyhow::Result<WalkBuilder> {
        let a = &self.args;
        let mut b = WalkBuilder::new(&paths[0]);
        for p in &paths[1..] {
            b.add(p);
        }
        let no_vcs = self.no_ignore || a.no_ignore_vcs;
        let no_dot = self.no_ignore || a.no_ignore_dot;
        b.max_depth(a.max_depth)
            .follow_links(a.follow)
            .max_filesize(self.max_filesize)
            .threads(self.threads)
            .same_file_system(a.one_file_system)
            .skip_stdout(matches!(self.mode, Mode::Search(_)))
            .overrides(self.overrides()?)
            .types(self.types()?)
            .hidden(!self.hidden)
            .parents(!(self.no_ignore || a.no_ignore_parent))
            .ignore(!no_dot)
            .git_global(!no_vcs)
            .git_ignore(!no_vcs)
            .git_exclude(!no_vcs)
            .require_git(!a.no_require_git)
            .current_dir(std::env::current_dir()?);
        if !no_dot {
            b.add_custom_ignore_filename(".rgignore");
        }
        if let Some((SortBy::Path, false)) = self.sort {
            b.sort_by_file_name(|a, b| a.cmp(b));
        }
        Ok(b)
    }
}
