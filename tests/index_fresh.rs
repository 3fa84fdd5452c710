//! "never stale": after `tg index`, the tree changes behind the
//! index's back, and every query must still print exactly what rg prints.
//!
//! Each scenario builds a small git tree, indexes it, changes it in one way
//! (files added, grown, rewritten in place, deleted, replaced by a
//! directory, directories added and removed, ignore files added or edited),
//! then runs the same queries through tg and rg. The scenarios also check
//! which freshness path tg took (`--stats` on stderr): the fast sweep of
//! the file table, or the walk it falls back to when ignore rules changed.

mod util;

use util::{Case, Report, Tree};

/// The tree every scenario starts from.
fn tree(name: &str) -> Tree {
    let t = Tree::new(name);
    t.git_init("repo");
    t.write("repo/.gitignore", "*.log\nbuild/\n");
    t.write("repo/a.txt", "alpha needle\nplain\n");
    t.write("repo/b.txt", "beta\nno match here\n");
    t.write("repo/src/lib.rs", "fn needle() {}\n");
    t.write("repo/src/deep/mod.rs", "// needle deep\n");
    t.write("repo/src/deep/other.rs", "// nothing\n");
    t.write("repo/docs/guide.md", "Needle in docs\n");
    t.write("repo/app.log", "needle in ignored log\n");
    t.write("repo/build/out.txt", "needle in ignored dir\n");
    util::tg_index(&t, "repo");
    t
}

/// The queries run after each change.
fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for (name, args) in [
        ("plain", &["needle"][..]),
        ("n", &["-n", "needle"]),
        ("i_l", &["-i", "-l", "needle"]),
        ("c", &["-c", "needle"]),
        ("word", &["-w", "needle"]),
        ("new_word", &["-n", "freshword"]),
        ("subdir", &["-n", "needle", "src"]),
        ("two_paths", &["-n", "needle", "src", "docs"]),
    ] {
        v.push(Case::new(format!("repo/{name}"), args).cwd("repo"));
    }
    v.push(Case::new("inside_src/n", ["-n", "needle"]).cwd("repo/src"));
    v.push(Case::new("parallel/n", ["-n", "needle"]).cwd("repo").no_sort().unordered());
    v
}

/// tg's `--stats` stderr for a query in `repo`, to see which path it took.
fn stats_stderr(t: &Tree) -> String {
    let out = util::tg_command(t, t.path("repo"))
        .args(["--stats", "-l", "needle"])
        .output()
        .expect("run tg");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn check(name: &str, t: &Tree, expect_sweep: bool) {
    let mut r = Report::new(name);
    r.check_all(t, &cases());
    r.finish();
    let err = stats_stderr(t);
    let swept = err.contains("sweep of the file table");
    assert_eq!(swept, expect_sweep, "{name}: expected sweep={expect_sweep}, stderr:\n{err}");
}

#[test]
fn unchanged_tree_uses_the_sweep() {
    let t = tree("fresh_unchanged");
    check("unchanged", &t, true);
}

#[test]
fn files_added_grown_rewritten_deleted() {
    let t = tree("fresh_files");
    t.write("repo/new.txt", "freshword needle new file\n");
    t.write("repo/src/deep/new.rs", "freshword in a new file deep down\n");
    let mut a = std::fs::read(t.path("repo/a.txt")).unwrap();
    a.extend_from_slice(b"freshword appended needle\n");
    t.write("repo/a.txt", a);
    // Same size as before: only the modification time changes.
    std::thread::sleep(std::time::Duration::from_millis(20));
    t.write("repo/b.txt", "freshword needle\n  xx\n");
    std::fs::remove_file(t.path("repo/src/deep/other.rs")).unwrap();
    std::fs::remove_file(t.path("repo/src/lib.rs")).unwrap();
    check("files", &t, true);
}

#[test]
fn directories_added_removed_and_replaced() {
    let t = tree("fresh_dirs");
    t.write("repo/newdir/inner/x.txt", "freshword needle in a new directory\n");
    std::fs::remove_dir_all(t.path("repo/docs")).unwrap();
    // A file replaced by a directory of the same name, and back.
    std::fs::remove_file(t.path("repo/b.txt")).unwrap();
    t.write("repo/b.txt/inside.txt", "needle freshword inside what was a file\n");
    std::fs::remove_dir_all(t.path("repo/src/deep")).unwrap();
    t.write("repo/src/deep", "needle: a file where a directory was\n");
    // New files the ignore rules leave out stay out.
    t.write("repo/new.log", "needle freshword ignored\n");
    t.write("repo/build/more.txt", "needle freshword ignored dir\n");
    check("dirs", &t, true);
}

#[test]
fn ignore_file_edited_falls_back_to_the_walk() {
    let t = tree("fresh_ignore_edit");
    std::thread::sleep(std::time::Duration::from_millis(20));
    t.write("repo/.gitignore", "*.log\nbuild/\na.txt\n");
    check("ignore_edit", &t, false);
}

#[test]
fn ignore_file_added_falls_back_to_the_walk() {
    let t = tree("fresh_ignore_add");
    t.write("repo/src/.ignore", "deep/\n");
    check("ignore_add", &t, false);
}

#[test]
fn hidden_and_symlinked_additions_stay_out() {
    let t = tree("fresh_hidden");
    t.write("repo/.hidden.txt", "needle freshword hidden\n");
    t.symlink("a.txt", "repo/link.txt");
    check("hidden", &t, true);
}

#[test]
fn directory_replaced_by_a_link_is_not_entered() {
    let t = tree("fresh_dir_link");
    std::fs::remove_dir_all(t.path("repo/src/deep")).unwrap();
    t.mkdir("elsewhere");
    t.write("elsewhere/mod.rs", "// needle freshword behind a link\n");
    t.symlink("../../elsewhere", "repo/src/deep");
    check("dir_link", &t, false);
}

#[test]
fn everything_deleted_says_nothing_was_searched() {
    let t = tree("fresh_empty");
    for f in ["a.txt", "b.txt", "app.log"] {
        std::fs::remove_file(t.path("repo").join(f)).unwrap();
    }
    for d in ["src", "docs", "build"] {
        std::fs::remove_dir_all(t.path("repo").join(d)).unwrap();
    }
    let mut r = Report::new("empty");
    r.check(&t, &Case::new("empty/n", ["-n", "needle"]).cwd("repo"));
    r.check(&t, &Case::new("empty/parallel", ["-n", "needle"]).cwd("repo").no_sort());
    r.finish();
}

/// A rewrite that keeps the size and restores the old modification time
/// (`cp -p`, `rsync -t`, `touch -r`) must still be seen.
#[test]
fn rewrite_with_the_old_mtime_is_seen() {
    let t = tree("fresh_cp_p");
    let path = t.path("repo/b.txt");
    let old = std::fs::metadata(&path).unwrap();
    let len = old.len() as usize;
    let mut text = b"freshword needle".to_vec();
    text.resize(len - 1, b' ');
    text.push(b'\n');
    std::thread::sleep(std::time::Duration::from_millis(30));
    std::fs::write(&path, &text).unwrap();
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(old.modified().unwrap()).unwrap();
    drop(f);
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), old.modified().unwrap());
    check("cp_p", &t, true);
}

/// A binary file is indexed only up to its first NUL (all a default walk
/// reads of it); searches that read binary files whole must still read it.
#[test]
fn binary_files_after_their_first_nul() {
    let t = tree("fresh_binary");
    let mut bin = b"head text needle\n".to_vec();
    bin.extend_from_slice(b"\0tailonlyword after the nul\nneedle tailonlyword again\n");
    t.write("repo/data/blob.txt", &bin);
    t.write("repo/data/plain.txt", "nothing to see\n");
    util::tg_index(&t, "repo");
    let mut r = Report::new("binary");
    for (name, args) in [
        ("default", &["tailonlyword"][..]),
        ("a", &["-a", "tailonlyword"]),
        ("binary", &["--binary", "-n", "tailonlyword"]),
        ("uuu", &["-uuu", "-c", "tailonlyword"]),
        ("named", &["-n", "tailonlyword", "data/blob.txt"]),
        ("named_dir", &["-c", "tailonlyword", "data"]),
        ("head", &["-n", "head"]),
    ] {
        r.check(&t, &Case::new(format!("binary/{name}"), args).cwd("repo"));
    }
    r.finish();
}
