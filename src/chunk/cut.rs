//! How a huge file is cut into chunks that end at line ends, and where a
//! chunk's bytes come from: a memory map, or `pread` into a page-aligned
//! buffer ([`super::window`]). A search may instead be given its
//! [`Piece`]s: byte ranges whose first line numbers are known (the
//! candidate blocks of a block index, and a grown file's new tail).

use std::fs::File;
use std::io;

use super::window::{PAGE, ReadBuf, Window};

/// Extra bytes read past a chunk's nominal end to find its last line end.
pub(super) const SLACK: u64 = 64 << 10;

/// Where chunk bytes come from, and how the file is cut.
pub(super) struct Chunks<'a> {
    pub(super) file: &'a File,
    pub(super) map: Option<&'a [u8]>,
    pub(super) size: u64,
    pub(super) chunk_size: u64,
    /// The ranges to search instead of cutting the whole file.
    pub(super) pieces: Option<&'a [Piece]>,
    /// Where the pieces' bytes come from when they are not the file's own.
    pub(super) text: Option<&'a dyn PieceText>,
}

/// The bytes of pieces that are not a file's own bytes (the text of a
/// compressed file, decompressed piece by piece); read from several
/// threads at once.
pub trait PieceText: Sync {
    /// Fills `into` (`piece.len` bytes) with the bytes of `piece`.
    fn read_piece(&self, piece: &Piece, into: &mut [u8]) -> io::Result<()>;
}

/// A range of a file to search, whose first line number is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Where it starts (just past a line end, or 0).
    pub offset: u64,
    /// Its length (it ends at a line end, or at the end of the file).
    pub len: u64,
    /// The 1-based number of its first line.
    pub first_line: u64,
}

impl Chunks<'_> {
    /// How many chunks there are.
    pub(super) fn count(&self) -> usize {
        match self.pieces {
            Some(p) => p.len(),
            None => self.size.div_ceil(self.chunk_size).max(1) as usize,
        }
    }

    /// Where chunk `i` ends at the latest (for the prefetcher's front).
    pub(super) fn end_bound(&self, i: usize) -> u64 {
        match self.pieces {
            Some(p) => p[i].offset + p[i].len,
            None => ((i as u64 + 1) * self.chunk_size + SLACK).min(self.size),
        }
    }

    /// The first line number of chunk `i`, when it is known up front.
    pub(super) fn first_line(&self, i: usize) -> Option<u64> {
        self.pieces.map(|p| p[i].first_line)
    }
    /// Loads chunk `i`: returns its byte range (in the map, or in `buf`), its
    /// absolute start offset and the bytes read from the file.
    ///
    /// Chunk `i` spans `[boundary(i), boundary(i + 1))`, where `boundary(k)`
    /// is just past the first `\n` at or after `k * chunk_size - 1` (0 for
    /// the first chunk, the file size past the last).
    pub(super) fn load(
        &self,
        i: usize,
        buf: &mut ReadBuf,
    ) -> io::Result<(std::ops::Range<usize>, u64, u64)> {
        if let Some(pieces) = self.pieces {
            let Piece { offset, len, .. } = pieces[i];
            if let Some(text) = self.text {
                text.read_piece(&pieces[i], buf.space(len as usize)?)?;
                return Ok((0..len as usize, offset, len));
            }
            if self.map.is_some() {
                return Ok((offset as usize..(offset + len) as usize, offset, len));
            }
            let base = offset / PAGE * PAGE;
            let mut reader = Window::new(self.file, buf, base, self.size);
            reader.fill_to(offset + len)?;
            let start = (offset - base) as usize;
            let end = (start + len as usize).min(reader.filled());
            return Ok((start..end, offset, reader.filled() as u64));
        }
        let s = self.chunk_size;
        let k = i as u64;
        if let Some(map) = self.map {
            let start = boundary_in(map, k, s);
            let end = boundary_in(map, k + 1, s).max(start);
            return Ok((start as usize..end as usize, start, end - start));
        }
        // Read from the page holding the first byte that can hold the start
        // boundary: page-aligned reads copy twice as fast (docs/IO.md).
        let from = if k == 0 { 0 } else { k * s - 1 };
        let base = from / PAGE * PAGE;
        let mut reader = Window::new(self.file, buf, base, self.size);
        reader.fill_to(((k + 1) * s + SLACK).min(self.size))?;
        let start = if k == 0 { 0 } else { reader.line_end_from(from)? };
        let end = if (k + 1) * s >= self.size {
            reader.fill_to(self.size)?;
            self.size
        } else {
            reader.line_end_from((k + 1) * s - 1)?
        }
        .max(start);
        Ok(((start - base) as usize..(end - base) as usize, start, reader.filled() as u64))
    }
}

/// Boundary `k` in a whole-file slice (see [`Chunks::load`]).
fn boundary_in(data: &[u8], k: u64, s: u64) -> u64 {
    let size = data.len() as u64;
    if k == 0 {
        return 0;
    }
    let from = k * s - 1;
    if from >= size {
        return size;
    }
    match memchr::memchr(b'\n', &data[from as usize..]) {
        Some(j) => from + j as u64 + 1,
        None => size,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_end_at_line_ends() {
        let data = b"aa\nbbbb\nc\n\ndddddddddd\ne";
        let b: Vec<u64> = (0..8).map(|k| boundary_in(data, k, 4)).collect();
        assert_eq!(b, vec![0, 8, 8, 22, 22, 22, 23, 23]);
    }
}
