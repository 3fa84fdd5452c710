//! What Linux and macOS share: paths are bytes, files have a device and
//! an inode, `getrusage` counts faults, processes take signals.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::id::FileId;

pub fn os_str(b: &[u8]) -> Cow<'_, OsStr> {
    Cow::Borrowed(OsStr::from_bytes(b))
}

pub fn os_string(b: Vec<u8>) -> OsString {
    OsString::from_vec(b)
}

pub fn rel_bytes(p: &Path) -> Cow<'_, [u8]> {
    Cow::Borrowed(p.as_os_str().as_bytes())
}

pub fn rel_path(b: &[u8]) -> Cow<'_, Path> {
    Cow::Borrowed(Path::new(OsStr::from_bytes(b)))
}

pub fn file_id(_path: &Path, md: &Metadata) -> FileId {
    FileId { dev: md.dev(), ino: md.ino() }
}

pub fn open_file_id(file: &File) -> FileId {
    file.metadata().map_or(FileId::default(), |md| FileId { dev: md.dev(), ino: md.ino() })
}

pub fn changed_ns(md: &Metadata) -> i64 {
    md.ctime().saturating_mul(1_000_000_000).saturating_add(md.ctime_nsec())
}

pub fn modified_ns(md: &Metadata) -> i64 {
    md.mtime().saturating_mul(1_000_000_000).saturating_add(md.mtime_nsec())
}

pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    file.read_at(buf, offset)
}

pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    file.read_exact_at(buf, offset)
}

pub fn advise_map_sequential(map: &memmap2::Mmap) {
    let _ = map.advise(memmap2::Advice::Sequential);
}

pub fn faults() -> (u64, u64) {
    // SAFETY: getrusage fills the zeroed struct we own.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return (0, 0);
    }
    (ru.ru_minflt as u64, ru.ru_majflt as u64)
}

pub fn cpu_time() -> std::time::Duration {
    // SAFETY: as in `faults`.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return std::time::Duration::ZERO;
    }
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    std::time::Duration::from_micros(us(ru.ru_utime) + us(ru.ru_stime))
}

/// `ru_maxrss` of this process as the system reports it (KiB on Linux,
/// bytes on macOS).
#[cfg_attr(target_os = "linux", allow(dead_code))]
pub(crate) fn max_rss() -> u64 {
    // SAFETY: as in `faults`.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0;
    }
    ru.ru_maxrss as u64
}

pub fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 { n as u64 } else { 4096 }
}

pub fn detach(cmd: &mut std::process::Command) {
    // SAFETY: setsid is async-signal-safe and touches only the child.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
}

pub fn own_group(cmd: &mut std::process::Command) {
    cmd.process_group(0);
}

pub fn exec(cmd: &mut std::process::Command) -> std::io::Error {
    cmd.exec()
}

pub fn terminate(pid: u32) -> std::io::Result<()> {
    // SAFETY: kill(2) has no memory effects.
    if unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

pub fn on_stop(f: impl FnOnce(i32) + Send + 'static) -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            f(sig);
        }
    });
    Ok(())
}

pub fn flag_on_stop(flag: &Arc<AtomicBool>) -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    for sig in [SIGTERM, SIGINT, SIGHUP] {
        signal_hook::flag::register(sig, Arc::clone(flag))?;
    }
    Ok(())
}

/// No cache directory apart from `~/.cache`.
pub fn cache_dir() -> Option<std::path::PathBuf> {
    None
}

/// The current user's id.
pub fn uid() -> u32 {
    // SAFETY: getuid cannot fail and has no preconditions.
    unsafe { libc::getuid() }
}

/// Creates directory `dir` (0700) if missing; an error when it exists but
/// is not a directory owned by the user with no access for others.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
    let md = std::fs::symlink_metadata(dir)?;
    if !md.is_dir() || md.uid() != uid() || md.mode() & 0o077 != 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "{}: not a private directory of this user (want owner {} and mode 0700)",
                dir.display(),
                uid()
            ),
        ));
    }
    Ok(())
}

/// Makes files created by `opts` readable and writable by their owner only.
pub fn private_file(opts: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    opts.mode(0o600)
}

/// Makes `path` readable and writable by its owner only.
pub(crate) fn make_private(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
}

/// Fills `buf` with random bytes.
pub fn random(buf: &mut [u8]) -> std::io::Result<()> {
    std::io::Read::read_exact(&mut File::open("/dev/urandom")?, buf)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn private_files_and_directories_admit_the_owner_alone() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        super::private_dir(&run).unwrap();
        super::private_dir(&run).unwrap();
        let file = run.join("token");
        super::private_file(std::fs::OpenOptions::new().write(true).create_new(true))
            .open(&file)
            .unwrap();
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&run), mode(&file)), (0o700, 0o600));
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(super::private_dir(&run).is_err(), "a directory others can enter is refused");
    }
}
