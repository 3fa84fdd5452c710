//! How a huge file is cut into chunks that end at line ends, and where a
//! chunk's bytes come from: a memory map, or `pread` into a page-aligned
//! buffer ([`super::window`]). A search may instead be given its
//! [`Piece`]s: byte ranges whose first line numbers are known (the
//! candidate blocks of a block index, and a grown file's new tail), or a
//! [`PieceSource`] that makes each piece's bytes (decompressed frames).

use std::fs::File;
use std::io;

use super::window::{PAGE, ReadBuf, Window};

/// Extra bytes read past a chunk's nominal end to find its last line end.
pub(super) const SLACK: u64 = 64 << 10;

/// The most bytes of pieces handed to a thread at once.
const GROUP_BYTES: u64 = 2 << 20;
/// The most pieces handed to a thread at once.
const GROUP_PIECES: usize = 32;

/// Where chunk bytes come from, and how the file is cut.
pub(super) struct Chunks<'a> {
    /// The file (`None`: the pieces are `decoded`).
    pub(super) file: Option<&'a File>,
    pub(super) map: Option<&'a [u8]>,
    pub(super) size: u64,
    pub(super) chunk_size: u64,
    /// The ranges to search instead of cutting the whole file.
    pub(super) pieces: Option<&'a [Piece]>,
    /// Where the pieces' bytes come from when they are not the file's.
    pub(super) decoded: Option<&'a dyn PieceSource>,
}

/// Pieces whose bytes are made rather than read: the decompressed frames of
/// a packed file. Pieces end at line ends and come in text order.
pub trait PieceSource: Sync {
    /// How many pieces there are.
    fn count(&self) -> usize;
    /// The 1-based number of piece `i`'s first line, when known up front
    /// (`None`: counted from the pieces before it, which must then be all
    /// of the text before it).
    fn first_line(&self, i: usize) -> Option<u64>;
    /// Makes piece `i` into `buf` (replacing what it held); returns the
    /// piece's offset in the text and the bytes read from the file.
    fn load(&self, i: usize, buf: &mut Vec<u8>) -> io::Result<(u64, u64)>;
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

impl<'a> Chunks<'a> {
    /// The file the chunks are read from.
    fn file(&self) -> io::Result<&'a File> {
        self.file.ok_or_else(|| io::Error::other("no file to read chunks from"))
    }

    /// How many chunks there are.
    pub(super) fn count(&self) -> usize {
        if let Some(d) = self.decoded {
            return d.count();
        }
        match self.pieces {
            Some(p) => p.len(),
            None => self.size.div_ceil(self.chunk_size).max(1) as usize,
        }
    }

    /// Where the groups of chunks handed out together start, and past the
    /// last, the chunk count: with `join`, pieces (given, not decoded) join
    /// their neighbours up to [`GROUP_BYTES`] and [`GROUP_PIECES`]; anything
    /// else goes alone.
    pub(super) fn groups(&self, join: bool) -> Vec<usize> {
        let n = self.count();
        let Some(pieces) = self.pieces.filter(|_| join && self.decoded.is_none()) else {
            return (0..=n).collect();
        };
        let mut starts = vec![0];
        let (mut bytes, mut count) = (0, 0);
        for (i, p) in pieces.iter().enumerate() {
            if count > 0 && (bytes + p.len > GROUP_BYTES || count == GROUP_PIECES) {
                starts.push(i);
                (bytes, count) = (0, 0);
            }
            bytes += p.len;
            count += 1;
        }
        starts.push(n);
        starts
    }

    /// Where chunk `i` ends at the latest (for the prefetcher's front).
    pub(super) fn end_bound(&self, i: usize) -> u64 {
        if self.decoded.is_some() {
            return 0;
        }
        match self.pieces {
            Some(p) => p[i].offset + p[i].len,
            None => ((i as u64 + 1) * self.chunk_size + SLACK).min(self.size),
        }
    }

    /// The first line number of chunk `i`, when it is known up front.
    pub(super) fn first_line(&self, i: usize) -> Option<u64> {
        match self.decoded {
            Some(d) => d.first_line(i),
            None => self.pieces.map(|p| p[i].first_line),
        }
    }

    /// Loads chunk `i`: returns its byte range (in the map, or in `buf`), its
    /// absolute start offset and the bytes read from the file.
    ///
    /// Chunk `i` spans `[boundary(i), boundary(i + 1))`, where `boundary(k)`
    /// is just past the first `\n` at or after `k * chunk_size - 1` (0 for
    /// the first chunk, the file size past the last). A chunk with no `\n`
    /// in its own stretch is empty (its two boundaries are the same line
    /// end, further on), and is known to be without looking past it: on a
    /// file of few and long lines, only the chunk holding a line's start
    /// reads on to its end, so the file is scanned once, not once per chunk.
    pub(super) fn load(
        &self,
        i: usize,
        buf: &mut ReadBuf,
    ) -> io::Result<(std::ops::Range<usize>, u64, u64)> {
        if let Some(d) = self.decoded {
            let (offset, read) = d.load(i, &mut buf.text)?;
            return Ok((0..buf.text.len(), offset, read));
        }
        if let Some(pieces) = self.pieces {
            let Piece { offset, len, .. } = pieces[i];
            if self.map.is_some() {
                return Ok((offset as usize..(offset + len) as usize, offset, len));
            }
            let base = offset / PAGE * PAGE;
            let mut reader = Window::new(self.file()?, buf, base, self.size);
            reader.fill_to(offset + len)?;
            let start = (offset - base) as usize;
            let end = (start + len as usize).min(reader.filled());
            return Ok((start..end, offset, reader.filled() as u64));
        }
        let s = self.chunk_size;
        let k = i as u64;
        if let Some(map) = self.map {
            let Some(start) = start_in(map, k, s) else { return Ok((0..0, k * s, 0)) };
            let end = boundary_in(map, k + 1, s).max(start);
            return Ok((start as usize..end as usize, start, end - start));
        }
        // Read from the page holding the first byte that can hold the start
        // boundary: page-aligned reads copy twice as fast (docs/IO.md).
        let from = if k == 0 { 0 } else { k * s - 1 };
        let base = from / PAGE * PAGE;
        let mut reader = Window::new(self.file()?, buf, base, self.size);
        reader.fill_to(((k + 1) * s + SLACK).min(self.size))?;
        let start = if k == 0 {
            0
        } else {
            match reader.line_end_before(from, (k + 1) * s - 1) {
                Some(start) => start,
                None => return Ok((0..0, k * s, reader.filled() as u64)),
            }
        };
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

/// Boundary `k` in a whole-file slice if chunk `k` is not empty, found
/// without looking past the chunk's own stretch (see [`Chunks::load`]).
fn start_in(data: &[u8], k: u64, s: u64) -> Option<u64> {
    if k == 0 {
        return Some(0);
    }
    let size = data.len() as u64;
    let (from, until) = ((k * s - 1).min(size), ((k + 1) * s - 1).min(size));
    memchr::memchr(b'\n', &data[from as usize..until as usize]).map(|j| from + j as u64 + 1)
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

    #[test]
    fn a_chunk_without_a_line_end_is_empty_and_the_others_start_at_boundaries() {
        let data = b"aa\nbbbb\nc\n\ndddddddddd\ne";
        for s in 1..=6u64 {
            for k in 0..(data.len() as u64).div_ceil(s) {
                let (here, next) = (boundary_in(data, k, s), boundary_in(data, k + 1, s));
                match start_in(data, k, s) {
                    Some(start) => assert_eq!(start, here, "k {k} s {s}"),
                    None => assert_eq!(here, next, "k {k} s {s}: an empty chunk"),
                }
            }
        }
    }

    #[test]
    fn pieces_are_handed_out_in_groups_by_count_and_bytes() {
        let file = File::open("/dev/null").unwrap();
        let piece = |offset, len| Piece { offset, len, first_line: 1 };
        let groups = |pieces: &[Piece]| {
            let chunks = Chunks {
                file: Some(&file),
                map: None,
                size: 1 << 40,
                chunk_size: 1 << 20,
                pieces: Some(pieces),
                decoded: None,
            };
            chunks.groups(true)
        };
        // 70 small pieces: groups of 32, 32 and 6.
        let small: Vec<Piece> = (0..70).map(|i| piece(i << 16, 1 << 16)).collect();
        assert_eq!(groups(&small), vec![0, 32, 64, 70]);
        // 1.5 MiB pieces: one each (two would pass 2 MiB); a bigger one alone.
        let big = [piece(0, 3 << 19), piece(2 << 20, 3 << 19), piece(4 << 20, 8 << 20)];
        assert_eq!(groups(&big), vec![0, 1, 2, 3]);
        assert_eq!(groups(&[]), vec![0, 0]);
        // Without pieces (a whole file cut in chunks), each chunk alone.
        let whole = Chunks {
            file: Some(&file),
            map: None,
            size: 5 << 20,
            chunk_size: 1 << 20,
            pieces: None,
            decoded: None,
        };
        assert_eq!(whole.groups(true), vec![0, 1, 2, 3, 4, 5]);
    }
}
