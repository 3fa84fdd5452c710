//! Reading a packed file: [`PackedFile::open`] maps it and checks its
//! layout (`super::format::parse`), [`PackedFile::open_store`] does the
//! same through any [`Store`] (a remote object: its ends only, then the
//! frames asked for); frames are decompressed one at a time
//! ([`PackedFile::frame`], checked against the seek table), and
//! [`PackedFile::unpack`] restores the whole text on every core, checking
//! its CRC against the footer.

use std::borrow::Cow;
use std::fs::File;
use std::io::{Read, Write};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use memmap2::Mmap;
use rayon::prelude::*;

use super::directory;
use super::ends::Ends;
use super::error::PackError;
use super::format::{
    BUCKETS_AT, FLAG_HAS_NUL, Frame, HEADER_LEN, Layout, MAX_FRAME_TEXT, parse_ends,
};
use super::store::{Mapped, Store};
use crate::index::blocks::BlockIndex;
use crate::index::error::IndexError;
use crate::index::format::read_u32;
use crate::index::reader::IndexReader;
use crate::index::storage::{IndexBytes, PendingIndex, Storage};
use crate::query::Query;
use crate::query::trigram::Trigram;

/// The block index inside a packed file, as a read-only [`Storage`].
struct Inside<'a> {
    store: &'a dyn Store,
    range: Range<u64>,
}

impl Storage for Inside<'_> {
    fn begin(&self) -> Result<Box<dyn PendingIndex + '_>, IndexError> {
        Err(IndexError::InvalidInput("the index inside a packed file is read-only".into()))
    }

    fn load(&self) -> Result<IndexBytes, IndexError> {
        Ok(self.store.index_bytes(self.range.clone())?)
    }
}

/// The tail first fetched of a packed file that is read through its ends
/// (a remote one): the seek table of up to 5,000 frames, and a small
/// container's index frame, in one request (a larger index: one more).
const TAIL: u64 = 64 << 10;

/// Frames decompressed per batch by [`PackedFile::unpack`].
const UNPACK_BATCH: usize = 16;

/// A container's block index as one search reads it.
pub(crate) struct SearchIndex {
    /// The block index.
    pub(crate) index: BlockIndex,
    /// The trigrams whose lists were read (sorted; `None`: every list is
    /// at hand).
    pub(crate) lists: Option<Vec<Trigram>>,
    /// The data frames that can match, named by the frame directory
    /// (`None`: the index's lists tell).
    pub(crate) frames: Option<Vec<usize>>,
}

/// An open packed file: a tg container or another tool's seekable zstd file
/// (a clone shares the mapping).
#[derive(Clone)]
pub struct PackedFile {
    store: Arc<dyn Store>,
    layout: Layout,
    /// Where the tail read when it was opened starts.
    tail_from: u64,
}

impl PackedFile {
    /// Opens `file`: `None` when it is neither a tg container nor a
    /// seekable zstd file whose seek table describes its frames; an error
    /// when it is a tg container that is damaged, or I/O failed.
    pub fn open(file: &File) -> Result<Option<PackedFile>, PackError> {
        if file.metadata()?.len() == 0 {
            return Ok(None);
        }
        // SAFETY: a read-only map of a file we only read; a file truncated
        // while mapped can raise SIGBUS, as with any mmap reader.
        let map = unsafe { Mmap::map(file)? };
        PackedFile::open_store(Arc::new(Mapped(Arc::new(map))))
    }

    /// [`PackedFile::open`] of the file `store` reads: its first bytes and
    /// its tail are read (the tail once more when the first read was too
    /// short for the seek table and the index frame), nothing else.
    pub fn open_store(store: Arc<dyn Store>) -> Result<Option<PackedFile>, PackError> {
        let len = store.len();
        if len == 0 {
            return Ok(None);
        }
        let [first, last] = PackedFile::ends(len);
        let mut from = last.start;
        // A store that fetches what is read keeps a large block index
        // where it is (read by range, `partial`): the tail must hold the
        // seek table and the index's footer and table of contents only.
        let ranged = !store.holds(0..len);
        // A reader that kept a version 1 container's header holds 24 bytes;
        // a frame directory's head is read once the header says there is one.
        let short = 0..first.end.min(HEADER_LEN as u64);
        let kept_short = !store.holds(first.clone()) && store.holds(short.clone());
        let first = if kept_short { short } else { first };
        store.want(&[first.clone(), last])?;
        let mut head = store.bytes(first)?;
        let tg = super::format::is_tg(&head);
        if tg && head.len() < BUCKETS_AT as usize && read_u32(&head, 16).is_some_and(|v| v >= 2) {
            head = store.bytes(0..BUCKETS_AT.min(len))?;
        }
        let mut tail = store.bytes(from..len)?;
        let ranged = ranged && tg;
        // Twice at most: the seek table's start, then the index frame's.
        for _ in 0..2 {
            let ends = Ends::new(len as usize, &head, &tail);
            let need = match (ends.needs_from(), ends.seek_table_start()) {
                (Some(need), Some(table)) if ranged => {
                    Some(need.max(table.saturating_sub(super::partial::MARGIN)))
                }
                (need, _) => need,
            };
            match need {
                Some(need) if (need as u64) < from => {
                    from = need as u64;
                    tail = store.bytes(from..len)?;
                }
                _ => break,
            }
        }
        let mut ends = Ends::new(len as usize, &head, &tail);
        ends.ranged = ranged;
        let parsed = parse_ends(&ends);
        drop((head, tail));
        match parsed {
            Ok(layout) => Ok(Some(PackedFile { store, layout, tail_from: from })),
            Err(e) if tg => Err(e),
            Err(PackError::Io(e)) => Err(PackError::Io(e)),
            Err(_) => Ok(None),
        }
    }

    /// What [`PackedFile::open_store`] reads first of a file of `len`
    /// bytes (at once): its header, and its tail.
    pub(crate) fn ends(len: u64) -> [Range<u64>; 2] {
        [0..BUCKETS_AT.min(len), len.saturating_sub(TAIL)..len]
    }

    /// Says that data frames `frames` (in order) are about to be read: a
    /// remote store fetches them now, neighbours in one request.
    pub fn want_frames(&self, frames: &[usize]) -> std::io::Result<()> {
        let ranges: Vec<Range<u64>> = frames
            .iter()
            .filter_map(|&i| self.layout.frames.get(i))
            .map(|f| f.offset..f.offset + f.len)
            .collect();
        self.store.want(&ranges)
    }

    /// The length of the file.
    pub fn len(&self) -> u64 {
        self.store.len()
    }

    /// Whether the file is empty (never, once open).
    pub fn is_empty(&self) -> bool {
        self.store.is_empty()
    }

    /// Whether tg wrote it (it carries a block index and a footer).
    pub fn is_tg(&self) -> bool {
        self.layout.tg.is_some()
    }

    /// The data frames, in text order.
    pub fn frames(&self) -> &[Frame] {
        &self.layout.frames
    }

    /// The length of the whole text.
    pub fn text_len(&self) -> u64 {
        self.layout.text_len()
    }

    /// Whether the text holds a NUL byte (`None`: unknown, not tg's).
    pub fn has_nul(&self) -> Option<bool> {
        self.layout.tg.as_ref().map(|(f, _)| f.flags & FLAG_HAS_NUL != 0)
    }

    /// The block index carried in the file (`None`: not tg's). Its blocks
    /// are checked to be the data frames.
    pub fn block_index(&self) -> Option<Result<BlockIndex, PackError>> {
        let (_, range) = self.layout.tg.clone()?;
        let open = || -> Result<BlockIndex, PackError> {
            if range.end as u64 > self.store.len() {
                return Err(PackError::Corrupt("the index lies outside the file".into()));
            }
            let range = range.start as u64..range.end as u64;
            self.frames_of(IndexReader::load(&Inside { store: self.store.as_ref(), range })?)
        };
        Some(open())
    }

    /// The block index carried in the file, read for a search for
    /// `query(edges)` (`edges`: whether the index holds its documents'
    /// edges): a large index not at hand (a remote object's) is read by
    /// range, its tables and the lists the query needs only
    /// (`super::partial`), each checked against its checksum (a mismatch
    /// is [`PackError::Damaged`]), with the trigrams of the lists read
    /// (sorted; the search asks `partial::readable` of its query), or no
    /// list when the frame directory names the few frames that can match;
    /// else the whole index, checked against the footer's CRC
    /// ([`PackedFile::check_index`]).
    pub(crate) fn block_index_for(
        &self,
        query: &dyn Fn(bool) -> Query,
    ) -> Option<Result<SearchIndex, PackError>> {
        let (_, range) = self.layout.tg.clone()?;
        let whole = range.start as u64..range.end as u64;
        if self.store.holds(whole.clone()) || whole.end - whole.start <= super::partial::WHOLE {
            return match self.check_index() {
                Ok(()) => self.block_index().map(|index| {
                    index.map(|index| SearchIndex { index, lists: None, frames: None })
                }),
                Err(e) => Some(Err(e)),
            };
        }
        // The frames of a frame directory whose buckets for the query are
        // at hand (a first reader fetches them with the file's ends), when
        // they are few; lists planned without edges hold in any index.
        let n = self.frames().len();
        let held = || directory::held_frames(self.store.as_ref(), &query(false), n);
        let frames = match self.layout.directory.then(held).transpose() {
            Ok(frames) => frames.flatten(),
            Err(e) => return Some(Err(e)),
        };
        let tail_from = self.tail_from;
        // The first frame, which every search reads (the head of the
        // text), and the directory's frames, come with the index's tables.
        let mut first = vec![0];
        first.extend(frames.iter().flatten().filter(|&&i| i > 0));
        let first: Vec<Range<u64>> = first
            .iter()
            .filter_map(|&i| self.frames().get(i))
            .map(|f| f.offset..f.offset + f.len)
            .collect();
        let lists = |edges| if frames.is_some() { Query::All } else { query(edges) };
        let read =
            || super::partial::read(self.store.as_ref(), whole.clone(), tail_from, &lists, &first);
        let reader = match read() {
            // What was kept of the index did not check sound: read afresh.
            Err(PackError::Damaged(_)) if self.store.forget_kept_part() => read(),
            other => other,
        };
        Some(reader.and_then(|(reader, lists)| {
            Ok(SearchIndex { index: self.frames_of(reader)?, lists: Some(lists), frames })
        }))
    }

    /// Checks every bucket of its frame directory, when it has one.
    pub(crate) fn check_directory(&self) -> Result<(), PackError> {
        match self.layout.directory {
            true => directory::check(self.store.as_ref(), self.frames().len()),
            false => Ok(()),
        }
    }

    /// The block index `reader` reads, checked to describe the data frames.
    fn frames_of(&self, reader: IndexReader) -> Result<BlockIndex, PackError> {
        let index = BlockIndex::from_reader(reader, PathBuf::new())?;
        let frames = self.frames();
        let same = index.block_count() as usize == frames.len()
            && index
                .blocks()
                .zip(frames)
                .all(|(b, f)| (b.offset, b.len) == (f.text_offset, f.text_len) && b.first_line > 0);
        if !same {
            return Err(PackError::Mismatch("the block index describes other frames".into()));
        }
        Ok(index)
    }

    /// Checks the block index carried in a tg container against the
    /// footer's CRC (another tool's file carries none: nothing to check).
    pub fn check_index(&self) -> Result<(), PackError> {
        let Some((footer, range)) = &self.layout.tg else { return Ok(()) };
        let bytes = self.store.index_bytes(range.start as u64..range.end as u64).ok();
        if bytes.as_deref().map(crc32fast::hash) != Some(footer.index_crc) {
            return Err(PackError::Corrupt("the block index's checksum does not match".into()));
        }
        Ok(())
    }

    /// Up to `len` bytes of the start of the text, decompressing no more
    /// than needed.
    pub fn head(&self, len: usize) -> Result<Vec<u8>, PackError> {
        let mut head = Vec::with_capacity(len);
        for i in 0..self.frames().len() {
            if head.len() >= len {
                break;
            }
            let data = self.compressed(i)?;
            let decoder = zstd::stream::read::Decoder::with_buffer(&data[..])?.single_frame();
            decoder.take((len - head.len()) as u64).read_to_end(&mut head)?;
        }
        Ok(head)
    }

    /// Decodes the start of data frame `i` until `stop` says enough was
    /// appended to `buf` (it gets each piece appended so far) or the frame ends.
    pub fn frame_until(
        &self,
        i: usize,
        buf: &mut Vec<u8>,
        stop: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<(), PackError> {
        let src = self.compressed(i)?;
        let mut decoder = zstd::stream::read::Decoder::with_buffer(&src[..])?.single_frame();
        let mut piece = vec![0; 64 << 10];
        loop {
            let n = decoder.read(&mut piece)?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&piece[..n]);
            if stop(&piece[..n]) {
                return Ok(());
            }
        }
    }

    /// The bytes of data frame `i` in the file.
    pub fn compressed(&self, i: usize) -> std::io::Result<Cow<'_, [u8]>> {
        let f = &self.layout.frames[i];
        self.store.bytes(f.offset..f.offset + f.len)
    }

    /// Decompresses data frame `i` into `buf` (replacing what it held); an error
    /// when the frame is damaged or its text is not the length the seek
    /// table says (zstd checks the frame's own checksum when it has one).
    pub fn frame(
        &self,
        i: usize,
        dctx: &mut zstd::bulk::Decompressor<'_>,
        buf: &mut Vec<u8>,
    ) -> Result<(), PackError> {
        buf.clear();
        buf.reserve(self.layout.frames[i].text_len as usize);
        self.frame_into(i, dctx, buf)
    }

    /// [`PackedFile::frame`] into `out`, a slice or a `Vec` (appended to),
    /// which must have room for the frame's text.
    pub fn frame_into<C: zstd::zstd_safe::WriteBuf + ?Sized>(
        &self,
        i: usize,
        dctx: &mut zstd::bulk::Decompressor<'_>,
        out: &mut C,
    ) -> Result<(), PackError> {
        let f = self.layout.frames[i];
        let src = self.compressed(i)?;
        let src = &src[..];
        let bad = |what: String| PackError::Mismatch(format!("frame {i}: {what}"));
        if f.text_len > MAX_FRAME_TEXT {
            return Err(bad(format!("{} bytes of text is more than a frame holds", f.text_len)));
        }
        match zstd::zstd_safe::find_frame_compressed_size(src) {
            Ok(n) if n == src.len() => {}
            _ => return Err(bad(format!("not one zstd frame of {} bytes", src.len()))),
        }
        if let Ok(Some(n)) = zstd::zstd_safe::get_frame_content_size(src)
            && n != f.text_len
        {
            return Err(bad(format!(
                "holds {n} bytes of text, the seek table says {}",
                f.text_len
            )));
        }
        let got = dctx.decompress_to_buffer(src, out).map_err(|e| bad(e.to_string()))?;
        if got as u64 != f.text_len {
            return Err(bad(format!(
                "holds {got} bytes of text, the seek table says {}",
                f.text_len
            )));
        }
        Ok(())
    }

    /// Decompresses the data frames `frames` on every core.
    fn decompress(&self, frames: Vec<usize>) -> Vec<Result<Vec<u8>, PackError>> {
        frames
            .into_par_iter()
            .map_init(zstd::bulk::Decompressor::new, |dctx, i| {
                let dctx =
                    dctx.as_mut().map_err(|e| std::io::Error::new(e.kind(), e.to_string()))?;
                let mut text = Vec::new();
                self.frame(i, dctx, &mut text)?;
                Ok(text)
            })
            .collect()
    }

    /// Writes the whole text to `out`, decompressing frames on every core;
    /// returns its length. A tg container's text is checked against the
    /// footer's CRC (an error after the text was written means it is wrong).
    pub fn unpack(&self, out: &mut dyn Write) -> Result<u64, PackError> {
        let n = self.layout.frames.len();
        let mut crc = crc32fast::Hasher::new();
        let mut written = 0;
        // The next batch is decompressed on every core while this thread
        // checks and writes the last one.
        std::thread::scope(|scope| -> Result<(), PackError> {
            let batch = |start: usize| {
                scope.spawn(move || {
                    self.decompress((start..(start + UNPACK_BATCH).min(n)).collect())
                })
            };
            let mut next = (n > 0).then(|| batch(0));
            let mut start = 0;
            while let Some(job) = next.take() {
                let texts =
                    job.join().map_err(|_| PackError::Corrupt("a decoder panicked".into()))?;
                start += UNPACK_BATCH;
                next = (start < n).then(|| batch(start));
                for text in texts {
                    let text = text?;
                    crc.update(&text);
                    out.write_all(&text)?;
                    written += text.len() as u64;
                }
            }
            Ok(())
        })?;
        out.flush()?;
        if let Some((footer, _)) = &self.layout.tg
            && (crc.finalize() != footer.text_crc || written != footer.text_len)
        {
            return Err(PackError::Corrupt("the text's checksum does not match the footer".into()));
        }
        Ok(written)
    }
}
