//! Cheap `lstat` of many paths below one root, through directory handles.
//!
//! Stat-ing `root/a/b/c/file` by path makes the kernel resolve every
//! component each time; the freshness sweep stats every file of a tree, so
//! [`DirStat`] keeps the last few parent directories open (`O_PATH`) and
//! stats each name relative to its parent (`fstatat`), resolving one
//! component per file. One `DirStat` per thread.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// What the sweep needs to know of a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// A regular file.
    pub is_file: bool,
    /// A directory.
    pub is_dir: bool,
    /// Size in bytes.
    pub size: u64,
    /// Status-change time (ctime) in nanoseconds since the epoch.
    pub changed_ns: i64,
}

/// Stats paths relative to a root, caching open parent directories.
pub struct DirStat {
    root: CString,
    /// (parent relative path, open `O_PATH` descriptor), most recent last.
    open: Vec<(Vec<u8>, libc::c_int)>,
}

/// How many parent directories stay open per thread.
const CACHED_DIRS: usize = 8;

impl DirStat {
    /// A stat cache for paths below `root`.
    pub fn new(root: &Path) -> Option<DirStat> {
        let root = CString::new(root.as_os_str().as_bytes()).ok()?;
        Some(DirStat { root, open: Vec::new() })
    }

    /// `lstat` of `rel` (relative to the root, `/`-separated): `Ok(None)`
    /// when it (or a parent) does not exist, `Err` when it cannot be stat-ed
    /// for another reason (permissions, ...).
    pub fn lstat(&mut self, rel: &[u8]) -> std::io::Result<Option<Meta>> {
        let (parent, name) = match rel.iter().rposition(|&b| b == b'/') {
            Some(i) => (&rel[..i], &rel[i + 1..]),
            None => (&b""[..], rel),
        };
        let name = CString::new(if name.is_empty() { &b"."[..] } else { name })
            .map_err(std::io::Error::other)?;
        let dirfd = match self.dir(parent) {
            Ok(fd) => fd,
            Err(e) if is_missing(&e) => return Ok(None),
            Err(e) => return Err(e),
        };
        // SAFETY: `st` is plain data written by the kernel; `dirfd` is an
        // open descriptor owned by `self`, `name` a NUL-terminated string.
        let st = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstatat(dirfd, name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) != 0 {
                let e = std::io::Error::last_os_error();
                return if is_missing(&e) { Ok(None) } else { Err(e) };
            }
            st
        };
        let fmt = st.st_mode & libc::S_IFMT;
        Ok(Some(Meta {
            is_file: fmt == libc::S_IFREG,
            is_dir: fmt == libc::S_IFDIR,
            size: st.st_size as u64,
            changed_ns: st.st_ctime.saturating_mul(1_000_000_000).saturating_add(st.st_ctime_nsec),
        }))
    }

    /// An open descriptor of the directory `parent` (relative to the root).
    fn dir(&mut self, parent: &[u8]) -> std::io::Result<libc::c_int> {
        if let Some(i) = self.open.iter().position(|(p, _)| p == parent) {
            let entry = self.open.remove(i);
            let fd = entry.1;
            self.open.push(entry);
            return Ok(fd);
        }
        let mut full = self.root.as_bytes().to_vec();
        if !parent.is_empty() {
            full.push(b'/');
            full.extend_from_slice(parent);
        }
        let full = CString::new(full).map_err(std::io::Error::other)?;
        // SAFETY: `full` is NUL-terminated; the descriptor is closed in
        // `Drop` or when evicted below.
        let fd = unsafe {
            libc::open(full.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC)
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if self.open.len() == CACHED_DIRS {
            let (_, old) = self.open.remove(0);
            // SAFETY: `old` was opened above and is no longer referenced.
            unsafe { libc::close(old) };
        }
        self.open.push((parent.to_vec(), fd));
        Ok(fd)
    }
}

/// Whether `e` says the path is gone (it, or a parent, was removed or replaced).
fn is_missing(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ENOENT) | Some(libc::ENOTDIR))
}

impl Drop for DirStat {
    fn drop(&mut self) {
        for (_, fd) in self.open.drain(..) {
            // SAFETY: every cached descriptor was opened by `dir` and is closed once.
            unsafe { libc::close(fd) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_files_dirs_and_missing_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(dir.path().join("a/b/f.txt"), b"hello").unwrap();
        std::fs::write(dir.path().join("top.txt"), b"x").unwrap();
        let mut s = DirStat::new(dir.path()).unwrap();
        let f = s.lstat(b"a/b/f.txt").unwrap().unwrap();
        assert!(f.is_file && !f.is_dir && f.size == 5);
        let md = std::fs::symlink_metadata(dir.path().join("a/b/f.txt")).unwrap();
        assert_eq!(f.changed_ns, crate::cli::index_cmd::changed_ns(&md));
        assert!(s.lstat(b"a/b").unwrap().unwrap().is_dir);
        assert!(s.lstat(b"top.txt").unwrap().unwrap().is_file);
        assert!(s.lstat(b"").unwrap().unwrap().is_dir);
        assert_eq!(s.lstat(b"a/missing").unwrap(), None);
        assert_eq!(s.lstat(b"nope/x").unwrap(), None);
        assert_eq!(s.lstat(b"top.txt/x").unwrap(), None);
    }
}
