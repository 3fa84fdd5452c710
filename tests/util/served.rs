//! A real `tg serve` for the tests: started on a tree's `repo`, asked
//! through `tg status`, stopped or killed.

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
        let child = super::tg_command(t, t.root())
            .arg("serve")
            .args(extra)
            .arg("repo")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
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
