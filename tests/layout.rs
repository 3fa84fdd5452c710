//! The code's shape, checked: the engine library never
//! imports the command line, imports between source files form no cycle,
//! no file imports a file that stands above it, no source file outgrows
//! 450 lines, only the platform seam (`engine/src/sys/`) names the system's
//! own interfaces (`libc`, `std::os::unix`, `/proc`, inotify), and only
//! the door (`engine/src/kind/`) tells what a file is by its name or magic bytes.
//!
//! **How imports are read.** Each file's code is tokenized (comments,
//! string and character literals, `mod x;` declarations and the trailing
//! inline test module dropped). Every `use` tree is read whole — braces,
//! nested groups, `self`, `as` renames, `super::super::` chains — and each
//! name it binds is remembered. Then every path in the code (`crate::a::b`,
//! `super::x::f`, `self::y`, `trigrep::…` in the binary, a bare `x::f`
//! whose `x` a `use` bound or that names a child module of the file) is
//! resolved to the source file that defines it: the longest prefix that
//! names a file. `use super::{Server, answer}` thus imports both
//! `mod.rs` (for `Server`) and `answer.rs`, and `listen::stop()` after
//! `use super::listen` imports `listen.rs`. Test-only files (`tests.rs`,
//! `prop.rs`) are left out.
//!
//! **Standing above.** A folder's `mod.rs` stands above every file inside
//! the folder (at any depth): it owns them, declares them and calls them.
//! Inside `serve/` and `search/` no file imports a file that stands above
//! it: what a child needs from its owner comes down as arguments, and a
//! type that several children share lives in a child file of its own (the
//! owner may re-export it; children name the file that defines it). An
//! owner that is imported by what it owns is a loop at file level, which
//! is what the drawing of imports shows as an arrow running back up.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;
type Graph = BTreeMap<Module, BTreeSet<Module>>;

/// Import loops known today, each as its files: reported by every run
/// (stderr). It is empty; a loop not listed here fails the test.
const KNOWN_LOOPS: &[&[&str]] = &[];

/// Imports of a file standing above the importer known today (importer,
/// imported): emptied likewise.
const KNOWN_UPWARD: &[(&str, &str)] = &[];

/// The binary's top-level modules (`src/`): `main.rs` and the front
/// doors that need a command line or a terminal.
const BINARY: &[&str] = &["main", "cli", "view"];

/// Whether `module` belongs to the binary rather than the engine.
fn in_binary(module: &[String]) -> bool {
    module.first().is_some_and(|m| BINARY.contains(&m.as_str()))
}

/// Every source file of the engine (`engine/src/`) and of the binary
/// (`src/`) as a module path (`["chunk", "cut"]`; the engine's `lib.rs`
/// is `[]`, the binary's `main.rs` is `["main"]`) and its text.
fn sources() -> BTreeMap<Module, (PathBuf, String)> {
    sources_in(&["engine/src", "src"])
}

/// Every source file of the SQL crate (`sql/src/`), its modules named
/// apart from the engine's (`crate::` is the SQL library).
fn sql_sources() -> BTreeMap<Module, (PathBuf, String)> {
    sources_in(&["sql/src"])
}

/// The source files under `roots` (relative to the repository), each as
/// its module path and text.
fn sources_in(roots: &[&str]) -> BTreeMap<Module, (PathBuf, String)> {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = BTreeMap::new();
    for root in roots.iter().map(|r| top.join(r)) {
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let rel = path.strip_prefix(&root).unwrap().with_extension("");
                let mut module: Module =
                    rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
                if module.last().is_some_and(|m| m == "mod" || m == "lib") {
                    module.pop();
                }
                let text = std::fs::read_to_string(&path).unwrap();
                assert!(out.insert(module, (path, text)).is_none(), "two files, one module");
            }
        }
    }
    out
}

/// The tokens of `text`'s code: identifiers, `::`, and single punctuation
/// characters. Comments and literals are dropped, and so are `mod x;`
/// declarations and the inline test module (which comes last, by
/// convention here).
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        if c == '/' && next == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 1;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                i += 1;
            }
        } else if c == '"'
            || (c == 'r' && (next == '"' || next == '#'))
            || (c == 'b' && next == '"')
        {
            // A string: plain, byte or raw (`r#"…"#`).
            let raw = c == 'r';
            i += usize::from(c != '"');
            let mut hashes = 0;
            while raw && chars.get(i) == Some(&'#') {
                hashes += 1;
                i += 1;
            }
            if chars.get(i) != Some(&'"') {
                out.push("r".into());
                continue;
            }
            i += 1;
            while i < chars.len() {
                if !raw && chars[i] == '\\' {
                    i += 2;
                    continue;
                }
                if chars[i] == '"' && (0..hashes).all(|h| chars.get(i + 1 + h) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.push("\"\"".into());
        } else if c == '\'' {
            // A character literal (`'x'`, `'\n'`, `'"'`) or a lifetime (`'a`).
            if next == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if ident(c) {
            let start = i;
            while i < chars.len() && ident(chars[i]) {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && next == ':' {
            out.push("::".into());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    strip_mods_and_tests(out)
}

/// `tokens` without `mod x;` declarations and the trailing
/// `#[cfg(test)] mod … {` module.
fn strip_mods_and_tests(t: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let at = |k: usize| t.get(i + k).map_or("", String::as_str);
        let test_attr = ["#", "[", "cfg", "(", "test", ")", "]"];
        if (0..7).all(|k| at(k) == test_attr[k]) && at(7) == "mod" && at(9) == "{" {
            break;
        }
        if at(0) == "mod" && at(2) == ";" {
            i += 3;
            continue;
        }
        out.push(t[i].clone());
        i += 1;
    }
    out
}

/// One file's view of names: its module path, the files of the crate, and
/// the names its `use` trees bind.
struct Scope<'a> {
    module: &'a [String],
    files: &'a BTreeMap<Module, (PathBuf, String)>,
    /// Names bound by `use`, to the module paths they stand for.
    bound: BTreeMap<String, Module>,
}

impl Scope<'_> {
    /// The absolute module path of `segments` as written in this file, or
    /// `None` when its first segment names nothing of this crate. In the
    /// binary, `crate::` is `main.rs` (whose `cli` and `view` folders are
    /// `cli::…` and `view::…`) and `trigrep::` the library.
    fn resolve(&self, segments: &[String]) -> Option<Module> {
        let (first, rest) = segments.split_first()?;
        let binary = in_binary(self.module);
        let mut path = match first.as_str() {
            "crate" => Vec::new(),
            "self" => self.module.to_vec(),
            "super" => {
                let mut p = self.module.to_vec();
                p.pop()?;
                p
            }
            name => {
                let mut child = self.module.to_vec();
                child.push(name.to_string());
                match self.bound.get(name) {
                    Some(p) => return extend(p.clone(), rest),
                    None if self.files.contains_key(&child) => child,
                    // The library, unless a child module of the same name shadows it.
                    None if binary && name == "trigrep" => return extend(Vec::new(), rest),
                    None => return None,
                }
            }
        };
        path = extend(path, rest)?;
        if binary && !in_binary(&path) {
            path.insert(0, "main".into());
        }
        Some(path)
    }
}

/// `path` followed by the written segments `rest` (`super` steps up).
fn extend(mut path: Module, rest: &[String]) -> Option<Module> {
    for s in rest {
        match s.as_str() {
            "super" => {
                path.pop()?;
            }
            "self" => {}
            _ => path.push(s.clone()),
        }
    }
    Some(path)
}

/// Reads the `use` tree starting at `t[*i]` (after `use`) with `prefix`
/// written before it; pushes each (path as written, name bound) and moves
/// `*i` past the tree.
fn use_tree(t: &[String], i: &mut usize, prefix: &[String], out: &mut Vec<(Module, String)>) {
    let mut path = prefix.to_vec();
    if t.get(*i).is_some_and(|s| s == "::") {
        *i += 1;
    }
    while *i < t.len() {
        match t[*i].as_str() {
            "{" => {
                *i += 1;
                while *i < t.len() && t[*i] != "}" {
                    use_tree(t, i, &path, out);
                    if t.get(*i).is_some_and(|s| s == ",") {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            "*" => {
                *i += 1;
                out.push((path, "*".into()));
                return;
            }
            "::" => *i += 1,
            s if s.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                path.push(s.to_string());
                *i += 1;
                if t.get(*i).is_some_and(|s| s == "::") {
                    continue;
                }
                let mut name = s.to_string();
                if name == "self" {
                    path.pop();
                    name = path.last().cloned().unwrap_or_default();
                }
                if t.get(*i).is_some_and(|s| s == "as") {
                    name = t.get(*i + 1).cloned().unwrap_or_default();
                    *i += 2;
                }
                out.push((path, name));
                return;
            }
            _ => return,
        }
    }
}

/// The module paths `module`'s code names (`use` trees and paths in code),
/// each resolved from the crate root; paths of other crates are left out.
fn referenced(
    module: &[String],
    text: &str,
    files: &BTreeMap<Module, (PathBuf, String)>,
) -> Vec<Module> {
    let t = tokens(text);
    let mut scope = Scope { module, files, bound: BTreeMap::new() };
    let mut uses = Vec::new();
    let mut in_use = vec![false; t.len()];
    let mut i = 0;
    while i < t.len() {
        if t[i] == "use" {
            let start = i;
            i += 1;
            use_tree(&t, &mut i, &[], &mut uses);
            in_use[start..i.min(t.len())].iter_mut().for_each(|b| *b = true);
        } else {
            i += 1;
        }
    }
    let mut refs = Vec::new();
    // Names are bound in order of appearance, so a group may use what an
    // earlier `use` bound (`use super::listen; use listen::Stop;`).
    for (written, name) in &uses {
        if let Some(p) = scope.resolve(written) {
            if name != "*" && name != "_" {
                scope.bound.insert(name.clone(), p.clone());
            }
            refs.push(p);
        }
    }
    let ident = |s: &str| s.chars().all(|c| c.is_alphanumeric() || c == '_');
    let mut i = 0;
    while i < t.len() {
        let starts = !in_use[i]
            && ident(&t[i])
            && t.get(i + 1).is_some_and(|s| s == "::")
            && (i == 0 || t[i - 1] != "::");
        if !starts {
            i += 1;
            continue;
        }
        let mut segments = vec![t[i].clone()];
        i += 1;
        while t.get(i).is_some_and(|s| s == "::") && t.get(i + 1).is_some_and(|s| ident(s)) {
            segments.push(t[i + 1].clone());
            i += 2;
        }
        refs.extend(scope.resolve(&segments));
    }
    refs
}

/// The file-level import graph of the crate (library and binary).
fn graph() -> Graph {
    graph_of(&sources())
}

/// The file-level import graph of `files`, one crate's sources.
fn graph_of(files: &BTreeMap<Module, (PathBuf, String)>) -> Graph {
    let mut edges = Graph::new();
    for (module, (path, text)) in files {
        let name = path.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name == "prop.rs" {
            continue;
        }
        let targets = edges.entry(module.clone()).or_default();
        for mut r in referenced(module, text, files) {
            // The longest prefix that is a source file.
            while !r.is_empty() && !files.contains_key(&r) {
                r.pop();
            }
            if r != *module && files.contains_key(&r) {
                targets.insert(r);
            }
        }
    }
    edges
}

/// A module path as written in Rust (`serve::answer`; the crate root is `crate`).
fn named(m: &[String]) -> String {
    if m.is_empty() { "crate".into() } else { m.join("::") }
}

/// The loops of `edges`: strongly connected components of two files or
/// more (Tarjan), each sorted.
fn loops(edges: &Graph) -> Vec<Vec<Module>> {
    struct Walk<'a> {
        edges: &'a Graph,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        on_stack: BTreeSet<Module>,
        found: Vec<Vec<Module>>,
    }
    fn visit(w: &mut Walk<'_>, n: &Module) {
        let at = w.index.len();
        w.index.insert(n.clone(), at);
        w.low.insert(n.clone(), at);
        w.stack.push(n.clone());
        w.on_stack.insert(n.clone());
        for m in w.edges.get(n).into_iter().flatten() {
            if !w.index.contains_key(m) {
                visit(w, m);
                let low = w.low[n].min(w.low[m]);
                w.low.insert(n.clone(), low);
            } else if w.on_stack.contains(m) {
                let low = w.low[n].min(w.index[m]);
                w.low.insert(n.clone(), low);
            }
        }
        if w.low[n] == w.index[n] {
            let mut component = Vec::new();
            while let Some(m) = w.stack.pop() {
                w.on_stack.remove(&m);
                let done = m == *n;
                component.push(m);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                w.found.push(component);
            }
        }
    }
    let mut w = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for n in edges.keys() {
        if !w.index.contains_key(n) {
            visit(&mut w, n);
        }
    }
    w.found
}

/// A loop as text: its files, then each import inside it.
fn describe(component: &[Module], edges: &Graph) -> String {
    let mut s = component.iter().map(|m| named(m)).collect::<Vec<_>>().join(", ");
    for a in component {
        for b in edges[a].iter().filter(|b| component.contains(b)) {
            s.push_str(&format!("\n    {} -> {}", named(a), named(b)));
        }
    }
    s
}

#[test]
fn the_engine_never_imports_the_command_line() {
    for (from, tos) in graph() {
        if in_binary(&from) {
            continue;
        }
        for to in tos {
            assert!(!in_binary(&to), "{} imports the command line ({})", named(&from), named(&to));
        }
    }
}

#[test]
fn the_sql_crates_files_import_one_another_in_no_loop() {
    let edges = graph_of(&sql_sources());
    assert!(edges.len() > 20, "the graph covers the SQL crate ({} files)", edges.len());
    assert!(edges.values().map(BTreeSet::len).sum::<usize>() > 20, "imports are seen");
    let found: Vec<String> = loops(&edges).iter().map(|c| describe(c, &edges)).collect();
    assert!(
        found.is_empty(),
        "import loops between the SQL crate's files:\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn imports_between_files_form_no_loop() {
    let edges = graph();
    assert!(edges.len() > 30, "the graph covers the crate ({} files)", edges.len());
    let (mut known, mut new) = (Vec::new(), Vec::new());
    let mut listed: Vec<Vec<&str>> = KNOWN_LOOPS.iter().map(|k| k.to_vec()).collect();
    listed.iter_mut().for_each(|k| k.sort_unstable());
    let mut seen = Vec::new();
    for component in loops(&edges) {
        let names: Vec<String> = component.iter().map(|m| named(m)).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let text = describe(&component, &edges);
        match listed.iter().position(|k| *k == names) {
            Some(at) => {
                seen.push(at);
                known.push(text);
            }
            None => new.push(text),
        }
    }
    for k in &known {
        eprintln!("known import loop (to be removed): {k}");
    }
    assert!(new.is_empty(), "import loops between files:\n  {}", new.join("\n  "));
    let gone: Vec<String> =
        (0..listed.len()).filter(|at| !seen.contains(at)).map(|at| listed[at].join(", ")).collect();
    assert!(gone.is_empty(), "KNOWN_LOOPS lists loops that are gone: {gone:?}");
}

#[test]
fn no_file_in_serve_or_search_imports_one_above_it() {
    let (mut known, mut new) = (Vec::new(), Vec::new());
    for (from, tos) in graph() {
        if !from.first().is_some_and(|m| m == "serve" || m == "search") {
            continue;
        }
        for to in tos.iter().filter(|to| to.len() < from.len() && from.starts_with(to)) {
            let (a, b) = (named(&from), named(to));
            if KNOWN_UPWARD.contains(&(a.as_str(), b.as_str())) {
                known.push((a, b));
            } else {
                new.push(format!("{a} -> {b}"));
            }
        }
    }
    let gone: Vec<_> = KNOWN_UPWARD
        .iter()
        .filter(|&&(a, b)| !known.iter().any(|(x, y)| x == a && y == b))
        .collect();
    let known: Vec<String> = known.iter().map(|(a, b)| format!("{a} -> {b}")).collect();
    for k in &known {
        eprintln!("known import of a file above the importer (to be removed): {k}");
    }
    assert!(
        new.is_empty(),
        "files import a file that stands above them (pass what they need down):\n  {}",
        new.join("\n  ")
    );
    assert!(gone.is_empty(), "KNOWN_UPWARD lists imports that are gone: {gone:?}");
}

#[test]
fn top_level_modules_depend_one_way() {
    // Folded to the first component (`chunk`, `index`, `search`, ...), the
    // graph must stay acyclic too: no folder depends on one that depends on it.
    let mut folded: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in graph() {
        let Some(a) = from.first() else { continue };
        for to in tos {
            if let Some(b) = to.first().filter(|b| *b != a) {
                folded.entry(a.clone()).or_default().insert(b.clone());
            }
        }
    }
    for (a, bs) in &folded {
        for b in bs {
            let back = folded.get(b).is_some_and(|cs| cs.contains(a));
            assert!(!back, "{a} and {b} import each other");
        }
    }
    let reach = |from: &str, to: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(n) = todo.pop() {
            if n == to {
                return true;
            }
            if seen.insert(n.clone()) {
                todo.extend(folded.get(&n).into_iter().flatten().cloned());
            }
        }
        false
    };
    assert!(reach("search", "chunk") && reach("search", "index"));
    assert!(!reach("index", "search") && !reach("chunk", "search") && !reach("options", "index"));
    // The viewer is a front door of its own: the command line calls it.
    assert!(reach("cli", "view") && !reach("view", "cli"));
}

#[test]
fn no_source_file_outgrows_450_lines() {
    for (path, text) in sources().values().chain(sql_sources().values()) {
        let n = text.lines().count();
        assert!(n < 450, "{} has {n} lines", path.display());
    }
}

/// File names that several source files share because they are one idea
/// in parallel places: each module's own `error`, `stats` and `format` (its
/// bytes on disk), one source of text as each layer or front door handles it
/// (`remote`, `gz`, `packed`, `pcre2`, `blocks`, `fetched`, `text`), a flag
/// group and its resolution (`output`), reading ahead (a decoder's thread,
/// a store's next objects, the viewer's next piece: `ahead`), the walks of a search and of a build
/// (`walk`), listings (a prefix's objects, a walk's entries), k-way merges
/// (sorted runs, texts by time), readers (a build's file, a packed file, a
/// scan's unit) and clients (of a server, of a store). Any other name is one
/// file's, so that a name says which idea a file holds.
const SHARED_NAMES: &[&str] = &[
    "ahead", "blocks", "client", "error", "fetched", "format", "gz", "listing", "merge", "output",
    "packed", "pcre2", "read", "remote", "stats", "text", "walk",
];

#[test]
fn no_two_files_share_a_name_unless_one_idea_in_parallel_places() {
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (path, _) in sources().values().chain(sql_sources().values()) {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if !["mod", "lib", "main", "tests"].contains(&name.as_str()) {
            let rel = path.strip_prefix(top).unwrap_or(path).display().to_string();
            by_name.entry(name).or_default().push(rel);
        }
    }
    let shared: Vec<String> = by_name
        .iter()
        .filter(|(name, files)| files.len() > 1 && !SHARED_NAMES.contains(&name.as_str()))
        .map(|(name, files)| format!("{name}.rs: {}", files.join(", ")))
        .collect();
    assert!(shared.is_empty(), "files sharing a name for different ideas:\n{}", shared.join("\n"));
}

/// What only the platform seam (`engine/src/sys/`) may name: the C library, Unix's
/// std extensions, Linux's `/proc` and inotify, `notify` (the watcher
/// elsewhere) and the Windows API's bindings.
const SYSTEM_ONLY: &[&str] =
    &["libc::", "use libc", "std::os::unix", "\"/proc", "inotify::", "notify::", "windows_sys::"];

/// The lines of `text` that name something of [`SYSTEM_ONLY`], outside
/// comments (tests included: they are built on every system too).
fn system_calls(text: &str) -> Vec<String> {
    let code = |l: &&str| !l.trim_start().starts_with("//");
    let named = |l: &&str| SYSTEM_ONLY.iter().any(|s| l.split("//").next().unwrap().contains(s));
    text.lines().filter(code).filter(named).map(|l| l.trim().to_string()).collect()
}

#[test]
fn only_the_platform_seam_names_the_system() {
    let mut found = Vec::new();
    for (module, (path, text)) in sources() {
        if module.first().is_some_and(|m| m == "sys") {
            continue;
        }
        found.extend(system_calls(&text).into_iter().map(|l| format!("{}: {l}", path.display())));
    }
    assert!(found.is_empty(), "outside engine/src/sys:\n{}", found.join("\n"));
    // The check can fail: each of these is found.
    let bad = "use std::os::unix::fs::MetadataExt;\nlet _ = libc::getuid();\n\
               let s = read(\"/proc/self/status\");\nlet m = inotify::WatchMask::CREATE;\n\
               let w = notify::recommended_watcher(f);";
    assert_eq!(system_calls(bad).len(), 5);
    assert!(system_calls("// libc::getuid()\nlet s = \"fs.inotify.max_user_watches\";").is_empty());
}

/// The text of the file at `path`.
fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The literals that tell what a file is, as the door (`kind/`) lists
/// them: each compression format's file-name endings as string literals
/// (`".gz"`, `b".gz"`) and its magic bytes (`0x1f, 0x8b`, `0x8b1f`,
/// `\x1f\x8b`, `"BZh"`).
fn file_kind_literals() -> Vec<String> {
    let mut out: Vec<String> =
        trigrep::kind::ENDINGS.iter().map(|(end, _)| format!("\"{end}\"")).collect();
    for (_, magic) in trigrep::kind::MAGIC {
        let hex: Vec<String> = magic.iter().map(|b| format!("0x{b:02x}")).collect();
        out.push(hex.join(", "));
        out.push(magic.iter().map(|b| format!("\\x{b:02x}")).collect());
        let le: String = magic.iter().rev().map(|b| format!("{b:02x}")).collect();
        out.push(format!("0x{le}"));
        if magic.iter().all(|b| b.is_ascii_alphanumeric()) {
            out.push(format!("\"{}\"", String::from_utf8_lossy(magic)));
        }
    }
    out
}

/// The lines of `text`'s code (comments and the trailing test module left
/// out) holding one of `literals`, compared without case for hex digits.
fn lines_holding(text: &str, literals: &[String]) -> Vec<String> {
    let code = text.split("\n#[cfg(test)]\nmod tests {").next().unwrap_or(text);
    let code = code.lines().filter(|l| !l.trim_start().starts_with("//"));
    let holds = |l: &&str| {
        let l = l.split(" //").next().unwrap();
        literals.iter().any(|x| l.contains(x.as_str()) || l.to_lowercase().contains(x.as_str()))
    };
    code.filter(holds).map(|l| l.trim().to_string()).collect()
}

#[test]
fn only_the_door_tells_what_a_file_is() {
    let literals = file_kind_literals();
    let mut found = Vec::new();
    let sql = Path::new(env!("CARGO_MANIFEST_DIR")).join("sql/src");
    let sql_files = std::fs::read_dir(&sql).unwrap().flatten().map(|e| e.path());
    let sql_files = sql_files.filter(|p| p.extension().is_some_and(|e| e == "rs"));
    let sql_files = sql_files.map(|p| (vec!["sql".to_string()], (p.clone(), read(&p))));
    for (module, (path, text)) in sources().into_iter().chain(sql_files) {
        if module.first().is_some_and(|m| m == "kind")
            || module.last().is_some_and(|m| m == "tests")
        {
            continue;
        }
        let lines = lines_holding(&text, &literals);
        found.extend(lines.into_iter().map(|l| format!("{}: {l}", path.display())));
    }
    assert!(
        found.is_empty(),
        "a file's kind is told outside the door (ask crate::kind):\n{}",
        found.join("\n")
    );
    // The check can fail: each of these is found; comments and tests are not.
    let bad = "if name.ends_with(b\".gz\") {}\nlet zstd = name.strip_suffix(\".zstd\");\n\
               let m = head.starts_with(&[0x1F, 0x8B]);\nlet b = peek(3) == b\"BZh\";\n\
               const Z: u32 = 0xFD2FB528;";
    assert_eq!(lines_holding(bad, &literals).len(), 5, "{:?}", lines_holding(bad, &literals));
    let fine = "// ends_with(b\".gz\")\nlet s = \"no .zst suffix\";\n\
                #[cfg(test)]\nmod tests {\n    let p = \"a.gz\"; let q = \".gz\";\n}\n";
    assert!(lines_holding(fine, &literals).is_empty());
}

/// The modules each compressed format whose text tg indexes names itself
/// in (its index `index::<fmt>`, its text `text::<fmt>`; its format entry
/// in `kind` and its decoder in `search::decode`, as any `-z` format), and
/// the one list of them, in `text::opening`.
fn owns_an_indexed_format(module: &[String], own: &str) -> bool {
    let at = |a: &str, b: &str| module.len() >= 2 && module[0] == a && module[1] == b;
    module.first().is_some_and(|m| m == "kind")
        || at("search", "decode")
        || at("index", own)
        || at("text", own)
        || at("text", "opening")
}

#[test]
fn an_indexed_format_is_named_only_in_its_own_files_and_the_list() {
    let list = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("engine/src/text/opening.rs"));
    let formats = list.lines().find(|l| l.starts_with("const INDEXED")).expect("the list");
    let owns: Vec<&str> =
        formats.split("super::").skip(1).filter_map(|r| r.split("::").next()).collect();
    assert_eq!(owns, ["gz"], "the list's entries: {formats}");
    let variants: Vec<String> = trigrep::text::indexed_format::IndexedFormat::all()
        .map(|f| format!("Format::{:?}", f.format))
        .collect();
    let mut found = Vec::new();
    for own in &owns {
        for (from, tos) in graph() {
            let names = |to: &Module| {
                to.len() >= 2 && (to[0] == "index" || to[0] == "text") && to[1] == *own
            };
            if !owns_an_indexed_format(&from, own) && tos.iter().any(names) {
                found.push(format!("{} imports the {own} format's own files", named(&from)));
            }
        }
        let paths = [format!("trigrep::index::{own}"), format!("trigrep::text::{own}")];
        for (path, text) in sql_sources().values() {
            for l in lines_holding(text, &paths) {
                found.push(format!("{}: {l}", path.display()));
            }
        }
    }
    for (module, (path, text)) in sources().into_iter().chain(sql_sources()) {
        let own = owns.iter().any(|o| owns_an_indexed_format(&module, o));
        if !own && module.last().is_none_or(|m| m != "tests") {
            let lines = lines_holding(&text, &variants);
            found.extend(lines.into_iter().map(|l| format!("{}: {l}", path.display())));
        }
    }
    assert!(
        found.is_empty(),
        "an indexed format is named outside its files (ask IndexedFormat::of):\n{}",
        found.join("\n")
    );
}

#[test]
fn references_resolve_to_files() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Module>();
    let mut files = BTreeMap::new();
    let known = ["serve", "serve::answer", "serve::listen", "serve::protocol", "serve::x::deep"];
    for f in known.into_iter().chain(["index::fresh"]) {
        files.insert(m(f), (PathBuf::new(), String::new()));
    }
    let refs = |module: &str, text: &str| {
        let mut r = referenced(&m(module), text, &files);
        r.iter_mut().for_each(|p| {
            while !p.is_empty() && !files.contains_key(p) {
                p.pop();
            }
        });
        r.sort();
        r.dedup();
        r.iter().map(|p| named(p)).collect::<Vec<_>>()
    };
    // Braces: both the owner (for `Server`) and the sibling file.
    assert_eq!(refs("serve::listen", "use super::{Server, answer};"), ["serve", "serve::answer"]);
    // Nested groups, `self` in a group, renames.
    let text = "use crate::{index::fresh::{self as f}, serve::{x::{deep}}};\nfn a() { f::g(); }";
    assert_eq!(refs("search", text), ["index::fresh", "serve::x::deep"]);
    // A bare path through a module a `use` bound; none through a type.
    let text =
        "use super::answer;\nuse super::protocol::Kind;\nfn a() { answer::candidates(Kind::X) }";
    assert_eq!(refs("serve::listen", text), ["serve::answer", "serve::protocol"]);
    // A child module named bare by its owner; `self::`; `super::super::`.
    assert_eq!(
        refs("serve", "fn a() { listen::stop(); self::answer::f() }"),
        ["serve::answer", "serve::listen"]
    );
    assert_eq!(
        refs("serve::x::deep", "fn a() { super::super::listen::stop() }"),
        ["serve::listen"]
    );
    // Comments, strings and the test module are not code.
    let text = "// crate::serve::answer\nfn a() { \"super::answer\"; '\"'; }\n\
                #[cfg(test)]\nmod tests {\n    use super::super::answer;\n}\n";
    assert!(refs("serve::listen", text).is_empty());
    // Other crates' paths name no file.
    assert!(
        refs("serve::listen", "use std::io::{self, Write};\nfn a() { io::stdout(); }").is_empty()
    );
}

/// The library's surface is curated: only these modules are public, at the
/// top and inside `search` and `serve`; everything else is reached through
/// what they re-export (a new public module is a decision, made here).
#[test]
fn only_the_curated_modules_are_public() {
    let public = |file: &str| -> Vec<String> {
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let names = text.lines().filter_map(|l| l.strip_prefix("pub mod "));
        names.map(|n| n.trim_end_matches(';').to_string()).collect()
    };
    let expect = |file: &str, want: &[&str]| {
        let got = public(file);
        assert_eq!(
            got, want,
            "{file}: public modules changed (curate them here and in ARCHITECTURE)"
        );
    };
    let top = [
        "error", "index", "kind", "logline", "options", "pack", "query", "remote", "report",
        "search", "serve", "stats", "sys", "text",
    ];
    expect("engine/src/lib.rs", &top);
    expect("engine/src/search/mod.rs", &["decode"]);
    expect("engine/src/serve/mod.rs", &["client", "protocol", "sql_wire"]);
}

/// No merge left its conflict markers in a source file or a document
/// (session 11 left some in docs/ARCHITECTURE.md unseen).
#[test]
fn no_conflict_markers_are_left() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = sources().values().map(|(p, _)| p.clone()).collect();
    for dir in ["docs", "tests", "."] {
        let entries = std::fs::read_dir(root.join(dir)).unwrap().flatten().map(|e| e.path());
        files.extend(entries.filter(|p| p.extension().is_some_and(|x| x == "md" || x == "rs")));
    }
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let marked =
            text.lines().position(|l| l.starts_with("<<<<<<< ") || l.starts_with(">>>>>>> "));
        assert!(
            marked.is_none(),
            "{}:{}: a conflict marker",
            path.display(),
            marked.unwrap_or(0) + 1
        );
    }
}

/// The engine is a library of search: the crates that only a command line,
/// a terminal or the generation of documentation needs are the binary's
/// dependencies, never the engine's (the SQL crate depends on the engine
/// alone, so it would inherit them).
#[test]
fn the_engine_depends_on_no_command_line_or_terminal_crate() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("engine/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once(" = ").map(|(name, _)| name.trim()))
        .filter(|n| !n.is_empty() && !n.starts_with('#'))
        .collect();
    assert!(names.contains(&"memchr"), "the manifest was not read: {names:?}");
    let front_door = [
        "anyhow",
        "clap",
        "clap_complete",
        "clap_mangen",
        "crossterm",
        "indicatif",
        "lexopt",
        "ratatui",
        "roff",
    ];
    let found: Vec<&&str> = names.iter().filter(|n| front_door.contains(n)).collect();
    assert!(found.is_empty(), "engine/Cargo.toml depends on {found:?}: move them to the binary");
}

/// Comments say what is, not which issue asked for it: no comment of the
/// engine, the binary, the SQL crate or the tests names an issue number
/// (history lives in git; an upstream bug is named by its address).
#[test]
fn no_comment_names_an_issue_number() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = sources().values().map(|(p, _)| p.clone()).collect();
    let mut stack = vec![top.join("sql/src"), top.join("tests")];
    while let Some(dir) = stack.pop() {
        for path in std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let numbered = |line: &str| {
        let comment = line.split_once("//").map_or("", |(_, c)| c).to_lowercase();
        comment.match_indices("issue").any(|(at, word)| {
            let rest = comment[at + word.len()..].trim_start_matches('s').trim_start();
            rest.trim_start_matches('#').starts_with(|c: char| c.is_ascii_digit())
        })
    };
    let mut found = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate().filter(|(_, l)| numbered(l)) {
            found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
        }
    }
    assert!(found.is_empty(), "comments naming an issue:\n{}", found.join("\n"));
    let (one, two) =
        (format!("//! {} 4: x", "Issue"), format!("x(); // see {} 9 and 24", "issues"));
    assert!(numbered(&one) && numbered(&two));
    assert!(!numbered("fn issue_0039_a() {} // the cluster") && !numbered("// an issue of taste"));
}

/// The engine's public items per top-level module, at most: what other
/// modules, the binary, the SQL crate and the tests use (an item only its
/// own module uses is `pub(crate)` or narrower). A new `pub` item raises
/// its module's count; if something outside the module needs it, raise
/// the budget here in the same change.
const PUBLIC_BUDGET: &[(&str, usize)] = &[
    ("chunk", 41),
    ("error", 2),
    ("index", 323),
    ("kind", 14),
    ("", 14),
    ("logline", 15),
    ("matcher", 10),
    ("options", 62),
    ("pack", 56),
    ("query", 41),
    ("readfull", 2),
    ("remote", 61),
    ("report", 7),
    ("search", 70),
    ("serve", 94),
    ("stats", 9),
    ("sys", 191),
    ("text", 40),
    ("worker", 12),
];

/// The lines of `text`'s code (its trailing test module left out) that
/// declare a public item: `pub fn`, `pub struct`, …, `pub mod`, `pub use`.
fn public_items(text: &str) -> usize {
    let code = text.split("\n#[cfg(test)]\nmod tests").next().unwrap_or(text);
    let kinds = ["fn ", "const fn ", "struct ", "enum ", "trait ", "const ", "static "];
    let kinds = kinds.iter().chain(&["type ", "mod ", "use ", "unsafe fn "]);
    let public = |l: &&str| {
        let rest = l.trim_start().strip_prefix("pub ");
        rest.is_some_and(|r| kinds.clone().any(|k| r.starts_with(k)))
    };
    code.lines().filter(public).count()
}

#[test]
fn each_engine_module_keeps_to_its_public_budget() {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (module, (_, text)) in sources() {
        if in_binary(&module) || module.last().is_some_and(|m| m == "tests" || m == "prop") {
            continue;
        }
        let top = module.first().cloned().unwrap_or_default();
        *counts.entry(top).or_default() += public_items(&text);
    }
    let mut over = Vec::new();
    for (module, count) in &counts {
        let budget = PUBLIC_BUDGET.iter().find(|(m, _)| m == module).map_or(0, |(_, b)| *b);
        if *count > budget {
            over.push(format!("{module}: {count} public items, budget {budget}"));
        } else if *count < budget {
            eprintln!("{module}: {count} public items, under its budget of {budget}: lower it");
        }
    }
    assert!(over.is_empty(), "public surface grew:\n{}", over.join("\n"));
    let sample = "pub fn a() {}\npub(crate) fn b() {}\n    pub struct C;\npub use x::Y;\n\
                  #[cfg(test)]\nmod tests {\n    pub fn t() {}\n}\n";
    assert_eq!(public_items(sample), 3);
}
