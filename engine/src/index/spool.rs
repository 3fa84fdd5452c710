//! A table written once, front to back, and read back once: [`Spool`].
//!
//! The writer's file, path and document tables grow with the files
//! indexed, and are needed only when the index file is written, after
//! the posting lists. A `Spool` keeps the first [`SPOOL_MEMORY`] bytes in
//! memory (a small index never touches the disk) and moves them, and all
//! that follows, to an unnamed temporary file once they outgrow it, so a
//! table costs a fixed amount of memory however many files there are.

use std::fs::File;
use std::io::{self, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Bytes a spool holds in memory: all of a small table, and the buffer of
/// a large one's writes.
pub(crate) const SPOOL_MEMORY: usize = 256 << 10;

/// Bytes appended in order, in memory up to [`SPOOL_MEMORY`], beyond
/// that in an unnamed temporary file (gone with the spool, or with the
/// process).
#[derive(Debug)]
pub(crate) struct Spool {
    dir: PathBuf,
    buf: Vec<u8>,
    file: Option<File>,
    len: u64,
}

impl Spool {
    /// An empty spool whose temporary file, if it needs one, goes in `dir`.
    pub(crate) fn new(dir: &Path) -> Spool {
        Spool { dir: dir.to_path_buf(), buf: Vec::new(), file: None, len: 0 }
    }

    /// A spool holding `bytes`, all in memory: a part made whole (a
    /// section's head), copied out as it is and never appended to.
    pub(crate) fn holding(bytes: Vec<u8>) -> Spool {
        let len = bytes.len() as u64;
        Spool { dir: PathBuf::new(), buf: bytes, file: None, len }
    }

    /// Appends `bytes`.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.buf.len() + bytes.len() > SPOOL_MEMORY {
            self.flush()?;
        }
        if bytes.len() > SPOOL_MEMORY {
            self.file()?.write_all(bytes)?;
        } else {
            if self.buf.capacity() == 0 {
                self.buf.reserve_exact(SPOOL_MEMORY);
            }
            self.buf.extend_from_slice(bytes);
        }
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Bytes appended so far.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Writes everything appended, in order, to `out`.
    pub(crate) fn copy_to(mut self, out: &mut impl Write) -> io::Result<()> {
        let Some(mut file) = self.file.take() else { return out.write_all(&self.buf) };
        file.write_all(&self.buf)?;
        self.buf = Vec::new();
        file.seek(SeekFrom::Start(0))?;
        let copied = io::copy(&mut BufReader::with_capacity(SPOOL_MEMORY, file), out)?;
        if copied != self.len {
            return Err(io::Error::other("a spooled table changed size on disk"));
        }
        Ok(())
    }

    /// Moves what is in memory to the file.
    fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            let mut file = self.file.take().map_or_else(|| tempfile::tempfile_in(&self.dir), Ok)?;
            file.write_all(&self.buf)?;
            self.file = Some(file);
            self.buf.clear();
        }
        Ok(())
    }

    /// The temporary file, created on first use.
    fn file(&mut self) -> io::Result<&mut File> {
        if self.file.is_none() {
            self.file = Some(tempfile::tempfile_in(&self.dir)?);
        }
        Ok(self.file.as_mut().expect("just made"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(pieces: &[Vec<u8>]) -> (Vec<u8>, bool) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Spool::new(dir.path());
        for p in pieces {
            s.push(p).unwrap();
        }
        let on_disk = s.file.is_some();
        assert_eq!(s.len(), pieces.iter().map(|p| p.len() as u64).sum::<u64>());
        let mut out = Vec::new();
        s.copy_to(&mut out).unwrap();
        // The temporary file is unnamed: nothing is left in the directory.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        (out, on_disk)
    }

    #[test]
    fn small_tables_stay_in_memory_large_ones_go_to_disk_in_order() {
        let small: Vec<Vec<u8>> = (0..100u32).map(|i| i.to_le_bytes().to_vec()).collect();
        let (out, on_disk) = round_trip(&small);
        assert_eq!(out, small.concat());
        assert!(!on_disk);
        // Pieces of every size, one larger than the memory part alone.
        let mut large: Vec<Vec<u8>> =
            (0..5000u32).map(|i| vec![(i % 251) as u8; (i % 97) as usize * 7]).collect();
        large.insert(1234, vec![7; SPOOL_MEMORY + 3]);
        let (out, on_disk) = round_trip(&large);
        assert_eq!(out, large.concat());
        assert!(on_disk);
    }
}
