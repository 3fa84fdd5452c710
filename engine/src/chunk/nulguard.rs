//! Walked huge files, whose binary detection quits at the first NUL: when a
//! searched chunk may be written ([`Hold`], from each chunk's [`Shape`]),
//! and the search again whole of a file with a NUL after some chunks were
//! written ([`Replay`], with the writers [`Counted`] and [`Skip`]). See
//! [`super`]'s module docs.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;

use termcolor::WriteColor;

use crate::options::{OutputMode, SearchOptions};
use crate::readfull::Counting;
use crate::stats::RunStats;
use crate::worker::{Haystack, Printer, SearchResult, SearchWorker};

/// What [`Hold`] needs to know of a chunk.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    len: u64,
    nul: bool,
    longest_line: u64,
}

impl Shape {
    /// The chunk's shape: a bound on its longest line that is exact only
    /// when some line may exceed `RG_BUFFER` (otherwise probing one byte
    /// in every half buffer for a line end costs next to nothing).
    pub fn of(data: &[u8]) -> Shape {
        let nul = memchr::memchr(0, data).is_some();
        let half = (RG_BUFFER / 2) as usize;
        let short = data.chunks(half).all(|w| w.len() < half || memchr::memchr(b'\n', w).is_some());
        let longest_line = if short { RG_BUFFER } else { longest_line(data) };
        Shape { len: data.len() as u64, nul, longest_line }
    }

    /// A chunk past the file's first NUL, never read.
    pub(crate) fn past_nul() -> Shape {
        Shape { len: 0, nul: true, longest_line: 0 }
    }

    /// Whether the chunk holds a NUL byte.
    pub fn has_nul(&self) -> bool {
        self.nul
    }
}

/// The length of the longest line of `data`, line end included.
fn longest_line(data: &[u8]) -> u64 {
    let mut longest = 0;
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', data) {
        longest = longest.max((end + 1 - start) as u64);
        start = end + 1;
    }
    longest.max((data.len() - start) as u64)
}

/// Quit mode: when a chunk may be written (see the module docs).
///
/// ripgrep reads a file into a buffer of 64 KiB that grows (at most to
/// about twice the longest line) and holds, besides new bytes, the partial
/// line left over from the last read. The buffer that finds the first NUL
/// therefore starts less than `capacity + longest line` before it, and
/// everything before that start is printed. So a chunk is written once the
/// chunks after it, all NUL-free, hold `Hold::guard` bytes, or reach the
/// end of the file; the first chunk with a NUL ends the chunked search.
#[derive(Default)]
pub(crate) struct Hold {
    longest_line: u64,
}

/// grep-searcher's initial read buffer.
const RG_BUFFER: u64 = 64 << 10;

impl Hold {
    /// NUL-free bytes that must follow a chunk before it is written.
    fn guard(&self) -> u64 {
        4 * RG_BUFFER.max(self.longest_line) + RG_BUFFER
    }

    /// What to do with chunk `next` of the `n` chunks of the file, given
    /// what has arrived: `arrived(i)` is `None` while chunk `i` is still
    /// being searched, `Some(None)` for a chunk that failed to load, and
    /// `Some(Some(shape))` for a searched one.
    pub fn decide(
        &mut self,
        next: usize,
        n: usize,
        arrived: impl Fn(usize) -> Option<Option<Shape>>,
    ) -> Step {
        let mut following = 0;
        for i in next..n {
            let Some(shape) = arrived(i) else { return Step::Wait };
            // A chunk that failed to load: let the combiner report its error.
            let Some(shape) = shape else { return Step::Write };
            self.longest_line = self.longest_line.max(shape.longest_line);
            if shape.nul {
                return Step::Replay;
            }
            if i > next {
                following += shape.len;
                if following >= self.guard() {
                    return Step::Write;
                }
            }
        }
        Step::Write
    }

    /// How many chunks past the written ones the workers may run ahead, so
    /// that the guard can be reached (`threads` at work besides). Chunks
    /// end at line ends, so a long line makes the chunks it spans empty:
    /// `m` chunks after chunk `j` hold at least `m × chunk_size` bytes minus
    /// the line that straddles chunk `j`'s nominal end.
    pub fn window(&self, chunk_size: u64, threads: usize) -> usize {
        let bytes = self.guard() + self.longest_line + 1;
        bytes.div_ceil(chunk_size.max(1)) as usize + 1 + 2 * threads + 2
    }
}

/// [`Hold::decide`]'s answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Write the chunk.
    Write,
    /// Hold it until more chunks arrive.
    Wait,
    /// A NUL: search the file again whole.
    Replay,
}

/// A walked file with a NUL, searched again whole as ripgrep reads it (it
/// stops reading at the NUL), its output written but for what chunks wrote.
pub(crate) struct Replay<'a> {
    /// The search's options.
    pub opts: &'a SearchOptions,
    /// What the search prints.
    pub mode: OutputMode,
    /// Whether the output is colored.
    pub color: bool,
    /// The path as printed.
    pub path: &'a Path,
    /// Named on the command line.
    pub explicit: bool,
    /// The open file.
    pub file: &'a File,
}

impl Replay<'_> {
    /// Searches the file whole, writing its output to `out` except for the
    /// first `skip` bytes (written by chunks); counts what it read in `stats`.
    pub fn search(
        &self,
        out: &mut dyn Write,
        skip: u64,
        stats: &mut RunStats,
    ) -> io::Result<SearchResult> {
        let rest = Skip { inner: out, skip };
        let wtr: Box<dyn WriteColor + '_> = if self.color {
            Box::new(termcolor::Ansi::new(rest))
        } else {
            Box::new(termcolor::NoColor::new(rest))
        };
        let printer = Printer::new(self.opts, self.mode, wtr, true);
        let mut worker = SearchWorker::new(self.opts, printer).map_err(io::Error::other)?;
        (&*self.file).seek(SeekFrom::Start(0))?;
        let mut reader = Counting { inner: self.file, read: 0 };
        let result = worker.search(self.path, self.explicit, false, Haystack::Reader(&mut reader));
        stats.bytes_read += reader.read;
        result
    }
}

/// A writer that counts what it passes on.
pub struct Counted<'a> {
    /// Where the bytes go.
    pub inner: &'a mut dyn Write,
    /// How many went.
    pub written: u64,
}

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A writer that drops the first `skip` bytes written to it.
pub struct Skip<'a> {
    /// Where the rest goes.
    pub inner: &'a mut dyn Write,
    /// Bytes still to drop.
    pub skip: u64,
}

impl Write for Skip<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let dropped = self.skip.min(buf.len() as u64) as usize;
        self.skip -= dropped as u64;
        self.inner.write_all(&buf[dropped..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A NUL-free chunk of `len` bytes whose lines are all short.
    fn plain(len: u64) -> Option<Option<Shape>> {
        Some(Some(Shape { len, nul: false, longest_line: 100 }))
    }

    #[test]
    fn shape_finds_nul_and_long_lines() {
        let s = Shape::of(b"ab\ncd\n");
        assert!(!s.nul);
        assert_eq!(s.longest_line, RG_BUFFER, "short lines are bounded by the buffer");
        assert!(Shape::of(b"a\0b\n").nul);
        let long = vec![b'x'; 3 * RG_BUFFER as usize];
        assert_eq!(Shape::of(&long).longest_line, 3 * RG_BUFFER);
    }

    #[test]
    fn a_chunk_is_written_once_its_guard_of_nul_free_bytes_follows() {
        let mut h = Hold::default();
        let guard = h.guard();
        // Chunk 0 arrived, chunk 1 not yet: wait.
        let arrived = |i: usize| if i == 0 { plain(10) } else { None };
        assert_eq!(h.decide(0, 4, arrived), Step::Wait);
        // Chunks after 0 hold less than the guard, and chunk 3 is missing.
        let arrived = |i: usize| if i < 3 { plain(guard / 4) } else { None };
        assert_eq!(h.decide(0, 4, arrived), Step::Wait);
        // Enough NUL-free bytes follow: write.
        let arrived = |i: usize| if i < 3 { plain(guard) } else { None };
        assert_eq!(h.decide(0, 4, arrived), Step::Write);
        // The last chunks of the file need nothing after them.
        assert_eq!(h.decide(3, 4, |_| plain(1)), Step::Write);
    }

    #[test]
    fn a_nul_before_the_guard_is_met_means_replay() {
        let mut h = Hold::default();
        let nul = |i: usize| match i {
            2 => Some(Some(Shape { len: 10, nul: true, longest_line: 100 })),
            _ => plain(10),
        };
        assert_eq!(h.decide(0, 4, nul), Step::Replay);
        // A failed chunk is written, so that its error is reported.
        assert_eq!(h.decide(0, 4, |i| if i == 0 { Some(None) } else { None }), Step::Write);
    }

    #[test]
    fn a_long_line_grows_the_guard_and_the_window() {
        let mut h = Hold::default();
        let (guard, window) = (h.guard(), h.window(1 << 20, 2));
        let long = |_| Some(Some(Shape { len: 1 << 20, nul: false, longest_line: 1 << 20 }));
        h.decide(0, 2, long);
        assert!(h.guard() > guard);
        assert!(h.window(1 << 20, 2) > window);
    }

    #[test]
    fn skip_drops_the_first_bytes_and_counted_counts() {
        let mut out = Vec::new();
        let mut skip = Skip { inner: &mut out, skip: 5 };
        skip.write_all(b"abc").unwrap();
        skip.write_all(b"defgh").unwrap();
        assert_eq!(out, b"fgh");
        let mut out = Vec::new();
        let mut counted = Counted { inner: &mut out, written: 0 };
        counted.write_all(b"abcd").unwrap();
        assert_eq!(counted.written, 4);
    }
}
