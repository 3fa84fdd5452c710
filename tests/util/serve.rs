//! A real `tg serve` for tests: start it on `repo` in a [`Tree`], ask its
//! status, find its socket, TCP address and token, talk JSON lines to it.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use super::Tree;

/// A `tg serve` child process, stopped (SIGTERM) when dropped.
pub struct Served {
    child: Child,
}

impl Served {
    /// Starts `tg serve repo` with `extra` flags and waits until it answers.
    pub fn start(t: &Tree, extra: &[&str]) -> Served {
        Served::start_logged(t, extra, Stdio::null())
    }

    /// Like [`Served::start`], the server's stderr going to `stderr`.
    pub fn start_logged(t: &Tree, extra: &[&str], stderr: impl Into<Stdio>) -> Served {
        let child = super::tg_command(t, t.root())
            .arg("serve")
            .args(extra)
            .arg("repo")
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("spawn tg serve");
        let s = Served { child };
        wait_for(t, "the server to answer", |st| st.contains("server:     pid"));
        s
    }

    /// The server's process id.
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Kills the server with `sig` and reaps it.
    pub fn kill(mut self, sig: i32) {
        // SAFETY: signalling our own child.
        unsafe { libc::kill(self.pid(), sig) };
        let _ = self.child.wait();
        std::mem::forget(self);
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        // SAFETY: signalling our own child.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

/// `tg status repo`'s output.
pub fn status(t: &Tree) -> String {
    let out = super::tg_command(t, t.path("repo")).arg("status").output().expect("tg status");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Polls `tg status` until `done` holds (30 s deadline).
pub fn wait_for(t: &Tree, what: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let st = status(t);
        if done(&st) {
            return st;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}; status:\n{st}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The server record's `key=` line (`socket`, `listen`).
fn record_field(t: &Tree, key: &str) -> String {
    let st = status(t);
    let index = st.lines().find_map(|l| l.strip_prefix("index:      ")).expect("index line");
    let dir = Path::new(index.trim()).parent().unwrap().to_path_buf();
    let record = std::fs::read_to_string(dir.join("server")).expect("server record");
    let prefix = format!("{key}=");
    let value = record.lines().find_map(|l| l.strip_prefix(prefix.as_str()));
    value.unwrap_or_else(|| panic!("no {key} line in the server record:\n{record}")).to_string()
}

/// The server's Unix socket.
pub fn socket_path(t: &Tree) -> PathBuf {
    PathBuf::from(record_field(t, "socket"))
}

/// The server's TCP address and token.
pub fn tcp_address(t: &Tree) -> (String, String) {
    let token =
        std::fs::read_to_string(socket_path(t).with_extension("token")).expect("token file");
    (record_field(t, "listen"), token)
}

/// One JSON-lines exchange over TCP: the replies to `lines`.
pub fn json_exchange(addr: &str, lines: &[String]) -> Vec<serde_json::Value> {
    let mut conn = std::net::TcpStream::connect(addr).expect("connect");
    conn.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut r = BufReader::new(conn.try_clone().unwrap());
    let mut out = Vec::new();
    for l in lines {
        if conn.write_all(format!("{l}\n").as_bytes()).is_err() {
            break;
        }
        let mut reply = String::new();
        if r.read_line(&mut reply).unwrap_or(0) == 0 {
            break;
        }
        out.push(serde_json::from_str(&reply).expect("a JSON reply"));
    }
    out
}
