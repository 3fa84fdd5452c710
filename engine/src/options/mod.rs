//! The engine's options: what a search is asked to do, as typed values.
//!
//! The command line resolves its flags into a [`SearchOptions`] once (every
//! tty- and environment-dependent default decided there); the engine then
//! builds its matcher, searcher, printers and walker from these values and
//! never sees a flag. Each group has one concern: [`MatchOptions`] how
//! patterns match, [`ReadOptions`] how a haystack becomes lines,
//! [`PrintOptions`] how results look, [`WalkOptions`] what is searched,
//! [`RunOptions`] how the work is spread and measured, [`IndexUse`] whether
//! an index may answer. The builders live in [`builders`], [`pcre2_builder`],
//! [`printers`] and [`walk_filters`]; [`regex_engine`] says which regex engine runs.

use std::path::PathBuf;

use grep_printer::{ColorSpecs, HyperlinkConfig};
use grep_searcher::{BinaryDetection, Encoding};

mod anchors;
pub mod builders;
pub mod classes;
pub mod pcre2_builder;
pub mod printers;
pub mod regex_engine;
pub mod walk_filters;

pub use regex_engine::Engine;
pub use walk_filters::{Sort, SortBy, TypeChange, WalkFilters, WalkOptions};

/// What a run produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Search files and print results in the given form.
    Search(OutputMode),
    /// List the files that would be searched (`--files`).
    Files,
    /// List file types (`--type-list`).
    Types,
}

/// The form search results take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputMode {
    /// Matching lines (the default).
    Standard,
    /// Paths of files with a match (`-l`).
    FilesWithMatches,
    /// Paths of files without a match (`--files-without-match`).
    FilesWithoutMatch,
    /// Matching lines per file (`-c`).
    Count,
    /// Matches per file (`--count-matches`).
    CountMatches,
    /// JSON lines (`--json`).
    Json,
}

/// Everything one search needs to know.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// What the run produces.
    pub mode: Mode,
    /// How patterns match.
    pub matcher: MatchOptions,
    /// How a haystack is read into lines.
    pub read: ReadOptions,
    /// How results are printed.
    pub print: PrintOptions,
    /// What is searched.
    pub walk: WalkOptions,
    /// How the work is spread, read and measured.
    pub run: RunOptions,
    /// Whether an index may answer, and where indexes live.
    pub index: IndexUse,
}

/// How the matcher treats case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// Case matters (the default).
    Sensitive,
    /// Case does not matter (`-i`).
    Insensitive,
    /// Insensitive if every pattern is all lower case (`-S`).
    Smart,
}

/// Where a match must start and end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boundary {
    /// Anywhere.
    None,
    /// At word boundaries (`-w`).
    Word,
    /// At line boundaries (`-x`).
    Line,
}

/// How patterns match.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// The patterns, deduplicated, in order; a line matching any is a match.
    pub patterns: Vec<String>,
    /// The regex engine that compiles them.
    pub engine: Engine,
    /// How case is treated.
    pub case: Case,
    /// Patterns are literal strings (`-F`).
    pub fixed_strings: bool,
    /// Where matches must start and end (`-w`, `-x`).
    pub boundary: Boundary,
    /// Matches may span lines (`-U`).
    pub multiline: bool,
    /// With `-U`, `.` matches a newline.
    pub multiline_dotall: bool,
    /// Unicode-aware classes and case folding.
    pub unicode: bool,
    /// CRLF ends a line (`--crlf`).
    pub crlf: bool,
    /// NUL ends a line (`--null-data`).
    pub null_data: bool,
    /// The compiled regex's size limit (`--regex-size-limit`; `None`: grep-regex's).
    pub size_limit: Option<usize>,
    /// The lazy DFA's cache limit (`--dfa-size-limit`; `None`: grep-regex's).
    pub dfa_size_limit: Option<usize>,
}

impl MatchOptions {
    /// `patterns` with ripgrep's default matching: regexes, case
    /// sensitive, Unicode, one line at a time, `\n` line ends, no limits.
    pub fn new(patterns: Vec<String>) -> MatchOptions {
        MatchOptions {
            patterns,
            engine: Engine::Default,
            case: Case::Sensitive,
            fixed_strings: false,
            boundary: Boundary::None,
            multiline: false,
            multiline_dotall: false,
            unicode: true,
            crlf: false,
            null_data: false,
            size_limit: None,
            dfa_size_limit: None,
        }
    }
}

/// How binary files are treated (ripgrep's three behaviours).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryMode {
    /// Walked files stop at the first NUL; named files are searched, their
    /// NULs replaced (the default).
    Default,
    /// Every file is searched, binary output suppressed (`--binary`, `-uuu`).
    SearchAndSuppress,
    /// Binary data is text (`-a`, `--null-data`).
    AsText,
}

/// The text encoding files are read in.
#[derive(Clone, Debug)]
pub enum EncodingChoice {
    /// Sniff a byte-order mark (the default).
    Auto,
    /// Raw bytes, no sniffing (`-E none`).
    None,
    /// Transcode from this encoding.
    Label(Encoding),
}

/// Whether whole files are searched through memory maps: ripgrep's rule,
/// which decides *semantics* (its mapped and read paths report a late NUL
/// differently), not only speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmapRule {
    /// rg's default: map when at most 10 paths are given, all regular files.
    Auto,
    /// Always map when possible (`--mmap`).
    Always,
    /// Never map (`--no-mmap`).
    Never,
}

/// How a haystack is read into lines (the searcher's settings).
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// Select the lines that do not match (`-v`).
    pub invert_match: bool,
    /// Stop a file after this many matching lines (`-m`).
    pub max_count: Option<u64>,
    /// Lines of context before and after each match (`-B`, `-A`).
    pub context: (usize, usize),
    /// Print every line (`--passthru`).
    pub passthru: bool,
    /// Count lines, for printing or for JSON.
    pub line_number: bool,
    /// The encoding files are read in.
    pub encoding: EncodingChoice,
    /// How binary files are treated.
    pub binary: BinaryMode,
    /// Whether whole files are memory-mapped.
    pub mmap: MmapRule,
    /// Compressed files are searched decompressed (`-z`).
    pub search_zip: bool,
    /// Files are searched through this command's stdout (`--pre`).
    pub preprocessor: Option<PathBuf>,
    /// Only files matching these globs go through the preprocessor
    /// (`--pre-glob`; empty: every file).
    pub preprocessor_globs: Vec<String>,
    /// Stop a file at the first non-matching line after a match (`--stop-on-nonmatch`).
    pub stop_on_nonmatch: bool,
}

/// How results look.
#[derive(Clone, Debug)]
pub struct PrintOptions {
    /// Whether and how to color.
    pub color: termcolor::ColorChoice,
    /// The color settings.
    pub color_specs: ColorSpecs,
    /// The path above each file's lines instead of on every line.
    pub heading: bool,
    /// The path with each result.
    pub with_filename: bool,
    /// The column of the first match (`--column`).
    pub column: bool,
    /// The byte offset of each line (`-b`).
    pub byte_offset: bool,
    /// Only the matched parts (`-o`).
    pub only_matching: bool,
    /// Every match on its own line (`--vimgrep`).
    pub per_match: bool,
    /// Matches replaced by these bytes (`-r`).
    pub replacement: Option<Vec<u8>>,
    /// Leading ASCII whitespace trimmed (`--trim`).
    pub trim: bool,
    /// Lines longer than this are omitted (`-M`).
    pub max_columns: Option<u64>,
    /// With `-M`, a preview of long lines instead.
    pub max_columns_preview: bool,
    /// The byte after a printed path (`-0`: NUL).
    pub path_terminator: Option<u8>,
    /// The byte between path components (`--path-separator`).
    pub path_separator: Option<u8>,
    /// Between non-adjacent context blocks (`None`: nothing).
    pub context_separator: Option<Vec<u8>>,
    /// Between the outputs of two files (parallel search).
    pub file_separator: Option<Vec<u8>>,
    /// `-c`/`--count-matches` also print files with a count of zero.
    pub include_zero: bool,
    /// Print nothing; stop at the first match (`-q`).
    pub quiet: bool,
    /// Collect ripgrep's statistics (for `--stats` and `--json`'s summary).
    pub stats: bool,
    /// Between a line's fields (path, line number, ...) on a matching line
    /// (`--field-match-separator`, default `:`).
    pub field_match_separator: Vec<u8>,
    /// Between a line's fields on a context line (`--field-context-separator`,
    /// default `-`).
    pub field_context_separator: Vec<u8>,
    /// How printed paths become hyperlinks (`--hyperlink-format`; the
    /// default format is empty: no hyperlinks).
    pub hyperlink: HyperlinkConfig,
    /// How stdout is buffered when searching on one thread.
    pub buffer: BufferMode,
}

/// How stdout is buffered (`--line-buffered`, `--block-buffered`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BufferMode {
    /// Line buffering on a terminal, block buffering elsewhere (the default).
    #[default]
    Auto,
    /// Flush after every line.
    Line,
    /// Flush when the buffer is full.
    Block,
}

impl PrintOptions {
    /// The stream results are written to: stdout with this run's color
    /// choice and buffering.
    pub fn stdout(&self) -> grep_cli::StandardStream {
        match self.buffer {
            BufferMode::Auto => grep_cli::stdout(self.color),
            BufferMode::Line => grep_cli::stdout_buffered_line(self.color),
            BufferMode::Block => grep_cli::stdout_buffered_block(self.color),
        }
    }

    /// Stop at the first match (`-q`, unless statistics are collected).
    pub fn quit_after_match(&self) -> bool {
        self.quiet && !self.stats
    }

    /// The standard printer writes a heading with the path above each file's lines.
    pub fn prints_heading(&self) -> bool {
        self.heading && self.with_filename
    }
}

/// Whether an index may answer, and where indexes live.
#[derive(Clone, Debug)]
pub struct IndexUse {
    /// An index covering the search may be used (not `--no-index`).
    pub enabled: bool,
    /// A server watching the indexed tree may tell what changed (not
    /// `--no-server`).
    pub server: bool,
    /// The base directory of indexes.
    pub base: PathBuf,
}

/// How huge files are read when searched in chunks: the user's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoChoice {
    /// Decide per file from its size and free memory (docs/IO.md).
    Auto,
    /// Memory-map.
    Mmap,
    /// Read with `pread` into large buffers.
    Read,
}

/// Files from this size up are searched in chunks (see docs/IO.md).
pub const DEFAULT_CHUNK_THRESHOLD: u64 = 64 << 20;

/// The largest nominal chunk size chosen by default: per-chunk costs (a
/// hand-off to the printing thread, a wake-up or two) vanish at this size,
/// and the output buffered per chunk stays bounded (docs/IO.md).
pub(crate) const DEFAULT_CHUNK_SIZE: u64 = 16 << 20;

/// The smallest nominal chunk size chosen by default.
pub(crate) const MIN_DEFAULT_CHUNK_SIZE: u64 = 1 << 20;

/// How the work is spread, read and measured.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Threads that search files (1: one thread, in walk or sorted order).
    pub threads: usize,
    /// Threads that search the chunks of one huge file.
    pub chunk_threads: usize,
    /// How chunked files are read.
    pub io: IoChoice,
    /// Files of at least this many bytes are searched in chunks.
    pub chunk_threshold: u64,
    /// The nominal chunk size (`None`: chosen from the file's size).
    pub chunk_size: Option<u64>,
    /// trigrep's own statistics were asked for (`--stats`).
    pub stats: bool,
}

impl RunOptions {
    /// The nominal size of one chunk of a file of `file_size` bytes: the
    /// chosen size, else `DEFAULT_CHUNK_SIZE` or less, so that each
    /// thread gets at least four chunks.
    pub fn chunk_size(&self, file_size: u64) -> u64 {
        match self.chunk_size {
            Some(s) => s.max(1),
            None => (file_size / (4 * self.chunk_threads.max(1) as u64))
                .clamp(MIN_DEFAULT_CHUNK_SIZE, DEFAULT_CHUNK_SIZE),
        }
    }
}

impl SearchOptions {
    /// Whether any line could be printed at all (ripgrep's `matches_possible`).
    pub fn matches_possible(&self) -> bool {
        (self.read.invert_match || !self.matcher.patterns.is_empty())
            && self.read.max_count != Some(0)
    }

    /// Whether ripgrep's rule maps whole files in this run (at most 10
    /// paths, all regular files, unless `--mmap` or `--no-mmap` decided).
    pub fn rg_mmap(&self) -> bool {
        match self.read.mmap {
            MmapRule::Always => true,
            MmapRule::Never => false,
            MmapRule::Auto => {
                let paths = &self.walk.paths;
                paths.len() <= 10 && paths.iter().all(|p| p.is_file())
            }
        }
    }

    /// Binary detection for files named on the command line (`explicit`)
    /// or found by walking.
    pub fn binary_detection(&self, explicit: bool) -> BinaryDetection {
        match (self.read.binary, explicit) {
            (BinaryMode::AsText, _) => BinaryDetection::none(),
            (BinaryMode::SearchAndSuppress, _) | (BinaryMode::Default, true) => {
                BinaryDetection::convert(b'\0')
            }
            (BinaryMode::Default, false) => BinaryDetection::quit(b'\0'),
        }
    }

    /// Whether a walked binary file is read only up to its first NUL:
    /// binary detection "quit" on the read path (the map path checks only
    /// the start of a file and then searches all of it).
    pub fn walked_binary_stops_at_nul(&self) -> bool {
        self.read.binary == BinaryMode::Default && !self.rg_mmap()
    }

    /// The line terminator of this search.
    pub fn line_terminator(&self) -> grep_matcher::LineTerminator {
        if self.matcher.crlf {
            grep_matcher::LineTerminator::crlf()
        } else if self.matcher.null_data {
            grep_matcher::LineTerminator::byte(0)
        } else {
            grep_matcher::LineTerminator::byte(b'\n')
        }
    }

    /// The walker over the search paths.
    pub fn walk_builder(&self) -> Result<ignore::WalkBuilder, ignore::Error> {
        self.walk_builder_at(&self.walk.paths)
    }

    /// The walker over `paths` (not empty), with this search's filters,
    /// threads and order.
    pub fn walk_builder_at(&self, paths: &[PathBuf]) -> Result<ignore::WalkBuilder, ignore::Error> {
        let skip_stdout = matches!(self.mode, Mode::Search(_));
        self.walk.builder_at(paths, self.run.threads, skip_stdout)
    }
}
