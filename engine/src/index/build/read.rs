//! The build's reading of one file: its table entry and distinct trigrams,
//! or the reason it is left out (always searched instead).

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::time::{Duration, Instant};

use super::listing::Seen;
use super::unchanged::Kept;
use crate::index::extract::TrigramSet;
use crate::index::table::{DocId, FileMeta, flags};
use crate::query::trigram::Gram;
use crate::sys::dirstat::DirStat;

/// One file after extraction: its table entry and trigrams.
pub(super) struct Extracted {
    /// The file's table entry.
    pub(super) meta: FileMeta,
    /// Its length in bytes (the document's).
    pub(super) len: u64,
    /// Its distinct trigrams, with their follow masks.
    pub(super) trigrams: Vec<Gram>,
    /// Time spent opening and reading it.
    pub(super) read: Duration,
    /// Whether reading it had to wait for the disk (its bytes were not all
    /// in the page cache).
    pub(super) waited: bool,
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
    handles: &mut Option<DirStat>,
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
    let Ok(mut file) = open(root, rel, handles) else {
        return skipped(flags::SKIPPED_UNREADABLE);
    };
    // A file larger than a thread's read buffer is mapped (page cache,
    // not the build's private memory).
    let map;
    let (bytes, waited): (&[u8], bool) = if f.size > super::budget::READ_BUFFER as u64 {
        // SAFETY: the map is read once, here; a file truncated meanwhile can
        // raise SIGBUS, as with any mmap reader (ripgrep accepts the same).
        match unsafe { memmap2::Mmap::map(&file) } {
            Ok(m) => {
                map = m;
                // Whether its first page must come from the disk.
                (&map, matches!(crate::sys::read_cached(&mut file, &mut [0; 1]), Ok(None)))
            }
            Err(_) => return skipped(flags::SKIPPED_UNREADABLE),
        }
    } else {
        match read_whole(&mut file, f.size, buf) {
            Ok((len, waited)) => (&buf[..len], waited),
            Err(_) => return skipped(flags::SKIPPED_UNREADABLE),
        }
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
    let len = bytes.len() as u64;
    Extracted { meta: meta(binary), len, trigrams, read, waited, extract, kept: None }
}

/// Opens the file `rel` under `root`: through the reading thread's
/// directory `handles` (one path component resolved, not every one).
pub(super) fn open(root: &Path, rel: &[u8], handles: &mut Option<DirStat>) -> io::Result<File> {
    match handles {
        Some(h) => h.open_file(rel),
        None => File::open(root.join(crate::sys::rel_path(rel))),
    }
}

/// Reads `file` (of `size` bytes when the walk saw it) to its end into
/// `buf`, which only grows, so no byte of it is cleared twice: the bytes
/// read, and whether some had to wait for the disk. A cached file takes
/// two reads (its bytes, then the end), without asking its size again.
fn read_whole(file: &mut File, size: u64, buf: &mut Vec<u8>) -> io::Result<(usize, bool)> {
    // A byte more than the walk saw (at most a read buffer): a file grown
    // since is read on.
    let want = size as usize + 1;
    if buf.len() < want {
        buf.resize(want, 0);
    }
    let (mut len, waited) = match crate::sys::read_cached(file, &mut buf[..want])? {
        Some(n) => (n, (n as u64) < size),
        None => (0, true),
    };
    loop {
        if len == buf.len() {
            buf.resize(2 * len, 0);
        }
        match file.read(&mut buf[len..]) {
            Ok(0) => return Ok((len, waited)),
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The fields of an [`Extracted`] that say nothing was read.
const NOTHING: Extracted = Extracted {
    meta: FileMeta { path: Vec::new(), size: 0, changed_ns: 0, flags: 0 },
    len: 0,
    trigrams: Vec::new(),
    read: Duration::ZERO,
    waited: false,
    extract: Duration::ZERO,
    kept: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// A file is read whole whether it kept the size the walk saw, grew
    /// past it or shrank, into a buffer that only grows.
    #[test]
    fn a_file_is_read_to_its_end_whatever_size_the_walk_saw() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut buf = Vec::new();
        for (len, seen) in [(1000, 1000), (5000, 1000), (10, 1000), (0, 0), (3, 0)] {
            let body: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            std::fs::write(&path, &body).unwrap();
            let (n, _) = read_whole(&mut File::open(&path).unwrap(), seen, &mut buf).unwrap();
            assert_eq!(&buf[..n], &body[..], "{len} bytes, {seen} seen");
        }
        assert!(buf.len() >= 5000);
    }
}
