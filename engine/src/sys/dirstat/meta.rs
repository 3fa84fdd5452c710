//! What the sweep needs to know of a path.

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

impl Meta {
    /// What `m` says.
    pub(crate) fn of(m: &std::fs::Metadata) -> Meta {
        Meta {
            is_file: m.is_file(),
            is_dir: m.is_dir(),
            size: m.len(),
            changed_ns: crate::sys::changed_ns(m),
        }
    }

    /// `lstat` of `path` by name, for the few paths outside the tree;
    /// `None` when it is missing or cannot be stat-ed.
    pub fn of_path(path: &Path) -> Option<Meta> {
        std::fs::symlink_metadata(path).ok().map(|m| Meta::of(&m))
    }

    /// `lstat` of `path` by name; `Ok(None)` when it (or a parent) is
    /// missing.
    pub(crate) fn by_path(path: &Path) -> std::io::Result<Option<Meta>> {
        use std::io::ErrorKind::{NotADirectory, NotFound};
        match std::fs::symlink_metadata(path) {
            Ok(m) => Ok(Some(Meta::of(&m))),
            Err(e) if matches!(e.kind(), NotFound | NotADirectory) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `stat` of `path`, following links (as a walk with `--follow`
    /// does); `Ok(None)` when it is missing.
    pub fn followed(path: &Path) -> std::io::Result<Option<Meta>> {
        match std::fs::metadata(path) {
            Ok(m) => Ok(Some(Meta::of(&m))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}
