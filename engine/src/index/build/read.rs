//! The build's reading of one file: its table entry and distinct trigrams,
//! or the reason it is left out (always searched instead).

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use super::listing::Seen;
use super::unchanged::Kept;
use crate::index::extract::TrigramSet;
use crate::index::table::{DocId, FileMeta, flags};
use crate::query::trigram::Gram;

/// One file after extraction: its table entry and trigrams.
pub(super) struct Extracted {
    /// The file's table entry.
    pub(super) meta: FileMeta,
    /// Its length in bytes (the document's).
    pub(super) len: u64,
    /// Its distinct trigrams, sorted, with their follow masks.
    pub(super) trigrams: Vec<Gram>,
    /// Time spent opening and reading it.
    pub(super) read: Duration,
    /// Time spent collecting its trigrams.
    pub(super) extract: Duration,
    /// Its document in the index replaced, whose lists it keeps (its
    /// trigrams are then not read).
    pub(super) kept: Option<DocId>,
}

/// A file the index replaced holds as it is now (`rel`, seen by the walk
/// as `f`), as that index has it: nothing is read.
pub(super) fn kept(rel: &[u8], f: Seen, k: Kept) -> Extracted {
    let view = f.flags & (flags::OUT_OF_ANY | flags::VIA_LINK);
    let flags = k.flags | view;
    let meta = FileMeta { path: rel.to_vec(), size: f.size, changed_ns: f.changed_ns, flags };
    Extracted { meta, len: k.len, kept: Some(k.doc), ..NOTHING }
}

/// Reads one file (`rel`, as the walk saw it: `f`) and collects its
/// distinct trigrams. The size and time recorded are those seen by the
/// walk, before reading: a file changed while it is read then looks
/// changed to every later query.
pub(super) fn extract(
    root: &Path,
    rel: &[u8],
    f: Seen,
    set: &mut TrigramSet,
    buf: &mut Vec<u8>,
) -> Extracted {
    // The walks that leave the file out, and whether a link leads to it.
    let view = f.flags & (flags::OUT_OF_ANY | flags::VIA_LINK);
    let started = Instant::now();
    let meta = |flags| FileMeta {
        path: rel.to_vec(),
        size: f.size,
        changed_ns: f.changed_ns,
        flags: flags | view,
    };
    if f.flags & flags::NOT_A_FILE != 0 {
        return Extracted { meta: meta(f.flags), len: 0, trigrams: Vec::new(), ..NOTHING };
    }
    let skipped = |why| Extracted {
        meta: meta(flags::ALWAYS_CANDIDATE | why),
        len: f.size,
        read: started.elapsed(),
        ..NOTHING
    };
    let Ok(mut file) = std::fs::File::open(root.join(crate::sys::rel_path(rel))) else {
        return skipped(flags::SKIPPED_UNREADABLE);
    };
    // A file larger than a thread's read buffer is mapped (page cache,
    // not the build's private memory).
    let map;
    let bytes: &[u8] = if f.size > super::budget::READ_BUFFER as u64 {
        // SAFETY: the map is read once, here; a file truncated meanwhile can
        // raise SIGBUS, as with any mmap reader (ripgrep accepts the same).
        match unsafe { memmap2::Mmap::map(&file) } {
            Ok(m) => {
                map = m;
                &map
            }
            Err(_) => return skipped(flags::SKIPPED_UNREADABLE),
        }
    } else {
        buf.clear();
        if file.read_to_end(buf).is_err() {
            return skipped(flags::SKIPPED_UNREADABLE);
        }
        buf
    };
    // UTF-16 files are transcoded by the searcher: their raw bytes do not
    // hold the text's trigrams, so they are always searched.
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return skipped(flags::SKIPPED_ENCODING);
    }
    // A binary file is indexed only up to its first NUL: a walk with default
    // binary detection reads no further, and the random bytes after it would
    // fill the index with trigrams no text query needs. Searches that read
    // binary files whole (`-a`, `--binary`, named files) always read them.
    let read = started.elapsed();
    let started = Instant::now();
    let text_end = memchr::memchr(0, bytes).unwrap_or(bytes.len());
    let binary = if text_end < bytes.len() { flags::SKIPPED_BINARY } else { 0 };
    set.add_document(&bytes[..text_end]);
    let trigrams = set.take();
    let extract = started.elapsed();
    Extracted { meta: meta(binary), len: bytes.len() as u64, trigrams, read, extract, kept: None }
}

/// The fields of an [`Extracted`] that say nothing was read.
const NOTHING: Extracted = Extracted {
    meta: FileMeta { path: Vec::new(), size: 0, changed_ns: 0, flags: 0 },
    len: 0,
    trigrams: Vec::new(),
    read: Duration::ZERO,
    extract: Duration::ZERO,
    kept: None,
};
