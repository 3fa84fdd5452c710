//! A server sends a listing (`--files`, or a pattern every file
//! may match) again, unjudged, while nothing it was judged from changed
//! (`src/serve/listings.rs`), and trusts its watcher for the entries
//! reached through a link that points inside the tree
//! (`src/index/fresh/links.rs`). Each answer, repeated and after each kind
//! of change (a file added, removed, renamed, rewritten, one changed
//! through a link, one changed behind a link that leads out of the tree,
//! a link pointed elsewhere), is compared with rg.

mod util;

use util::serve::{Served, status};
use util::{Case, Report, Tree};

/// The fixture: `repo/` with links into the tree (a directory, a file, a
/// link to a link) and one out of it (`outside/`, which no watcher sees).
fn tree(name: &str) -> Tree {
    let t = Tree::new(name);
    t.write("repo/a.txt", "needle a\n");
    t.write("repo/.hidden.txt", "needle hidden\n");
    t.write("repo/src/main.rs", "fn main() { needle(); }\n");
    t.write("repo/src/lib.rs", "pub fn needle() {}\n");
    t.write("repo/src/plain.rs", "no match here\n");
    t.write("repo/docs/readme.md", "a needle in the docs\n");
    t.write("repo/deep/x/y.txt", "needle deep\n");
    t.write("outside/ext.txt", "needle outside\n");
    t.write("outside/sub/more.txt", "more needle outside\n");
    t.symlink("src", "repo/linked_src");
    t.symlink("docs/readme.md", "repo/linked_readme.md");
    t.symlink("../outside", "repo/linked_out");
    t.symlink("linked_src", "repo/chain");
    t
}

/// The searches: listings (VS Code's quick-open, plain and sorted
/// `--files`, a pattern every file may match) and one search the index
/// narrows, each through links (`--follow`) and not.
fn cases(tag: &str) -> Vec<Case> {
    let excludes = ["-g", "!**/.git", "-g", "!**/node_modules", "-g", "!**/*.code-search"];
    let vscode: Vec<&str> = ["--files", "--hidden", "--case-sensitive", "--no-require-git"]
        .into_iter()
        .chain(excludes)
        .chain(["--no-ignore-parent", "--follow", "--no-config", "--no-ignore-global"])
        .collect();
    let all: [(&str, Vec<&str>, bool); 7] = [
        ("vscode_files", vscode, false),
        ("files", vec!["--files"], false),
        ("files_sorted", vec!["--files", "--sort", "path"], true),
        ("files_follow", vec!["--files", "--follow", "--hidden"], false),
        ("every_line", vec!["--follow", "--hidden", "-n", "-e", "."], false),
        ("needle_follow", vec!["--follow", "--hidden", "-n", "needle"], false),
        ("needle", vec!["-n", "needle"], false),
    ];
    all.into_iter()
        .map(|(name, args, sorted)| {
            let c = Case::new(format!("{tag}/{name}"), args).cwd("repo");
            if sorted { c } else { c.unordered() }
        })
        .collect()
}

/// How many listings the server sent again (`tg status`).
fn resent(t: &Tree) -> u64 {
    let st = status(t);
    let line = st.lines().find_map(|l| l.strip_prefix("queries:")).expect("a queries line");
    let n = line.split('(').nth(1).and_then(|s| s.split_whitespace().next());
    n.and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no listings count in {line}"))
}

/// A change to the fixture, and its name.
type Change = (&'static str, fn(&Tree));

/// The changes, each made while the server runs.
fn changes() -> Vec<Change> {
    vec![
        ("added", |t| t.write("repo/new.txt", "needle new\n")),
        ("removed", |t| std::fs::remove_file(t.path("repo/a.txt")).unwrap()),
        ("renamed", |t| {
            std::fs::rename(t.path("repo/src/lib.rs"), t.path("repo/src/lib2.rs")).unwrap()
        }),
        ("rewritten", |t| {
            t.write("repo/src/main.rs", "fn main() {}\n// needle, longer now\n");
            t.write("repo/.hidden.txt", "needle hidden, longer now\n");
        }),
        ("through_the_link", |t| t.write("repo/linked_src/plain.rs", "needle through\n")),
        // Touched before: the touched paths stay the same, the events not.
        ("removed_when_touched", |t| std::fs::remove_file(t.path("repo/.hidden.txt")).unwrap()),
        ("outside_grown", |t| t.write("outside/ext.txt", "needle outside\nneedle grown\n")),
        ("outside_added", |t| t.write("outside/added.txt", "needle added outside\n")),
        ("retargeted", |t| {
            std::fs::remove_file(t.path("repo/linked_src")).unwrap();
            t.symlink("docs", "repo/linked_src");
        }),
    ]
}

/// Every search twice after every change, through a server: each answer
/// is rg's, and listings are sent again between changes.
#[test]
fn listings_sent_again_match_rg_until_anything_changes() {
    let t = tree("listings");
    util::tg_index(&t, "repo");
    let _s = Served::start(&t, &[]);
    let mut r = Report::new("listings");
    r.check_all(&t, &cases("first"));
    let before = resent(&t);
    r.check_all(&t, &cases("again"));
    assert!(resent(&t) > before, "no listing was sent again:\n{}", status(&t));
    for (name, change) in changes() {
        std::thread::sleep(std::time::Duration::from_millis(20));
        change(&t);
        r.check_all(&t, &cases(name));
        r.check_all(&t, &cases(&format!("{name}/again")));
    }
    r.finish();
}

/// The same changes seen through the index alone (no server), which
/// stats every linked entry. The link pointed elsewhere too: the table
/// records a linked directory by its target's size and ctime, and the
/// fixture's `src` and `docs`, made in the same clock tick, may look the
/// same; the link's own ctime, later than its directory's recorded one,
/// tells (`Judge::repointed`).
#[test]
fn the_same_changes_without_a_server_match_rg() {
    let t = tree("listings_local");
    util::tg_index(&t, "repo");
    let mut r = Report::new("listings, no server");
    r.check_all(&t, &cases("first"));
    for (name, change) in changes() {
        std::thread::sleep(std::time::Duration::from_millis(20));
        change(&t);
        r.check_all(&t, &cases(name));
    }
    r.finish();
}
