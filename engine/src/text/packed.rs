//! The text inside a packed file (`tg pack`), read through the block index
//! it carries: its data frames are the blocks, and any range is
//! decompressed from the frames that hold it.

use std::borrow::Cow;
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Mutex;

use super::{BlockText, Opened, TextIndex};
use crate::index::blocks::BlockIndex;
use crate::pack::PackError;
use crate::pack::read::{PackedFile, SearchIndex};
use crate::pack::verify;
use crate::query::Query;
use crate::query::trigram::Trigram;

/// A tg container whose bytes were checked sound ([`verify::check`]).
pub struct PackedText {
    packed: PackedFile,
    index: BlockIndex,
    /// The trigrams of the posting lists read of an index read by range
    /// (sorted; `None`: the whole index is at hand).
    lists: Option<Vec<Trigram>>,
    /// The frames that can match, as the frame directory named them for
    /// one search (`None`: the index's lists tell).
    frames: Option<Vec<usize>>,
    /// The frame the last read decompressed, and its text.
    last: Mutex<Option<(usize, Vec<u8>)>>,
}

impl PackedText {
    /// The text of the packed file `file` (open, at `path`): missing when
    /// it is not a tg container (another tool's seekable file carries no
    /// index); a damaged container is [`PackError::Damaged`] (checked
    /// whole once per stamp, the verdict kept under `base`).
    pub fn open(base: &Path, path: &Path, file: &File) -> Result<Opened<PackedText>, PackError> {
        match PackedFile::open(file)? {
            Some(packed) if packed.is_tg() => PackedText::of(&packed, file, path, base),
            _ => Ok(Opened::Missing),
        }
    }

    /// [`PackedText::open`] of a container already open as `packed`; an
    /// error other than [`PackError::Damaged`] or I/O means its block
    /// index is unusable (built by another version of tg, say), not that
    /// the text is damaged.
    pub fn of(
        packed: &PackedFile,
        file: &File,
        path: &Path,
        base: &Path,
    ) -> Result<Opened<PackedText>, PackError> {
        verify::check(packed, file, path, base)?;
        let index = match packed.block_index() {
            Some(index) => index?,
            None => return Ok(Opened::Missing),
        };
        let packed = packed.clone();
        let last = Mutex::new(None);
        Ok(Opened::Trusted(PackedText { packed, index, lists: None, frames: None, last }))
    }

    /// The text of the tg container `packed` that cannot be checked whole
    /// before it is read (a remote object, read by range): its block index
    /// is checked against the footer's CRC now, and every frame as it is
    /// decompressed (its checksum, its length in the seek table), so a
    /// damaged container is an error where it is read, never a wrong line
    /// (a frame never read is never checked).
    pub fn read_checked(packed: &PackedFile) -> Result<Opened<PackedText>, PackError> {
        packed.check_index()?;
        let whole = |index| SearchIndex { index, lists: None, frames: None };
        PackedText::with(packed, packed.block_index().map(|i| i.map(whole)))
    }

    /// [`PackedText::read_checked`] for one search for `query(edges)`: a
    /// large block index is read by range, its tables and the lists the
    /// query needs only, each checked against its own CRC
    /// (`PackedFile::block_index_for`); the search then asks
    /// `PackedText::readable` of its query.
    pub fn read_for(
        packed: &PackedFile,
        query: &dyn Fn(bool) -> Query,
    ) -> Result<Opened<PackedText>, PackError> {
        PackedText::with(packed, packed.block_index_for(query))
    }

    /// What a search for `query` asks of the block index: `query` itself
    /// when the whole index is at hand, else `query` with every leaf whose
    /// list was not read taken as true (it admits a few more frames).
    pub(crate) fn readable<'q>(&self, query: &'q Query) -> Cow<'q, Query> {
        match &self.lists {
            None => Cow::Borrowed(query),
            Some(lists) => Cow::Owned(crate::pack::partial::readable(query, lists)),
        }
    }

    /// The frames the frame directory named for the search this text was
    /// read for (`None`: ask the block index).
    pub(crate) fn directory_frames(&self) -> Option<&[usize]> {
        self.frames.as_deref()
    }

    /// The text of `packed` through `index`, its block index as read
    /// (`None`: it carries none).
    fn with(
        packed: &PackedFile,
        index: Option<Result<SearchIndex, PackError>>,
    ) -> Result<Opened<PackedText>, PackError> {
        let Some(index) = index else { return Ok(Opened::Missing) };
        let (packed, SearchIndex { index, lists, frames }) = (packed.clone(), index?);
        Ok(Opened::Trusted(PackedText { packed, index, lists, frames, last: Mutex::new(None) }))
    }

    /// The container.
    pub fn packed(&self) -> &PackedFile {
        &self.packed
    }

    /// Decompresses frame `i` into `buf`.
    fn frame(&self, i: usize, buf: &mut Vec<u8>) -> io::Result<()> {
        let mut dctx = zstd::bulk::Decompressor::new()?;
        Ok(self.packed.frame(i, &mut dctx, buf)?)
    }
}

impl BlockText for PackedText {
    fn kind(&self) -> &'static str {
        "packed"
    }

    fn len(&self) -> u64 {
        self.packed.text_len()
    }

    fn index(&self) -> &dyn TextIndex {
        &self.index
    }

    /// Decodes the first frame only as far as `len` bytes (its first zstd
    /// block or so), not whole.
    fn head(&self, len: usize) -> io::Result<Vec<u8>> {
        Ok(self.packed.head(len)?)
    }

    /// Frames the read covers whole are decompressed straight into `buf`
    /// (no copy, no lock: readers of whole blocks run side by side); the
    /// frame a read covers only in part is kept for the next read. The
    /// frames of a read are asked for together first (a remote container
    /// fetches them in one request, not one each).
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let frames = self.packed.frames();
        let end = offset + buf.len() as u64;
        let first = frames.partition_point(|f| f.text_offset + f.text_len <= offset);
        let last = frames.partition_point(|f| f.text_offset < end);
        if last > first + 1 {
            self.packed.want_frames(&(first..last).collect::<Vec<_>>())?;
        }
        let (mut at, mut filled) = (offset, 0);
        while filled < buf.len() {
            let i = frames.partition_point(|f| f.text_offset + f.text_len <= at);
            let Some(f) = frames.get(i) else {
                return Err(io::ErrorKind::UnexpectedEof.into());
            };
            let whole = f.text_len as usize;
            if at == f.text_offset && buf.len() - filled >= whole {
                let mut dctx = zstd::bulk::Decompressor::new()?;
                self.packed.frame_into(i, &mut dctx, &mut buf[filled..filled + whole])?;
                (filled, at) = (filled + whole, at + f.text_len);
                continue;
            }
            let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
            if last.as_ref().is_none_or(|(k, _)| *k != i) {
                let mut text = Vec::new();
                self.frame(i, &mut text)?;
                *last = Some((i, text));
            }
            let text = &last.as_ref().expect("decompressed above").1;
            let from = (at - f.text_offset) as usize;
            let n = (text.len() - from).min(buf.len() - filled);
            buf[filled..filled + n].copy_from_slice(&text[from..from + n]);
            filled += n;
            at += n as u64;
        }
        Ok(())
    }
}
