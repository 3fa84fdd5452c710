//! Linux: `/proc` for memory figures, `posix_fadvise` and `mincore` /
//! `sendfile` for read-ahead, `RWF_NOWAIT` reads, `ioprio_set`, pidfds,
//! glibc's `malloc_trim`.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::time::Duration;

/// The value in kB of the `key` line of a `/proc/meminfo` or
/// `/proc/self/status` text.
pub(crate) fn parse_meminfo_kb(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

/// A `/proc/self/status` field in bytes (`"RssAnon:"`, `"VmHWM:"`; 0: unknown).
fn status_bytes(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| parse_meminfo_kb(&t, key))
        .map_or(0, |kb| kb * 1024)
}

pub fn private_bytes() -> u64 {
    status_bytes("RssAnon:")
}

pub fn peak_resident() -> u64 {
    status_bytes("VmHWM:")
}

pub fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo_kb(&text, "MemAvailable:").map(|kb| kb * 1024)
}

pub fn advise_sequential(file: &File) {
    // SAFETY: a plain syscall on a valid, open file descriptor.
    unsafe {
        libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_SEQUENTIAL);
    }
}

pub fn advise_willneed(file: &File, offset: u64, len: u64) {
    // SAFETY: a plain syscall on a valid, open file descriptor.
    unsafe {
        libc::posix_fadvise(
            file.as_raw_fd(),
            offset as libc::off_t,
            len as libc::off_t,
            libc::POSIX_FADV_WILLNEED,
        );
    }
}

pub(crate) fn read_cached(file: &mut File, buf: &mut [u8]) -> std::io::Result<Option<usize>> {
    use std::io::{Error, Read};
    let iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    loop {
        // SAFETY: one iovec over `buf`, which outlives the call; offset -1
        // reads at (and moves) the file's position, as `read` does.
        let n = unsafe { libc::preadv2(file.as_raw_fd(), &iov, 1, -1, libc::RWF_NOWAIT) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EAGAIN) => return Ok(None),
            Some(libc::EINTR) => {}
            // A kernel or file system that cannot tell: read as `read` does.
            Some(libc::EOPNOTSUPP | libc::EINVAL | libc::ENOSYS) => {
                return file.read(buf).map(Some);
            }
            _ => return Err(e),
        }
    }
}

pub fn page_resident(map: &[u8], off: usize) -> bool {
    if off >= map.len() {
        return true;
    }
    let mut vec = 0u8;
    // SAFETY: `map` is a live mapping and `off` a page-aligned offset inside
    // it; mincore writes one byte for the one page asked about.
    let rc = unsafe { libc::mincore(map.as_ptr().add(off) as *mut libc::c_void, 1, &mut vec) };
    rc == 0 && vec & 1 == 1
}

pub fn reopen(file: &File) -> Option<File> {
    File::open(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

pub fn send_to_null(file: &File, null: &File, pos: u64, len: u64) -> bool {
    let (mut off, end) = (pos as libc::off_t, (pos + len) as libc::off_t);
    while off < end {
        let want = (end - off) as usize;
        // SAFETY: valid descriptors; the kernel updates `off`, which we own.
        let sent = unsafe { libc::sendfile(null.as_raw_fd(), file.as_raw_fd(), &mut off, want) };
        if sent <= 0 {
            return false;
        }
    }
    true
}

pub fn release_free_heap() {
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim only releases free heap pages.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The I/O priority of a background build: the best-effort class at its
/// lowest level, never the idle class. A query reading the file a build
/// reads waits for the page the build's read holds locked; an idle-class
/// read can wait behind everyone else's I/O for mq-deadline's
/// `prio_aging_expire` (10 s), and the query with it.
const BACKGROUND_IOPRIO: libc::c_long = (IOPRIO_CLASS_BE << 13) | 7;

/// `IOPRIO_CLASS_BE` of `linux/ioprio.h`.
const IOPRIO_CLASS_BE: libc::c_long = 2;

pub fn lower_priority() {
    // SAFETY: plain syscalls on this thread; failures only keep the priority.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 19);
        // ioprio_set(IOPRIO_WHO_PROCESS, this thread, ...)
        libc::syscall(libc::SYS_ioprio_set, 1, 0, BACKGROUND_IOPRIO);
    }
}

/// A watch on a process that tells when it has exited (a pidfd): a
/// stopped server's record and lock go before the process does.
pub struct ExitWatch(std::os::fd::OwnedFd);

impl ExitWatch {
    /// A watch on process `pid`; `None` when it is gone already or the
    /// kernel has no pidfds (before Linux 5.3).
    pub fn new(pid: u32) -> Option<ExitWatch> {
        use std::os::fd::FromRawFd;
        // SAFETY: pidfd_open takes no pointers; a descriptor it returns is ours.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
        // SAFETY: `fd` is a fresh descriptor this process owns.
        (fd >= 0).then(|| ExitWatch(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd as i32) }))
    }

    /// Waits up to `timeout` for the process to exit (a zombie, waiting
    /// for its parent to collect its status, has exited); whether it did.
    pub fn wait(&self, timeout: Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let mut fds = libc::pollfd { fd: self.0.as_raw_fd(), events: libc::POLLIN, revents: 0 };
            let ms = left.as_millis().min(i32::MAX as u128) as i32;
            // SAFETY: one valid pollfd, for the length given.
            match unsafe { libc::poll(&raw mut fds, 1, ms) } {
                1.. => return true,
                0 => return false,
                _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
                _ => return false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file whose pages were dropped from the page cache reads as not
    /// cached; read once, it reads whole from the cache.
    #[test]
    fn a_read_of_pages_not_cached_does_not_wait() {
        use std::io::{Seek, Write};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let body = vec![b'x'; 64 << 10];
        let mut file = File::create(&path).unwrap();
        file.write_all(&body).unwrap();
        file.sync_all().unwrap();
        // SAFETY: a plain syscall on a valid, open file descriptor.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        let mut file = File::open(&path).unwrap();
        let mut buf = vec![0; body.len() + 1];
        assert_eq!(read_cached(&mut file, &mut buf).unwrap(), None, "dropped pages came back");
        std::io::Read::read_to_end(&mut file, &mut Vec::new()).unwrap();
        file.rewind().unwrap();
        assert_eq!(read_cached(&mut file, &mut buf).unwrap(), Some(body.len()));
        assert_eq!(&buf[..body.len()], &body[..]);
        assert_eq!(read_cached(&mut file, &mut buf).unwrap(), Some(0), "at the end");
    }

    /// A background build's I/O never takes the idle class, whose reads can
    /// hold a page a query needs for ten seconds.
    #[test]
    fn a_background_build_reads_in_the_best_effort_class() {
        let got = std::thread::spawn(|| {
            lower_priority();
            // SAFETY: a plain syscall: ioprio_get(IOPRIO_WHO_PROCESS, this thread).
            unsafe { libc::syscall(libc::SYS_ioprio_get, 1, 0) }
        })
        .join()
        .unwrap();
        assert_eq!(got, BACKGROUND_IOPRIO, "class {} level {}", got >> 13, got & 7);
    }

    #[test]
    fn meminfo_parses() {
        let text = "MemTotal:       24000000 kB\nMemAvailable:   12000000 kB\n";
        assert_eq!(parse_meminfo_kb(text, "MemAvailable:"), Some(12_000_000));
        assert_eq!(parse_meminfo_kb(text, "RssAnon:"), None);
    }
}
