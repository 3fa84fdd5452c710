//! One search of one haystack: matcher + searcher + printer.
//!
//! [`SearchWorker`] owns the three parts ripgrep's libraries provide and
//! searches a file, stdin or a byte slice with them. It never formats a
//! result line itself: `grep-printer` does. Cloned once per thread.

use std::io;
use std::path::Path;

use grep_printer::{JSON, Standard, Stats, Summary};
use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, Sink};
use termcolor::WriteColor;

use super::config::{Config, SearchMode};

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
    pub fn new(config: &Config, mode: SearchMode, wtr: W, separator_search: bool) -> Printer<W> {
        match mode {
            SearchMode::Standard if !config.quiet => {
                Printer::Standard(config.standard_printer(wtr, separator_search))
            }
            SearchMode::Json if !config.quiet => Printer::Json(config.json_printer(wtr)),
            _ => Printer::Summary(config.summary_printer(wtr, mode)),
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
}

/// A matcher, searchers for both read strategies, and a printer.
#[derive(Clone, Debug)]
pub struct SearchWorker<W> {
    matcher: RegexMatcher,
    searcher_mmap: Searcher,
    searcher_read: Searcher,
    printer: Printer<W>,
    binary_explicit: BinaryDetection,
    binary_implicit: BinaryDetection,
}

impl<W: WriteColor> SearchWorker<W> {
    /// Builds a worker from the resolved configuration.
    pub fn new(
        config: &Config,
        matcher: RegexMatcher,
        printer: Printer<W>,
    ) -> anyhow::Result<Self> {
        Ok(SearchWorker {
            matcher,
            searcher_mmap: config.searcher(true)?,
            searcher_read: config.searcher(false)?,
            printer,
            binary_explicit: config.binary_detection(true),
            binary_implicit: config.binary_detection(false),
        })
    }

    /// The printer, e.g. to reach its buffer.
    pub fn printer(&mut self) -> &mut Printer<W> {
        &mut self.printer
    }

    /// Searches the file at `path`; `explicit` when it was named on the command line.
    pub fn search_path(
        &mut self,
        path: &Path,
        explicit: bool,
        mmap: bool,
    ) -> io::Result<SearchResult> {
        let file = std::fs::File::open(path)?;
        self.search(path, explicit, mmap, Haystack::File(&file))
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
                haystack.search(searcher, m, &mut sink)?;
                SearchResult { has_match: sink.has_match(), stats: sink.stats().cloned() }
            }
            Printer::Summary(p) => {
                let mut sink = p.sink_with_path(m, path);
                haystack.search(searcher, m, &mut sink)?;
                SearchResult { has_match: sink.has_match(), stats: sink.stats().cloned() }
            }
            Printer::Json(p) => {
                let mut sink = p.sink_with_path(m, path);
                haystack.search(searcher, m, &mut sink)?;
                SearchResult { has_match: sink.has_match(), stats: Some(sink.stats().clone()) }
            }
        })
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
        matcher: &RegexMatcher,
        sink: S,
    ) -> io::Result<()> {
        match self {
            Haystack::File(f) => searcher.search_file(matcher, f, sink),
            Haystack::Reader(r) => searcher.search_reader(matcher, r, sink),
            Haystack::Slice(s) => searcher.search_slice(matcher, s, sink),
        }
    }
}
