//! Huge files in a search: which files are searched in chunks on every core
//! ([`crate::chunk`]), and how the parallel drivers hand them over.
//!
//! The one-thread driver asks [`Huge::search`] about every file (one
//! `fstat` each). The walker's threads must not pay a syscall per file for
//! the rare huge one, so they read files through [`Capped`], which fails
//! with [`TooBig`] once the chunk threshold has been read: the walker drops
//! that file's partial output and hands the file over, and it is searched
//! after the walk, alone, in chunks on every core ([`Huge::open`] then
//! [`Huge::search_chunked`]).

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::blocks::BlockLookup;
use super::compressed::CompressedLookup;
use super::driven::Run;
use super::subject::Subject;
use crate::chunk::{self, ChunkEngine, DecodedText, HugeFile};
use crate::kind::Format;
use crate::options::{OutputMode, SearchOptions};
use crate::readfull::Counting;
use crate::stats::RunStats;
use crate::worker::{Haystack, SearchResult, SearchWorker};

/// A search's per-run state for huge files.
pub struct Huge<'o> {
    opts: &'o SearchOptions,
    mode: OutputMode,
    engine: Option<ChunkEngine<'o>>,
    blocks: BlockLookup<'o>,
    compressed: CompressedLookup<'o>,
}

impl<'o> Huge<'o> {
    /// No chunk engine yet: it is built for the first huge file.
    pub fn new(search: Run<'o>) -> Huge<'o> {
        let (blocks, compressed) = (BlockLookup::new(search), CompressedLookup::new(search));
        Huge { opts: search.opts, mode: search.mode, engine: None, blocks, compressed }
    }

    /// The huge files (and big compressed files of an indexed format)
    /// searched so far without an index describing them.
    pub(crate) fn take_unindexed(&mut self) -> Vec<PathBuf> {
        let mut paths = self.blocks.take_unindexed();
        paths.extend(self.compressed.take_unindexed());
        paths
    }

    /// Searches the file `subject`, compressed in `format`
    /// ([`super::reading::Reading::Compressed`]), through the index of its
    /// text: its candidate blocks, decompressed and searched on every
    /// core. `None`: no index answers.
    pub(crate) fn search_compressed<W: termcolor::WriteColor>(
        &mut self,
        worker: &mut SearchWorker<W>,
        subject: &Subject,
        format: Format,
        run: &mut RunStats,
    ) -> Option<io::Result<SearchResult>> {
        let (path, explicit) = (subject.path(), subject.is_explicit());
        let file = File::open(path).ok()?;
        let plan = self.compressed.plan(path, explicit, file, format, run)?;
        if self.engine.is_none() {
            self.engine = Some(ChunkEngine::new(self.opts, self.mode).ok()?);
        }
        let engine = self.engine.as_ref().expect("built above");
        let size = plan.text.len();
        let text = DecodedText { path, explicit, size };
        let piece_size = self.opts.run.chunk_size(size);
        Some(engine.search_decoded(&text, &plan, piece_size, worker.printer().get_mut(), run))
    }

    /// Searches the file `subject` in chunks when it is a regular file at or
    /// above the threshold and the flags allow it, else whole (ripgrep's
    /// map-or-read rule: `mmap`).
    pub fn search<W: termcolor::WriteColor>(
        &mut self,
        worker: &mut SearchWorker<W>,
        subject: &Subject,
        mmap: bool,
        run: &mut RunStats,
    ) -> io::Result<SearchResult> {
        let (path, explicit) = (subject.path(), subject.is_explicit());
        let (file, chunk) = self.open(path, explicit, run)?;
        if let Some(size) = chunk {
            let huge = HugeFile { path, explicit, file: &file, size };
            return self.search_chunked(worker, &huge, run);
        }
        search_whole(worker, path, explicit, &file, mmap, run)
    }

    /// Opens the file at `path`; with its size when it is to be searched in
    /// chunks (a regular file at or above the threshold, and flags that
    /// chunks reproduce exactly; a refusal is counted in `run`).
    pub fn open(
        &self,
        path: &Path,
        explicit: bool,
        run: &mut RunStats,
    ) -> io::Result<(File, Option<u64>)> {
        let file = File::open(path)?;
        let md = file.metadata()?;
        let size = md.len();
        if !md.is_file() || size < self.opts.run.chunk_threshold {
            return Ok((file, None));
        }
        let mut head = vec![0; chunk::HEAD_LEN];
        let got = read_head(&file, &mut head)?;
        match chunk::fallback_reason(self.opts, explicit, &head[..got]) {
            None => Ok((file, Some(size))),
            Some(why) => {
                *run.fallbacks.entry(why).or_default() += 1;
                Ok((file, None))
            }
        }
    }

    /// Searches `huge` in chunks on every core, writing to `worker`'s
    /// output: only its candidate blocks when a block index describes it.
    /// A walked file with a NUL byte in its first chunk is searched whole
    /// instead: ripgrep quits there, and so does the search, without
    /// starting threads that would find the NUL and search again whole.
    pub(crate) fn search_chunked<W: termcolor::WriteColor>(
        &mut self,
        worker: &mut SearchWorker<W>,
        huge: &HugeFile<'_>,
        run: &mut RunStats,
    ) -> io::Result<SearchResult> {
        let pieces = self.blocks.pieces(huge, run);
        if pieces.is_none() && self.nul_early(huge, run)? {
            *run.fallbacks.entry(NUL_EARLY).or_default() += 1;
            return search_whole(worker, huge.path, huge.explicit, huge.file, false, run);
        }
        if self.engine.is_none() {
            let engine = ChunkEngine::new(self.opts, self.mode).map_err(io::Error::other)?;
            self.engine = Some(engine);
        }
        let engine = self.engine.as_ref().expect("built above");
        engine.search(huge, pieces.as_deref(), worker.printer().get_mut(), run)
    }

    /// Whether `huge` is a walked file (binary detection quits) with a NUL
    /// byte in its first chunk (the bytes read counted in `run`).
    fn nul_early(&self, huge: &HugeFile<'_>, run: &mut RunStats) -> io::Result<bool> {
        if self.opts.binary_detection(huge.explicit).quit_byte().is_none() {
            return Ok(false);
        }
        let lead = self.opts.run.chunk_size(huge.size).min(MAX_LEAD);
        nul_before(huge.file, &mut vec![0; chunk::HEAD_LEN], lead, run)
    }
}

/// Searches `file` whole with ripgrep's map-or-read rule (`mmap`), counting
/// it in `run`.
pub(crate) fn search_whole<W: termcolor::WriteColor>(
    worker: &mut SearchWorker<W>,
    path: &Path,
    explicit: bool,
    file: &File,
    mmap: bool,
    run: &mut RunStats,
) -> io::Result<SearchResult> {
    run.file("sequential", if mmap { "mmap" } else { "read" });
    if mmap {
        run.bytes_read += file.metadata().map_or(0, |m| m.len());
        return worker.search(path, explicit, true, Haystack::File(file));
    }
    // What was read: a walked file's search quits at its first NUL.
    let mut reader = Counting { inner: file, read: 0 };
    let result = worker.search_read(path, explicit, &mut reader);
    run.bytes_read += reader.read;
    result
}

/// Why a walked huge file is searched whole for a NUL in its first chunk.
const NUL_EARLY: &str = "binary detection: quit at a NUL in the first chunk";

/// The most bytes [`Huge::open`] reads looking for an early NUL.
const MAX_LEAD: u64 = 16 << 20;

/// Reads up to `buf.len()` bytes of `file` from `pos`; returns how many.
fn read_head_at(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match crate::sys::read_at(file, &mut buf[got..], pos + got as u64)? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

/// Reads up to `buf.len()` bytes from the start of `file`; returns how many.
fn read_head(file: &File, buf: &mut [u8]) -> io::Result<usize> {
    read_head_at(file, buf, 0)
}

/// Whether `file` holds a NUL byte in its first `len` bytes, read through
/// `buf` (the bytes read counted in `run`).
fn nul_before(file: &File, buf: &mut [u8], len: u64, run: &mut RunStats) -> io::Result<bool> {
    let mut pos = 0;
    while pos < len {
        let want = buf.len().min((len - pos) as usize);
        let got = read_head_at(file, &mut buf[..want], pos)?;
        run.bytes_read += got as u64;
        if memchr::memchr(0, &buf[..got]).is_some() {
            return Ok(true);
        }
        if got < want {
            break;
        }
        pos += got as u64;
    }
    Ok(false)
}

/// A file read through this fails with [`TooBig`] once `limit` bytes or
/// more came out of it.
pub(crate) struct Capped<'a> {
    file: &'a File,
    limit: u64,
    read: u64,
}

impl<'a> Capped<'a> {
    /// Reads `file` from its current position, up to (not including) `limit` bytes.
    pub fn new(file: &'a File, limit: u64) -> Capped<'a> {
        Capped { file, limit, read: 0 }
    }

    /// How many bytes were read.
    pub fn bytes_read(&self) -> u64 {
        self.read
    }
}

impl Read for Capped<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (&*self.file).read(buf)?;
        self.read += n as u64;
        if self.read >= self.limit {
            return Err(io::Error::other(TooBig));
        }
        Ok(n)
    }
}

/// The error [`Capped`] stops with.
#[derive(Debug)]
pub(crate) struct TooBig;

impl std::fmt::Display for TooBig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("file reaches the chunk threshold")
    }
}

impl std::error::Error for TooBig {}

/// Whether `err` is [`Capped`]'s [`TooBig`].
pub(crate) fn is_too_big(err: &io::Error) -> bool {
    err.get_ref().is_some_and(|e| e.is::<TooBig>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, Write};

    #[test]
    fn capped_fails_at_the_limit_and_not_before() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&[b'x'; 100]).unwrap();
        f.rewind().unwrap();
        assert_eq!(Capped::new(&f, 101).read_to_end(&mut Vec::new()).unwrap(), 100);
        f.rewind().unwrap();
        let err = Capped::new(&f, 100).read_to_end(&mut Vec::new()).unwrap_err();
        assert!(is_too_big(&err), "{err}");
        assert!(!is_too_big(&io::Error::other("other")));
    }
}
