//! `lstat` of many paths below one root, as the freshness sweep and the
//! build's walk need it ([`Meta`]), and opening them for the build's reads:
//! on Linux through cached directory handles (`at`, `fstatat` and `openat`
//! relative to an `O_PATH` parent), elsewhere by path (`by_path`), with
//! the same answers.

#[cfg(target_os = "linux")]
mod at;
#[cfg(not(target_os = "linux"))]
mod by_path;

#[cfg(target_os = "linux")]
pub use at::DirStat;
#[cfg(not(target_os = "linux"))]
pub use by_path::DirStat;

mod meta;

pub use meta::Meta;

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
        assert_eq!(f.changed_ns, crate::sys::changed_ns(&md));
        assert!(s.lstat(b"a/b").unwrap().unwrap().is_dir);
        assert!(s.lstat(b"top.txt").unwrap().unwrap().is_file);
        assert!(s.lstat(b"").unwrap().unwrap().is_dir);
        assert_eq!(s.lstat(b"a/missing").unwrap(), None);
        assert_eq!(s.lstat(b"nope/x").unwrap(), None);
        assert_eq!(s.lstat(b"top.txt/x").unwrap(), None);
        assert_eq!(s.lstat_dir(b"a/b").unwrap(), s.lstat(b"a/b").unwrap());
        assert_eq!(s.lstat_dir(b"").unwrap(), s.lstat(b"").unwrap());
        assert_eq!(s.lstat_dir(b"top.txt").unwrap(), s.lstat(b"top.txt").unwrap());
        assert_eq!(s.lstat_dir(b"gone").unwrap(), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_replaced_by_a_link_is_not_entered() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("real")).unwrap();
        std::fs::write(dir.path().join("real/f.txt"), b"hello").unwrap();
        std::os::unix::fs::symlink("real", dir.path().join("link")).unwrap();
        let mut s = DirStat::new(dir.path()).unwrap();
        s.lstat_dir(b"").unwrap();
        let link = s.lstat_dir(b"link").unwrap().unwrap();
        assert!(!link.is_dir && !link.is_file);
        assert_eq!(s.lstat(b"link/f.txt").unwrap(), None);
        assert!(s.lstat(b"real/f.txt").unwrap().unwrap().is_file);
    }

    /// `stat_followed` answers as `Meta::followed` of the joined path
    /// (what the sweep used before): through links, `None` only when
    /// missing, an error for a loop or a file taken for a directory.
    #[cfg(unix)]
    #[test]
    fn followed_stats_answer_as_metadata_through_the_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("real/sub")).unwrap();
        std::fs::write(dir.path().join("real/sub/f.txt"), b"hello").unwrap();
        std::os::unix::fs::symlink("real", dir.path().join("link")).unwrap();
        std::os::unix::fs::symlink("sub/f.txt", dir.path().join("real/lf")).unwrap();
        std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();
        let mut s = DirStat::new(dir.path()).unwrap();
        let by_path = |rel: &str| Meta::followed(&dir.path().join(rel));
        for rel in ["link/sub/f.txt", "link/lf", "link/sub", "link", "link/missing", "gone/x"] {
            let got = s.stat_followed(rel.as_bytes()).unwrap();
            assert_eq!(got, by_path(rel).unwrap(), "{rel}");
        }
        assert!(s.stat_followed(b"link/sub/f.txt").unwrap().unwrap().is_file);
        assert_eq!(s.stat_followed(b"link/missing").unwrap(), None);
        for rel in ["loop", "loop/x", "link/lf/x"] {
            assert!(by_path(rel).is_err(), "{rel}");
            assert!(s.stat_followed(rel.as_bytes()).is_err(), "{rel}");
        }
        // The link-free cache is not confused with the following one.
        assert_eq!(s.lstat(b"link/sub/f.txt").unwrap(), None);
    }
}
