//! Issue 28: a tree with a tree index reads as `rg` walks it after the
//! tree changed since the build. The scan lists the files from the
//! index's table (its candidates and the files changed or added since the
//! build) instead of walking: after a file is changed, added, deleted or
//! renamed, and after an ignored or hidden file appears, `SELECT path,
//! line_number, line ...` returns the lines `rg -n` prints and `count(*)`
//! equals `rg -c` summed, through the index and with pushdown off.

mod util;

use std::path::Path;

use util::{Fixture, rg_count, rg_rows};

/// Each SQL condition and the rg arguments that select the same lines.
const CASES: &[(&str, &[&str])] = &[
    ("line LIKE '%zebracorn%'", &["-F", "zebracorn"]),
    ("line ~ 'quagga [0-9]+ here'", &["quagga [0-9]+ here"]),
    ("line ILIKE '%ZEBRACORN ON%'", &["-i", "-F", "zebracorn on"]),
];

/// The rows of each case on `tree` against rg's, through the index, with
/// pushdown off and on three partitions; the failures, named by `step`.
fn check(fx: &Fixture, tree: &Path, step: &str) -> Vec<String> {
    let table = format!("lines('{}')", tree.display());
    let mut failures = Vec::new();
    for (cond, rg_args) in CASES {
        let want = rg_rows(rg_args, &[tree], &|p| p.to_string());
        assert_eq!(want.len() as u64, rg_count(rg_args, &[tree]), "{cond}: rg -n and -c");
        for extra in [&[][..], &["--no-pushdown"][..], &["--partitions", "3"][..]] {
            let got = fx.sql_rows(&table, cond, extra);
            if got != want {
                let missing: Vec<_> = want.iter().filter(|r| !got.contains(r)).collect();
                let more: Vec<_> = got.iter().filter(|r| !want.contains(r)).collect();
                failures
                    .push(format!("{step}: {cond} {extra:?}: missing {missing:?}, extra {more:?}"));
            }
            let n = fx.sql_count(&table, cond, extra);
            if n != want.len() as u64 {
                failures.push(format!("{step}: {cond} {extra:?}: count(*) {n}, rg {}", want.len()));
            }
        }
    }
    failures
}

/// Whether a needle scan of `tree` listed its files from the index
/// rather than walking (the scan logs it).
fn listed_by_index(fx: &Fixture, tree: &Path) -> bool {
    listed_by(fx, tree, "listed by the index")
}

/// Whether a needle scan of `tree` logged `how` its files were listed.
fn listed_by(fx: &Fixture, tree: &Path, how: &str) -> bool {
    let q =
        format!("SELECT count(*) FROM lines('{}') WHERE line LIKE '%zebracorn%'", tree.display());
    debug_log(fx, &q).contains(how)
}

/// What `tg-sql QUERY` logs at the debug level; it must succeed.
fn debug_log(fx: &Fixture, query: &str) -> String {
    let out = std::process::Command::new(util::tg_sql())
        .env("TG_INDEX_DIR", fx.index_dir())
        .env("RUST_LOG", "trigrep_sql=debug")
        .arg(query)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A tree of a git repository: text files with and without the needles
/// in a few directories, an ignored file and directory, hidden files, and
/// a binary file whose needle lies after its NUL.
fn tree(fx: &Fixture) -> std::path::PathBuf {
    std::fs::create_dir_all(fx.path("tree/.git")).unwrap();
    fx.write("tree/.gitignore", b"*.tmp\nbuild/\n");
    for i in 0..40 {
        let text = match i % 4 {
            0 => format!("line one\nzebracorn on {i}\nquagga {i} here\n"),
            1 => format!("nothing at {i:03}\nelse\n"),
            _ => format!("plain text {i}\nmore text\n"),
        };
        fx.write(&format!("tree/d{}/f{i:02}.txt", i % 3), text.as_bytes());
    }
    fx.write("tree/top.txt", b"zebracorn on top\n");
    fx.write("tree/old.tmp", b"zebracorn ignored\n");
    fx.write("tree/build/out.txt", b"zebracorn in an ignored directory\n");
    fx.write("tree/.hidden.txt", b"zebracorn hidden\n");
    fx.write("tree/bin.dat", b"no needle before\n\0zebracorn after the NUL\n");
    fx.path("tree")
}

#[test]
fn issue_0028_a_tree_index_lists_what_rg_walks_after_the_tree_changed() {
    let fx = Fixture::new();
    let tree = tree(&fx);
    fx.tg(&["index", "-q", tree.to_str().unwrap()]);
    let failures = check(&fx, &tree, "as indexed");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(listed_by_index(&fx, &tree), "an unchanged tree is listed by its index");
    for (step, change) in steps() {
        change(&fx);
        let failures = check(&fx, &tree, step);
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(listed_by_index(&fx, &tree), "{step}: the tree is listed by its index");
    }
}

/// A change to the fixture's tree, and its name.
type Step = (&'static str, fn(&Fixture));

/// The changes made to the tree after its index was built.
fn steps() -> [Step; 7] {
    [
        ("a file changed, same size", |fx| {
            // `nothing at 001\nelse\n` has no needle: no candidate.
            fx.write("tree/d1/f01.txt", b"zebracorn on 1\nelse\n");
        }),
        ("a file changed, grown", |fx| {
            fx.write("tree/d2/f05.txt", b"nothing at 005\nelse\nquagga 5 here\n");
        }),
        ("files added", |fx| {
            fx.write("tree/d0/new.txt", b"zebracorn on a new file\n");
            fx.write("tree/newdir/deep/n.txt", b"quagga 77 here\nzebracorn on deep\n");
        }),
        ("a file deleted", |fx| std::fs::remove_file(fx.path("tree/d0/f00.txt")).unwrap()),
        ("ignored files added", |fx| {
            fx.write("tree/d1/new.tmp", b"zebracorn ignored too\n");
            fx.write("tree/build/more.txt", b"zebracorn ignored build\n");
        }),
        ("hidden files added", |fx| {
            fx.write("tree/d2/.secret", b"zebracorn hidden too\n");
            fx.write("tree/.hid/x.txt", b"zebracorn in a hidden directory\n");
        }),
        ("a file renamed", |fx| {
            std::fs::rename(fx.path("tree/d1/f04.txt"), fx.path("tree/d2/renamed.txt")).unwrap()
        }),
    ]
}

/// `tg serve` for the fixture's tree, stopped when dropped.
struct Served<'a>(&'a Fixture, std::path::PathBuf);

impl Drop for Served<'_> {
    fn drop(&mut self) {
        let _ = std::process::Command::new(util::tg())
            .arg("stop")
            .arg(&self.1)
            .env("TG_INDEX_DIR", self.0.index_dir())
            .output();
    }
}

#[test]
fn issue_0028_a_served_tree_is_listed_by_its_server_as_rg_walks_it() {
    use std::os::unix::fs::PermissionsExt;
    let fx = Fixture::new();
    let tree = tree(&fx);
    fx.tg(&["index", "-q", tree.to_str().unwrap()]);
    let runtime = fx.path("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    let daemon = std::process::Command::new(util::tg())
        .args(["serve", "--daemon"])
        .arg(&tree)
        .env("TG_INDEX_DIR", fx.index_dir())
        .env("XDG_RUNTIME_DIR", &runtime)
        .output()
        .unwrap();
    assert!(daemon.status.success(), "{}", String::from_utf8_lossy(&daemon.stderr));
    let _served = Served(&fx, tree.clone());
    let failures = check(&fx, &tree, "as indexed, served");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(listed_by(&fx, &tree, "listed by the server"), "a served tree is listed by its server");
    for (step, change) in steps() {
        change(&fx);
        let failures = check(&fx, &tree, step);
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(listed_by(&fx, &tree, "listed by the server"), "{step}: listed by the server");
    }
}

#[test]
fn issue_0028_a_changed_ignore_file_makes_the_scan_walk() {
    let fx = Fixture::new();
    let tree = tree(&fx);
    fx.tg(&["index", "-q", tree.to_str().unwrap()]);
    // What the walk yields changes: the table cannot stand in for it.
    fx.write("tree/.gitignore", b"d1/\n");
    let mut failures = check(&fx, &tree, "the ignore file changed");
    assert!(!listed_by_index(&fx, &tree), "a changed ignore file is walked");
    fx.write("tree/d2/.ignore", b"f02.txt\n");
    failures.extend(check(&fx, &tree, "an ignore file added"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn issue_0028_block_texts_in_an_indexed_tree_are_read_through_their_indexes() {
    let fx = Fixture::new();
    let mut big = util::log_text(12_000, 3);
    big.extend_from_slice(b"2024-04-01 FATAL zebracorn on the big log\n");
    let orig = fx.write("orig/big.log", &big);
    let small = fx.write("orig/small.log", &util::log_text(3000, 5));
    let gzip = std::process::Command::new("gzip").args(["-k", "-6"]).arg(&small).status();
    assert!(gzip.unwrap().success());
    let (log, gz, zst) =
        (fx.path("tree/logs/big.log"), fx.path("tree/logs/small.log.gz"), fx.path("tree/big.zst"));
    fx.write("tree/logs/big.log", &big);
    std::fs::rename(fx.path("orig/small.log.gz"), &gz).unwrap();
    fx.write("tree/a.txt", b"zebracorn on a\n");
    fx.write("tree/b.txt", b"nothing\n");
    let (o, l, g, z) = (
        orig.to_str().unwrap(),
        log.to_str().unwrap(),
        gz.to_str().unwrap(),
        zst.to_str().unwrap(),
    );
    fx.tg(&["pack", "-q", "--frame-size", "4K", o, "-o", z]);
    fx.tg(&["index", "-q", "--block-size", "4K", l]);
    fx.tg(&["index", "-q", "--block-size", "4K", "--access-spacing", "64K", g]);
    let tree = fx.path("tree");
    fx.tg(&["index", "-q", tree.to_str().unwrap()]);
    let table = format!("lines('{}')", tree.display());
    let mut failures = Vec::new();
    for (cond, rg_args) in CASES {
        // rg reads the compressed texts as the files they came from.
        let mut want =
            rg_rows(&[&["-g", "!*.gz", "-g", "!*.zst"], *rg_args].concat(), &[&tree], &|p| {
                p.to_string()
            });
        want.extend(rg_rows(rg_args, &[&small], &|_| g.to_string()));
        want.extend(rg_rows(rg_args, &[&orig], &|_| z.to_string()));
        want.sort();
        for extra in [&[][..], &["--no-pushdown"][..], &["--partitions", "3"][..]] {
            let got = fx.sql_rows(&table, cond, extra);
            if got != want {
                failures.push(format!("{cond} {extra:?}: {} rows, want {}", got.len(), want.len()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Each text was listed, then read through its index.
    let q = format!("SELECT count(*) FROM {table} WHERE line LIKE '%zebracorn%'");
    let log_text = debug_log(&fx, &q);
    assert!(log_text.contains("listed by the index"), "{log_text}");
    for text in [l, g, z] {
        assert!(log_text.contains(&format!("{text}: part 0/")), "{text} as a text: {log_text}");
    }
}
