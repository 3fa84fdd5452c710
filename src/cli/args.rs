//! The command line as the user wrote it (stage one of flag parsing).
//!
//! [`SearchArgs`] mirrors `tg`'s search flags one to one; its `///` docs are
//! the `--help` text. Nothing here decides anything: [`super::config`] turns
//! these raw values into the engine's [`trigrep::options::SearchOptions`],
//! and no code after that step looks at raw flags.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{ArgAction, Parser, ValueEnum};
use trigrep::index::location;
use trigrep::options::IoChoice;

/// `tg [OPTIONS] PATTERN [PATH ...]`: search like ripgrep, with an index when one exists.
#[derive(Debug, Parser)]
#[command(
    name = "tg",
    version,
    about = "trigrep: ripgrep-compatible search, faster on the second query",
    after_help = "Subcommands: tg index [DIR] builds a trigram index; tg status shows it. \
                  To search for a word that is a subcommand name, use -e (tg -e index).",
    override_usage = "tg [OPTIONS] PATTERN [PATH ...]\n       tg [OPTIONS] -e PATTERN ... [PATH ...]\n       tg [OPTIONS] --files [PATH ...]\n       tg index [DIR]"
)]
pub struct SearchArgs {
    /// A pattern to search for; may be repeated. Lines matching any pattern are printed.
    #[arg(short = 'e', long = "regexp", value_name = "PATTERN", allow_hyphen_values = true)]
    pub regexp: Vec<String>,

    /// Read patterns from FILE, one per line ('-' for stdin); may be repeated.
    #[arg(short = 'f', long = "file", value_name = "PATTERNFILE")]
    pub file: Vec<PathBuf>,

    /// Treat every pattern as a literal string, not a regex.
    #[arg(short = 'F', long = "fixed-strings", overrides_with = "no_fixed_strings")]
    pub fixed_strings: bool,
    /// Treat patterns as regexes again (undoes -F).
    #[arg(long = "no-fixed-strings", overrides_with = "fixed_strings", hide = true)]
    pub no_fixed_strings: bool,

    /// Search case insensitively.
    #[arg(short = 'i', long = "ignore-case", overrides_with_all = ["case_sensitive", "smart_case"])]
    pub ignore_case: bool,
    /// Search case sensitively (the default).
    #[arg(short = 's', long = "case-sensitive", overrides_with_all = ["ignore_case", "smart_case"])]
    pub case_sensitive: bool,
    /// Search case insensitively if every pattern is all lower case, else sensitively.
    #[arg(short = 'S', long = "smart-case", overrides_with_all = ["ignore_case", "case_sensitive"])]
    pub smart_case: bool,

    /// Only show matches surrounded by word boundaries.
    #[arg(short = 'w', long = "word-regexp", overrides_with = "line_regexp")]
    pub word_regexp: bool,
    /// Only show matches surrounded by line boundaries.
    #[arg(short = 'x', long = "line-regexp", overrides_with = "word_regexp")]
    pub line_regexp: bool,

    /// Print lines that do not match.
    #[arg(short = 'v', long = "invert-match")]
    pub invert_match: bool,

    /// Show line numbers (1-based); the default on a terminal.
    #[arg(short = 'n', long = "line-number", overrides_with = "no_line_number")]
    pub line_number: bool,
    /// Suppress line numbers.
    #[arg(short = 'N', long = "no-line-number", overrides_with = "line_number")]
    pub no_line_number: bool,

    /// Show the column number (1-based) of the first match; implies -n.
    #[arg(long = "column", overrides_with = "no_column")]
    pub column: bool,
    /// Do not show column numbers.
    #[arg(long = "no-column", overrides_with = "column", hide = true)]
    pub no_column: bool,

    /// Print the 0-based byte offset of each output line.
    #[arg(short = 'b', long = "byte-offset")]
    pub byte_offset: bool,

    /// Print the file path with each matching line (the default for more than one file).
    #[arg(short = 'H', long = "with-filename", overrides_with = "no_filename")]
    pub with_filename: bool,
    /// Never print the file path with matching lines.
    #[arg(short = 'I', long = "no-filename", overrides_with = "with_filename")]
    pub no_filename: bool,

    /// Print the number of matching lines per file instead of the lines.
    #[arg(short = 'c', long = "count", overrides_with_all = ["count_matches", "files_with_matches", "files_without_match", "json"])]
    pub count: bool,
    /// Print the number of matches per file instead of the lines.
    #[arg(long = "count-matches", overrides_with_all = ["count", "files_with_matches", "files_without_match", "json"])]
    pub count_matches: bool,
    /// Print only the paths of files with at least one match.
    #[arg(short = 'l', long = "files-with-matches", overrides_with_all = ["count", "count_matches", "files_without_match", "json"])]
    pub files_with_matches: bool,
    /// Print only the paths of files without a match.
    #[arg(long = "files-without-match", overrides_with_all = ["count", "count_matches", "files_with_matches", "json"])]
    pub files_without_match: bool,
    /// With -c or --count-matches, also print files with a count of zero.
    #[arg(long = "include-zero")]
    pub include_zero: bool,

    /// Print only the matched parts of each line, each on its own line.
    #[arg(short = 'o', long = "only-matching")]
    pub only_matching: bool,
    /// Replace every match with REPLACEMENT in the output ($1, $name for groups).
    #[arg(short = 'r', long = "replace", value_name = "REPLACEMENT", allow_hyphen_values = true)]
    pub replace: Option<String>,
    /// Stop searching a file after NUM matching lines.
    #[arg(short = 'm', long = "max-count", value_name = "NUM")]
    pub max_count: Option<u64>,

    /// Show NUM lines after each match.
    #[arg(short = 'A', long = "after-context", value_name = "NUM")]
    pub after_context: Option<usize>,
    /// Show NUM lines before each match.
    #[arg(short = 'B', long = "before-context", value_name = "NUM")]
    pub before_context: Option<usize>,
    /// Show NUM lines before and after each match.
    #[arg(short = 'C', long = "context", value_name = "NUM")]
    pub context: Option<usize>,
    /// Print every line, highlighting matches.
    #[arg(long = "passthru", alias = "passthrough")]
    pub passthru: bool,
    /// The string printed between non-adjacent context blocks.
    #[arg(long = "context-separator", value_name = "SEPARATOR", default_value = "--")]
    pub context_separator: String,
    /// Print no separator between context blocks.
    #[arg(long = "no-context-separator")]
    pub no_context_separator: bool,

    /// Print results as JSON lines (begin, match, context, end, summary).
    #[arg(long = "json", overrides_with_all = ["count", "count_matches", "files_with_matches", "files_without_match"])]
    pub json: bool,
    /// Print every match as path:line:column:line, one per match.
    #[arg(long = "vimgrep")]
    pub vimgrep: bool,

    /// When to use color.
    #[arg(long = "color", alias = "colour", value_name = "WHEN", default_value = "auto")]
    pub color: ColorWhen,
    /// A color setting, e.g. 'match:fg:red' (as ripgrep); may be repeated.
    #[arg(long = "colors", value_name = "COLOR_SPEC")]
    pub colors: Vec<String>,

    /// Print the file path above its matches (the default on a terminal).
    #[arg(long = "heading", overrides_with = "no_heading")]
    pub heading: bool,
    /// Print the file path on every matching line.
    #[arg(long = "no-heading", overrides_with = "heading")]
    pub no_heading: bool,

    /// Follow every printed path with a NUL byte instead of ':' or a newline.
    #[arg(short = '0', long = "null")]
    pub null: bool,
    /// Trim leading ASCII whitespace from printed lines.
    #[arg(long = "trim")]
    pub trim: bool,
    /// Omit lines longer than NUM bytes (0 means no limit).
    #[arg(short = 'M', long = "max-columns", value_name = "NUM")]
    pub max_columns: Option<u64>,
    /// With -M, print a preview of long lines instead of omitting them.
    #[arg(long = "max-columns-preview")]
    pub max_columns_preview: bool,

    /// Include or exclude files and directories matching GLOB ('!' excludes); may be repeated.
    #[arg(short = 'g', long = "glob", value_name = "GLOB", allow_hyphen_values = true)]
    pub glob: Vec<String>,
    /// Like -g, but case insensitive.
    #[arg(long = "iglob", value_name = "GLOB", allow_hyphen_values = true)]
    pub iglob: Vec<String>,
    /// Make -g globs case insensitive.
    #[arg(long = "glob-case-insensitive")]
    pub glob_case_insensitive: bool,
    /// Only search files of TYPE (see --type-list); may be repeated.
    #[arg(short = 't', long = "type", value_name = "TYPE")]
    pub type_select: Vec<String>,
    /// Do not search files of TYPE; may be repeated.
    #[arg(short = 'T', long = "type-not", value_name = "TYPE")]
    pub type_not: Vec<String>,
    /// Add a file type, as 'name:glob'; may be repeated.
    #[arg(long = "type-add", value_name = "TYPE_SPEC")]
    pub type_add: Vec<String>,
    /// Show every known file type and its globs, then exit.
    #[arg(long = "type-list")]
    pub type_list: bool,

    /// Search hidden files and directories.
    #[arg(short = '.', long = "hidden")]
    pub hidden: bool,
    /// Do not respect .gitignore, .ignore, .rgignore or other ignore files.
    #[arg(long = "no-ignore")]
    pub no_ignore: bool,
    /// Do not respect .gitignore and git's exclude files.
    #[arg(long = "no-ignore-vcs")]
    pub no_ignore_vcs: bool,
    /// Do not respect .ignore and .rgignore files.
    #[arg(long = "no-ignore-dot")]
    pub no_ignore_dot: bool,
    /// Do not read ignore files in parent directories.
    #[arg(long = "no-ignore-parent")]
    pub no_ignore_parent: bool,
    /// Respect .gitignore files outside git repositories too.
    #[arg(long = "no-require-git")]
    pub no_require_git: bool,
    /// Reduce filtering: -u = --no-ignore, -uu adds --hidden, -uuu adds --binary.
    #[arg(short = 'u', long = "unrestricted", action = ArgAction::Count)]
    pub unrestricted: u8,
    /// Follow symbolic links.
    #[arg(short = 'L', long = "follow")]
    pub follow: bool,
    /// Descend at most NUM directories below the given paths.
    #[arg(long = "max-depth", alias = "maxdepth", value_name = "NUM")]
    pub max_depth: Option<usize>,
    /// Skip files larger than NUM bytes (suffixes K, M, G allowed).
    #[arg(long = "max-filesize", value_name = "NUM+SUFFIX?")]
    pub max_filesize: Option<String>,
    /// Do not cross file system boundaries.
    #[arg(long = "one-file-system")]
    pub one_file_system: bool,

    /// Search binary files as if they were text.
    #[arg(short = 'a', long = "text", overrides_with_all = ["binary", "no_text"])]
    pub text: bool,
    /// Do not search binary files as text (the default).
    #[arg(long = "no-text", overrides_with_all = ["text", "binary"], hide = true)]
    pub no_text: bool,
    /// Search binary files found while walking, suppressing binary output.
    #[arg(long = "binary", overrides_with_all = ["text", "no_text"])]
    pub binary: bool,
    /// Read files in this encoding ('auto' sniffs a BOM; 'none' disables sniffing).
    #[arg(short = 'E', long = "encoding", value_name = "ENCODING")]
    pub encoding: Option<String>,
    /// Search compressed files (gzip, bzip2, xz, lzma, lz4, brotli, zstd),
    /// decompressed in-process; `.Z` through `uncompress`.
    #[arg(short = 'z', long = "search-zip", overrides_with = "no_search_zip")]
    pub search_zip: bool,
    /// Do not search compressed files decompressed (undoes -z).
    #[arg(long = "no-search-zip", overrides_with = "search_zip", hide = true)]
    pub no_search_zip: bool,
    /// Search the standard output of COMMAND PATH (PATH's contents on its
    /// stdin) instead of PATH's contents; overrides -z.
    #[arg(long = "pre", value_name = "COMMAND")]
    pub pre: Option<PathBuf>,
    /// With --pre, only files matching GLOB are preprocessed; may be repeated.
    #[arg(long = "pre-glob", value_name = "GLOB")]
    pub pre_glob: Vec<String>,
    /// Treat CRLF as a line terminator.
    #[arg(long = "crlf")]
    pub crlf: bool,
    /// Use NUL as the line terminator.
    #[arg(long = "null-data")]
    pub null_data: bool,
    /// Let matches span lines.
    #[arg(short = 'U', long = "multiline", overrides_with = "no_multiline")]
    pub multiline: bool,
    /// Do not let matches span lines (the default).
    #[arg(long = "no-multiline", overrides_with = "multiline", hide = true)]
    pub no_multiline: bool,
    /// With -U, let '.' match newlines.
    #[arg(long = "multiline-dotall")]
    pub multiline_dotall: bool,
    /// Disable Unicode-aware matching.
    #[arg(long = "no-unicode")]
    pub no_unicode: bool,

    /// Sort results: 'path' or 'none' (sorting searches on one thread).
    #[arg(long = "sort", value_name = "SORTBY", overrides_with = "sortr")]
    pub sort: Option<SortBy>,
    /// Sort results in reverse order.
    #[arg(long = "sortr", value_name = "SORTBY", overrides_with = "sort")]
    pub sortr: Option<SortBy>,
    /// The number of threads to use (0 picks one per core).
    #[arg(short = 'j', long = "threads", value_name = "NUM")]
    pub threads: Option<usize>,
    /// Print nothing; exit 0 as soon as a match is found.
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,
    /// Print the files that would be searched, without searching.
    #[arg(long = "files")]
    pub files: bool,
    /// The byte that separates path components in printed paths.
    #[arg(long = "path-separator", value_name = "SEPARATOR")]
    pub path_separator: Option<String>,
    /// Print statistics after the results (rg's block on stdout, trigrep's phases on stderr).
    #[arg(long = "stats")]
    pub stats: bool,
    /// Suppress error messages about files that could not be read.
    #[arg(long = "no-messages")]
    pub no_messages: bool,
    /// How huge files searched in chunks are read: 'auto' (by size against
    /// free memory, docs/IO.md), 'mmap' or 'read'.
    #[arg(long = "io", value_name = "STRATEGY", default_value = "auto", value_parser = io_parser())]
    pub io: IoChoice,
    /// Never search through memory maps, as rg --no-mmap (also reads huge files: --io read).
    #[arg(long = "no-mmap", overrides_with = "mmap")]
    pub no_mmap: bool,
    /// Search through memory maps when possible, as rg --mmap (also maps huge files: --io mmap).
    #[arg(long = "mmap", overrides_with = "no_mmap")]
    pub mmap: bool,
    /// Files of at least this many bytes are searched in chunks on all threads.
    #[arg(long = "chunk-threshold", value_name = "BYTES", hide = true, env = "TG_CHUNK_THRESHOLD")]
    pub chunk_threshold: Option<u64>,
    /// The nominal size of one chunk of a huge file, in bytes (default:
    /// 16 MiB, less for files under 64 MiB per thread).
    #[arg(long = "chunk-size", value_name = "BYTES", hide = true, env = "TG_CHUNK_SIZE")]
    pub chunk_size: Option<u64>,
    /// Do not use an index even if one exists: scan files directly.
    #[arg(long = "no-index")]
    pub no_index: bool,
    /// Where indexes live.
    #[command(flatten)]
    pub index_dir: IndexDirArg,

    /// The pattern (unless -e or -f is given), then the paths to search.
    #[arg(value_name = "PATTERN | PATH", allow_hyphen_values = false)]
    pub positional: Vec<OsString>,
}

/// `--color WHEN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// Color when stdout is a terminal.
    Auto,
    /// Always color.
    Always,
    /// Always color, ANSI escapes even on Windows.
    Ansi,
    /// Never color.
    Never,
}

/// `--sort SORTBY`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SortBy {
    /// Do not sort (parallel search).
    None,
    /// Sort by file path.
    Path,
    /// Sort by last modification time.
    Modified,
    /// Sort by last access time.
    Accessed,
    /// Sort by creation time.
    Created,
}

/// `--io STRATEGY` as the engine's [`IoChoice`].
fn io_parser() -> impl TypedValueParser<Value = IoChoice> {
    PossibleValuesParser::new(["auto", "mmap", "read"]).map(|s| match s.as_str() {
        "mmap" => IoChoice::Mmap,
        "read" => IoChoice::Read,
        _ => IoChoice::Auto,
    })
}

/// `--index-dir DIR`, shared by every subcommand that finds an index.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct IndexDirArg {
    /// Where indexes live (default: the user's cache directory).
    #[arg(long = "index-dir", value_name = "DIR", env = "TG_INDEX_DIR")]
    pub index_dir: Option<PathBuf>,
}

impl IndexDirArg {
    /// The base directory of indexes: `--index-dir`, `TG_INDEX_DIR`, else
    /// the user's cache directory.
    pub fn base(&self) -> PathBuf {
        self.index_dir.clone().unwrap_or_else(location::default_base)
    }
}
