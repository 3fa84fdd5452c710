//! A warm SQL server (`tg-sql serve`) on a runtime directory of a
//! fixture's own, and `tg sql` run as its client: the server path of the
//! tests that run one query through every path.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use super::Fixture;

/// A running `tg-sql serve`, killed when dropped.
pub struct Served {
    child: Child,
    log: PathBuf,
    runtime: PathBuf,
}

impl Served {
    /// Starts one for `fx` and waits for its door.
    pub fn start(fx: &Fixture) -> Served {
        let runtime = fx.path("runtime");
        std::fs::create_dir_all(&runtime).unwrap();
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
        let log = fx.path("served.log");
        let child = Command::new(super::tg_sql())
            .arg("serve")
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("RUST_LOG", "warn,trigrep_sql=info")
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let socket = runtime.join("trigrep/sql.sock");
        let started = Instant::now();
        while UnixStream::connect(&socket).is_err() {
            assert!(started.elapsed() < Duration::from_secs(60), "no server at {socket:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
        Served { child, log, runtime }
    }

    /// `tg sql ARGS` in `cwd` as this server's client (which starts no
    /// server of its own), with `fx`'s index directory.
    pub fn query(&self, fx: &Fixture, cwd: &Path, args: &[&str]) -> Output {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let dirs = std::iter::once(super::tg_sql().parent().unwrap().to_path_buf())
            .chain(std::env::split_paths(&path));
        Command::new(super::tg())
            .arg("sql")
            .args(args)
            .current_dir(cwd)
            .env("XDG_RUNTIME_DIR", &self.runtime)
            .env("TG_INDEX_DIR", fx.index_dir())
            .env("TG_SQL_SERVE", "0")
            .env("PATH", std::env::join_paths(dirs).unwrap())
            .env("RUST_LOG", "warn")
            .output()
            .unwrap()
    }

    /// How many queries it answered so far.
    pub fn answered(&self) -> usize {
        std::fs::read_to_string(&self.log).unwrap().matches("answered [").count()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
