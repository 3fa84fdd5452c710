//! A real terminal for tests: a tmux server of the test's own (its own
//! socket), a shell in a window of a given size, keys sent, the screen
//! captured and polled until it shows what is expected.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a screen may take to show what a test waits for.
const WAIT: Duration = Duration::from_secs(20);

/// One tmux server with one window running `bash`.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// A `width`×`height` window running a plain shell in `dir`, with `env` set.
    pub fn new(dir: &Path, width: u16, height: u16, env: &[(&str, &str)]) -> Tmux {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let socket = format!("tg-test-{}-{n}", std::process::id());
        let t = Tmux { socket };
        let mut args: Vec<String> = ["new-session", "-d", "-s", "t", "-x", &width.to_string()]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(["-y".into(), height.to_string(), "-c".into(), dir.display().to_string()]);
        for (k, v) in env {
            args.extend(["-e".into(), format!("{k}={v}")]);
        }
        args.extend(["bash --norc --noprofile".to_string()]);
        t.tmux(&args.iter().map(String::as_str).collect::<Vec<_>>());
        t.tmux(&["set-option", "-g", "status", "off"]);
        t.tmux(&["resize-window", "-t", "t", "-x", &width.to_string(), "-y", &height.to_string()]);
        t.send_line("PS1='$ '; clear");
        t
    }

    /// Runs `tmux` with `args` on this server; its stdout.
    pub fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("tmux must be installed for the viewer's tests");
        assert!(out.status.success(), "tmux {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Types `text` as it is.
    pub fn send(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "t", "-l", "--", text]);
    }

    /// Sends named keys (`Enter`, `Escape`, `C-c`, `Right`).
    pub fn key(&self, key: &str) {
        self.tmux(&["send-keys", "-t", "t", key]);
    }

    /// Types `line` and Enter.
    pub fn send_line(&self, line: &str) {
        self.send(line);
        self.key("Enter");
    }

    /// The screen's text, one string per row.
    pub fn screen(&self) -> Vec<String> {
        self.tmux(&["capture-pane", "-t", "t", "-p"]).lines().map(str::to_string).collect()
    }

    /// The screen's rows with their SGR escape sequences (`capture-pane -e`).
    pub fn screen_with_escapes(&self) -> Vec<String> {
        self.tmux(&["capture-pane", "-e", "-t", "t", "-p"]).lines().map(str::to_string).collect()
    }

    /// Polls the screen until `ready` holds; the screen then. Fails the
    /// test with the last screen after [`WAIT`].
    pub fn wait(&self, what: &str, ready: impl Fn(&[String]) -> bool) -> Vec<String> {
        self.wait_up_to(WAIT, what, ready)
    }

    /// [`Tmux::wait`], failing after `limit`.
    pub fn wait_up_to(
        &self,
        limit: Duration,
        what: &str,
        ready: impl Fn(&[String]) -> bool,
    ) -> Vec<String> {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ready(&screen) {
                return screen;
            }
            if start.elapsed() > limit {
                panic!("waited {limit:?} for {what}; the screen:\n{}", screen.join("\n"));
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Polls until some row holds `text`.
    pub fn wait_for(&self, text: &str) -> Vec<String> {
        self.wait(text, |s| s.iter().any(|r| r.contains(text)))
    }

    /// Resizes the window.
    pub fn resize(&self, width: u16, height: u16) {
        self.tmux(&[
            "resize-window",
            "-t",
            "t",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
    }

    /// A format of the pane, as tmux expands it (`#{alternate_on}`).
    pub fn format(&self, format: &str) -> String {
        self.tmux(&["display-message", "-p", "-t", "t", format]).trim().to_string()
    }

    /// The id of the process running in the window's foreground, if any.
    pub fn pane_pid(&self) -> u32 {
        self.tmux(&["display-message", "-p", "-t", "t", "#{pane_pid}"]).trim().parse().unwrap_or(0)
    }
}

impl Tmux {
    /// Closes the terminal: the server killed, as a closed window would
    /// be (its processes get SIGHUP, nothing more).
    pub fn kill_server(&self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// The processes under `pid`, children first found first.
fn descendants(pid: u32) -> Vec<u32> {
    let mut all = Vec::new();
    let mut next = vec![pid];
    while let Some(p) = next.pop() {
        let out = Command::new("pgrep").args(["-P", &p.to_string()]).output();
        let kids: Vec<u32> = out
            .map(|o| {
                String::from_utf8_lossy(&o.stdout).split_whitespace().flat_map(str::parse).collect()
            })
            .unwrap_or_default();
        next.extend(&kids);
        all.extend(kids);
    }
    all
}

/// On every way out of a test (a failed assertion included): the server
/// killed, and whatever ran in its window (a viewer that ignored the
/// hang-up, say) killed too.
impl Drop for Tmux {
    fn drop(&mut self) {
        let shell = Command::new("tmux")
            .args(["-L", &self.socket, "display-message", "-p", "-t", "t", "#{pane_pid}"])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()
            .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok());
        let procs = shell.map_or_else(Vec::new, descendants);
        self.kill_server();
        for pid in procs {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
        }
    }
}
