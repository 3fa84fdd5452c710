//! Faults injected where tg writes state, and what a failed or
//! killed write must leave behind.
//!
//! * [`SmallFs`]: a tmpfs of a few megabytes mounted by the test (root
//!   only; anyone else fails loudly), filled to the byte count a case
//!   wants, so writes fail with a real `ENOSPC` wherever tg writes next.
//! * [`limit_file_size`]: `RLIMIT_FSIZE` set in the child (with `SIGXFSZ`
//!   ignored), so the write that would pass the limit fails with `EFBIG`;
//!   swept over many limits it fails every file tg writes at many offsets.
//! * [`one_error_line`]: exit 2 and exactly one `tg: ` line giving the
//!   reason once, no panic.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// How many fault points a sweep tries: `TG_FAULT_POINTS`, else `default`.
pub fn points(default: usize) -> usize {
    std::env::var("TG_FAULT_POINTS")
        .map_or(default, |s| s.parse().expect("TG_FAULT_POINTS must be a number"))
}

/// A tmpfs mounted by the test, unmounted when dropped.
pub struct SmallFs {
    dir: PathBuf,
}

impl SmallFs {
    /// Mounts a tmpfs of `size` bytes at `dir` (created). Needs root (or
    /// CAP_SYS_ADMIN): anyone else fails the test, never skips it.
    pub fn mount(dir: &Path, size: u64) -> SmallFs {
        std::fs::create_dir_all(dir).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size},mode=0700"), "tmpfs"])
            .arg(dir)
            .status()
            .expect("run mount");
        assert!(
            status.success(),
            "\n\nTHE DISK-FULL TESTS NEED ROOT: mounting a {size}-byte tmpfs at {} failed \
             ({status}). Run them as root (CI does).\n\n",
            dir.display()
        );
        SmallFs { dir: dir.to_path_buf() }
    }

    /// Bytes still free for an unprivileged writer.
    pub fn free(&self) -> u64 {
        let c = std::ffi::CString::new(self.dir.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a plain C struct (all zeroes is a valid value) filled in
        // by statvfs from a valid C string.
        let st = unsafe {
            let mut st: libc::statvfs = std::mem::zeroed();
            assert_eq!(libc::statvfs(c.as_ptr(), &mut st), 0, "statvfs");
            st
        };
        st.f_bavail as u64 * st.f_frsize as u64
    }

    /// Fills the file system with `.filler` until only `leave` bytes (in
    /// whole pages) are free.
    pub fn fill(&self, leave: u64) {
        self.unfill();
        let fill = self.free().saturating_sub(leave) & !4095;
        let file = std::fs::File::create(self.dir.join(".filler")).unwrap();
        use std::io::Write;
        let mut w = std::io::BufWriter::new(file);
        let page = [0u8; 4096];
        for _ in 0..fill / 4096 {
            if w.write_all(&page).is_err() {
                break;
            }
        }
        let _ = w.flush();
    }

    /// Gives the filler's space back.
    pub fn unfill(&self) {
        let _ = std::fs::remove_file(self.dir.join(".filler"));
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        // Lazily: a server killed a moment ago may still hold a file.
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}

/// Sets `RLIMIT_FSIZE` to `bytes` in the child and ignores `SIGXFSZ`
/// there, so a write past the limit fails with `EFBIG` instead of killing it.
pub fn limit_file_size(cmd: &mut Command, bytes: u64) -> &mut Command {
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        })
    }
}

/// Checks that a failed command exited 2 with one `tg: ` line on stderr;
/// returns that line.
pub fn one_error_line(what: &str, out: &Output) -> Result<String, String> {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let lines: Vec<&str> = err.lines().collect();
    if out.status.code() != Some(2)
        || lines.len() != 1
        || !lines[0].starts_with("tg: ")
        || err.contains("panicked")
        || err.matches("(os error").count() > 1
    {
        return Err(format!(
            "{what}: want exit 2 and one `tg: ` line saying the reason once, got {:?} and \
             stderr:\n{err}",
            out.status.code()
        ));
    }
    Ok(lines[0].to_string())
}

/// The sorted names in `dir`, leaving out `keep`.
pub fn names_except(dir: &Path, keep: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    v.sort();
    v
}

/// The one index directory under `base` (a test builds one index there).
pub fn only_index_dir(base: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(base).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(dirs.len(), 1, "one index directory under {}", base.display());
    dirs[0].clone()
}

/// The inode of `path` (a file published by rename is a new inode).
pub fn inode(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| m.ino())
}
