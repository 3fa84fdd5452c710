//! A packed file's text as the chunk engine's pieces ([`PieceSource`]):
//! whole frames of a tg container ([`FramePieces`]), or, for another
//! tool's frames, which may end mid-line, line-aligned pieces
//! ([`LinePieces`]).

use std::cell::RefCell;
use std::io;

use crate::chunk::PieceSource;
use crate::pack::PackError;
use crate::pack::read::PackedFile;

thread_local! {
    /// One zstd decompression context per searching thread.
    static DCTX: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// Decompresses frame `i` of `packed` into `buf` with this thread's context.
fn frame(packed: &PackedFile, i: usize, buf: &mut Vec<u8>) -> io::Result<()> {
    DCTX.with(|cell| {
        let mut cell = cell.borrow_mut();
        let dctx = match &mut *cell {
            Some(d) => d,
            None => cell.insert(zstd::bulk::Decompressor::new()?),
        };
        Ok(packed.frame(i, dctx, buf)?)
    })
}

/// Chosen frames of a tg container, each a piece (tg's frames end at line
/// ends), with their first line numbers when the block index gave them.
pub(super) struct FramePieces<'a> {
    packed: &'a PackedFile,
    frames: Vec<usize>,
    first_lines: Option<Vec<u64>>,
}

impl<'a> FramePieces<'a> {
    /// The frames `frames` (in order) of `packed`; `first_lines`, when
    /// known, holds their first line numbers (else `frames` must be all).
    pub(super) fn new(
        packed: &'a PackedFile,
        frames: Vec<usize>,
        first_lines: Option<Vec<u64>>,
    ) -> FramePieces<'a> {
        FramePieces { packed, frames, first_lines }
    }
}

impl PieceSource for FramePieces<'_> {
    fn count(&self) -> usize {
        self.frames.len()
    }

    fn first_line(&self, i: usize) -> Option<u64> {
        self.first_lines.as_ref().map(|l| l[i])
    }

    fn load(&self, i: usize, buf: &mut Vec<u8>) -> io::Result<(u64, u64)> {
        let k = self.frames[i];
        frame(self.packed, k, buf)?;
        let f = self.packed.frames()[k];
        if k + 1 < self.packed.frames().len() && buf.last() != Some(&b'\n') {
            let what = format!("frame {k} does not end at a line end");
            return Err(PackError::Corrupt(what).into());
        }
        Ok((f.text_offset, f.len))
    }
}

/// Every frame of another tool's seekable file as a piece of whole lines:
/// piece `i` runs from just past the first line end at or after frame
/// `i`'s start (piece 0 from the start) to just past the first line end
/// at or after frame `i + 1`'s start (the last to the end). These cut the
/// text at line ends, each knowing only its own frame and the heads of the
/// next ones; a frame without a line end makes an empty piece.
pub(super) struct LinePieces<'a> {
    packed: &'a PackedFile,
}

impl<'a> LinePieces<'a> {
    /// The pieces of `packed`.
    pub(super) fn new(packed: &'a PackedFile) -> LinePieces<'a> {
        LinePieces { packed }
    }
}

impl PieceSource for LinePieces<'_> {
    fn count(&self) -> usize {
        self.packed.frames().len()
    }

    fn first_line(&self, _i: usize) -> Option<u64> {
        None
    }

    fn load(&self, i: usize, buf: &mut Vec<u8>) -> io::Result<(u64, u64)> {
        let frames = self.packed.frames();
        frame(self.packed, i, buf)?;
        let mut read = frames[i].len;
        let start = match (i, memchr::memchr(b'\n', buf)) {
            (0, _) => 0,
            (_, Some(at)) => at + 1,
            (_, None) => {
                buf.clear();
                return Ok((frames[i].text_offset + frames[i].text_len, read));
            }
        };
        buf.drain(..start);
        for (j, f) in frames.iter().enumerate().skip(i + 1) {
            read += f.len;
            let before = buf.len();
            self.packed.frame_until(j, buf, &mut |piece| memchr::memchr(b'\n', piece).is_some())?;
            if let Some(at) = memchr::memchr(b'\n', &buf[before..]) {
                buf.truncate(before + at + 1);
                break;
            }
        }
        Ok((frames[i].text_offset + start as u64, read))
    }
}
