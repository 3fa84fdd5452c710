//! The per-file worker: one search of one haystack with a matcher, a
//! searcher and a printer.
//!
//! [`SearchWorker`] owns the three parts ripgrep's libraries provide and
//! searches a file, stdin or a byte slice with them. It never formats a
//! result line itself: `grep-printer` does. Cloned once per thread.

use std::io::{self, Read};
use std::path::Path;

use grep_printer::{JSON, Standard, Stats, Summary};
use grep_searcher::{BinaryDetection, Searcher, Sink, SinkContext, SinkFinish, SinkMatch};
use termcolor::WriteColor;

use crate::error::Result;
use crate::matcher::PatternMatcher;
use crate::options::{OutputMode, SearchOptions};
use crate::readfull::read_full;

/// The printer chosen by the search mode.
#[derive(Clone, Debug)]
pub enum Printer<W> {
    /// Matching lines.
    Standard(Standard<W>),
    /// Counts or paths.
    Summary(Summary<W>),
    /// JSON lines.
    Json(JSON<W>),
}

impl<W: WriteColor> Printer<W> {
    /// Builds the printer for `mode` writing to `wtr`.
    pub fn new(
        opts: &SearchOptions,
        mode: OutputMode,
        wtr: W,
        separator_search: bool,
    ) -> Printer<W> {
        match mode {
            OutputMode::Standard if !opts.print.quiet => {
                Printer::Standard(opts.standard_printer(wtr, separator_search))
            }
            OutputMode::Json if !opts.print.quiet => Printer::Json(opts.json_printer(wtr)),
            _ => Printer::Summary(opts.summary_printer(wtr, mode)),
        }
    }

    /// The underlying writer.
    pub fn get_mut(&mut self) -> &mut W {
        match self {
            Printer::Standard(p) => p.get_mut(),
            Printer::Summary(p) => p.get_mut(),
            Printer::Json(p) => p.get_mut(),
        }
    }
}

/// What one search found.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    /// Whether anything matched (with `-v`: whether any line was selected).
    pub has_match: bool,
    /// Per-search statistics, when collected.
    pub stats: Option<Stats>,
    /// The printer asked the searcher to stop before the end of the haystack
    /// (`-l`/`-q` after a match, binary data in convert mode, ...).
    pub stopped: bool,
    /// The absolute offset of binary data seen by this search, if any.
    pub binary_offset: Option<u64>,
}

/// A matcher, searchers for both read strategies, and a printer.
#[derive(Clone, Debug)]
pub struct SearchWorker<W> {
    matcher: PatternMatcher,
    searcher_mmap: Searcher,
    searcher_read: Searcher,
    printer: Printer<W>,
    binary_explicit: BinaryDetection,
    binary_implicit: BinaryDetection,
    /// The buffer [`SearchWorker::search_read`] reads a file's head into.
    small: Vec<u8>,
    /// A pattern is anchored at the haystack's start: where each read
    /// buffer starts shows (`options::MatchOptions::anchors_at_haystack_start`).
    anchored: bool,
}

/// The head [`SearchWorker::search_read`] reads first, and the largest file
/// it searches as a slice: the searcher's buffer, all that a read
/// strategy's first fill holds (so its binary detection sees the same
/// bytes either way).
const SMALL: usize = 64 << 10;

impl<W: WriteColor> SearchWorker<W> {
    /// Builds a worker (and its matcher) that prints with `printer`.
    pub fn new(opts: &SearchOptions, printer: Printer<W>) -> Result<Self> {
        Ok(SearchWorker {
            matcher: PatternMatcher::new(opts)?,
            searcher_mmap: opts.searcher(true),
            searcher_read: opts.searcher(false),
            printer,
            binary_explicit: opts.binary_detection(true),
            binary_implicit: opts.binary_detection(false),
            small: Vec::new(),
            anchored: opts.matcher.anchors_at_haystack_start(),
        })
    }

    /// Searches what `reader` yields from its start, labelled `path`, as
    /// the read strategy does. Its first 64 KiB are read first: a file that
    /// ends within them (a read returns nothing) and holds no byte that
    /// quits the search is searched as a slice, which spares the stream's
    /// byte-order-mark sniff and buffer copies and prints the same
    /// (`search_slice` transcodes byte-order marks, and its binary check
    /// covers the bytes a read's first fill holds); a longer one is
    /// streamed, those bytes first. Streamed from the start: binary data to
    /// convert (only a stream rewrites NUL bytes), and multi-line searches
    /// (which read everything their own way). A small file is streamed too
    /// when a slice would not be searched as rg reads it: the sniff's first
    /// read returns three bytes, so a line ending within them is a buffer
    /// of its own, searched before the binary check (`a\nb\0` prints `a`;
    /// a slice checks first); and a pattern anchored at the haystack's
    /// start (`\A`) shows a match where each of rg's buffers starts when
    /// positions are printed (such a first line, a last line without a
    /// line end).
    pub fn search_read(
        &mut self,
        path: &Path,
        explicit: bool,
        reader: &mut dyn Read,
    ) -> io::Result<SearchResult> {
        let bin = if explicit { &self.binary_explicit } else { &self.binary_implicit };
        if bin.convert_byte().is_some() || self.searcher_read.multi_line_with_matcher(&self.matcher)
        {
            return self.search(path, explicit, false, Haystack::Reader(reader));
        }
        let quit = bin.quit_byte();
        let anchored = self.anchored;
        let mut head = std::mem::take(&mut self.small);
        head.resize(SMALL, 0);
        let result = match read_full(reader, &mut head) {
            Ok(n) if n < SMALL => {
                let small = &head[..n];
                if anchored || quit.is_some_and(|b| memchr::memchr(b, small).is_some()) {
                    self.search(path, explicit, false, Haystack::Reader(&mut &small[..]))
                } else {
                    self.search(path, explicit, false, Haystack::Slice(small))
                }
            }
            Ok(n) => {
                let mut rest = (&head[..n]).chain(reader);
                self.search(path, explicit, false, Haystack::Reader(&mut rest))
            }
            Err(e) => Err(e),
        };
        self.small = head;
        result
    }

    /// The printer, e.g. to reach its buffer.
    pub fn printer(&mut self) -> &mut Printer<W> {
        &mut self.printer
    }

    /// Makes the next searches number lines from `line` and offsets from `offset`
    /// (a chunk of a larger file; see `vendor/README.md`).
    pub fn set_start_position(&mut self, line: u64, offset: u64) {
        self.searcher_mmap.set_start_position(line, offset);
        self.searcher_read.set_start_position(line, offset);
    }

    /// Searches stdin, labelled `<stdin>` in output.
    pub fn search_stdin(&mut self) -> io::Result<SearchResult> {
        let stdin = io::stdin();
        self.search(Path::new("<stdin>"), true, false, Haystack::Reader(&mut stdin.lock()))
    }

    /// Searches `haystack`, printing results under the label `path`.
    pub fn search(
        &mut self,
        path: &Path,
        explicit: bool,
        mmap: bool,
        haystack: Haystack<'_>,
    ) -> io::Result<SearchResult> {
        let bin = if explicit { &self.binary_explicit } else { &self.binary_implicit }.clone();
        let searcher = if mmap { &mut self.searcher_mmap } else { &mut self.searcher_read };
        searcher.set_binary_detection(bin);
        let m = &self.matcher;
        Ok(match &mut self.printer {
            Printer::Standard(p) => {
                let mut sink = p.sink_with_path(m, path);
                let t = Tracked::run(haystack, searcher, m, &mut sink)?;
                t.result(sink.has_match(), sink.stats().cloned())
            }
            Printer::Summary(p) => {
                let mut sink = p.sink_with_path(m, path);
                let t = Tracked::run(haystack, searcher, m, &mut sink)?;
                t.result(sink.has_match(), sink.stats().cloned())
            }
            Printer::Json(p) => {
                let mut sink = p.sink_with_path(m, path);
                let t = Tracked::run(haystack, searcher, m, &mut sink)?;
                t.result(sink.has_match(), Some(sink.stats().clone()))
            }
        })
    }
}

/// A sink that forwards to a printer's sink and records whether it asked to
/// stop and where binary data was seen.
struct Tracked<S> {
    inner: S,
    stopped: bool,
    binary_offset: Option<u64>,
}

impl<S: Sink<Error = io::Error>> Tracked<S> {
    fn run(
        haystack: Haystack<'_>,
        searcher: &mut Searcher,
        matcher: &PatternMatcher,
        inner: S,
    ) -> io::Result<Tracked<()>> {
        let mut t = Tracked { inner, stopped: false, binary_offset: None };
        haystack.search(searcher, matcher, &mut t)?;
        Ok(Tracked { inner: (), stopped: t.stopped, binary_offset: t.binary_offset })
    }

    fn keep(&mut self, go: bool) -> bool {
        self.stopped |= !go;
        go
    }
}

impl Tracked<()> {
    fn result(self, has_match: bool, stats: Option<Stats>) -> SearchResult {
        SearchResult { has_match, stats, stopped: self.stopped, binary_offset: self.binary_offset }
    }
}

impl<S: Sink<Error = io::Error>> Sink for Tracked<S> {
    type Error = io::Error;

    fn matched(&mut self, s: &Searcher, m: &SinkMatch<'_>) -> io::Result<bool> {
        let go = self.inner.matched(s, m)?;
        Ok(self.keep(go))
    }

    fn context(&mut self, s: &Searcher, c: &SinkContext<'_>) -> io::Result<bool> {
        let go = self.inner.context(s, c)?;
        Ok(self.keep(go))
    }

    fn context_break(&mut self, s: &Searcher) -> io::Result<bool> {
        let go = self.inner.context_break(s)?;
        Ok(self.keep(go))
    }

    fn binary_data(&mut self, s: &Searcher, offset: u64) -> io::Result<bool> {
        self.binary_offset.get_or_insert(offset);
        let go = self.inner.binary_data(s, offset)?;
        Ok(self.keep(go))
    }

    fn begin(&mut self, s: &Searcher) -> io::Result<bool> {
        let go = self.inner.begin(s)?;
        Ok(self.keep(go))
    }

    fn finish(&mut self, s: &Searcher, f: &SinkFinish) -> io::Result<()> {
        self.inner.finish(s, f)
    }
}

/// The bytes one search reads.
pub enum Haystack<'a> {
    /// An open file, read with the searcher's strategy.
    File(&'a std::fs::File),
    /// A stream, read with buffers.
    Reader(&'a mut dyn io::Read),
    /// Bytes already in memory (a mapped region or a decoded block).
    Slice(&'a [u8]),
}

impl Haystack<'_> {
    fn search<S: Sink<Error = io::Error>>(
        self,
        searcher: &mut Searcher,
        matcher: &PatternMatcher,
        sink: S,
    ) -> io::Result<()> {
        match self {
            Haystack::File(f) => searcher.search_file(matcher, f, sink),
            Haystack::Reader(r) => searcher.search_reader(matcher, r, sink),
            Haystack::Slice(s) => searcher.search_slice(matcher, s, sink),
        }
    }
}
