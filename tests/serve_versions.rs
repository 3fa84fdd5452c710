//! `tg serve` beside other versions of tg. `tg stop` and a server it
//! cannot talk to: one left running across an upgrade refuses the new
//! protocol version, and must be stopped all the same, by a signal, once
//! the socket shows it is the server recorded; a record that names
//! another process must not get that process killed. And an index
//! published behind a server's back by another version (without edges)
//! is not served: the server builds its own, answering right meanwhile.
//!
//! The old server is this test binary run again as [`fake_old_server`]:
//! it listens on the recorded socket and closes every connection unread.

mod util;

use std::os::unix::net::UnixListener;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use util::serve::{Served, wait_for};
use util::{Case, Report, Tree, footer};

/// The environment variable that makes [`fake_old_server`] serve.
const FAKE: &str = "TG_TEST_FAKE_OLD_SERVER";

/// Not a test when run by the harness: with [`FAKE`] set, it is the old
/// server, listening on the socket the variable names until killed.
#[test]
fn fake_old_server() {
    let Some(path) = std::env::var_os(FAKE) else { return };
    let listener = UnixListener::bind(&path).expect("bind the fake server's socket");
    std::fs::write(ready(Path::new(&path)), b"").expect("say the fake server is ready");
    for conn in listener.incoming() {
        drop(conn);
    }
}

/// The file the fake server writes once it listens on `socket`.
fn ready(socket: &Path) -> PathBuf {
    socket.with_extension("ready")
}

/// Starts the fake old server on `socket` and waits until it listens.
fn start_fake(socket: &Path) -> Child {
    let child = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--exact", "fake_old_server", "--nocapture"])
        .env(FAKE, socket)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the fake server");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ready(socket).exists() {
        assert!(Instant::now() < deadline, "the fake server did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

/// The only index directory of the tree.
fn index_dir(t: &Tree) -> PathBuf {
    let base = t.path(".home/.cache/trigrep/indexes");
    std::fs::read_dir(&base).expect("indexes").next().expect("one index").expect("entry").path()
}

/// Waits up to 10 s for `child` to exit.
fn exit_of(child: &mut Child) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Some(st) = child.try_wait().expect("wait") {
            return Some(st);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

/// A child process killed and reaped when dropped.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An indexed tree and the fake old server on a socket in it, recorded as
/// the server of the index by the pid `record_pid` gives for it.
fn with_old_server(name: &str, record_pid: impl FnOnce(&Child) -> u32) -> (Tree, Reaped) {
    let t = Tree::new(name);
    t.write("repo/a.txt", "needle\n");
    util::tg_index(&t, "repo");
    let socket = t.path("old.sock");
    let old = start_fake(&socket);
    let record = format!("pid={}\nsocket={}\n", record_pid(&old), socket.display());
    std::fs::write(index_dir(&t).join("server"), record).expect("write the record");
    (t, Reaped(old))
}

#[test]
fn a_server_that_refuses_the_protocol_is_stopped_by_a_signal() {
    let (t, mut old) = with_old_server("stop_old", Child::id);
    let out = util::tg_command(&t, t.root()).args(["stop", "repo"]).output().expect("tg stop");
    let status = exit_of(&mut old.0);
    assert!(out.status.success(), "tg stop: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(status.and_then(|s| s.signal()), Some(15), "the old server got no SIGTERM");
}

#[test]
fn a_record_naming_another_process_gets_no_one_killed() {
    let mut stranger = Reaped(Command::new("sleep").arg("30").spawn().expect("spawn sleep"));
    let stranger_pid = stranger.0.id();
    let (t, mut old) = with_old_server("stop_stranger", |_| stranger_pid);
    let out = util::tg_command(&t, t.root()).args(["stop", "repo"]).output().expect("tg stop");
    // A signal sent would show within this grace.
    let deadline = Instant::now() + Duration::from_millis(300);
    let mut alive = true;
    while alive && Instant::now() < deadline {
        alive = stranger.0.try_wait().expect("wait").is_none()
            && old.0.try_wait().expect("wait").is_none();
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(alive, "tg stop killed a process the socket does not lead to");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.lines().count() == 1, "tg stop: {err}");
}

#[test]
fn an_index_without_edges_published_behind_the_servers_back_is_rebuilt() {
    let t = Tree::new("serve_old_index");
    t.git_init("repo");
    t.write("repo/a.txt", "ok\nword at the start\n");
    t.write("repo/b.txt", "words\nok go\n");
    util::tg_index(&t, "repo");
    let index = index_dir(&t).join("index.tg");
    let _s = Served::start(&t, &[]);
    // Published the way tg publishes: a complete file renamed over.
    let tmp = index.with_extension("tmp-old");
    let old = footer::with_version(&std::fs::read(&index).expect("index"), footer::FEATURE, 2);
    std::fs::write(&tmp, old).expect("write");
    std::fs::rename(&tmp, &index).expect("publish");
    t.write("repo/c.txt", "ok\n");
    let cases: Vec<Case> = [&["-w", "ok"][..], &["-n", "^word"], &["-x", "ok"]]
        .iter()
        .enumerate()
        .map(|(i, args)| Case::new(format!("old_index/{i}"), *args).cwd("repo"))
        .collect();
    let mut r = Report::new("old index");
    r.check_all(&t, &cases);
    r.finish();
    wait_for(&t, "the server's own rebuild", |_| {
        footer::read(&std::fs::read(&index).expect("index"), footer::FEATURE) == 4
    });
    let mut r = Report::new("rebuilt");
    r.check_all(&t, &cases);
    r.finish();
}
