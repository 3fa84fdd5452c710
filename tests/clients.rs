//! Each editor's exact rg command line (docs/COMPAT.md, "Editors
//! and their command lines"), as its current source builds it, over a tree
//! with hidden files, `.gitignore`d files and no `.git` (so
//! `--no-require-git` matters), a `.gz` file, CRLF lines, a line longer
//! than `--max-columns`, symbolic links and a `node_modules`: rg's stdout
//! and exit code by scanning, through the index and through a server, in
//! the client's own order (its lines compared as a set where it does not
//! sort; colours byte for byte). `--stats` shows the index or the server
//! answered, not a walk.

mod util;

use std::process::Command;

use util::serve::Served;
use util::{Case, Report, Tree};

/// VS Code's default excludes (`files.exclude` and `search.exclude`), as
/// `getRgArgs` passes them.
const VSCODE_EXCLUDES: [&str; 8] = [
    "!**/.git",
    "!**/.svn",
    "!**/.hg",
    "!**/.DS_Store",
    "!**/Thumbs.db",
    "!**/node_modules",
    "!**/bower_components",
    "!**/*.code-search",
];

/// The fixture: `repo/` without a `.git` unless `git`.
fn tree(name: &str, git: bool) -> Tree {
    let t = Tree::new(name);
    if git {
        t.git_init("repo");
        t.git_init("repo/vendor/sub");
        t.write("repo/vendor/sub/lib.txt", "needle in a nested repository\n");
    }
    t.write("repo/.gitignore", "ignored.txt\nbuild/\n*.log\n");
    t.write("repo/src/main.rs", "fn main() {\n    println!(\"Needle here\");\n}\n");
    t.write("repo/src/lib.rs", "// needle in lower case\npub fn needle() {}\n");
    t.write("repo/src/deep/mod.rs", "mod needled;\nconst NEEDLE: u8 = 1;\n");
    t.write("repo/ignored.txt", "needle in an ignored file\n");
    t.write("repo/build/out.txt", "needle built\n");
    t.write("repo/app.log", "needle logged\n");
    t.write("repo/.hidden.txt", "needle hidden\n");
    t.write("repo/.config/settings.txt", "Needle in a hidden dir\nneedle again\n");
    t.write("repo/node_modules/pkg/index.js", "needle in node_modules\n");
    t.write("repo/crlf.txt", "needle crlf\r\nsecond needle line\r\nno match\r\n");
    let long = format!("{}needle{}\nshort needle\n", "x".repeat(1500), "y".repeat(500));
    t.write("repo/long.txt", long);
    t.write("repo/docs/readme.md", "Needle NEEDLE needle\nneedle at the end\n");
    t.write("repo/unicode.txt", "nëedle Straße needle\n");
    t.write("repo/notes.txt", "needle compressed\nother line\n");
    let st = Command::new("gzip").arg("-f").arg(t.path("repo/notes.txt")).status();
    assert!(st.is_ok_and(|s| s.success()), "gzip must be installed to build the fixtures");
    t.symlink("src", "repo/linked_src");
    t.symlink("docs/readme.md", "repo/linked_readme.md");
    t
}

/// VS Code's text search (`ripgrepTextSearchEngine.ts`, `getRgArgs`) with
/// default settings: `case` is `--ignore-case` or `--case-sensitive`,
/// `query` the pattern flags (`--fixed-strings`, or `--engine auto
/// --regexp P`), `tail` the flags after `--json` (`--multiline`, context),
/// `fixed` the pattern after `--` for a fixed-string search.
fn vscode(case: &str, query: &[&str], tail: &[&str], fixed: Option<&str>) -> Vec<String> {
    let mut v: Vec<String> = vec!["--hidden".into(), "--no-require-git".into(), case.into()];
    for g in VSCODE_EXCLUDES {
        v.extend(["-g".into(), g.into()]);
    }
    v.extend(["--no-ignore-parent", "--follow", "--crlf"].map(String::from));
    v.extend(query.iter().map(|s| s.to_string()));
    v.extend(["--no-config", "--no-ignore-global", "--json"].map(String::from));
    v.extend(tail.iter().map(|s| s.to_string()));
    v.push("--".into());
    v.extend(fixed.map(String::from));
    v.push(".".into());
    v
}

/// VS Code's file search (`ripgrepFileSearch.ts`) with default settings.
fn vscode_files() -> Vec<String> {
    let mut v: Vec<String> =
        ["--files", "--hidden", "--case-sensitive", "--no-require-git"].map(String::from).into();
    for g in VSCODE_EXCLUDES {
        v.extend(["-g".into(), g.into()]);
    }
    v.extend(
        ["--no-ignore-parent", "--follow", "--no-config", "--no-ignore-global"].map(String::from),
    );
    v
}

/// Each client's invocations: (client, name, arguments).
fn invocations() -> Vec<(&'static str, &'static str, Vec<String>)> {
    let s = |a: &[&str]| a.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let mut v = Vec::new();
    for (name, p) in [("lower", "needle"), ("upper", "Needle"), ("regex", r"need(le|ed)\s+\w+")] {
        // telescope.nvim live_grep: `vimgrep_arguments`, then `--`, the prompt.
        let telescope = ["--color=never", "--no-heading", "--with-filename", "--line-number"];
        let mut args = s(&telescope);
        args.extend(s(&["--column", "--smart-case", "--", p]));
        v.push(("telescope", name, args));
        // fzf.vim :Rg.
        let fzf = ["--column", "--line-number", "--no-heading", "--color=always", "--smart-case"];
        let mut args = s(&fzf);
        args.extend(s(&["--", p]));
        v.push(("fzf", name, args));
        // consult-ripgrep: `consult-ripgrep-args`, `-e` the input, the directory.
        let consult = [
            "--null",
            "--line-buffered",
            "--color=never",
            "--max-columns=1000",
            "--path-separator",
            "/",
            "--smart-case",
            "--no-heading",
            "--with-filename",
            "--line-number",
            "--search-zip",
        ];
        let mut args = s(&consult);
        args.extend(s(&["-e", p, "."]));
        v.push(("consult", name, args));
    }
    // deadgrep: `deadgrep--arguments` with its defaults (string search,
    // smart case, hidden files searched, `.gitignore` respected).
    let deadgrep = ["--color=ansi", "--line-number", "--no-heading", "--no-column"];
    for (name, kind, p) in [
        ("string", &["--fixed-strings"][..], "needle"),
        ("words", &["--fixed-strings", "--word-regexp"], "needle"),
        ("regexp", &[], r"need(le|ed)\b"),
        ("upper", &["--fixed-strings"], "Needle"),
    ] {
        let mut args = s(&deadgrep);
        args.push("--with-filename".into());
        args.extend(s(kind));
        args.extend(s(&["--smart-case", "--hidden", "--glob=!/.git", "--", p, "."]));
        v.push(("deadgrep", name, args));
    }
    v.push((
        "vscode",
        "fixed_i",
        vscode("--ignore-case", &["--fixed-strings"], &[], Some("needle")),
    ));
    let sensitive = vscode("--case-sensitive", &["--fixed-strings"], &[], Some("Needle"));
    v.push(("vscode", "fixed_s", sensitive));
    let regex = ["--engine", "auto", "--regexp", r"needle\r?$"];
    v.push(("vscode", "regex_eol", vscode("--case-sensitive", &regex, &[], None)));
    let context = ["--before-context", "1", "--after-context", "1"];
    v.push((
        "vscode",
        "context",
        vscode("--ignore-case", &["--fixed-strings"], &context, Some("second")),
    ));
    let multi = ["--engine", "auto", "--regexp", r"crlf\r?\nsecond"];
    v.push(("vscode", "multiline", vscode("--ignore-case", &multi, &["--multiline"], None)));
    let nohit = ["--fixed-strings"];
    v.push(("vscode", "nohit", vscode("--ignore-case", &nohit, &[], Some("zzqqxx"))));
    v.push(("vscode", "files", vscode_files()));
    v
}

/// The cases of `client`, named for the path they run through (`scan`,
/// `indexed`, `served`), unordered (no client here sorts), each compared
/// with the rg the editors ship: built with PCRE2, as tg is (VS Code's
/// `--engine auto` takes `needle\r?$` to PCRE2, which a plain rg refuses).
fn cases(client: &str, path: &str) -> Vec<Case> {
    invocations()
        .into_iter()
        .filter(|(c, _, _)| *c == client)
        .map(|(c, name, args)| {
            Case::new(format!("{path}/{c}/{name}"), args).cwd("repo").unordered().pcre2()
        })
        .collect()
}

/// tg's `--stats` report for `client`'s first invocation.
fn stats(t: &Tree, client: &str) -> String {
    let (_, _, args) = invocations().into_iter().find(|(c, _, _)| *c == client).unwrap();
    let out = util::tg_command(t, t.path("repo")).arg("--stats").args(&args).output().unwrap();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `client`'s invocations by scanning, through the index and through
/// a server, checking that the index's table and the server answered
/// (when `answered`; else that the search walked, as it must when its
/// walk enters a repository's store, which the table leaves out).
fn check(client: &str, git: bool, answered: bool) {
    let t = tree(&format!("clients_{client}"), git);
    let mut r = Report::new(client);
    r.check_all(&t, &cases(client, "scan"));
    util::tg_index(&t, "repo");
    r.check_all(&t, &cases(client, "indexed"));
    let local = stats(&t, client);
    {
        let _s = Served::start(&t, &[]);
        r.check_all(&t, &cases(client, "served"));
        let served = stats(&t, client);
        let told = served.contains("candidates told by the server");
        assert_eq!(told, answered, "{client}, served:\n{served}");
    }
    r.finish();
    let swept = local.contains("sweep of the file table");
    assert_eq!(swept, answered, "{client}, indexed:\n{local}");
}

#[test]
fn telescope_live_grep_matches_rg() {
    check("telescope", false, true);
}

#[test]
fn fzf_vim_rg_matches_rg() {
    check("fzf", false, true);
}

#[test]
fn consult_ripgrep_matches_rg() {
    check("consult", false, true);
}

#[test]
fn deadgrep_matches_rg() {
    check("deadgrep", false, true);
}

#[test]
fn deadgrep_in_a_git_repository_matches_rg() {
    // `--glob=!/.git` leaves the nested repository's `.git` to the walk.
    check("deadgrep", true, false);
}

#[test]
fn vscode_matches_rg() {
    check("vscode", false, true);
}

#[test]
fn vscode_in_a_git_repository_matches_rg() {
    check("vscode", true, true);
}

/// Changes made after the build, as the clients' walks see them: a hidden
/// file added and one rewritten, a file added in a new hidden directory,
/// a file changed and one added below a linked directory, an ignored file
/// added (outside a `--no-require-git` walk), a `node_modules` file added.
fn change_after_build(t: &Tree) {
    std::thread::sleep(std::time::Duration::from_millis(20));
    t.write("repo/.added.txt", "needle added hidden\n");
    t.write("repo/.hidden.txt", "needle hidden, rewritten\nNeedle\n");
    t.write("repo/.newdir/inner.txt", "needle in a new hidden dir\n");
    t.write("repo/src/lib.rs", "// needle changed through the link too\n");
    t.write("repo/src/added.rs", "fn needle_added() {}\n");
    t.write("repo/build/new.txt", "needle in an ignored dir\n");
    t.write("repo/node_modules/pkg/new.js", "needle new in node_modules\n");
}

/// Every client's invocations after [`change_after_build`], through the
/// index alone and through a server that saw the changes.
#[test]
fn clients_see_changes_after_the_build() {
    let clients = ["telescope", "consult", "deadgrep", "vscode"];
    let t = tree("clients_changed", false);
    util::tg_index(&t, "repo");
    let mut r = Report::new("changed");
    {
        let _s = Served::start(&t, &[]);
        change_after_build(&t);
        for c in clients {
            r.check_all(&t, &cases(c, "served"));
        }
    }
    for c in clients {
        r.check_all(&t, &cases(c, "indexed"));
    }
    r.finish();
}

/// A link that closes a loop: VS Code's `--follow` walk reports it (and
/// exits 2) as rg does, the other clients' walks pass over it.
#[test]
fn a_link_loop_is_reported_by_following_walks_only() {
    let t = tree("clients_loop", false);
    t.symlink("..", "repo/src/deep/back");
    util::tg_index(&t, "repo");
    let mut r = Report::new("loop");
    for c in ["vscode", "deadgrep", "telescope"] {
        r.check_all(&t, &cases(c, "indexed"));
    }
    {
        let _s = Served::start(&t, &[]);
        for c in ["vscode", "deadgrep", "telescope"] {
            r.check_all(&t, &cases(c, "served"));
        }
    }
    r.finish();
}

/// A tree whose `.gitignore` leaves out everything at the top (the
/// kernel corpus's ends in `/*`): VS Code's `--no-require-git` walk
/// searches no file, and says so as rg does, from the table too.
#[test]
fn vscode_on_a_tree_its_walk_leaves_empty_matches_rg() {
    let t = tree("clients_empty_walk", false);
    t.write("repo/.gitignore", "ignored.txt\n/*\n");
    util::tg_index(&t, "repo");
    let mut r = Report::new("empty walk");
    r.check_all(&t, &cases("vscode", "indexed"));
    {
        let _s = Served::start(&t, &[]);
        r.check_all(&t, &cases("vscode", "served"));
    }
    r.finish();
}
