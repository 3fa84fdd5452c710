//! The code's shape, checked (issue 9): the engine library never imports
//! the command line, imports between source files form no cycle, and no
//! source file outgrows 450 lines.
//!
//! Imports are read as text: every `crate::a::b` or `super::a` path outside
//! comments is resolved to the source file that defines it (the longest
//! prefix that names a file). `mod x;` declarations are not imports, and
//! test-only files (`tests.rs`, `prop.rs`) are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every source file below `src/` as a module path (`["chunk", "cut"]`) and its text.
fn sources() -> BTreeMap<Vec<String>, (PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
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
            let mut module: Vec<String> =
                rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
            if module.last().is_some_and(|m| m == "mod" || m == "lib") {
                module.pop();
            }
            let text = std::fs::read_to_string(&path).unwrap();
            out.insert(module, (path, text));
        }
    }
    out
}

/// The code of `text`: comments, `mod` declarations and the inline test
/// module (which comes last, by convention here) dropped.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let next = lines.peek().map_or("", |l| l.trim_start());
        if t.starts_with("#[cfg(test)]") && next.contains("mod ") && next.ends_with('{') {
            break;
        }
        if t.starts_with("//") || t.starts_with("mod ") || t.starts_with("pub mod ") {
            continue;
        }
        out.push_str(line.split("//").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// The module paths `module`'s code names through `crate::` and `super::`.
fn referenced(module: &[String], text: &str) -> Vec<Vec<String>> {
    let code = code(text);
    let mut refs = Vec::new();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    for (start, _) in code.match_indices("crate::").chain(code.match_indices("super::")) {
        if start > 0 && code[..start].chars().last().is_some_and(ident) {
            continue;
        }
        let rest = &code[start..];
        let parts: Vec<&str> = rest.split("::").take_while(|p| !p.is_empty()).collect();
        let mut path: Vec<String> = if parts[0] == "crate" {
            Vec::new()
        } else {
            module[..module.len().saturating_sub(1)].to_vec()
        };
        for p in &parts[1..] {
            let name: String = p.chars().take_while(|&c| ident(c)).collect();
            if name.is_empty() || name == "super" {
                break;
            }
            path.push(name);
            if !p.chars().all(ident) {
                break;
            }
        }
        refs.push(path);
    }
    refs
}

/// The file-level import graph of the library (`src/main.rs` and `src/cli/` apart).
fn graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files = sources();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, (path, text)) in &files {
        let name = path.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name == "prop.rs" {
            continue;
        }
        let targets = edges.entry(module.clone()).or_default();
        for mut r in referenced(module, text) {
            // The longest prefix that is a source file.
            while !r.is_empty() && !files.contains_key(&r) {
                r.pop();
            }
            if r != *module {
                targets.insert(r);
            }
        }
    }
    edges
}

#[test]
fn the_engine_never_imports_the_command_line() {
    let files = sources();
    for (module, (path, text)) in &files {
        if module.first().is_some_and(|m| m == "cli" || m == "main") {
            continue;
        }
        let code = code(text);
        assert!(
            !code.contains("crate::cli") && !code.contains("super::cli"),
            "{} imports the command line",
            path.display()
        );
    }
}

#[test]
fn imports_between_files_form_no_cycle() {
    let edges = graph();
    // Depth-first search for a back edge.
    fn visit(
        n: &Vec<String>,
        edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
    ) {
        state.insert(n.clone(), 1);
        stack.push(n.clone());
        for m in edges.get(n).into_iter().flatten() {
            match state.get(m).copied().unwrap_or(0) {
                0 => visit(m, edges, state, stack),
                1 => {
                    let at = stack.iter().position(|s| s == m).unwrap();
                    let cycle: Vec<String> =
                        stack[at..].iter().chain([m]).map(|s| s.join("::")).collect();
                    panic!("import cycle: {}", cycle.join(" -> "));
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.clone(), 2);
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if !state.contains_key(n) {
            visit(n, &edges, &mut state, &mut Vec::new());
        }
    }
    assert!(edges.len() > 30, "the graph covers the library ({} files)", edges.len());
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
}

#[test]
fn no_source_file_outgrows_450_lines() {
    for (path, text) in sources().values() {
        let n = text.lines().count();
        assert!(n < 450, "{} has {n} lines", path.display());
    }
}

#[test]
fn references_resolve_to_files() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let refs = referenced(&m("chunk::combine"), "use super::nulguard::Shape;\n");
    assert_eq!(refs, vec![m("chunk::nulguard::Shape")]);
    let refs = referenced(&m("search"), "use crate::index::fresh::{A, B};\n// crate::cli\n");
    assert_eq!(refs, vec![m("index::fresh")]);
}
