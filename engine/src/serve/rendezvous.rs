//! Where a server and its clients meet.
//!
//! A server's socket lives in a per-user runtime directory
//! (`$XDG_RUNTIME_DIR/trigrep`, else `/tmp/trigrep-<uid>`), mode 0700 and
//! owned by the user — a directory that is not is refused, so no other user
//! can plant or reach a socket there. The socket (mode 0600), the TCP token
//! file (0600) and the sync-cookie directory are named after the index
//! directory. The server records itself in the index directory
//! (`server`: pid, socket, TCP address), which is how a client inside the
//! tree finds it; `serve.auto` there asks queries to start a server. Both
//! are written as every file of an index directory is, atomically and
//! durably ([`FsStorage::write_file`]).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::index::error::IndexError;
use crate::index::storage::FsStorage;

/// The file in an index directory that names the running server.
pub(crate) const RECORD: &str = "server";

/// The file in an index directory that asks queries to start a server.
pub const AUTO: &str = "serve.auto";

/// The paths a server for one index uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendezvous {
    /// The index directory.
    pub index_dir: PathBuf,
    /// The Unix socket.
    pub socket: PathBuf,
    /// The TCP token file.
    pub token: PathBuf,
    /// The directory of sync cookies (see the server's `watch`).
    pub cookies: PathBuf,
}

/// What a server wrote about itself in its index directory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// The server's process id.
    pub pid: u32,
    /// Its Unix socket.
    pub socket: PathBuf,
    /// Its TCP address, when it listens on one.
    pub listen: Option<String>,
}

/// The per-user runtime directory, created (0700) if missing; an error
/// when it exists but is not a directory owned by the user with no access
/// for others.
pub(crate) fn runtime_dir() -> io::Result<PathBuf> {
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(d) if Path::new(&d).is_dir() => PathBuf::from(d).join("trigrep"),
        _ => std::env::temp_dir().join(format!("trigrep-{}", crate::sys::uid())),
    };
    crate::sys::private_dir(&dir)?;
    Ok(dir)
}

impl Rendezvous {
    /// The rendezvous of the server for the index in `index_dir`.
    pub fn for_index(index_dir: &Path) -> io::Result<Rendezvous> {
        let run = runtime_dir()?;
        let key = index_dir.file_name().map_or_else(
            || "index".to_string(),
            |n| n.to_string_lossy().chars().filter(|c| c.is_alphanumeric() || *c == '-').collect(),
        );
        Ok(Rendezvous {
            index_dir: index_dir.to_path_buf(),
            socket: run.join(format!("{key}.sock")),
            token: run.join(format!("{key}.token")),
            cookies: run.join(format!("{key}.cookies")),
        })
    }

    /// Takes the lock one server per index holds for its whole life;
    /// `None` when another process holds it.
    pub fn lock(&self) -> io::Result<Option<fs::File>> {
        let path = self.socket.with_extension("lock");
        let f = crate::sys::private_file(
            fs::OpenOptions::new().create(true).truncate(false).write(true),
        )
        .open(path)?;
        // flock(LOCK_EX | LOCK_NB) on Unix, LockFileEx on Windows.
        let got = f.try_lock().is_ok();
        Ok(got.then_some(f))
    }

    /// Writes the server's record into the index directory (atomically
    /// and durably).
    pub fn publish(&self, record: &Record) -> io::Result<()> {
        let mut text = format!("pid={}\nsocket={}\n", record.pid, self.socket.display());
        if let Some(l) = &record.listen {
            text.push_str(&format!("listen={l}\n"));
        }
        write_file(&self.index_dir, RECORD, text.as_bytes())
    }

    /// Removes the record, the socket and the token, if they are this process's.
    pub fn withdraw(&self) {
        if read_record(&self.index_dir).is_some_and(|r| r.pid == std::process::id()) {
            let _ = fs::remove_file(self.index_dir.join(RECORD));
        }
        let _ = fs::remove_file(&self.socket);
        let _ = fs::remove_file(&self.token);
        let _ = fs::remove_dir_all(&self.cookies);
    }

    /// Creates a new random token in a 0600 file and returns it.
    pub fn new_token(&self) -> io::Result<String> {
        let token = crate::sys::new_token()?;
        let _ = fs::remove_file(&self.token);
        let mut f = crate::sys::private_file(fs::OpenOptions::new().write(true).create_new(true))
            .open(&self.token)?;
        f.write_all(token.as_bytes())?;
        Ok(token)
    }
}

/// Reads the record of the server of the index in `index_dir`, if any.
pub fn read_record(index_dir: &Path) -> Option<Record> {
    parse_record(&fs::read(index_dir.join(RECORD)).ok()?)
}

/// A server record from the bytes of its file (`None`: not UTF-8, no pid
/// or no socket).
pub fn parse_record(bytes: &[u8]) -> Option<Record> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut r = Record::default();
    for line in text.lines() {
        match line.split_once('=') {
            Some(("pid", v)) => r.pid = v.parse().ok()?,
            Some(("socket", v)) => r.socket = PathBuf::from(v),
            Some(("listen", v)) => r.listen = Some(v.to_string()),
            _ => {}
        }
    }
    (r.pid != 0 && !r.socket.as_os_str().is_empty()).then_some(r)
}

/// Whether queries in the tree of `index_dir` start a server when none runs.
pub fn auto_start(index_dir: &Path) -> bool {
    index_dir.join(AUTO).exists()
}

/// Turns starting a server on demand on or off for the index in `index_dir`.
pub fn set_auto_start(index_dir: &Path, on: bool) -> io::Result<()> {
    if on {
        write_file(index_dir, AUTO, b"")
    } else {
        match fs::remove_file(index_dir.join(AUTO)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

/// Writes `bytes` as the file `name` of `index_dir`, as the index itself
/// is published ([`FsStorage::write_file`]).
fn write_file(index_dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    FsStorage::new(index_dir).write_file(name, bytes).map_err(|e| match e {
        IndexError::Io(e) => e,
        other => io::Error::other(other),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let rv = Rendezvous {
            index_dir: dir.path().to_path_buf(),
            socket: PathBuf::from("/run/x.sock"),
            token: dir.path().join("t"),
            cookies: dir.path().join("c"),
        };
        assert_eq!(read_record(dir.path()), None);
        let rec = Record { pid: 42, socket: rv.socket.clone(), listen: Some("127.0.0.1:9".into()) };
        rv.publish(&rec).unwrap();
        assert_eq!(read_record(dir.path()), Some(rec));
        let token = rv.new_token().unwrap();
        assert_eq!(token.len(), 48);
        assert!(!auto_start(dir.path()));
        set_auto_start(dir.path(), true).unwrap();
        assert!(auto_start(dir.path()));
        set_auto_start(dir.path(), false).unwrap();
        set_auto_start(dir.path(), false).unwrap();
        assert!(!auto_start(dir.path()));
    }
}
