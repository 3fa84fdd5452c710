//! `tg index` of a tree it indexed before reads only the files that changed
//! (size or status-change time) and keeps the old index's lists of the
//! others: after a change like a branch checkout (files rewritten, added,
//! removed, renamed), the index it publishes answers every query as rg
//! does, and says how many files it read and kept.

mod util;

use util::{Case, Report, Tree};

/// Lines of a file numbered `i` as written `version`: words shared by many
/// files (bitmap lists) and words of a few (varint lists).
fn text(i: usize, version: usize) -> String {
    let mut out = String::new();
    for k in 0..6 {
        let rare = (i * 31 + k * 7 + version * 13) % 97;
        out.push_str(&format!("common{} word{rare} line {k} of file {i}\n", k % 3));
    }
    if version > 0 {
        out.push_str(&format!("rewritten{version} freshword{}\n", i % 5));
    }
    out
}

/// The queries compared with rg after the update.
fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for (name, args) in [
        ("common", &["-n", "common1"][..]),
        ("rare", &["-n", "word42"]),
        ("rewritten", &["-c", "rewritten1"]),
        ("fresh", &["-l", "freshword3"]),
        ("followed", &["-n", "word4[0-9]"]),
        ("gone", &["-l", "onlyinremoved"]),
        ("kept_word", &["-n", "-w", "word7"]),
        ("files_without", &["--files-without-match", "common2"]),
    ] {
        v.push(Case::new(format!("tree/{name}"), args).cwd("tree"));
    }
    v
}

/// `tg index` of `tree/` and what it printed.
fn index(t: &Tree, extra: &[&str]) -> String {
    let out = util::tg_command(t, t.root()).arg("index").args(extra).arg("tree").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "tg index failed: {err}");
    err
}

#[test]
fn an_update_reads_only_what_changed_and_answers_as_rg() {
    if std::env::var_os("TG_TEST_TG").is_some() {
        return;
    }
    let t = Tree::new("index_update");
    for i in 0..120 {
        t.write(format!("tree/d{}/f{i:03}.txt", i % 4), text(i, 0));
    }
    t.write("tree/d1/removed.txt", "onlyinremoved common1\n");
    t.write("tree/bin.dat", b"common1 before a NUL\0word42 after it\n");
    // An ignore file is listed twice: watched, and searched (as a file kept).
    t.write("tree/.ignore", "nothing-is-named-so\n");
    let first = index(&t, &[]);
    assert!(!first.contains("kept"), "a first build keeps nothing: {first}");
    // Rewrite every 6th file, add 10, remove one, rename one: 123 + 10 - 1
    // files, of which 20 rewritten, 10 new, 1 renamed are read.
    for i in (0..120).step_by(6) {
        t.write(format!("tree/d{}/f{i:03}.txt", i % 4), text(i, 1));
    }
    for i in 200..210 {
        t.write(format!("tree/d{}/n{i}.txt", i % 3), text(i, 2));
    }
    std::fs::remove_file(t.path("tree/d1/removed.txt")).unwrap();
    std::fs::rename(t.path("tree/d3/f003.txt"), t.path("tree/d0/moved.txt")).unwrap();
    let second = index(&t, &[]);
    assert!(second.contains("indexed 132 files (31 read, 101 unchanged kept)"), "{second}");
    let mut r = Report::new("updated");
    r.check_all(&t, &cases());
    r.finish();
    // Once more with nothing changed: every file is kept.
    assert!(index(&t, &[]).contains("(0 read, 132 unchanged kept)"));
    let rebuilt = index(&t, &["--rebuild"]);
    assert!(rebuilt.contains("indexed 132 files (") && !rebuilt.contains("kept"), "{rebuilt}");
    let mut r = Report::new("rebuilt");
    r.check_all(&t, &cases());
    r.finish();
}
