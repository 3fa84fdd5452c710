//! Bytes appended, then read and changed in place, in bounded private
//! memory: [`Paged`].
//!
//! The build's listing grows with the tree (half a million paths are tens
//! of megabytes). A `Paged` keeps its bytes in memory up to a limit (a
//! small tree's listing never touches the disk); past it, they go to an
//! unnamed temporary file through a small write buffer, and once settled
//! ([`Paged::settle`]) the file is mapped back, shared: its pages are the
//! file's page cache, which the kernel writes out and drops under
//! pressure, not the process's private memory (as the sort's runs).

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Bytes of the write buffer once the bytes live in a file.
const WRITE_BUFFER: usize = 64 << 10;

/// Bytes appended in memory up to a limit, beyond it in a temporary file
/// mapped back when settled.
#[derive(Debug)]
pub(super) struct Paged {
    dir: PathBuf,
    limit: usize,
    /// All the bytes while in memory; the write buffer once in a file.
    mem: Vec<u8>,
    file: Option<File>,
    map: Option<memmap2::MmapMut>,
    len: usize,
}

impl Paged {
    /// Empty, holding up to `limit` bytes in memory, its temporary file (if
    /// it needs one) in `dir`.
    pub(super) fn new(dir: &Path, limit: usize) -> Paged {
        Paged { dir: dir.to_path_buf(), limit, mem: Vec::new(), file: None, map: None, len: 0 }
    }

    /// Appends `bytes` (unsettles: settle again before reading).
    pub(super) fn push(&mut self, bytes: &[u8]) -> io::Result<()> {
        // The map is shared: what was changed through it is in the file,
        // and what follows is written after it.
        self.map = None;
        let need = self.mem.len() + bytes.len();
        if self.file.is_none() && need <= self.limit {
            if need > self.mem.capacity() {
                // Grow by doubling, never past the limit.
                let cap = (self.mem.capacity() * 2).max(need).max(4096).min(self.limit);
                self.mem.reserve_exact(cap - self.mem.len());
            }
            self.mem.extend_from_slice(bytes);
            self.len += bytes.len();
            return Ok(());
        }
        let file = match &mut self.file {
            Some(f) => f,
            None => {
                let mut f = tempfile::tempfile_in(&self.dir)?;
                f.write_all(&self.mem)?;
                self.mem = Vec::with_capacity(WRITE_BUFFER);
                self.file.insert(f)
            }
        };
        if self.mem.len() + bytes.len() > WRITE_BUFFER {
            file.write_all(&self.mem)?;
            self.mem.clear();
        }
        if bytes.len() > WRITE_BUFFER {
            file.write_all(bytes)?;
        } else {
            self.mem.extend_from_slice(bytes);
        }
        self.len += bytes.len();
        Ok(())
    }

    /// Makes every byte appended readable ([`Paged::bytes`]): in memory, the
    /// room growth left unused is given back; in a file, the buffer is
    /// written and the file mapped.
    pub(super) fn settle(&mut self) -> io::Result<()> {
        let Some(file) = &mut self.file else {
            self.mem.shrink_to_fit();
            return Ok(());
        };
        if self.map.is_none() {
            file.write_all(&self.mem)?;
            self.mem = Vec::new();
            // SAFETY: the file is unnamed and this process's own: nothing
            // else can change or truncate it while the map lives.
            self.map = Some(unsafe { memmap2::MmapMut::map_mut(&*file) }?);
        }
        Ok(())
    }

    /// The bytes appended.
    ///
    /// # Panics
    /// When bytes were appended to the file since the last settle.
    pub(super) fn bytes(&self) -> &[u8] {
        match (&self.file, &self.map) {
            (None, _) => &self.mem,
            (Some(_), Some(map)) => map,
            (Some(_), None) => panic!("a paged store read before it was settled"),
        }
    }

    /// The bytes appended, to change in place.
    ///
    /// # Panics
    /// As [`Paged::bytes`].
    pub(super) fn bytes_mut(&mut self) -> &mut [u8] {
        match (&self.file, &mut self.map) {
            (None, _) => &mut self.mem,
            (Some(_), Some(map)) => map,
            (Some(_), None) => panic!("a paged store changed before it was settled"),
        }
    }

    /// Bytes appended.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Private memory held: the bytes in memory, or the write buffer.
    pub(super) fn memory(&self) -> usize {
        self.mem.capacity()
    }

    /// Whether the bytes went to a temporary file.
    #[cfg(test)]
    pub(super) fn in_file(&self) -> bool {
        self.file.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_stays_in_memory_large_goes_to_a_mapped_file_and_grows_after() {
        let dir = tempfile::tempdir().unwrap();
        let mut small = Paged::new(dir.path(), 1 << 20);
        small.push(b"abc").unwrap();
        small.settle().unwrap();
        assert_eq!((small.bytes(), small.in_file()), (&b"abc"[..], false));
        assert!(small.memory() <= 4096);

        let mut p = Paged::new(dir.path(), 10_000);
        let mut want = Vec::new();
        for i in 0..20_000u32 {
            let piece =
                if i == 777 { vec![9u8; WRITE_BUFFER + 5] } else { i.to_le_bytes().to_vec() };
            p.push(&piece).unwrap();
            want.extend_from_slice(&piece);
            assert!(p.memory() <= 10_000.max(WRITE_BUFFER));
        }
        assert!(p.in_file());
        p.settle().unwrap();
        assert_eq!(p.bytes(), &want[..]);
        assert_eq!(p.len(), want.len());
        p.bytes_mut()[3] = 42;
        want[3] = 42;
        // Appending after a settle keeps what was changed through the map.
        p.push(b"tail").unwrap();
        want.extend_from_slice(b"tail");
        p.settle().unwrap();
        assert_eq!(p.bytes(), &want[..]);
        assert_eq!(p.memory(), 0);
        // The temporary file is unnamed: nothing is left in the directory.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
