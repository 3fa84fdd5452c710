//! Why a packed file cannot be written or read.

use std::io;

use crate::index::error::IndexError;

/// Why a packed file cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// Not a seekable zstd file at all (no seek table at its end).
    #[error("not a seekable zstd file")]
    NotSeekable,
    /// A tg container damaged or cut short.
    #[error("corrupt or truncated tg container: {0}")]
    Corrupt(String),
    /// A tg container of a version this tg does not read (found, the newest
    /// it reads).
    #[error("tg container version {0} is not supported (this tg reads versions 1 to {1})")]
    Version(u32, u32),
    /// A tg container whose bytes changed since it was written (found by
    /// [`super::verify::check`]).
    #[error("damaged packed file: {0}")]
    Damaged(String),
    /// The seek table does not describe the frames.
    #[error("the seek table does not match the frames: {0}")]
    Mismatch(String),
    /// The input cannot be packed.
    #[error("{0}")]
    Input(String),
    /// The block index could not be built or read.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl From<PackError> for io::Error {
    fn from(e: PackError) -> io::Error {
        match e {
            PackError::Io(e) => e,
            other => io::Error::new(io::ErrorKind::InvalidData, other),
        }
    }
}
