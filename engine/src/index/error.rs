//! Typed errors of the index engine.
//!
//! [`IndexError`] keeps corrupt data, an unsupported format version and I/O
//! failures apart, so a caller can warn and fall back to scanning on the
//! first two and report the third.

use std::io;
use std::path::PathBuf;

/// Everything that can go wrong while building, publishing or reading an index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// An operating-system I/O error (read, write, fsync, rename, mmap).
    /// Shown in the message, so not also a `source` (an error chain would
    /// print it twice).
    #[error("index I/O error: {0}")]
    Io(io::Error),
    /// The index directory could not be created or written (an unwritable
    /// home, a read-only cache): the path tried, and why.
    #[error("cannot write the index directory {}: {err}", .dir.display())]
    Place {
        /// The directory tried.
        dir: PathBuf,
        /// Why it failed (shown in the message, so not also a `source`).
        err: io::Error,
    },
    /// No index file exists at this path.
    #[error("no index at {}", .0.display())]
    NotFound(PathBuf),
    /// The bytes are not a well-formed index: bad magic, a checksum
    /// mismatch, a section out of bounds or an inconsistent table.
    #[error("corrupt index: {0}")]
    Corrupt(String),
    /// The file is an index, but of a format version this build cannot read.
    #[error("unsupported index format version {found} (this build reads {min}..={max})")]
    UnsupportedVersion {
        /// The version written in the footer.
        found: u32,
        /// The oldest version this build reads.
        min: u32,
        /// The newest version this build reads.
        max: u32,
    },
    /// The caller broke a documented rule (e.g. an unknown file id) or a
    /// limit of the format (more than `u32::MAX` documents).
    #[error("invalid index input: {0}")]
    InvalidInput(String),
}

impl From<io::Error> for IndexError {
    fn from(e: io::Error) -> Self {
        IndexError::Io(e)
    }
}

impl IndexError {
    /// Shorthand for [`IndexError::Corrupt`].
    pub(crate) fn corrupt(what: &str) -> Self {
        IndexError::Corrupt(what.to_string())
    }
}
