//! Include globs (`-g '*.c'`, `--iglob`), types (`-t`, `-T`,
//! `--type-add`) and `--max-filesize` answered from an index's table and a
//! server, not by a walk, exactly as rg's walker applies them: a glob
//! decides over ignore rules and hidden names, a selected type admits a
//! hidden file but not an ignored one, types never apply to directories,
//! `--max-filesize` to files only. Each case runs by scanning, through the
//! index and through a server, against rg; `--stats` shows the table (or
//! the server) listed the files where the table holds what the walk
//! needs, and a walk where it does not (an include glob that admits a
//! hidden directory, or, in a repository, what ignore rules leave out of
//! every walk the table records).

mod util;

use util::serve::Served;
use util::{Case, Report, Tree};

/// A tree with hidden files and directories, `.gitignore`d files (left
/// out only by `--no-require-git` walks without a `.git`), files of
/// several types and sizes, and links to a file and a directory.
fn tree(name: &str, git: bool) -> Tree {
    let t = Tree::new(name);
    if git {
        t.git_init("repo");
    }
    t.write("repo/.gitignore", "ignored.c\nbuild/\n");
    t.write("repo/src/main.c", "int needle;\n");
    t.write("repo/src/lib.rs", "fn needle() {}\n");
    t.write("repo/src/big.c", format!("needle big\n{}\n", "x".repeat(2000)));
    t.write("repo/src/.hidden.c", "needle in a hidden c file\n");
    t.write("repo/.config/conf.c", "needle in a hidden dir\n");
    t.write("repo/.top.rs", "needle top hidden\n");
    t.write("repo/ignored.c", "needle ignored\n");
    t.write("repo/build/gen.c", "needle built\n");
    t.write("repo/docs/readme.md", "needle docs\n");
    t.write("repo/docs/Upper.C", "needle upper\n");
    t.write("repo/Makefile", "needle: make\n");
    t.symlink("src", "repo/linked_src");
    t.symlink("src/main.c", "repo/linked.c");
    t
}

/// VS Code's text search flags (tests/clients.rs has them all), `extra`
/// the include globs or `--max-filesize` it adds.
fn vscode(extra: &[&str]) -> Vec<String> {
    let mut v = vec!["--hidden", "--no-require-git", "--case-sensitive", "-g", "!**/.git"];
    v.extend(extra);
    v.extend(["--no-ignore-parent", "--follow", "--no-config", "--no-ignore-global", "--json"]);
    v.extend(["--", "needle", "."]);
    v.into_iter().map(String::from).collect()
}

/// The searches: (name, arguments, whether a tree without a `.git` is
/// answered from the table, whether one with a `.git` is).
fn searches() -> Vec<(&'static str, Vec<String>, bool, bool)> {
    let s = |a: &[&str]| a.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        ("include", s(&["-g", "*.c", "needle"]), true, false),
        ("include_dir", s(&["-g", "src/**", "needle"]), true, false),
        ("include_exclude", s(&["-g", "*.c", "-g", "!src/**", "needle"]), true, false),
        ("iglob", s(&["--iglob", "*.c", "needle"]), true, false),
        ("include_path", s(&["-g", "*.c", "needle", "src"]), true, false),
        ("type", s(&["-t", "c", "needle"]), true, true),
        ("type_not", s(&["-T", "c", "needle"]), true, true),
        ("types", s(&["-t", "c", "-t", "rust", "needle"]), true, true),
        ("type_add", s(&["--type-add", "mk:Makefile", "-t", "mk", "needle"]), true, true),
        ("max_filesize", s(&["--max-filesize", "1K", "needle"]), true, true),
        ("include_max", s(&["-g", "*.c", "--max-filesize", "1K", "needle"]), true, false),
        // In a repository, a `--hidden` walk enters `.git`: walked.
        ("hidden_type", s(&["--hidden", "-t", "c", "needle"]), true, false),
        ("hidden_include", s(&["--hidden", "-g", "*.c", "needle"]), true, false),
        ("vscode_include", vscode(&["-g", "*.c"]), true, false),
        ("vscode_include_dir", vscode(&["-g", "src/**"]), true, false),
        ("vscode_max", vscode(&["--max-filesize", "100"]), true, true),
        // Admits the hidden directory `.config`: walked.
        ("include_hidden_dirs", s(&["-g", ".*", "needle"]), false, false),
        // Nothing to search, and rg says so: the table tells.
        ("include_none", s(&["-g", "*.zzz", "needle"]), true, false),
        ("files_include", s(&["--files", "-g", "*.c"]), true, false),
        ("files_type", s(&["--files", "-t", "rust"]), true, true),
        ("files_max", s(&["--files", "--max-filesize", "20"]), true, true),
    ]
}

/// The cases, named for the path they run through, unordered (default
/// parallel walk, as clients run).
fn cases(path: &str) -> Vec<Case> {
    let cases = searches().into_iter().map(|(name, args, _, _)| {
        Case::new(format!("{path}/{name}"), args).cwd("repo").unordered()
    });
    cases.collect()
}

/// tg's `--stats` report (stderr) for `args` in `repo`.
fn stats(t: &Tree, args: &[String]) -> String {
    let out = util::tg_command(t, t.path("repo")).arg("--stats").args(args).output().unwrap();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every search by scanning, through the index and through a server, and
/// which of them the table and the server answered.
fn check(git: bool) {
    let t = tree(if git { "filters_git" } else { "filters" }, git);
    let mut r = Report::new(if git { "filters in a repository" } else { "filters" });
    r.check_all(&t, &cases("scan"));
    util::tg_index(&t, "repo");
    r.check_all(&t, &cases("indexed"));
    let mut wrong = Vec::new();
    let answered = |(_, args, plain, repo): &(_, Vec<String>, bool, bool)| {
        // `--files` prints no statistics.
        (args[0] != "--files").then_some(if git { *repo } else { *plain })
    };
    for s in searches() {
        let Some(want) = answered(&s) else { continue };
        let local = stats(&t, &s.1);
        if local.contains("sweep of the file table") != want {
            wrong.push(format!("indexed/{}: want table {want}:\n{local}", s.0));
        }
    }
    {
        let _s = Served::start(&t, &[]);
        r.check_all(&t, &cases("served"));
        for s in searches() {
            let Some(want) = answered(&s) else { continue };
            let served = stats(&t, &s.1);
            if served.contains("candidates told by the server") != want {
                wrong.push(format!("served/{}: want server {want}:\n{served}", s.0));
            }
        }
    }
    r.finish();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn globs_types_and_sizes_are_answered_from_the_table() {
    check(false);
}

#[test]
fn in_a_repository_include_globs_walk_and_types_do_not() {
    check(true);
}

/// Changes after the build: a hidden `.c` file added (a selected type or
/// an include glob admits it), a file grown past `--max-filesize`, an
/// ignored `.c` file added (an editor's include glob admits it).
#[test]
fn filters_see_changes_after_the_build() {
    let t = tree("filters_changed", false);
    util::tg_index(&t, "repo");
    let mut r = Report::new("filters changed");
    let change = |t: &Tree| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        t.write("repo/src/.added.c", "needle added hidden\n");
        t.write("repo/src/main.c", format!("int needle;\n{}\n", "y".repeat(3000)));
        t.write("repo/also_ignored.c", "needle\n");
        t.write("repo/.gitignore", "ignored.c\nbuild/\nalso_ignored.c\n");
    };
    {
        let _s = Served::start(&t, &[]);
        change(&t);
        r.check_all(&t, &cases("served"));
    }
    r.check_all(&t, &cases("indexed"));
    r.finish();
}
