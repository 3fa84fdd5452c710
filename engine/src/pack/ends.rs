//! The two ends of a packed file, which is all [`super::format::parse`]
//! reads: its first bytes (the header frame) and its last (the index
//! frame and the seek table). A local file gives its whole mapping as
//! both; a remote object gives what it fetched of each end, and
//! [`Ends::needs_from`] says how much of the tail parsing needs.

use std::ops::Range;

use crate::index::format::{read_u32, read_u64};

/// A file's length with its first and last bytes.
#[derive(Clone, Copy, Debug)]
pub struct Ends<'a> {
    len: usize,
    head: &'a [u8],
    tail: &'a [u8],
    /// Whether the tail may end before tg's index frame starts (a remote
    /// object whose block index is read by range): the index frame's
    /// 8-byte header is then checked only when the tail holds it.
    pub(crate) ranged: bool,
}

impl<'a> Ends<'a> {
    /// All of a file's bytes.
    pub fn whole(file: &'a [u8]) -> Ends<'a> {
        Ends { len: file.len(), head: file, tail: file, ranged: false }
    }

    /// A file of `len` bytes that starts with `head` and ends with `tail`
    /// (each at most `len` long).
    pub fn new(len: usize, head: &'a [u8], tail: &'a [u8]) -> Ends<'a> {
        let (head, tail) = (&head[..head.len().min(len)], &tail[tail.len().saturating_sub(len)..]);
        Ends { len, head, tail, ranged: false }
    }

    /// The file's length.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The bytes of `range`, when one end holds them all.
    pub fn get(&self, range: Range<usize>) -> Option<&'a [u8]> {
        if range.start > range.end || range.end > self.len {
            return None;
        }
        if range.end <= self.head.len() {
            return self.head.get(range);
        }
        let tail_start = self.len - self.tail.len();
        let from = range.start.checked_sub(tail_start)?;
        self.tail.get(from..range.end - tail_start)
    }

    /// The little-endian `u32` at `at`.
    pub(crate) fn u32_at(&self, at: usize) -> Option<u32> {
        read_u32(self.get(at..at.checked_add(4)?)?, 0)
    }

    /// The little-endian `u64` at `at`.
    pub(crate) fn u64_at(&self, at: usize) -> Option<u64> {
        read_u64(self.get(at..at.checked_add(8)?)?, 0)
    }

    /// Where the seek table starts (`None`: the tail does not say).
    pub(crate) fn seek_table_start(&self) -> Option<usize> {
        let len = self.len;
        let count = self.u32_at(len.checked_sub(9)?)? as usize;
        let width = if self.get(len - 5..len - 4)?[0] & 0x80 != 0 { 12 } else { 8 };
        let table = count.checked_mul(width)?.checked_add(8 + 9).filter(|&t| t <= len)?;
        Some(len - table)
    }

    /// Where the tail parsing reads must start, as far as this tail tells:
    /// the seek table's start when the tail does not hold all of it yet,
    /// else the last frame's (tg's index frame). `None`: the file is no
    /// seekable file at all (parsing says why).
    pub(crate) fn needs_from(&self) -> Option<usize> {
        let start = self.seek_table_start()?;
        let count = self.u32_at(self.len - 9)? as usize;
        let width = if self.get(self.len - 5..self.len - 4)?[0] & 0x80 != 0 { 12 } else { 8 };
        match count {
            0 => Some(start),
            _ => match self.u32_at(start + 8 + (count - 1) * width) {
                Some(last) => Some(start.saturating_sub(last as usize)),
                None => Some(start),
            },
        }
    }
}
