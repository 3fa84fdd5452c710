//! Packed logs: a huge text file stored as a zstd *seekable* file that tg
//! searches in place and `zstd -d` restores.
//!
//! [`write::pack`] cuts the text at line ends into blocks (the block
//! index's [`crate::index::blocks::cut`]), compresses every block as an
//! independent zstd frame on every core, builds the block index of the same
//! blocks, and writes (atomically) a header frame, the data frames, an
//! index frame holding the block index and a footer (version, text length
//! and CRC, checksums), and the seek table (`format`, docs/PACK-FORMAT.md).
//! [`read::PackedFile`] opens such a file, or another tool's seekable zstd
//! file, checks its layout, decompresses single frames (checked against the
//! seek table) and unpacks the whole in parallel, verifying the text's CRC.
//! Searching a packed file is [`crate::search`]'s business
//! (`search::packed`): this module knows nothing of patterns.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use trigrep::pack::{read::PackedFile, write::{PackOptions, pack}};
//! let dir = tempfile::tempdir()?;
//! let (log, packed) = (dir.path().join("a.log"), dir.path().join("a.log.zst"));
//! std::fs::write(&log, "one\ntwo\nthree\n")?;
//! pack(&log, &packed, &PackOptions::default(), &())?;
//! let file = PackedFile::open(&std::fs::File::open(&packed)?)?.expect("a packed file");
//! let mut text = Vec::new();
//! file.unpack(&mut text)?;
//! assert_eq!(text, b"one\ntwo\nthree\n");
//! assert_eq!(zstd::decode_all(std::fs::File::open(&packed)?)?, text);
//! # Ok(()) }
//! ```

use std::io;

use crate::index::error::IndexError;

pub mod format;
pub mod read;
pub mod verify;
pub mod write;

/// Why a packed file cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// Not a seekable zstd file at all (no seek table at its end).
    #[error("not a seekable zstd file")]
    NotSeekable,
    /// A tg container damaged or cut short.
    #[error("corrupt or truncated tg container: {0}")]
    Corrupt(String),
    /// A tg container of a version this tg does not read.
    #[error("tg container version {0} is not supported (this tg reads version {v})", v = format::VERSION)]
    Version(u32),
    /// A tg container whose bytes changed since it was written (found by
    /// [`verify::check`]).
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
