//! Which entries of a tree's table a search's walk yields, when the table
//! can say: the recorded walk its rules select ([`views`]), narrowed or
//! widened by its `-g`/`--iglob` globs, `-t`/`-T` types and
//! `--max-filesize` exactly as its walker applies them. A search whose
//! rules no recorded walk matches walks the tree (pruned by the index).
//!
//! The walker (the `ignore` crate) decides each entry below a search path
//! in this order: a glob that matches it decides (a `!` glob leaves it
//! out, any other admits it, over ignore rules and hidden names; with any
//! include glob, a file no glob matches is left out); else ignore rules
//! leave it out; else a type (files only: `-T` leaves it out, a `-t`
//! admits it over a hidden name, and with any `-t`, a file of no selected
//! type is left out); else a hidden name leaves it out. A directory left
//! out is not entered; `--max-filesize` then leaves out larger files. The
//! table holds the widest walk recorded ([`views::UNION`]), each entry
//! flagged with the recorded walks that leave it out, so an entry the
//! search's own recorded walk leaves out by its own name ("outside",
//! below a directory it enters) can still be admitted by a glob or type:
//! the sweep judges the wider walk ([`View::judged`]) and [`View::admits`]
//! decides. What the table cannot say, the search walks: an include glob
//! that admits a directory outside the walk (its entries' own standing is
//! not recorded), or one that might admit an entry no recorded walk holds
//! (ignore files or a repository that leave entries out of every walk).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::overrides::Override;
use ignore::types::Types;

use super::changes::lookup;
use crate::index::format::VIEWS_FEATURE_VERSION;
use crate::index::reader::IndexReader;
use crate::index::recorded::{is_store, under};
use crate::index::table::{FileRef, flags, views};
use crate::options::{TypeChange, WalkFilters};

/// A search's walk, as the table answers it.
pub struct View {
    /// Entries with any of these flags are left out by the recorded walk
    /// the search's rules select (its base).
    pub out: u32,
    /// The recorded walk the sweep judges: the base, or a wider one when
    /// the filters can admit entries the base leaves out by their own
    /// name (hidden ones for a plain walk, ignored ones for an editor's).
    pub judged: u32,
    /// `--no-ignore-parent`: the table answers only for the whole tree,
    /// with no ignore file above it.
    pub no_parent: bool,
    /// The `-g` and `--iglob` globs, matched as the walker matches them.
    globs: Option<Override>,
    /// Some glob is an include (not `!`): it admits entries over ignore
    /// rules and hidden names.
    pub includes: bool,
    /// The file types, with `-t`/`-T`/`--type-add`/`--type-clear` applied.
    types: Option<Types>,
    /// `--max-filesize`.
    max_filesize: Option<u64>,
}

impl View {
    /// The view of a search walking with the filters `f`, if its walk is one the table records
    /// (`--hidden`, `--no-require-git`, `--follow` as a recorded walk has
    /// them; `-g`/`--iglob` globs, `-t`/`-T` types, `--max-filesize`;
    /// `--no-ignore-global` without global rules; `--no-ignore-parent`;
    /// everything else as by default).
    pub fn of(f: &WalkFilters) -> Option<View> {
        let rules =
            views::Rules { hidden: f.hidden, no_require_git: f.no_require_git, follow: f.follow };
        let out = views::out_of(rules)?;
        let rest = WalkFilters {
            globs: Vec::new(),
            iglobs: Vec::new(),
            glob_case_insensitive: false,
            type_changes: Vec::new(),
            max_filesize: None,
            hidden: false,
            no_require_git: false,
            follow: false,
            no_ignore_parent: false,
            no_ignore_global: false,
            ..f.clone()
        };
        if !rest.is_default() {
            return None;
        }
        if f.no_ignore_global && !ignore::gitignore::Gitignore::global().0.is_empty() {
            return None;
        }
        let has_globs = !f.globs.is_empty() || !f.iglobs.is_empty();
        let globs = match has_globs {
            true => Some(f.overrides(&std::env::current_dir().ok()?).ok()?),
            false => None,
        };
        let includes = globs.as_ref().is_some_and(|g| g.num_whitelists() > 0);
        let types = match f.type_changes.is_empty() {
            true => None,
            false => Some(f.types().ok()?),
        };
        let selects = f.type_changes.iter().any(|c| matches!(c, TypeChange::Select(_)));
        // What can admit an entry the base walk leaves out by its own name:
        // a hidden one (plain walk), an include glob or a selected type; an
        // ignored one (editor's walk, `.gitignore` without a repository),
        // an include glob; one reached through a link (`--hidden`), nothing.
        let judged = match out {
            flags::OUT_OF_PLAIN if includes || selects => flags::OUT_OF_HIDDEN,
            flags::OUT_OF_EDITOR if includes => 0,
            _ => out,
        };
        Some(View {
            out,
            judged,
            no_parent: f.no_ignore_parent,
            globs,
            includes,
            types,
            max_filesize: f.max_filesize,
        })
    }

    /// Whether the walk yields the table entry `rel` (a directory when
    /// `is_dir`) below the search path `scope` (as given, and as a table
    /// path), which stands `outside` the base walk by its own name or not
    /// (see [`standing`]): no glob takes it or a directory between it and
    /// the search path out, and its own match admits it (module docs).
    /// `dirs` remembers the directories last decided.
    pub fn admits(
        &self,
        scope: &(PathBuf, Vec<u8>),
        rel: &[u8],
        is_dir: bool,
        outside: bool,
        dirs: &mut Decided,
    ) -> bool {
        if !self.has_filters() {
            return !outside;
        }
        let start = if scope.1.is_empty() { 0 } else { scope.1.len() + 1 };
        for (depth, i) in (start..rel.len()).filter(|&i| rel[i] == b'/').enumerate() {
            // The directories between are in the base walk (`standing`):
            // only a `!` glob takes them out.
            let dir = &rel[..i];
            let kept = match dirs.0.get(depth) {
                Some((d, kept)) if d == dir => *kept,
                _ => {
                    let kept = !self.glob(scope, dir, true).is_ignore();
                    dirs.0.truncate(depth);
                    dirs.0.push((dir.to_vec(), kept));
                    kept
                }
            };
            if !kept {
                return false;
            }
        }
        if rel.len() <= scope.1.len() {
            return true;
        }
        let own = match self.glob(scope, rel, is_dir) {
            Match::Whitelist(_) => true,
            Match::Ignore(_) => false,
            Match::None if is_dir => !outside,
            Match::None => {
                match self.types.as_ref().map(|t| t.matched(walked(scope, rel), false)) {
                    Some(Match::Ignore(_)) => false,
                    // A selected type admits a hidden file, not an ignored one.
                    Some(Match::Whitelist(_)) => !outside || self.out == flags::OUT_OF_PLAIN,
                    _ => !outside,
                }
            }
        };
        own && (is_dir || self.small_enough(scope, rel))
    }

    /// Whether the file `rel` is no larger than `--max-filesize`, as the
    /// walker stats it (through a followed link); one it cannot stat is
    /// admitted, and its read reports the error, as the walker does.
    fn small_enough(&self, scope: &(PathBuf, Vec<u8>), rel: &[u8]) -> bool {
        let Some(max) = self.max_filesize else { return true };
        std::fs::metadata(display(scope, rel, false)).map_or(true, |m| m.len() <= max)
    }

    /// How the globs match the entry `rel` below `scope`.
    fn glob(&self, scope: &(PathBuf, Vec<u8>), rel: &[u8], is_dir: bool) -> Match<()> {
        match &self.globs {
            Some(g) => match g.matched(walked(scope, rel), is_dir) {
                Match::Whitelist(_) => Match::Whitelist(()),
                Match::Ignore(_) => Match::Ignore(()),
                Match::None => Match::None,
            },
            None => Match::None,
        }
    }

    /// Whether globs are the walk's only filters beyond its recorded walk
    /// (a server can apply them: [`View::of_globs`]).
    pub fn globs_only(&self) -> bool {
        self.globs.is_some() && self.types.is_none() && self.max_filesize.is_none()
    }

    /// The view of a walk that leaves out the entries flagged `out` (a
    /// recorded walk's) with the `-g` globs `globs` and `--iglob` globs
    /// `iglobs` (`--glob-case-insensitive`: `ci`) and no other filter, as
    /// a server applies a query's globs; `None` when `out` is no recorded
    /// walk's or a glob is invalid.
    pub fn of_globs(out: u32, globs: Vec<String>, iglobs: Vec<String>, ci: bool) -> Option<View> {
        let (rules, _) = views::RECORDED.into_iter().find(|(_, o)| *o == out)?;
        let f = WalkFilters {
            globs,
            iglobs,
            glob_case_insensitive: ci,
            hidden: rules.hidden,
            no_require_git: rules.no_require_git,
            follow: rules.follow,
            ..WalkFilters::default()
        };
        View::of(&f).filter(|v| v.out == out)
    }

    /// Whether the walk has filters beyond its recorded walk (then an
    /// empty listing may hide files a walk would have found and left out:
    /// the search checks the table, or walks, to say so).
    pub fn has_filters(&self) -> bool {
        self.globs.is_some() || self.types.is_some() || self.max_filesize.is_some()
    }

    /// Whether the table can answer for this walk given what
    /// [`table_admits`] found below the search paths `scopes`: the walk
    /// enters none of the repository stores `stores`, its include globs
    /// admit none of the directories `outside` the base walk (by their own
    /// name, [`outside_dirs`]), and, with include globs, no ignore rule
    /// leaves entries out of every recorded walk (`ignores`).
    pub fn answers(
        &self,
        scopes: &[(PathBuf, Vec<u8>)],
        admitted: &Admitted,
        outside: &[Vec<u8>],
    ) -> bool {
        if self.includes && admitted.ignores {
            return false;
        }
        let mut dirs = Decided::default();
        let enters = |dir: &Vec<u8>, base: bool, dirs: &mut Decided| {
            scopes.iter().filter(|(_, p)| under(dir, p) && dir != p).any(|scope| {
                match self.glob(scope, dir, true) {
                    Match::Whitelist(_) => self.admits(scope, dir, true, false, dirs),
                    Match::Ignore(_) => false,
                    Match::None => base && self.admits(scope, dir, true, false, dirs),
                }
            })
        };
        // A store is hidden: the base walk enters it unless it is plain.
        let hidden = self.out != flags::OUT_OF_PLAIN;
        let store = admitted.stores.iter().any(|s| enters(s, hidden, &mut dirs));
        let admitted_dir = self.includes && outside.iter().any(|d| enters(d, false, &mut dirs));
        !(store || admitted_dir)
    }
}

/// The directories [`View::admits`] decided last: the chain of a path's
/// directories below its search path, each with whether the walk enters
/// it (entries come in path order, so most share the chain).
#[derive(Debug, Default)]
pub struct Decided(Vec<(Vec<u8>, bool)>);

/// The path the walker gives the entry `rel` below `scope`, as its
/// matchers see it (`./` stripped).
fn walked<'a>(scope: &(PathBuf, Vec<u8>), rel: &'a [u8]) -> Cow<'a, Path> {
    let rest = rel[scope.1.len()..].strip_prefix(b"/").unwrap_or(&rel[scope.1.len()..]);
    if matches!(scope.0.as_os_str().as_encoded_bytes(), b"." | b"./") && !rest.is_empty() {
        return crate::sys::rel_path(rest);
    }
    let path = display(scope, rel, false);
    Cow::Owned(match path.strip_prefix("./") {
        Ok(p) => p.to_path_buf(),
        Err(_) => path,
    })
}

/// What [`table_admits`] found: the repository stores below the search
/// paths (the build's walk left them out; a walk that enters one cannot
/// be answered), and whether ignore rules may leave entries out of every
/// recorded walk (an `.ignore` or `.rgignore` file, or a repository,
/// whose `.gitignore` and excludes then apply), which an include glob
/// could admit.
#[derive(Debug, Default)]
pub struct Admitted {
    /// Table paths of the stores.
    pub stores: Vec<Vec<u8>>,
    /// Ignore rules apply to the widest recorded walk.
    pub ignores: bool,
}

/// Whether `reader`'s table can stand in for a walk that leaves out the
/// entries flagged `out` below `scopes` (table paths), `no_parent` as
/// [`View::no_parent`]; and if so, what [`Admitted`] says. `None`: it
/// cannot (an index without views, a search path the walk itself leaves
/// out, an ignore file above the tree, or one made above a search path
/// inside it: `root` is the tree's).
pub fn table_admits(
    reader: &IndexReader,
    root: &Path,
    scopes: &[Vec<u8>],
    out: u32,
    no_parent: bool,
) -> Option<Admitted> {
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
    if super::above::made_above(reader, root, scopes) {
        return None;
    }
    let mut admitted = Admitted::default();
    for f in reader.files() {
        if f.flags & (flags::WATCH | flags::WATCH_EXISTS) == 0 || f.changed_ns == i64::MIN {
            continue;
        }
        let name = f.path.rsplit(|&b| b == b'/').next().unwrap_or(f.path);
        admitted.ignores |= is_store(name) || name == b".ignore" || name == b".rgignore";
        if f.path.starts_with(b"../") {
            if no_parent && f.flags & flags::WATCH != 0 {
                return None;
            }
            continue;
        }
        if is_store(name) && scopes.iter().any(|s| under(f.path, s)) {
            admitted.stores.push(f.path.to_vec());
        }
    }
    Some(admitted)
}

/// Where the table entry `f`, kept by a sweep of the wider walk
/// [`View::judged`], stands in the base walk that leaves out entries
/// flagged `out` (following links when `follow`): `Some(false)` in it,
/// `Some(true)` outside it by its own name (its directory is in it; a
/// glob or type may admit it), `None` below a directory outside it, or a
/// link the base walk does not follow (nothing admits those).
pub fn standing(reader: &IndexReader, f: &FileRef<'_>, out: u32, follow: bool) -> Option<bool> {
    if f.flags & out == 0 {
        return Some(false);
    }
    if f.flags & flags::VIA_LINK != 0 && !follow {
        return None;
    }
    let parent = match f.path.iter().rposition(|&b| b == b'/') {
        Some(i) => &f.path[..i],
        None => return Some(true),
    };
    let p = reader.file(lookup(reader, parent)?)?;
    (p.flags & out == 0).then_some(true)
}

/// Whether the base walk `out` follows links (an editor's walk and the
/// widest one do).
pub fn follows(out: u32) -> bool {
    out == flags::OUT_OF_EDITOR || out == 0
}

/// Whether a file of `reader`'s table (of the tree at `root`) in `view`
/// below `scopes` is still there, and the filters admit it: whether a
/// walk would find any file, when a listing is empty.
pub fn any_admitted(
    reader: &IndexReader,
    root: &Path,
    view: &View,
    scopes: &[(PathBuf, Vec<u8>)],
) -> bool {
    let mut dirs = Decided::default();
    let follow = follows(view.out);
    reader.files().any(|f| {
        let Some(outside) = (f.flags & (flags::NOT_A_FILE | view.judged) == 0)
            .then(|| standing(reader, &f, view.out, follow))
            .flatten()
        else {
            return false;
        };
        scopes.iter().any(|scope| {
            under(f.path, &scope.1)
                && view.admits(scope, f.path, false, outside, &mut dirs)
                && root.join(crate::sys::rel_path(f.path)).is_file()
        })
    })
}

/// The directories of `reader`'s table below `scopes` that the base walk
/// `out` leaves out by their own name ([`standing`]) while the walk
/// `judged` holds them: an include glob that admits one of them enters
/// what the table does not describe.
pub fn outside_dirs<'r>(
    reader: &'r IndexReader,
    scopes: &[Vec<u8>],
    out: u32,
    judged: u32,
) -> Vec<&'r [u8]> {
    reader
        .files()
        .filter(|f| f.flags & flags::DIR != 0 && f.flags & out != 0 && f.flags & judged == 0)
        .filter(|f| scopes.iter().any(|s| under(f.path, s) && f.path != &s[..]))
        .filter(|f| standing(reader, f, out, follows(out)) == Some(true))
        .map(|f| f.path)
        .collect()
}

/// The printed path of the table entry `rel`: its search path joined with
/// the rest, the `./` prefix stripped when no path was given (`strip`).
pub fn display(scope: &(PathBuf, Vec<u8>), rel: &[u8], strip: bool) -> PathBuf {
    let (given, prefix) = scope;
    let rest = rel[prefix.len()..].strip_prefix(b"/").unwrap_or(&rel[prefix.len()..]);
    let dot = matches!(given.as_os_str().as_encoded_bytes(), b"." | b"./");
    if dot && !rest.is_empty() && cfg!(unix) {
        // The common search path, joined without parsing components.
        let rest = crate::sys::rel_path(rest);
        return if strip { rest.to_path_buf() } else { Path::new("./").join(rest) };
    }
    let joined =
        if rest.is_empty() { given.clone() } else { given.join(crate::sys::rel_path(rest)) };
    match joined.strip_prefix("./") {
        Ok(p) if strip => p.to_path_buf(),
        _ => joined,
    }
}
