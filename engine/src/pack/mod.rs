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
//! It reads through a [`Store`]: a local file mapped whole (`Mapped`),
//! or a remote object that fetches only the ranges read (`crate::remote`).
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

pub mod directory;
mod ends;
mod error;
pub mod format;
pub(crate) mod partial;
pub mod read;
mod store;
pub mod verify;
pub mod write;

pub use error::PackError;
pub use store::Store;
