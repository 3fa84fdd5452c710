//! A Ballista cluster for tests: one scheduler and two executors
//! (`tg-sql scheduler`, `tg-sql executor`) on loopback, their logs in the
//! fixture, killed when the test ends. They share the fixture's working
//! and index directories, or ([`Cluster::start_apart`]) each works in a
//! directory and keeps indexes in a directory of its own, as machines
//! that share no disk.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::Fixture;

/// Processes killed (and reaped) when the test ends, however it ends.
pub struct Cluster {
    /// The scheduler, then the executors.
    pub children: Vec<Child>,
    /// Their standard errors, in the same order.
    pub logs: Vec<PathBuf>,
    /// The scheduler's port.
    pub port: u16,
    /// The working directory of its processes.
    cwd: PathBuf,
    /// Each process works in `NAME-cwd` and keeps indexes in `NAME-index`
    /// of the fixture, not in `cwd` and the fixture's index directory.
    apart: bool,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A loopback port that is free, with the next one free too (an
/// executor's Flight service takes it).
fn free_pair() -> u16 {
    loop {
        let a = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = a.local_addr().unwrap().port();
        if port < u16::MAX && TcpListener::bind(("127.0.0.1", port + 1)).is_ok() {
            return port;
        }
    }
}

/// Waits until something listens on `port`.
fn wait_listening(port: u16, child: &mut Child, log: &Path) {
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let started = Instant::now();
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("exited ({status}): {}", std::fs::read_to_string(log).unwrap_or_default());
        }
        assert!(started.elapsed() < Duration::from_secs(60), "nothing listens on {port}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

impl Cluster {
    /// Starts `tg-sql ARGS`, its stderr in `NAME.log`, and waits until it
    /// listens on `port`.
    fn spawn(
        &mut self,
        fx: &Fixture,
        name: &str,
        args: &[String],
        port: u16,
        env: &[(&str, &str)],
    ) {
        let log = fx.path(&format!("{name}.log"));
        let (cwd, index_dir) = match self.apart {
            true => (fx.path(&format!("{name}-cwd")), fx.path(&format!("{name}-index"))),
            false => (self.cwd.clone(), fx.index_dir()),
        };
        std::fs::create_dir_all(&cwd).unwrap();
        let mut child = Command::new(super::tg_sql())
            .args(args)
            .current_dir(&cwd)
            .envs(env.iter().copied())
            .env("TG_INDEX_DIR", index_dir)
            .env("RUST_LOG", "warn,trigrep_sql=info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        wait_listening(port, &mut child, &log);
        self.children.push(child);
        self.logs.push(log);
    }

    /// A scheduler and two executors of one slot each, the executors
    /// run with `env`.
    pub fn start(fx: &Fixture, env: &[(&str, &str)]) -> Cluster {
        Cluster::start_in(fx, env, fx.dir.path())
    }

    /// [`Cluster::start`], its processes working in `cwd`.
    pub fn start_in(fx: &Fixture, env: &[(&str, &str)], cwd: &Path) -> Cluster {
        Cluster::launch(fx, &[], env, cwd, false)
    }

    /// A scheduler and two executors, all run with `env`, each working
    /// in a directory of its own and keeping indexes in another
    /// (`NAME-cwd`, `NAME-index` in the fixture): nothing on disk is
    /// shared with the client or between them.
    pub fn start_apart(fx: &Fixture, env: &[(&str, &str)]) -> Cluster {
        Cluster::launch(fx, env, env, fx.dir.path(), true)
    }

    /// Starts the scheduler (with `scheduler_env`) and the executors.
    fn launch(
        fx: &Fixture,
        scheduler_env: &[(&str, &str)],
        env: &[(&str, &str)],
        cwd: &Path,
        apart: bool,
    ) -> Cluster {
        let scheduler = free_pair();
        let cwd = cwd.to_path_buf();
        let mut cluster =
            Cluster { children: Vec::new(), logs: Vec::new(), port: scheduler, cwd, apart };
        let args = ["scheduler".into(), "--bind".into(), format!("127.0.0.1:{scheduler}")];
        cluster.spawn(fx, "scheduler", &args, scheduler, scheduler_env);
        for name in ["executor1", "executor2"] {
            let port = free_pair();
            let work = fx.path(&format!("{name}-work"));
            std::fs::create_dir_all(&work).unwrap();
            let args = [
                "executor".into(),
                "--scheduler".into(),
                format!("127.0.0.1:{scheduler}"),
                "--bind".into(),
                format!("127.0.0.1:{port}"),
                "--slots".into(),
                "1".into(),
                "--work-dir".into(),
                work.display().to_string(),
            ];
            cluster.spawn(fx, name, &args, port, env);
        }
        // Executors register with their first heartbeat.
        std::thread::sleep(Duration::from_secs(2));
        cluster
    }

    /// The scheduler's address, as `--scheduler` takes it.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}
