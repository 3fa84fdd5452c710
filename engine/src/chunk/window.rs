//! Reading part of a file with `pread` into page-aligned memory.
//!
//! The chunked search's read strategy copies every byte from the page cache
//! into a buffer. That copy runs about twice as fast when the file offset
//! and the buffer are both page-aligned (measured here: an 8 GiB hot file
//! read in 16 MiB `pread`s on two threads took 0.40–0.51 s aligned,
//! 0.76–0.83 s with the buffer 16 bytes off, 1.6–1.8 s with the offset one
//! byte off; docs/IO.md), so a [`ReadBuf`] is an anonymous mapping, and a
//! [`Window`] starts at a page boundary.

use std::fs::File;
use std::io;

/// The alignment reads start at (the usual page size; a larger real page
/// only costs a little speed, never correctness).
pub(crate) const PAGE: u64 = 4096;

/// A page-aligned buffer that only grows, reused from read to read (so it
/// is zeroed once, not once per read).
#[derive(Default)]
pub(crate) struct ReadBuf {
    map: Option<memmap2::MmapMut>,
    /// The bytes of a piece made by a [`super::cut::PieceSource`].
    pub(super) text: Vec<u8>,
}

impl ReadBuf {
    /// The buffer's bytes (empty before the first read).
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    /// Grows the buffer to at least `len` bytes, keeping its first `keep`.
    fn reserve(&mut self, len: usize, keep: usize) -> io::Result<()> {
        if self.bytes().len() >= len {
            return Ok(());
        }
        let mut bigger = memmap2::MmapMut::map_anon(len.max(2 * self.bytes().len()))?;
        bigger[..keep].copy_from_slice(&self.bytes()[..keep]);
        self.map = Some(bigger);
        Ok(())
    }
}

/// A growing window of a file read with `pread`, starting at `base`: the
/// buffer's first `filled` bytes hold the file from `base` on.
pub(crate) struct Window<'a> {
    file: &'a File,
    buf: &'a mut ReadBuf,
    filled: usize,
    base: u64,
    size: u64,
}

impl<'a> Window<'a> {
    /// An empty window of `file` (`size` bytes) at `base` (a multiple of
    /// [`PAGE`] for the fast copy), reading into `buf`.
    pub fn new(file: &'a File, buf: &'a mut ReadBuf, base: u64, size: u64) -> Window<'a> {
        Window { file, buf, filled: 0, base, size }
    }

    /// How many bytes were read.
    pub fn filled(&self) -> usize {
        self.filled
    }

    /// Reads until the window covers `[base, upto)` (or the file's end).
    pub(crate) fn fill_to(&mut self, upto: u64) -> io::Result<()> {
        let upto = upto.min(self.size);
        let have = self.base + self.filled as u64;
        if upto <= have {
            return Ok(());
        }
        let want = self.filled + (upto - have) as usize;
        self.buf.reserve(want, self.filled)?;
        let Some(map) = self.buf.map.as_mut() else { return Ok(()) };
        while self.filled < want {
            let at = self.base + self.filled as u64;
            let got = crate::sys::read_at(self.file, &mut map[self.filled..want], at)?;
            if got == 0 {
                break;
            }
            self.filled += got;
        }
        Ok(())
    }

    /// The absolute offset just past the first `\n` in `[from, until)`, if
    /// the bytes read so far hold one (`until` is clamped to them).
    pub(crate) fn line_end_before(&self, from: u64, until: u64) -> Option<u64> {
        let have = self.base + self.filled as u64;
        let (from, until) = (from.max(self.base).min(have), until.min(have));
        if from >= until {
            return None;
        }
        let bytes = &self.buf.bytes()[(from - self.base) as usize..(until - self.base) as usize];
        memchr::memchr(b'\n', bytes).map(|j| from + j as u64 + 1)
    }

    /// The absolute offset just past the first `\n` at or after `from`
    /// (the file size if there is none), reading further as needed.
    pub(crate) fn line_end_from(&mut self, from: u64) -> io::Result<u64> {
        let mut searched = from;
        loop {
            let have = self.base + self.filled as u64;
            if searched < have {
                let rel = (searched - self.base) as usize;
                if let Some(j) = memchr::memchr(b'\n', &self.buf.bytes()[rel..self.filled]) {
                    return Ok(searched + j as u64 + 1);
                }
                searched = have;
            }
            if have >= self.size {
                return Ok(self.size);
            }
            let more = (self.filled as u64).max(1 << 20);
            self.fill_to(have + more)?;
            if self.base + self.filled as u64 == have {
                return Ok(have);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn reads_aligned_windows_and_finds_line_ends() {
        let mut f = tempfile::tempfile().unwrap();
        let text: Vec<u8> =
            (0..20_000u32).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
        f.write_all(&text).unwrap();
        let size = text.len() as u64;
        let mut buf = ReadBuf::default();
        let mut w = Window::new(&f, &mut buf, PAGE, size);
        w.fill_to(PAGE + 100).unwrap();
        assert_eq!(w.filled(), 100);
        // Past what was read: the window reads on to find the line end.
        let end = w.line_end_from(PAGE + 5000).unwrap();
        let want = PAGE as usize
            + 5000
            + memchr::memchr(b'\n', &text[PAGE as usize + 5000..]).unwrap()
            + 1;
        assert_eq!(end, want as u64);
        assert_eq!(&buf.bytes()[..10], &text[PAGE as usize..PAGE as usize + 10]);
        assert_eq!(buf.bytes().as_ptr() as usize % PAGE as usize, 0);
        // Reused: a later window at another place sees that place's bytes.
        let mut w = Window::new(&f, &mut buf, 0, size);
        w.fill_to(size + 10).unwrap();
        assert_eq!(w.filled(), text.len());
        assert_eq!(w.line_end_from(size - 1).unwrap(), size);
        assert_eq!(&buf.bytes()[..text.len()], &text[..]);
    }
}
