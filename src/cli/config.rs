//! Stage two of flag parsing: raw [`SearchArgs`] become a resolved [`Config`].
//!
//! Every default that depends on the environment (is stdout a terminal? is
//! stdin readable? is the one path a file?) is decided here, once, the way
//! ripgrep decides it. The [`Config`] then builds the matcher, searcher,
//! printers and walker; nothing downstream reads raw flags.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use grep_printer::{ColorSpecs, UserColorSpec};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Encoding, MmapChoice, Searcher, SearcherBuilder};

use super::args::{ColorWhen, IoFlag, SearchArgs, SortBy};

mod printers;
mod walk;

/// What a run produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Search files and print results in the given form.
    Search(SearchMode),
    /// List the files that would be searched (`--files`).
    Files,
    /// List file types (`--type-list`).
    Types,
}

/// The form search results take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchMode {
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

/// Files from this size up are searched in chunks (see docs/IO.md).
pub const DEFAULT_CHUNK_THRESHOLD: u64 = 64 << 20;

/// The largest nominal chunk size chosen by default: per-chunk costs (a
/// hand-off to the printing thread, a wake-up or two) vanish at this size,
/// and the output buffered per chunk stays bounded (docs/IO.md).
pub const DEFAULT_CHUNK_SIZE: u64 = 16 << 20;

/// The smallest nominal chunk size chosen by default.
pub const MIN_DEFAULT_CHUNK_SIZE: u64 = 1 << 20;

/// How case is treated by the matcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CaseMode {
    Sensitive,
    Insensitive,
    Smart,
}

/// How huge files are read: the user's `--io` choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoChoice {
    /// Decide per file from its size and free memory ([`super::io::io_choice`]).
    Auto,
    /// Always try to memory-map.
    Mmap,
    /// Always read with buffers.
    Read,
}

/// The resolved configuration of one `tg` run.
#[derive(Debug)]
#[allow(dead_code)] // some fields are only read by the index planner (not built yet)
pub struct Config {
    /// What the run produces.
    pub mode: Mode,
    /// The patterns, deduplicated, in order.
    pub patterns: Vec<String>,
    /// The paths to search (`-` is stdin).
    pub paths: Vec<PathBuf>,
    /// No path was given: `./` is searched and its prefix stripped from output.
    pub has_implicit_path: bool,
    /// Exactly one file (or stdin) is searched.
    pub is_one_file: bool,
    /// Print nothing, stop at the first match.
    pub quiet: bool,
    /// Collect statistics (for `--stats`, and always for `--json`'s summary).
    pub stats: bool,
    /// The number of search threads.
    pub threads: usize,
    /// Sort order of the results, if any.
    pub sort: Option<(SortBy, bool)>,
    /// Suppress per-file error messages.
    pub no_messages: bool,
    /// The read strategy requested.
    pub io: IoChoice,
    /// Skip any index and scan.
    pub no_index: bool,
    /// Where indexes live, if overridden.
    pub index_dir: Option<PathBuf>,
    /// Invert matching (`-v`).
    pub invert_match: bool,
    /// Stop after this many matching lines per file.
    pub max_count: Option<u64>,
    /// Case mode resolved to a yes/no, for the planner.
    pub case_insensitive: bool,
    /// Patterns are literals.
    pub fixed_strings: bool,
    /// Multi-line matching (`-U`).
    pub multiline: bool,
    /// `.` matches `\n` (with `-U`).
    pub multiline_dotall: bool,
    /// Unicode-aware matching.
    pub unicode: bool,
    /// An explicit `-E` encoding other than auto.
    pub encoding: Option<String>,
    args: SearchArgs,
    case: CaseMode,
    color: termcolor::ColorChoice,
    heading: bool,
    line_number: bool,
    column: bool,
    with_filename: bool,
    path_terminator: Option<u8>,
    path_separator: Option<u8>,
    file_separator: Option<Vec<u8>>,
    context: (usize, usize),
    binary_explicit: BinaryDetection,
    binary_implicit: BinaryDetection,
    max_filesize: Option<u64>,
    max_columns: Option<u64>,
    color_specs: ColorSpecs,
    no_ignore: bool,
    hidden: bool,
}

impl Config {
    /// Resolves raw arguments; `stdin_is_readable` says whether stdin is a pipe or file.
    pub fn from_args(mut args: SearchArgs) -> anyhow::Result<Config> {
        let is_tty = std::io::stdout().is_terminal();
        let mut stdin_consumed = false;
        let mut mode = if args.type_list {
            Mode::Types
        } else if args.files {
            Mode::Files
        } else if args.json {
            Mode::Search(SearchMode::Json)
        } else if args.files_with_matches {
            Mode::Search(SearchMode::FilesWithMatches)
        } else if args.files_without_match {
            Mode::Search(SearchMode::FilesWithoutMatch)
        } else if args.count {
            Mode::Search(SearchMode::Count)
        } else if args.count_matches {
            Mode::Search(SearchMode::CountMatches)
        } else {
            Mode::Search(SearchMode::Standard)
        };
        if let Mode::Search(m) = &mut mode {
            if *m == SearchMode::CountMatches && args.invert_match {
                *m = SearchMode::Count;
            } else if *m == SearchMode::Count && args.only_matching {
                *m = SearchMode::CountMatches;
            }
        }

        let patterns = if matches!(mode, Mode::Search(_)) {
            let mut patterns: Vec<String> = Vec::new();
            let mut add = |p: String| {
                if !patterns.contains(&p) {
                    patterns.push(p);
                }
            };
            if args.regexp.is_empty() && args.file.is_empty() {
                if args.positional.is_empty() {
                    bail!("trigrep requires at least one pattern to execute a search");
                }
                let os = args.positional.remove(0);
                match os.into_string() {
                    Ok(p) => add(p),
                    Err(_) => bail!("pattern given is not valid UTF-8"),
                }
            } else {
                for p in std::mem::take(&mut args.regexp) {
                    add(p);
                }
                for path in std::mem::take(&mut args.file) {
                    let pats = if path == Path::new("-") {
                        stdin_consumed = true;
                        grep_cli::patterns_from_stdin()
                    } else {
                        grep_cli::patterns_from_path(&path)
                    }?;
                    for p in pats {
                        add(p);
                    }
                }
            }
            patterns
        } else {
            Vec::new()
        };

        let mut paths: Vec<PathBuf> = args.positional.drain(..).map(PathBuf::from).collect();
        let (has_implicit_path, is_one_file) = if !paths.is_empty() {
            if stdin_consumed && paths.iter().any(|p| p == Path::new("-")) {
                bail!("error: attempted to read patterns from stdin while also searching stdin");
            }
            let one = paths.len() == 1 && (paths[0] == Path::new("-") || !paths[0].is_dir());
            (false, one)
        } else {
            let use_cwd = !grep_cli::is_readable_stdin()
                || stdin_consumed
                || !matches!(mode, Mode::Search(_));
            if use_cwd {
                paths.push(PathBuf::from("./"));
                (true, false)
            } else {
                paths.push(PathBuf::from("-"));
                (true, true)
            }
        };
        let only_stdin = paths.len() == 1 && paths[0] == Path::new("-");

        let case = if args.ignore_case {
            CaseMode::Insensitive
        } else if args.smart_case {
            CaseMode::Smart
        } else {
            CaseMode::Sensitive
        };
        let color = match args.color {
            ColorWhen::Auto if is_tty => termcolor::ColorChoice::Auto,
            ColorWhen::Auto | ColorWhen::Never => termcolor::ColorChoice::Never,
            ColorWhen::Always => termcolor::ColorChoice::Always,
            ColorWhen::Ansi => termcolor::ColorChoice::AlwaysAnsi,
        };
        let column = if args.column {
            true
        } else if args.no_column {
            false
        } else {
            args.vimgrep
        };
        let heading = if args.heading {
            !args.vimgrep
        } else if args.no_heading {
            false
        } else {
            !args.vimgrep && is_tty
        };
        let quiet = args.quiet;
        let line_number = if args.line_number {
            true
        } else if args.no_line_number || quiet {
            false
        } else {
            match mode {
                Mode::Search(SearchMode::Json) => true,
                Mode::Search(SearchMode::Standard) => {
                    (is_tty && !only_stdin) || column || args.vimgrep
                }
                _ => false,
            }
        };
        let sort = match (args.sort, args.sortr) {
            (Some(SortBy::None), _) | (_, Some(SortBy::None)) => None,
            (Some(s), None) => Some((s, false)),
            (_, Some(s)) => Some((s, true)),
            (None, None) => None,
        };
        let threads = if sort.is_some() || is_one_file {
            1
        } else {
            match args.threads {
                Some(n) if n > 0 => n,
                _ => std::thread::available_parallelism().map_or(1, |n| n.get()).min(12),
            }
        };
        let with_filename = if args.with_filename {
            true
        } else if args.no_filename {
            false
        } else {
            args.vimgrep || !is_one_file
        };
        let context = {
            let both = if args.passthru { 0 } else { args.context.unwrap_or(0) };
            (args.before_context.unwrap_or(both), args.after_context.unwrap_or(both))
        };
        let file_separator = match mode {
            Mode::Search(SearchMode::Standard) if heading => Some(Vec::new()),
            Mode::Search(SearchMode::Standard)
                if (context.0 > 0 || context.1 > 0) && !args.no_context_separator =>
            {
                Some(unescape(&args.context_separator))
            }
            _ => None,
        };
        let path_separator = match &args.path_separator {
            None => None,
            Some(s) => {
                let bytes = unescape(s);
                match bytes.len() {
                    0 => None,
                    1 => Some(bytes[0]),
                    _ => bail!(
                        "A path separator must be exactly one byte, but the given separator is {} bytes: {}",
                        bytes.len(),
                        s
                    ),
                }
            }
        };
        let unrestricted = args.unrestricted;
        let as_text = args.text || args.null_data;
        let binary_search = args.binary || unrestricted >= 3;
        let (binary_explicit, binary_implicit) = if as_text {
            (BinaryDetection::none(), BinaryDetection::none())
        } else if binary_search {
            (BinaryDetection::convert(b'\0'), BinaryDetection::convert(b'\0'))
        } else {
            (BinaryDetection::convert(b'\0'), BinaryDetection::quit(b'\0'))
        };
        let max_filesize = args.max_filesize.as_deref().map(parse_size).transpose()?;
        let mut specs = grep_printer::default_color_specs();
        for c in &args.colors {
            specs.push(c.parse::<UserColorSpec>().map_err(|e| anyhow::anyhow!("{e}"))?);
        }
        let io = if args.no_mmap {
            IoChoice::Read
        } else if args.mmap {
            IoChoice::Mmap
        } else {
            match args.io {
                IoFlag::Auto => IoChoice::Auto,
                IoFlag::Mmap => IoChoice::Mmap,
                IoFlag::Read => IoChoice::Read,
            }
        };
        let encoding = match args.encoding.as_deref() {
            None | Some("auto") => None,
            Some(e) => Some(e.to_string()),
        };
        // Smart case may end up either way; planning case-insensitively is
        // always sound (it admits a superset), so the planner is told so.
        let case_insensitive = case != CaseMode::Sensitive;
        Ok(Config {
            mode,
            patterns,
            paths,
            has_implicit_path,
            is_one_file,
            quiet,
            stats: args.stats || matches!(mode, Mode::Search(SearchMode::Json)),
            threads,
            sort,
            no_messages: args.no_messages,
            io,
            no_index: args.no_index,
            index_dir: args.index_dir.clone(),
            invert_match: args.invert_match,
            max_count: args.max_count,
            case_insensitive,
            fixed_strings: args.fixed_strings,
            multiline: args.multiline,
            multiline_dotall: args.multiline_dotall,
            unicode: !args.no_unicode,
            encoding,
            case,
            color,
            heading,
            line_number,
            column,
            with_filename,
            path_terminator: if args.null { Some(0) } else { None },
            path_separator,
            file_separator,
            context,
            binary_explicit,
            binary_implicit,
            max_filesize,
            max_columns: args.max_columns.filter(|&n| n > 0),
            color_specs: ColorSpecs::new(&specs),
            no_ignore: args.no_ignore || unrestricted >= 1,
            hidden: args.hidden || unrestricted >= 2,
            args,
        })
    }

    /// Whether any line could be printed at all (ripgrep's `matches_possible`).
    pub fn matches_possible(&self) -> bool {
        (self.invert_match || !self.patterns.is_empty()) && self.max_count != Some(0)
    }

    /// `--stats` was given (JSON collects rg's stats without it).
    pub fn stats_requested(&self) -> bool {
        self.args.stats
    }

    /// Quit at the first match (`-q`, unless statistics are collected, as with `--json`).
    pub fn quit_after_match(&self) -> bool {
        self.quiet && !self.stats
    }

    /// Builds the regex matcher.
    pub fn matcher(&self) -> anyhow::Result<RegexMatcher> {
        let mut b = RegexMatcherBuilder::new();
        b.multi_line(true).unicode(!self.args.no_unicode).octal(false);
        b.fixed_strings(self.args.fixed_strings);
        match self.case {
            CaseMode::Sensitive => b.case_insensitive(false),
            CaseMode::Insensitive => b.case_insensitive(true),
            CaseMode::Smart => b.case_smart(true),
        };
        if self.args.line_regexp {
            b.whole_line(true);
        } else if self.args.word_regexp {
            b.word(true);
        }
        if self.args.multiline {
            b.dot_matches_new_line(self.args.multiline_dotall);
            if self.args.crlf {
                b.crlf(true).line_terminator(None);
            }
        } else {
            b.line_terminator(Some(b'\n')).dot_matches_new_line(false);
            if self.args.crlf {
                b.crlf(true);
            }
            if self.args.null_data {
                b.line_terminator(Some(b'\0'));
            }
        }
        if self.binary_explicit != BinaryDetection::none()
            || self.binary_implicit != BinaryDetection::none()
        {
            b.ban_byte(Some(b'\0'));
        }
        b.build_many(&self.patterns).map_err(|e| anyhow::anyhow!("{}", suggest(e.to_string())))
    }

    /// Builds the searcher; `mmap` says whether memory maps may be used.
    pub fn searcher(&self, mmap: bool) -> anyhow::Result<Searcher> {
        let term = if self.args.crlf {
            grep_matcher::LineTerminator::crlf()
        } else if self.args.null_data {
            grep_matcher::LineTerminator::byte(0)
        } else {
            grep_matcher::LineTerminator::byte(b'\n')
        };
        let mut b = SearcherBuilder::new();
        b.max_matches(self.max_count)
            .line_terminator(term)
            .invert_match(self.invert_match)
            .line_number(self.line_number)
            .multi_line(self.args.multiline)
            .passthru(self.args.passthru)
            .before_context(self.context.0)
            .after_context(self.context.1);
        // SAFETY: mapped files may change underneath us; like ripgrep we
        // accept that (a truncation can raise SIGBUS), and the auto rule only
        // maps regular files given on the command line or known-large ones.
        b.memory_map(if mmap { unsafe { MmapChoice::auto() } } else { MmapChoice::never() });
        match self.encoding.as_deref() {
            None => {}
            Some("none") => {
                b.bom_sniffing(false);
            }
            Some(label) => {
                b.encoding(Some(Encoding::new(label)?));
            }
        }
        Ok(b.build())
    }

    /// Whether ripgrep would memory-map the files of this run (`--mmap`,
    /// `--no-mmap`, else at most 10 paths, all regular files).
    ///
    /// This decides *semantics*, not speed: rg's mapped and read paths print
    /// different things for a file with a late NUL byte, so files searched
    /// whole follow this rule whatever `--io` says; `--io` only picks how
    /// chunked files are read (see `src/cli/chunked.rs`, docs/IO.md).
    /// Whether a walked binary file is read only up to its first NUL: binary
    /// detection "quit" on the read path (the map path checks only the
    /// start of a file and then searches all of it).
    pub fn walked_binary_stops_at_nul(&self) -> bool {
        self.binary_implicit == BinaryDetection::quit(b'\0') && !self.rg_mmap()
    }

    /// Whether ripgrep's rule maps files for this run (at most 10 paths, all
    /// regular files, or `--mmap`).
    pub fn rg_mmap(&self) -> bool {
        if self.args.mmap {
            true
        } else if self.args.no_mmap {
            false
        } else {
            self.paths.len() <= 10 && self.paths.iter().all(|p| p.is_file())
        }
    }

    /// Lines before and after each match (`-B`, `-A`).
    pub fn context(&self) -> (usize, usize) {
        self.context
    }

    /// `--passthru`.
    pub fn passthru(&self) -> bool {
        self.args.passthru
    }

    /// `--null-data`: NUL is the line terminator.
    pub fn null_data(&self) -> bool {
        self.args.null_data
    }

    /// Line numbers are printed (or carried, in JSON).
    pub fn line_number(&self) -> bool {
        self.line_number
    }

    /// The standard printer writes a heading with the path above each file's lines.
    pub fn prints_heading(&self) -> bool {
        self.heading && self.with_filename
    }

    /// Threads that search the chunks of one huge file (`-j`, else one per core).
    pub fn chunk_threads(&self) -> usize {
        match self.args.threads {
            Some(n) if n > 0 => n,
            _ => std::thread::available_parallelism().map_or(1, |n| n.get()).min(12),
        }
    }

    /// Files of at least this many bytes are searched in chunks.
    pub fn chunk_threshold(&self) -> u64 {
        self.args.chunk_threshold.unwrap_or(DEFAULT_CHUNK_THRESHOLD)
    }

    /// The nominal size of one chunk of a file of `file_size` bytes:
    /// `--chunk-size`, else [`DEFAULT_CHUNK_SIZE`] or less, so that each
    /// thread gets at least four chunks.
    pub fn chunk_size(&self, file_size: u64) -> u64 {
        match self.args.chunk_size {
            Some(s) => s.max(1),
            None => (file_size / (4 * self.chunk_threads().max(1) as u64))
                .clamp(MIN_DEFAULT_CHUNK_SIZE, DEFAULT_CHUNK_SIZE),
        }
    }

    /// Binary detection for files named on the command line (`explicit`) or found by walking.
    pub fn binary_detection(&self, explicit: bool) -> BinaryDetection {
        if explicit { self.binary_explicit.clone() } else { self.binary_implicit.clone() }
    }

    /// The separator written between files' output in parallel mode.
    pub fn file_separator(&self) -> Option<Vec<u8>> {
        self.file_separator.clone()
    }

    /// The color choice for stdout.
    pub fn color(&self) -> termcolor::ColorChoice {
        self.color
    }
}

/// Parses a size: a number with an optional K, M or G suffix.
pub fn parse_size(s: &str) -> anyhow::Result<u64> {
    let (num, mult) = match s.as_bytes().last() {
        Some(b'K' | b'k') => (&s[..s.len() - 1], 1u64 << 10),
        Some(b'M' | b'm') => (&s[..s.len() - 1], 1 << 20),
        Some(b'G' | b'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    let n: u64 = num.parse().with_context(|| format!("invalid size '{s}' for --max-filesize"))?;
    n.checked_mul(mult).with_context(|| format!("size '{s}' is too big"))
}

/// Turns `\n`, `\t`, `\x00` style escapes into bytes, as ripgrep does for separators.
fn unescape(s: &str) -> Vec<u8> {
    grep_cli::unescape(s)
}

/// Adds ripgrep's hint about `-U` when a pattern contains a literal newline.
fn suggest(msg: String) -> String {
    if msg.contains("the literal") && msg.contains("not allowed") {
        format!(
            "{msg}\n\nConsider enabling multiline mode with the --multiline flag (or -U for short).\nWhen multiline mode is enabled, new line characters can be matched."
        )
    } else {
        msg
    }
}
