//! A line too long for a search piece, handed to the matcher as one slice
//! that is not the viewer's private memory: the line's bytes mapped from
//! the file itself when the text is one (a plain file, a spool), else from
//! a copy made once into an unlinked temporary file (in `TMPDIR`, where
//! the spool of stdin goes too). Dropping the [`LongLine`] unmaps it and
//! frees the copy.
//!
//! The search sees the whole line at once, as rg's line buffer holds it,
//! so what matches (`^`, `$`, `\b`, case) is what it was; only where the
//! bytes live changes: in the page cache, which the kernel may drop,
//! instead of a heap buffer the size of the line.

use std::fs::File;
use std::io::Write;
use std::ops::Deref;
use std::path::Path;

use memmap2::{Mmap, MmapOptions};

use super::nav;
use super::text::Text;

/// How much of the line is read (or copied) at a time.
const STEP: usize = 1 << 20;

/// A line's bytes, mapped (through its newline if it has one).
pub struct LongLine {
    map: Mmap,
    len: usize,
}

impl Deref for LongLine {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.map[..self.len]
    }
}

impl LongLine {
    /// The line of `text` starting at `start`, through its first newline,
    /// or to `end` (or the text's end) if none comes before; an error is
    /// one line for the status line (a copy that found the disk full).
    pub fn of(text: &dyn Text, start: u64, end: u64) -> Result<LongLine, String> {
        let end = end.min(text.len());
        if let Some(file) = text.file()
            && file.metadata().is_ok_and(|m| m.len() >= end)
            && let Some(line) = mapped(file, start, end)
        {
            return Ok(line);
        }
        copy_in(text, start, end, &std::env::temp_dir())
    }
}

/// The line at `start` copied into `dir` and mapped; an error says where
/// the copy failed (a full disk: "No space left on device").
fn copy_in(text: &dyn Text, start: u64, end: u64, dir: &Path) -> Result<LongLine, String> {
    copied(text, start, end, dir).map_err(|e| {
        format!("searching the long line at byte {start} needs a copy in {}: {e}", dir.display())
    })
}

/// `start..end` of `file` mapped, cut after its first newline.
fn mapped(file: &File, start: u64, end: u64) -> Option<LongLine> {
    let len = usize::try_from(end - start).ok()?;
    // SAFETY: a read-only map; a file truncated meanwhile may raise
    // SIGBUS, as for any reader of mapped files (rg too).
    let map = unsafe { MmapOptions::new().offset(start).len(len).map(file) }.ok()?;
    trigrep::sys::advise_map_sequential(&map);
    let len = memchr::memchr(b'\n', &map).map_or(len, |i| i + 1);
    Some(LongLine { map, len })
}

/// The line at `start` (to `end` at most) copied into an unlinked
/// temporary file, read through `text` a step at a time, and mapped.
fn copied(text: &dyn Text, start: u64, end: u64, dir: &Path) -> std::io::Result<LongLine> {
    let mut copy = tempfile::tempfile_in(dir)?;
    let mut buf = vec![0; STEP];
    let mut at = start;
    while at < end {
        let want = STEP.min((end - at) as usize);
        let n = nav::read_full(text, at, &mut buf[..want]);
        let (piece, ended) = match memchr::memchr(b'\n', &buf[..n]) {
            Some(i) => (&buf[..=i], true),
            None => (&buf[..n], n < want),
        };
        copy.write_all(piece)?;
        at += piece.len() as u64;
        if ended {
            break;
        }
    }
    copy.flush()?;
    let len = usize::try_from(at - start).map_err(std::io::Error::other)?;
    if len == 0 {
        return Err(std::io::Error::other("the text could not be read"));
    }
    // SAFETY: the file is ours alone (unlinked) and no longer written.
    let map = unsafe { Mmap::map(&copy)? };
    trigrep::sys::advise_map_sequential(&map);
    Ok(LongLine { map, len })
}

#[cfg(test)]
mod tests {
    use std::io::{BufWriter, Write};
    use std::path::Path;
    use std::sync::Arc;

    use trigrep::options::Case;
    use trigrep::stats::MemorySampler;

    use crate::view::finder::Finder;
    use crate::view::text::{self, Text};

    /// The long line's length: far above the bound checked.
    const LONG: u64 = 256 << 20;

    /// The most private memory a search may add, whatever the line's length.
    const BOUND: u64 = 64 << 20;

    /// A text read through `read_at` only: no file to map (as a `.gz` or
    /// a packed `.zst`), so a long line is copied before it is searched.
    struct Unmapped(Arc<dyn Text>);

    impl Text for Unmapped {
        fn len(&self) -> u64 {
            self.0.len()
        }

        fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0.read_at(offset, buf)
        }

        fn kind(&self) -> &str {
            "unmapped"
        }
    }

    /// `short`, then a line of [`LONG`] bytes with `NEEDLE` at 3/4 of it, then `after`.
    fn long_file(path: &Path) {
        let mut f = BufWriter::new(std::fs::File::create(path).unwrap());
        f.write_all(b"short\n").unwrap();
        let unit: Vec<u8> = b"abcdefghijklmnopqrstuvwxyz0123456789 ".repeat(1 << 14);
        let mut left = LONG;
        while left > 0 {
            let n = left.min(unit.len() as u64);
            f.write_all(&unit[..n as usize]).unwrap();
            left -= n;
            if left <= LONG / 4 && left + n > LONG / 4 {
                f.write_all(b"NEEDLE").unwrap();
            }
        }
        f.write_all(b"\nafter\n").unwrap();
    }

    /// Where the pinned rg says the lines matching `pattern` start (`-b`).
    fn rg_starts(path: &Path, pattern: &str) -> Vec<u64> {
        let rg = std::env::var_os("TG_TEST_RG")
            .unwrap_or_else(|| "/root/.cache/trigrep-ci/rg-15.2.0/bin/rg".into());
        let out = std::process::Command::new(rg)
            .args(["-n", "-b", "--max-columns", "20", pattern])
            .arg(path)
            .output()
            .unwrap();
        let out = String::from_utf8(out.stdout).unwrap();
        out.lines().map(|l| l.split(':').nth(1).unwrap().parse().unwrap()).collect()
    }

    /// Runs `search` and returns what it found and the private memory it added at its peak.
    fn peak<T>(search: impl FnOnce() -> T) -> (T, u64) {
        let before = trigrep::sys::private_bytes();
        let sampler = MemorySampler::start();
        let found = search();
        (found, sampler.finish().saturating_sub(before))
    }

    /// A copy that cannot be made is an error for the status line, naming
    /// where it was tried and why.
    #[test]
    fn a_copy_that_fails_says_why() {
        let t = text::Memory(vec![b'x'; 3 << 20]);
        let dir = Path::new("/nonexistent/tg-long-line");
        let e = super::copy_in(&t, 0, t.len(), dir).err().unwrap();
        assert_eq!(
            e,
            "searching the long line at byte 0 needs a copy in /nonexistent/tg-long-line: \
             No such file or directory (os error 2)"
        );
        let line = super::copy_in(&t, 1, t.len(), &std::env::temp_dir()).unwrap();
        assert_eq!(line.len(), (3 << 20) - 1);
    }

    /// `/`, `?`, `n` and `&` over a line of 256 MiB, mapped from the file
    /// or copied and mapped: the line is found where rg finds it, and the
    /// private memory stays bounded (main's build read the line whole into
    /// memory: a growth of the line's length).
    #[test]
    fn a_search_in_a_long_line_keeps_private_memory_bounded() {
        if std::env::var_os("TG_TEST_ALL").is_none_or(|v| v != "1") {
            eprintln!("skipped in the fast tier (TG_TEST_ALL=1 runs it): needs a 256 MiB line");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.log");
        long_file(&path);
        let want = rg_starts(&path, "NEEDLE");
        assert_eq!(want, vec![6], "rg: the long line, at byte 6");
        assert_eq!(rg_starts(&path, "^NEEDLE|zz"), Vec::<u64>::new());
        let plain = text::open(Some(&path), dir.path()).unwrap();
        let unmapped: Arc<dyn Text> = Arc::new(Unmapped(Arc::clone(&plain)));
        for t in [plain, unmapped] {
            let t = &*t;
            let go = &mut |_| true;
            let kind = t.kind().to_string();
            let f = Finder::new(t, "NEEDLE", Case::Sensitive).unwrap();
            let (next, grew) = peak(|| f.next_line(t, 0, go));
            assert_eq!(next, Some(want[0]), "{kind}: /NEEDLE");
            assert!(grew < BOUND, "{kind}: /NEEDLE added {} MiB", grew >> 20);
            let (prev, grew) = peak(|| f.prev_line(t, t.len(), go));
            assert_eq!(prev, Some(want[0]), "{kind}: ?NEEDLE");
            assert!(grew < BOUND, "{kind}: ?NEEDLE added {} MiB", grew >> 20);
            let mut hits = Vec::new();
            let (_, grew) =
                peak(|| f.each_line(t, 0..t.len(), &mut |at| hits.push(at), &mut || true));
            assert_eq!(hits.len(), 1, "{kind}: & counts the match once");
            assert!(grew < BOUND, "{kind}: &NEEDLE added {} MiB", grew >> 20);
            let none = Finder::new(t, "^NEEDLE|zz", Case::Sensitive).unwrap();
            let (next, grew) = peak(|| none.next_line(t, 0, go));
            assert_eq!(next, None, "{kind}: no match");
            assert!(grew < BOUND, "{kind}: a search finding none added {} MiB", grew >> 20);
            assert_eq!(none.prev_line(t, t.len(), go), None, "{kind}: none backward");
            assert_eq!(none.trouble(), None, "{kind}");
        }
    }
}
