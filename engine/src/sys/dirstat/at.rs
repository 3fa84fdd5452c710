//! Linux: cheap `lstat` (and open) of many paths below one root, through
//! directory handles.
//!
//! Stat-ing `root/a/b/c/file` by path makes the kernel resolve every
//! component each time; the freshness sweep and the build's walk stat
//! every file of a tree (and the build opens each), so
//! [`DirStat`] keeps the last few directories open (`O_PATH`) and stats each
//! name relative to its parent (`fstatat`), resolving one component per
//! file. A directory is opened relative to its open parent (one component
//! again), and [`DirStat::lstat_dir`] stats a directory through the handle
//! its children will use (`fstat`, no lookup at all). One `DirStat` per
//! thread.

use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::meta::Meta;

/// The [`Meta`] of a `stat` result.
fn from_stat(st: &libc::stat) -> Meta {
    let fmt = st.st_mode & libc::S_IFMT;
    Meta {
        is_file: fmt == libc::S_IFREG,
        is_dir: fmt == libc::S_IFDIR,
        size: st.st_size as u64,
        changed_ns: st.st_ctime.saturating_mul(1_000_000_000).saturating_add(st.st_ctime_nsec),
    }
}

/// Stats paths relative to a root, caching open directories.
pub struct DirStat {
    root: CString,
    /// (directory relative path, open `O_PATH` descriptor), most recent last.
    open: Vec<(Vec<u8>, libc::c_int)>,
    /// The same, opened following links ([`DirStat::stat_followed`]).
    followed: Vec<(Vec<u8>, libc::c_int)>,
}

/// How many directories stay open per thread.
const CACHED_DIRS: usize = 8;

impl DirStat {
    /// A stat cache for paths below `root`.
    pub fn new(root: &Path) -> Option<DirStat> {
        let root = CString::new(root.as_os_str().as_bytes()).ok()?;
        Some(DirStat { root, open: Vec::new(), followed: Vec::new() })
    }

    /// `lstat` of `rel` (relative to the root, `/`-separated): `Ok(None)`
    /// when it (or a parent) does not exist, `Err` when it cannot be stat-ed
    /// for another reason (permissions, ...).
    pub fn lstat(&mut self, rel: &[u8]) -> std::io::Result<Option<Meta>> {
        self.stat_at(rel, false)
    }

    /// `lstat` of `rel`, as `std::fs::symlink_metadata` of the joined path
    /// answers (links among its parents followed, as a walk with
    /// `--follow` entered them): relative to its parent's handle (one
    /// component resolved), by path when no handle reaches the parent.
    /// `Ok(None)` when it does not exist.
    pub(crate) fn lstat_entry(&mut self, rel: &[u8]) -> std::io::Result<Option<Meta>> {
        let (parent, name) = split(rel);
        match self.dir(parent, false) {
            Ok(dirfd) => stat_in(dirfd, name, false),
            Err(_) => Meta::by_path(&self.path(rel)),
        }
    }

    /// Opens the file `rel` for reading, as `std::fs::File::open` of the
    /// joined path does: relative to its parent's handle (one component
    /// resolved; a link there is followed), by path when no handle
    /// reaches the parent (a link among its parents).
    pub(crate) fn open_file(&mut self, rel: &[u8]) -> std::io::Result<std::fs::File> {
        use std::os::fd::FromRawFd;
        let (parent, name) = split(rel);
        let Ok(dirfd) = self.dir(parent, false) else {
            return std::fs::File::open(self.path(rel));
        };
        with_c_name(name, |name| {
            // SAFETY: `dirfd` is an open descriptor owned by `self`, `name`
            // NUL-terminated; the new descriptor is owned by the `File`.
            let fd =
                unsafe { libc::openat(dirfd, name.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: `fd` was just opened and nothing else owns it.
            Ok(unsafe { std::fs::File::from_raw_fd(fd) })
        })
    }

    /// The path of `rel` below the root.
    fn path(&self, rel: &[u8]) -> std::path::PathBuf {
        Path::new(std::ffi::OsStr::from_bytes(self.root.as_bytes())).join(crate::sys::rel_path(rel))
    }

    /// `stat` of `rel`, following links wherever they are (as a walk with
    /// `--follow` does, and `std::fs::metadata` of the joined path):
    /// `Ok(None)` when it (or a parent) does not exist, `Err` for anything
    /// else (a loop, a parent that is no directory, permissions, ...).
    pub fn stat_followed(&mut self, rel: &[u8]) -> std::io::Result<Option<Meta>> {
        self.stat_at(rel, true)
    }

    /// [`DirStat::lstat`], or with `follow` [`DirStat::stat_followed`].
    fn stat_at(&mut self, rel: &[u8], follow: bool) -> std::io::Result<Option<Meta>> {
        let (parent, name) = split(rel);
        match self.dir(parent, follow) {
            Ok(dirfd) => stat_in(dirfd, name, follow),
            Err(e) if missing(&e, follow) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `lstat` of the directory `rel`, through the handle its entries will be
    /// stat-ed with; the same answers as [`DirStat::lstat`], also when `rel`
    /// is no longer a directory.
    pub fn lstat_dir(&mut self, rel: &[u8]) -> std::io::Result<Option<Meta>> {
        let fd = match self.dir(rel, false) {
            Ok(fd) => fd,
            // Gone, or now a file or a symbolic link: say what it is now.
            Err(_) => return self.lstat(rel),
        };
        // SAFETY: as in `lstat`; `fd` is an open descriptor owned by `self`.
        let st = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(fd, &mut st) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            st
        };
        Ok(Some(from_stat(&st)))
    }

    /// An open descriptor of the directory `rel` (relative to the root),
    /// opened relative to its parent (itself opened the same way), so no
    /// symbolic link below the root is followed: a walk does not enter
    /// those either; with `follow`, every link is followed.
    fn dir(&mut self, rel: &[u8], follow: bool) -> std::io::Result<libc::c_int> {
        let open = if follow { &mut self.followed } else { &mut self.open };
        if let Some(i) = open.iter().position(|(p, _)| p == rel) {
            let entry = open.remove(i);
            let fd = entry.1;
            open.push(entry);
            return Ok(fd);
        }
        let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
        let fd = if rel.is_empty() {
            // SAFETY: `root` is NUL-terminated; the descriptor is closed in
            // `Drop` or when evicted below.
            unsafe { libc::open(self.root.as_ptr(), flags) }
        } else {
            let (parent, name) = split(rel);
            let at = self.dir(parent, follow)?;
            let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
            with_c_name(name, |name| {
                // SAFETY: `at` is an open descriptor owned by `self`, `name`
                // NUL-terminated; the new descriptor is closed as above.
                Ok(unsafe { libc::openat(at, name.as_ptr(), flags | nofollow) })
            })?
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let open = if follow { &mut self.followed } else { &mut self.open };
        if open.len() == CACHED_DIRS {
            let (_, old) = open.remove(0);
            // SAFETY: `old` was opened above and is no longer referenced.
            unsafe { libc::close(old) };
        }
        open.push((rel.to_vec(), fd));
        Ok(fd)
    }
}

/// Calls `f` with `name` as a C string, without allocating for short names.
fn with_c_name<T>(name: &[u8], f: impl FnOnce(&CStr) -> std::io::Result<T>) -> std::io::Result<T> {
    let mut buf = [0u8; 256];
    if name.len() < buf.len() {
        buf[..name.len()].copy_from_slice(name);
        let c = CStr::from_bytes_until_nul(&buf).map_err(std::io::Error::other)?;
        // An interior NUL would shorten the name: such a name cannot exist.
        if c.to_bytes().len() != name.len() {
            return Err(std::io::Error::from_raw_os_error(libc::ENOENT));
        }
        f(c)
    } else {
        let c = CString::new(name).map_err(|_| std::io::Error::from_raw_os_error(libc::ENOENT))?;
        f(&c)
    }
}

/// Whether `e` says the path is gone (it, or a parent, was removed or replaced).
fn is_missing(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ENOENT) | Some(libc::ENOTDIR) | Some(libc::ELOOP))
}

impl Drop for DirStat {
    fn drop(&mut self) {
        for (_, fd) in self.open.drain(..).chain(self.followed.drain(..)) {
            // SAFETY: every cached descriptor was opened by `dir` and is closed once.
            unsafe { libc::close(fd) };
        }
    }
}

/// `rel` split at its last `/`: (parent, name); the parent of a top-level
/// name is the root (empty).
fn split(rel: &[u8]) -> (&[u8], &[u8]) {
    match rel.iter().rposition(|&b| b == b'/') {
        Some(i) => (&rel[..i], &rel[i + 1..]),
        None => (&b""[..], rel),
    }
}

/// `lstat` (or with `follow`, `stat`) of `name` in the open directory
/// `dirfd` (`.` when empty): `Ok(None)` when it does not exist.
fn stat_in(dirfd: libc::c_int, name: &[u8], follow: bool) -> std::io::Result<Option<Meta>> {
    let name = if name.is_empty() { &b"."[..] } else { name };
    let at_flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
    let result = with_c_name(name, |name| {
        // SAFETY: `st` is plain data written by the kernel; `dirfd` is an
        // open descriptor (its `DirStat`'s), `name` a NUL-terminated string.
        unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstatat(dirfd, name.as_ptr(), &mut st, at_flags) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(st)
        }
    });
    match result {
        Ok(st) => Ok(Some(from_stat(&st))),
        Err(e) if missing(&e, follow) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Whether `e` says a path (or a parent) does not exist: with `follow`,
/// only `ENOENT` (a loop or a parent that is no directory is an error).
fn missing(e: &std::io::Error, follow: bool) -> bool {
    if follow { e.raw_os_error() == Some(libc::ENOENT) } else { is_missing(e) }
}
