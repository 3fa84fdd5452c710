//! `tg serve`. A real server runs on a temporary tree; queries go
//! through it (checked with `--stats`: the server lists the files to read)
//! and must print exactly what rg
//! prints, also right after the tree changed: files written, added,
//! deleted and renamed, directories moved, ignore files edited, a burst of
//! a thousand files, a lost-event overflow, a server killed during a merge.
//! No fixed sleeps: a query right after a change must already see it (the
//! server's sync cookie), and waits for the server poll with a deadline.

mod util;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use util::serve::{Served, json_exchange, socket_path, status, tcp_address, wait_for};
use util::{Case, Report, Tree};

/// The tree: a git repository with ignore rules, indexed.
fn tree(name: &str) -> Tree {
    let t = Tree::new(name);
    t.git_init("repo");
    t.write("repo/.gitignore", "*.log\nbuild/\n");
    t.write("repo/a.txt", "alpha needle\nplain\nNeedle again\n");
    t.write("repo/b.txt", "beta\nno match here\n");
    t.write("repo/src/lib.rs", "fn needle() {}\n// the needle's eye\n");
    t.write("repo/src/deep/mod.rs", "// needle deep\nlet x = 1;\n");
    t.write("repo/src/deep/other.rs", "// nothing\n");
    t.write("repo/docs/guide.md", "Needle in docs\nline two\nneedle three\n");
    t.write("repo/app.log", "needle in ignored log\n");
    t.write("repo/build/out.txt", "needle in ignored dir\n");
    t.write("repo/data.bin", "needle before a NUL\n\0needle after it\n");
    util::tg_index(&t, "repo");
    t
}

/// Queries over many output flags.
fn cases(tag: &str) -> Vec<Case> {
    let mut v = Vec::new();
    for (name, args) in [
        ("plain", &["needle"][..]),
        ("n", &["-n", "needle"]),
        ("i_l", &["-i", "-l", "needle"]),
        ("c", &["-c", "needle"]),
        ("c_zero", &["-c", "--include-zero", "needle"]),
        ("without", &["--files-without-match", "needle"]),
        ("o_b", &["-o", "-b", "need\\w+"]),
        ("r", &["-n", "-r", "[$0]", "needle"]),
        ("ctx", &["-n", "-C", "1", "needle"]),
        ("json", &["--json", "needle"]),
        ("color", &["--color", "always", "-n", "needle"]),
        ("heading", &["--heading", "-n", "needle"]),
        ("word", &["-w", "freshword"]),
        ("binary", &["--binary", "-n", "after"]),
        ("text", &["-a", "-c", "needle"]),
        ("subdir", &["-n", "needle", "src"]),
    ] {
        v.push(Case::new(format!("served/{tag}/{name}"), args).cwd("repo"));
    }
    v.push(Case::new(format!("served/{tag}/inside_src"), ["-n", "needle"]).cwd("repo/src"));
    v.push(
        Case::new(format!("served/{tag}/parallel"), ["-n", "needle"])
            .cwd("repo")
            .no_sort()
            .unordered(),
    );
    v
}

/// `--stats` stderr of one query in `repo`.
fn stats(t: &Tree) -> String {
    let out = util::tg_command(t, t.path("repo"))
        .args(["--stats", "-l", "needle"])
        .output()
        .expect("run tg");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs every case; with `served`, also checks the server told the query.
fn check(t: &Tree, tag: &str, served: bool) {
    let mut r = Report::new(tag);
    r.check_all(t, &cases(tag));
    r.finish();
    let err = stats(t);
    assert_eq!(err.contains("candidates told by the server"), served, "{tag}: stats:\n{err}");
}

#[test]
fn answers_match_rg_through_the_server() {
    let t = tree("serve_plain");
    let _s = Served::start(&t, &[]);
    check(&t, "plain", true);
    let st = status(&t);
    // (A server started while another test lowered the watch limit has
    // unwatched directories pending for good.)
    assert!(st.contains("pending:    0 changed") || st.contains("watch limit: reached"), "{st}");
}

#[test]
fn changes_are_seen_by_the_next_query() {
    let t = tree("serve_changes");
    let _s = Served::start(&t, &[]);
    // Files written, grown, added, deleted, renamed.
    t.write("repo/new.txt", "freshword needle new file\n");
    let mut a = std::fs::read(t.path("repo/a.txt")).unwrap();
    a.extend_from_slice(b"freshword appended needle\n");
    t.write("repo/a.txt", a);
    t.write("repo/b.txt", "freshword needle\n  xx\n");
    std::fs::remove_file(t.path("repo/src/deep/other.rs")).unwrap();
    std::fs::rename(t.path("repo/src/lib.rs"), t.path("repo/src/renamed.rs")).unwrap();
    check(&t, "files", true);
    // Directories created, moved and deleted; ignored additions stay out.
    t.write("repo/newdir/inner/x.txt", "freshword needle in a new directory\n");
    std::fs::rename(t.path("repo/docs"), t.path("repo/manual")).unwrap();
    std::fs::remove_dir_all(t.path("repo/src/deep")).unwrap();
    t.write("repo/new.log", "needle freshword ignored\n");
    t.write("repo/build/more.txt", "needle freshword ignored dir\n");
    check(&t, "dirs", true);
    // Writes inside a directory created while serving.
    t.write("repo/newdir/inner/x.txt", "rewritten needle\n");
    t.write("repo/newdir/inner/y.txt", "another needle freshword\n");
    check(&t, "new_dir_writes", true);
}

#[test]
fn ignore_edits_are_followed() {
    let t = tree("serve_ignore");
    let _s = Served::start(&t, &[]);
    t.write("repo/.gitignore", "*.log\na.txt\n");
    // Until the server rebuilt its index, queries walk; either way the
    // answer is rg's.
    let mut r = Report::new("ignore_edit");
    r.check_all(&t, &cases("ignore_edit"));
    r.finish();
    wait_for(&t, "the rebuild after the ignore edit", |st| st.contains(", 1 merges"));
    t.write("repo/build/later.txt", "needle in a directory no longer ignored\n");
    check(&t, "ignore_rebuilt", true);
}

/// An ignore file edited while no server ran: the starting server's
/// reconcile sees it and rebuilds, and queries are told again.
#[test]
fn an_ignore_edit_before_the_server_started_is_rebuilt() {
    let t = tree("serve_ignore_before");
    t.write("repo/.gitignore", "*.log\na.txt\n");
    let _s = Served::start(&t, &[]);
    wait_for(&t, "the rebuild after the ignore edit", |st| st.contains(", 1 merges"));
    check(&t, "ignore_before_rebuilt", true);
}

/// An ignore file above the tree (`../.ignore`) gets no watch: the server
/// stats it, rebuilds once when it changed, and is not asked again.
#[test]
fn an_ignore_file_above_the_tree_is_followed() {
    let t = tree("serve_ignore_above");
    let _s = Served::start(&t, &[]);
    t.write(".ignore", "a.txt\n");
    let mut r = Report::new("ignore_above");
    r.check_all(&t, &cases("ignore_above"));
    r.finish();
    wait_for(&t, "the rebuild after the edit above the tree", |st| st.contains(", 1 merges"));
    check(&t, "ignore_above_rebuilt", true);
    std::thread::sleep(Duration::from_millis(2500));
    let st = status(&t);
    assert!(st.contains(", 1 merges"), "rebuilt again for an unchanged file:\n{st}");
}

#[test]
fn changes_before_the_server_started_are_reconciled() {
    let t = tree("serve_reconcile");
    t.write("repo/new.txt", "freshword needle new file\n");
    std::thread::sleep(Duration::from_millis(20));
    t.write("repo/b.txt", "freshword needle\n  xx\n");
    std::fs::remove_file(t.path("repo/src/deep/other.rs")).unwrap();
    let _s = Served::start(&t, &[]);
    check(&t, "reconciled", true);
}

/// A `git checkout` that rewrites a thousand files, and one that adds a
/// thousand: each visible to the very next query, then merged.
#[test]
fn a_burst_of_a_thousand_files_is_seen_and_merged() {
    let t = tree("serve_burst");
    for i in 0..1000 {
        t.write(format!("repo/burst/f{i:04}.txt"), format!("line {i}\nold {i}\n"));
    }
    util::tg_index(&t, "repo");
    let _s = Served::start(&t, &["--merge-at", "500"]);
    for i in 0..1000 {
        t.write(format!("repo/burst/f{i:04}.txt"), format!("line {i}\nburstword {i} needle\n"));
    }
    let mut r = Report::new("burst");
    r.check(&t, &Case::new("served/burst/c", ["-c", "burstword"]).cwd("repo"));
    for i in 0..1000 {
        t.write(format!("repo/added/g{i:04}.txt"), format!("addedword {i}\n"));
    }
    r.check(&t, &Case::new("served/burst/added", ["-c", "addedword"]).cwd("repo"));
    r.finish();
    wait_for(&t, "a merge", |st| st.contains("merges") && !st.contains(" 0 merges"));
    check(&t, "after_merge", true);
}

/// A queue overflow (the kernel's queue made tiny for this server) is
/// followed by one reconcile, and answers stay right.
#[test]
fn a_lost_event_overflow_reconciles_once() {
    const KNOB: &str = "/proc/sys/fs/inotify/max_queued_events";
    if !util::require_root("lowering inotify's max_queued_events") {
        return;
    }
    let old = std::fs::read_to_string(KNOB).expect(KNOB);
    let t = tree("serve_overflow");
    std::fs::write(KNOB, "8").expect("lower max_queued_events (root)");
    let served = std::panic::catch_unwind(|| Served::start(&t, &[]));
    std::fs::write(KNOB, old.trim()).expect("restore max_queued_events");
    let s = served.expect("server started");
    // Stopped, the server cannot drain: the tiny queue overflows for sure.
    // SAFETY: signalling our own child.
    unsafe { libc::kill(s.pid(), libc::SIGSTOP) };
    for i in 0..300 {
        t.write(format!("repo/src/flood{i:03}.txt"), format!("floodword {i} needle\n"));
    }
    // SAFETY: as above.
    unsafe { libc::kill(s.pid(), libc::SIGCONT) };
    check(&t, "overflow", true);
    // One reconcile at the start, then at most one per overflow (overflows
    // applied together share one): never a loop.
    let counts = |st: &str| -> Option<(u64, u64)> {
        let rest = st.split("events:").nth(1)?.split('(').nth(1)?;
        let mut words = rest.split_whitespace();
        let overflows = words.next()?.parse().ok()?;
        let reconciles = words.nth(1)?.parse().ok()?;
        Some((overflows, reconciles))
    };
    wait_for(&t, "a reconcile after an overflow", |st| {
        counts(st).is_some_and(|(o, r)| o >= 1 && r >= 2)
    });
    check(&t, "after_reconcile", true);
    let st = status(&t);
    let (o, r) = counts(&st).unwrap();
    assert!(r <= o + 1, "at most one reconcile per overflow: {st}");
}

/// SIGKILL at random moments while the server merges: the next server
/// starts from an intact index and answers as rg does.
#[test]
fn a_server_killed_while_merging_restarts_correct() {
    let t = tree("serve_kill");
    for i in 0..400 {
        t.write(format!("repo/bulk/f{i:03}.txt"), format!("bulk {i}\nneedle {i}\n"));
    }
    util::tg_index(&t, "repo");
    for round in 0..5u64 {
        let s = Served::start(&t, &["--merge-at", "1"]);
        t.write(format!("repo/round{round}.txt"), format!("needle freshword round {round}\n"));
        let st = status(&t);
        std::thread::sleep(Duration::from_millis(1100 + round * 37));
        s.kill(libc::SIGKILL);
        let _ = st;
        check(&t, &format!("killed_{round}"), false);
    }
    let _s = Served::start(&t, &[]);
    check(&t, "restarted", true);
}

#[test]
fn tcp_clients_need_the_token_and_garbage_closes_only_its_connection() {
    let t = tree("serve_tcp");
    let _s = Served::start(&t, &["--listen", "127.0.0.1:0"]);
    let (addr, token) = tcp_address(&t);
    let sock = socket_path(&t);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&sock).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "socket mode");
    let dir_mode = std::fs::metadata(sock.parent().unwrap()).unwrap().permissions().mode() & 0o777;
    assert_eq!(dir_mode, 0o700, "runtime directory mode");
    let token_mode = std::fs::metadata(sock.with_extension("token")).unwrap().permissions().mode();
    assert_eq!(token_mode & 0o777, 0o600, "token file mode");

    let none = json_exchange(&addr, &[r#"{"protocol":4}"#.into(), r#"{"op":"status"}"#.into()]);
    assert_eq!(none[0]["ok"], false, "{none:?}");
    assert_eq!(none.len(), 1, "the connection closes after a refusal");
    let wrong = json_exchange(&addr, &[r#"{"protocol":4,"token":"00ff"}"#.into()]);
    assert_eq!(wrong[0]["ok"], false);
    let hello = format!(r#"{{"protocol":4,"token":"{token}"}}"#);
    let ok = json_exchange(
        &addr,
        &[hello.clone(), r#"{"op":"sync"}"#.into(), r#"{"op":"nope"}"#.into()],
    );
    assert_eq!(ok[0]["ok"], true, "{ok:?}");
    assert_eq!(ok[1]["ready"], true, "{ok:?}");
    assert_eq!(ok[2]["ok"], false, "an unknown op is refused, the connection kept");
    let old = json_exchange(&addr, &[format!(r#"{{"protocol":99,"token":"{token}"}}"#)]);
    assert_eq!(old[0]["ok"], false);

    // Garbage on the Unix socket and on TCP: those connections close; a
    // client that connects and never speaks holds nothing up.
    let _idle = std::os::unix::net::UnixStream::connect(&sock).unwrap();
    let mut g = std::os::unix::net::UnixStream::connect(&sock).unwrap();
    g.write_all(&[0xff, 0xff, 0xff, 0x7f, 1, 2, 3]).unwrap();
    g.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut rest = Vec::new();
    let _ = g.read_to_end(&mut rest);
    let mut g = std::net::TcpStream::connect(&addr).unwrap();
    g.write_all(b"{not json\n").unwrap();
    check(&t, "after_garbage", true);
}

/// Another user cannot reach the socket (only testable as root).
#[test]
fn other_users_cannot_connect() {
    if !util::require_root("running a client as another user") {
        return;
    }
    let t = tree("serve_perm");
    let _s = Served::start(&t, &[]);
    let sock = socket_path(&t);
    let script = format!(
        "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect({:?})\nexcept OSError as e:\n print('refused', e.errno); sys.exit(0)\nprint('connected')",
        sock.to_string_lossy()
    );
    use std::os::unix::process::CommandExt;
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .uid(65534)
        .gid(65534)
        .output()
        .expect("python3");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.starts_with("refused"),
        "nobody connected: {said} {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn without_a_server_queries_fall_back_and_say_so_only_under_stats() {
    let t = tree("serve_absent");
    let s = Served::start(&t, &[]);
    s.kill(libc::SIGKILL);
    // The record and socket of a killed server remain: the query must
    // notice nobody answers, and still be right.
    check(&t, "stale_record", false);
    let err = stats(&t);
    assert!(err.contains("(server not used: no server runs for this tree)"), "{err}");
    let quiet = util::tg_command(&t, t.path("repo")).args(["-l", "needle"]).output().unwrap();
    assert!(quiet.stderr.is_empty(), "no stderr without --stats");
    let _s = Served::start(&t, &[]);
    let out = util::tg_command(&t, t.path("repo"))
        .args(["--stats", "--no-server", "-l", "needle"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("told by the server"));
}

#[test]
fn index_serve_starts_a_server_on_demand() {
    let t = tree("serve_demand");
    let out =
        util::tg_command(&t, t.root()).args(["index", "-q", "--serve", "repo"]).output().unwrap();
    assert!(out.status.success());
    assert!(status(&t).contains("auto-start on demand"));
    // The first queries answer from the index while the server starts.
    let mut r = Report::new("first_query");
    r.check_all(&t, &cases("first_query"));
    r.finish();
    wait_for(&t, "the on-demand server", |st| st.contains("server:     pid"));
    check(&t, "served", true);
    let stop = util::tg_command(&t, t.path("repo")).arg("stop").output().unwrap();
    assert!(stop.status.success(), "{}", String::from_utf8_lossy(&stop.stderr));
    wait_for(&t, "the server to stop", |st| st.contains("server:     none"));
}

/// `tg index` run while a server watches: queries never trust the server's
/// account of the old index for the new one, and the server follows.
#[test]
fn an_index_rebuilt_behind_the_servers_back_is_followed() {
    let t = tree("serve_external");
    let _s = Served::start(&t, &[]);
    t.write("repo/new.txt", "needle freshword\n");
    util::tg_index(&t, "repo");
    // A file the server's old index does not know, changed after the rebuild.
    t.write("repo/new.txt", "needle freshword changed after the rebuild, longer\n");
    let mut r = Report::new("external");
    r.check_all(&t, &cases("external"));
    r.finish();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !stats(&t).contains("told by the server") {
        assert!(Instant::now() < deadline, "the server never followed the new index");
        std::thread::sleep(Duration::from_millis(20));
    }
    t.write("repo/new.txt", "needle freshword once more\n");
    check(&t, "followed", true);
}

/// Past the inotify watch limit (the limit lowered for this server), the
/// directories left unwatched are checked by every query: answers stay
/// right, and `tg status` says so. With no room for any watch, the server
/// refuses to start and says why.
#[test]
fn past_the_watch_limit_queries_check_the_unwatched_part() {
    const KNOB: &str = "/proc/sys/fs/inotify/max_user_watches";
    if !util::require_root("lowering inotify's max_user_watches") {
        return;
    }
    let old = std::fs::read_to_string(KNOB).expect(KNOB);
    let t = tree("serve_watch_limit");
    // Watches held by this user now, from every inotify instance.
    let used: usize = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|p| std::fs::read_dir(p.path().join("fdinfo")).ok())
        .flatten()
        .flatten()
        .filter_map(|f| std::fs::read_to_string(f.path()).ok())
        .map(|s| s.lines().filter(|l| l.starts_with("inotify wd:")).count())
        .sum();
    // No watch allowed at all: the server refuses to start, in one line.
    std::fs::write(KNOB, "0").expect("lower max_user_watches (root)");
    let refused = util::tg_command(&t, t.root()).args(["serve", "repo"]).output();
    // Room for three more watches: the server starts, past the limit.
    let lowered = std::fs::write(KNOB, (used + 3).to_string());
    let served = std::panic::catch_unwind(|| Served::start(&t, &[]));
    std::fs::write(KNOB, old.trim()).expect("restore max_user_watches");
    lowered.expect("lower max_user_watches");
    let refused = refused.expect("run tg serve");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(said.contains("max_user_watches") && said.lines().count() == 1, "{said}");
    let _s = served.expect("server started");
    let st = status(&t);
    assert!(st.contains("watch limit: reached"), "{st}");
    t.write("repo/src/deep/mod.rs", "// needle deep, changed\n");
    t.write("repo/docs/new.md", "needle freshword in an unwatched place\n");
    std::fs::remove_file(t.path("repo/src/deep/other.rs")).unwrap();
    check(&t, "watch_limit", true);
}
