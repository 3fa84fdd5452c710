//! Which entries of a tree's table a search's walk yields, when the table
//! can say: the recorded walk its rules select ([`views`]), narrowed by its
//! `-g` exclude globs as its walker applies them. A search whose rules no
//! recorded walk matches walks the tree (pruned by the index).

use std::collections::HashMap;
use std::path::PathBuf;

use ignore::overrides::Override;

use super::changes::lookup;
use crate::index::format::VIEWS_FEATURE_VERSION;
use crate::index::reader::IndexReader;
use crate::index::table::{flags, views};
use crate::index::tree::{is_store, under};
use crate::options::WalkFilters;

/// A search's walk, as the table answers it.
pub struct View {
    /// Entries with any of these flags are left out by the walk.
    pub out: u32,
    /// `--no-ignore-parent`: the table answers only for the whole tree,
    /// with no ignore file above it.
    pub no_parent: bool,
    /// The `-g` globs, all excludes, matched as the walker matches them.
    globs: Option<Override>,
}

impl View {
    /// The view of a search walking with the filters `f`, if its walk is one the table records
    /// (`--hidden`, `--no-require-git`, `--follow` as a recorded walk has
    /// them; `-g` excludes; `--no-ignore-global` without global rules;
    /// `--no-ignore-parent`; everything else as by default).
    pub fn of(f: &WalkFilters) -> Option<View> {
        let rules =
            views::Rules { hidden: f.hidden, no_require_git: f.no_require_git, follow: f.follow };
        let out = views::out_of(rules)?;
        let rest = WalkFilters {
            globs: Vec::new(),
            glob_case_insensitive: false,
            hidden: false,
            no_require_git: false,
            follow: false,
            no_ignore_parent: false,
            no_ignore_global: false,
            ..f.clone()
        };
        if !rest.is_default() || f.globs.iter().any(|g| !g.starts_with('!')) {
            return None;
        }
        if f.no_ignore_global && !ignore::gitignore::Gitignore::global().0.is_empty() {
            return None;
        }
        let globs = if f.globs.is_empty() {
            None
        } else {
            Some(f.overrides(&std::env::current_dir().ok()?).ok()?)
        };
        Some(View { out, no_parent: f.no_ignore_parent, globs })
    }

    /// Whether the walk yields the table entry `rel` (a directory when
    /// `is_dir`) below the search path `scope` (as given, and as a table
    /// path): no exclude glob takes it or a directory between it and the
    /// search path out. `dirs` remembers the directories decided.
    pub fn admits(
        &self,
        scope: &(PathBuf, Vec<u8>),
        rel: &[u8],
        is_dir: bool,
        dirs: &mut HashMap<Vec<u8>, bool>,
    ) -> bool {
        let Some(globs) = &self.globs else { return true };
        let start = if scope.1.is_empty() { 0 } else { scope.1.len() + 1 };
        for i in (start..rel.len()).filter(|&i| rel[i] == b'/') {
            let dir = &rel[..i];
            let kept =
                *dirs.entry(dir.to_vec()).or_insert_with(|| !ignores(globs, scope, dir, true));
            if !kept {
                return false;
            }
        }
        rel.len() <= scope.1.len() || !ignores(globs, scope, rel, is_dir)
    }

    /// Whether the search's globs exclude every repository store in
    /// `stores` (table paths below the search paths `scopes`), so that
    /// its walk enters none.
    pub fn excludes(&self, scopes: &[(PathBuf, Vec<u8>)], stores: &[Vec<u8>]) -> bool {
        let mut dirs = HashMap::new();
        stores.iter().all(|s| {
            scopes.iter().filter(|(_, p)| under(s, p)).all(|scope| {
                let is_dir = display(scope, s, false).is_dir();
                self.globs.is_some() && !self.admits(scope, s, is_dir, &mut dirs)
            })
        })
    }

    /// Whether the walk has globs (then an empty listing may hide files a
    /// walk would have found and excluded: the search walks to say so).
    pub fn has_globs(&self) -> bool {
        self.globs.is_some()
    }
}

/// Whether `globs` exclude the entry `rel` below `scope`, at the path the
/// walker gives it (`./` stripped, as the walker strips it).
fn ignores(globs: &Override, scope: &(PathBuf, Vec<u8>), rel: &[u8], is_dir: bool) -> bool {
    let path = display(scope, rel, false);
    let path = path.strip_prefix("./").unwrap_or(&path);
    globs.matched(path, is_dir).is_ignore()
}

/// Whether `reader`'s table can stand in for a walk that leaves out the
/// entries flagged `out` below `scopes` (table paths), `no_parent` as
/// [`View::no_parent`]; and if so, the repository stores below them that
/// a walk of hidden files would enter (the search's globs must exclude
/// them). `None`: it cannot (an index without views, a search path the
/// walk itself leaves out, an ignore file above the tree).
pub fn table_admits(
    reader: &IndexReader,
    scopes: &[Vec<u8>],
    out: u32,
    no_parent: bool,
) -> Option<Vec<Vec<u8>>> {
    // An older table holds the default walk alone.
    if out != flags::OUT_OF_PLAIN && reader.feature_version() < VIEWS_FEATURE_VERSION {
        return None;
    }
    if no_parent && scopes.iter().any(|s| !s.is_empty()) {
        return None;
    }
    for s in scopes.iter().filter(|s| !s.is_empty()) {
        // A search path the walk leaves out is walked whole by a search
        // that names it: the table does not say what that finds.
        let f = reader.file(lookup(reader, s)?)?;
        if f.flags & flags::DIR == 0 || f.flags & out != 0 {
            return None;
        }
    }
    let hidden = out != flags::OUT_OF_PLAIN;
    let mut stores = Vec::new();
    for f in reader.files() {
        if f.flags & (flags::WATCH | flags::WATCH_EXISTS) == 0 || f.changed_ns == i64::MIN {
            continue;
        }
        if f.path.starts_with(b"../") {
            if no_parent && f.flags & flags::WATCH != 0 {
                return None;
            }
            continue;
        }
        let name = f.path.rsplit(|&b| b == b'/').next().unwrap_or(f.path);
        if hidden && is_store(name) && scopes.iter().any(|s| under(f.path, s)) {
            stores.push(f.path.to_vec());
        }
    }
    Some(stores)
}

/// The printed path of the table entry `rel`: its search path joined with
/// the rest, the `./` prefix stripped when no path was given (`strip`).
pub fn display(scope: &(PathBuf, Vec<u8>), rel: &[u8], strip: bool) -> PathBuf {
    let (given, prefix) = scope;
    let rest = rel[prefix.len()..].strip_prefix(b"/").unwrap_or(&rel[prefix.len()..]);
    let joined =
        if rest.is_empty() { given.clone() } else { given.join(crate::sys::rel_path(rest)) };
    match joined.strip_prefix("./") {
        Ok(p) if strip => p.to_path_buf(),
        _ => joined,
    }
}
