//! Regression tests, one per reported issue, named `issue_NNNN_<summary>`.
//!
//! Each test builds its own fixture inline, runs `tg` and rg through the
//! differential harness and fails with a diff. A known difference that is
//! not fixed yet is asserted as today's behaviour with a FIXME (never
//! `#[ignore]` or `#[should_panic]`).

mod util;

use util::{Case, Report, Tree};

/// Template: an empty file with `-c` prints nothing and exits 1, like rg.
#[test]
fn issue_0000_example_count_on_empty_file() {
    let t = Tree::new("issue_0000");
    t.write("empty.txt", "");
    t.write("one.txt", "needle\n");
    let mut r = Report::new("issue_0000");
    r.check(&t, &Case::new("count_empty", ["-c", "needle", "empty.txt"]));
    r.check(&t, &Case::new("count_walk", ["-c", "needle"]));
    r.finish();
}

/// `tg sql ARGS` runs `tg-sql ARGS` found beside `tg` (or on
/// `PATH`), as git runs its external subcommands; without one it prints
/// one `tg:` line and exits 2.
#[test]
fn issue_0028_tg_sql_runs_tg_sql_beside_tg() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let tg = dir.path().join("tg");
    std::fs::copy(util::tg_bin(), &tg).unwrap();
    let run = || {
        std::process::Command::new(&tg)
            .args(["sql", "--format", "csv", "SELECT 1"])
            .env("PATH", dir.path().join("nowhere"))
            // No server of the user's answers, and none is started.
            .env("XDG_RUNTIME_DIR", dir.path())
            .env("TG_SQL_SERVE", "0")
            .output()
            .unwrap()
    };
    let missing = run();
    let err = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("tg: sql: tg-sql is not installed") && err.lines().count() == 1,
        "{err}"
    );
    let fake = dir.path().join("tg-sql");
    std::fs::write(&fake, "#!/bin/sh\nprintf '%s|' \"$@\"\nexit 3\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let found = run();
    assert_eq!(String::from_utf8_lossy(&found.stdout), "--format|csv|SELECT 1|");
    assert_eq!(found.status.code(), Some(3), "the exit code is tg-sql's");
}

/// Without `tg-sql`, `tg sql` says how to install it (a release
/// build through `cargo install`, which puts it beside a cargo-installed
/// `tg`), and `tg sql --help` still prints a usage.
#[test]
fn issue_0039_tg_sql_without_tg_sql_says_how_to_install_it_and_still_helps() {
    let dir = tempfile::tempdir().unwrap();
    let tg = dir.path().join("tg");
    std::fs::copy(util::tg_bin(), &tg).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(&tg)
            .arg("sql")
            .args(args)
            .env("PATH", dir.path().join("nowhere"))
            .env("XDG_RUNTIME_DIR", dir.path())
            .env("TG_SQL_SERVE", "0")
            .output()
            .unwrap()
    };
    let missing = run(&["SELECT 1"]);
    let err = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2), "{err}");
    assert!(err.contains("`cargo install --locked --path sql`"), "{err}");
    assert!(!err.contains("cargo build -p"), "a debug build is no install: {err}");
    for help in ["--help", "-h"] {
        let out = run(&[help]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{help}: {}", String::from_utf8_lossy(&out.stderr));
        for part in [
            "Usage: tg sql",
            "--scheduler HOST:PORT",
            "--format",
            "cargo install --locked --path sql",
        ] {
            assert!(text.contains(part), "{help} lacks {part:?}:\n{text}");
        }
    }
}
