//! The command line as the user wrote it (stage one of flag parsing).
//!
//! [`LowArgs`] is ripgrep's "low-level arguments": every flag of the
//! table in [`super::flags`] updates it, in command-line order, exactly as
//! rg's own flag definitions update rg's `LowArgs` (the last occurrence
//! wins, a `--no-…` form undoes, `-u` counts, `--passthru` and `-C` replace
//! each other, patterns keep their order across `-e` and `-f`). Nothing here
//! decides anything that depends on the environment: [`super::config`] turns
//! these values into the engine's [`trigrep::options::SearchOptions`], and
//! no code after that step looks at a flag.

use std::ffi::OsString;
use std::path::PathBuf;

use grep_printer::{HyperlinkFormat, UserColorSpec};
pub use trigrep::options::Engine;
use trigrep::options::{
    BinaryMode, Boundary, BufferMode, Case, EncodingChoice, IoChoice, MmapRule, OutputMode, Sort,
    TypeChange,
};

/// Every flag's value after parsing, before any default is decided.
#[derive(Debug)]
pub struct LowArgs {
    /// `-h`, `--help`, `-V`, `--version` or `--pcre2-version` cut the run short.
    pub special: Option<Special>,
    /// What the run produces (the last mode flag given wins).
    pub mode: LowMode,
    /// The positional arguments: the pattern (unless `-e`/`-f`), then paths.
    pub positional: Vec<OsString>,
    /// `-e` patterns and `-f` files, in the order given.
    pub patterns: Vec<PatternSource>,
    /// `-a`, `--binary`, `-uuu` and their negations.
    pub binary: BinaryMode,
    /// `-w` or `-x`.
    pub boundary: Boundary,
    /// `--line-buffered`, `--block-buffered`.
    pub buffer: BufferMode,
    /// `-b`.
    pub byte_offset: bool,
    /// `-i`, `-s`, `-S`.
    pub case: Case,
    /// `--color` (and `-p`).
    pub color: ColorWhen,
    /// `--colors`, in order.
    pub colors: Vec<UserColorSpec>,
    /// `--column`/`--no-column` (`None`: decided by `--vimgrep`).
    pub column: Option<bool>,
    /// `-A`, `-B`, `-C`, `--passthru`.
    pub context: ContextMode,
    /// `--context-separator` (`None`: `--no-context-separator`).
    pub context_separator: Option<Vec<u8>>,
    /// `--crlf`.
    pub crlf: bool,
    /// `--dfa-size-limit`.
    pub dfa_size_limit: Option<usize>,
    /// `-E`/`--no-encoding`.
    pub encoding: EncodingChoice,
    /// `--engine`, `-P`, `--auto-hybrid-regex`.
    pub engine: Engine,
    /// `--field-context-separator`.
    pub field_context_separator: Vec<u8>,
    /// `--field-match-separator`.
    pub field_match_separator: Vec<u8>,
    /// `-F`.
    pub fixed_strings: bool,
    /// `-L`.
    pub follow: bool,
    /// `--glob-case-insensitive`.
    pub glob_case_insensitive: bool,
    /// `-g`, in order.
    pub globs: Vec<String>,
    /// `--heading`/`--no-heading` (and `-p`); `None`: decided by the terminal.
    pub heading: Option<bool>,
    /// `--hidden` (and `-uu`).
    pub hidden: bool,
    /// `--hostname-bin`.
    pub hostname_bin: Option<PathBuf>,
    /// `--hyperlink-format`.
    pub hyperlink_format: HyperlinkFormat,
    /// `--iglob`, in order.
    pub iglobs: Vec<String>,
    /// `--ignore-file`, in order.
    pub ignore_file: Vec<PathBuf>,
    /// `--ignore-file-case-insensitive`.
    pub ignore_file_case_insensitive: bool,
    /// `--include-zero`.
    pub include_zero: bool,
    /// `-v`.
    pub invert_match: bool,
    /// `-n`/`-N` (and `-p`); `None`: decided by the mode and the terminal.
    pub line_number: Option<bool>,
    /// `--debug` or `--trace`.
    pub logging: Option<Logging>,
    /// `-M` (0 is `None`).
    pub max_columns: Option<u64>,
    /// `--max-columns-preview`.
    pub max_columns_preview: bool,
    /// `-m`.
    pub max_count: Option<u64>,
    /// `-d`.
    pub max_depth: Option<usize>,
    /// `--max-filesize`.
    pub max_filesize: Option<u64>,
    /// `--mmap`/`--no-mmap`: rg's whole-file rule.
    pub mmap: MmapRule,
    /// `-U`.
    pub multiline: bool,
    /// `--multiline-dotall`.
    pub multiline_dotall: bool,
    /// `--no-config`.
    pub no_config: bool,
    /// `--no-ignore-dot` (and `--no-ignore`, `-u`).
    pub no_ignore_dot: bool,
    /// `--no-ignore-exclude` (and `--no-ignore`, `-u`).
    pub no_ignore_exclude: bool,
    /// `--no-ignore-files`.
    pub no_ignore_files: bool,
    /// `--no-ignore-global` (and `--no-ignore`, `-u`).
    pub no_ignore_global: bool,
    /// `--no-ignore-messages`.
    pub no_ignore_messages: bool,
    /// `--no-ignore-parent` (and `--no-ignore`, `-u`).
    pub no_ignore_parent: bool,
    /// `--no-ignore-vcs` (and `--no-ignore`, `-u`).
    pub no_ignore_vcs: bool,
    /// `--no-messages`.
    pub no_messages: bool,
    /// `--no-require-git`.
    pub no_require_git: bool,
    /// `--no-unicode` (and `--no-pcre2-unicode`).
    pub no_unicode: bool,
    /// `-0`.
    pub null: bool,
    /// `--null-data`.
    pub null_data: bool,
    /// `--one-file-system`.
    pub one_file_system: bool,
    /// `-o`.
    pub only_matching: bool,
    /// `--path-separator` (`None`: the platform's).
    pub path_separator: Option<u8>,
    /// `--pre` (`None`: `--no-pre` or an empty command).
    pub pre: Option<PathBuf>,
    /// `--pre-glob`, in order.
    pub pre_glob: Vec<String>,
    /// `-q`.
    pub quiet: bool,
    /// `--regex-size-limit`.
    pub regex_size_limit: Option<usize>,
    /// `-r`.
    pub replace: Option<String>,
    /// `-z`.
    pub search_zip: bool,
    /// `--sort`, `--sortr`, `--sort-files` (`None`: unsorted).
    pub sort: Option<Sort>,
    /// `--stats`.
    pub stats: bool,
    /// `--stop-on-nonmatch`.
    pub stop_on_nonmatch: bool,
    /// `-j` (0 is `None`: one per core).
    pub threads: Option<usize>,
    /// `--trim`.
    pub trim: bool,
    /// `-t`, `-T`, `--type-add`, `--type-clear`, in order.
    pub type_changes: Vec<TypeChange>,
    /// How many times `-u` was given.
    pub unrestricted: usize,
    /// `--vimgrep`.
    pub vimgrep: bool,
    /// `-H`/`-I`; `None`: decided by the number of files.
    pub with_filename: Option<bool>,
    /// trigrep: `--io`, `--mmap`, `--no-mmap`: how huge files are read.
    pub io: IoChoice,
    /// trigrep: `--no-index`.
    pub no_index: bool,
    /// trigrep: `--no-server`.
    pub no_server: bool,
    /// trigrep: `--index-dir`, the base directory of indexes.
    pub index_base: Option<PathBuf>,
    /// trigrep: `--chunk-threshold`.
    pub chunk_threshold: Option<u64>,
    /// trigrep: `--chunk-size`.
    pub chunk_size: Option<u64>,
}

impl Default for LowArgs {
    fn default() -> LowArgs {
        LowArgs {
            special: None,
            mode: LowMode::Search(OutputMode::Standard),
            positional: Vec::new(),
            patterns: Vec::new(),
            binary: BinaryMode::Default,
            boundary: Boundary::None,
            buffer: BufferMode::Auto,
            byte_offset: false,
            case: Case::Sensitive,
            color: ColorWhen::Auto,
            colors: Vec::new(),
            column: None,
            context: ContextMode::default(),
            context_separator: Some(b"--".to_vec()),
            crlf: false,
            dfa_size_limit: None,
            encoding: EncodingChoice::Auto,
            engine: Engine::Default,
            field_context_separator: b"-".to_vec(),
            field_match_separator: b":".to_vec(),
            fixed_strings: false,
            follow: false,
            glob_case_insensitive: false,
            globs: Vec::new(),
            heading: None,
            hidden: false,
            hostname_bin: None,
            hyperlink_format: HyperlinkFormat::default(),
            iglobs: Vec::new(),
            ignore_file: Vec::new(),
            ignore_file_case_insensitive: false,
            include_zero: false,
            invert_match: false,
            line_number: None,
            logging: None,
            max_columns: None,
            max_columns_preview: false,
            max_count: None,
            max_depth: None,
            max_filesize: None,
            mmap: MmapRule::Auto,
            multiline: false,
            multiline_dotall: false,
            no_config: false,
            no_ignore_dot: false,
            no_ignore_exclude: false,
            no_ignore_files: false,
            no_ignore_global: false,
            no_ignore_messages: false,
            no_ignore_parent: false,
            no_ignore_vcs: false,
            no_messages: false,
            no_require_git: false,
            no_unicode: false,
            null: false,
            null_data: false,
            one_file_system: false,
            only_matching: false,
            path_separator: None,
            pre: None,
            pre_glob: Vec::new(),
            quiet: false,
            regex_size_limit: None,
            replace: None,
            search_zip: false,
            sort: None,
            stats: false,
            stop_on_nonmatch: false,
            threads: None,
            trim: false,
            type_changes: Vec::new(),
            unrestricted: 0,
            vimgrep: false,
            with_filename: None,
            io: IoChoice::Auto,
            no_index: false,
            no_server: false,
            index_base: None,
            chunk_threshold: None,
            chunk_size: None,
        }
    }
}

/// A run that prints something fixed instead of searching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// `-h`: one line per flag.
    HelpShort,
    /// `--help`: every flag with its details.
    HelpLong,
    /// `-V`.
    VersionShort,
    /// `--version`.
    VersionLong,
    /// `--pcre2-version`.
    Pcre2Version,
}

/// What a run produces, as the flags left it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LowMode {
    /// Search, printing results in this form.
    Search(OutputMode),
    /// `--files`.
    Files,
    /// `--type-list`.
    Types,
    /// `--generate KIND`.
    Generate(Generate),
}

/// What `--generate` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generate {
    /// A roff manual page.
    Man,
    /// A bash completion script.
    Bash,
    /// A zsh completion script.
    Zsh,
    /// A fish completion script.
    Fish,
    /// A PowerShell completion script.
    PowerShell,
}

/// Where a pattern comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternSource {
    /// `-e PATTERN`.
    Regexp(String),
    /// `-f PATTERNFILE` (`-` is stdin).
    File(PathBuf),
}

/// `--color WHEN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// `--debug` or `--trace`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logging {
    /// `--debug`.
    Debug,
    /// `--trace`.
    Trace,
}

/// Context lines: rg's rule, where `-A` and `-B` beat `-C` wherever they
/// stand, and `--passthru` and any context flag replace each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContextMode {
    /// `--passthru`: every line.
    Passthru,
    /// `-A`, `-B`, `-C` as given.
    Limited {
        /// `-B`.
        before: Option<usize>,
        /// `-A`.
        after: Option<usize>,
        /// `-C`.
        both: Option<usize>,
    },
}

impl Default for ContextMode {
    fn default() -> ContextMode {
        ContextMode::Limited { before: None, after: None, both: None }
    }
}

impl ContextMode {
    /// `-B NUM`.
    pub fn set_before(&mut self, lines: usize) {
        *self.limited().0 = Some(lines);
    }

    /// `-A NUM`.
    pub fn set_after(&mut self, lines: usize) {
        *self.limited().1 = Some(lines);
    }

    /// `-C NUM`.
    pub fn set_both(&mut self, lines: usize) {
        *self.limited().2 = Some(lines);
    }

    /// The limited settings (before, after, both), after leaving passthru.
    fn limited(&mut self) -> (&mut Option<usize>, &mut Option<usize>, &mut Option<usize>) {
        if *self == ContextMode::Passthru {
            *self = ContextMode::default();
        }
        match self {
            ContextMode::Limited { before, after, both } => (before, after, both),
            ContextMode::Passthru => unreachable!("left passthru above"),
        }
    }

    /// Lines before and after each match (none with `--passthru`).
    pub fn lines(&self) -> (usize, usize) {
        match *self {
            ContextMode::Passthru => (0, 0),
            ContextMode::Limited { before, after, both } => {
                let both = both.unwrap_or(0);
                (before.unwrap_or(both), after.unwrap_or(both))
            }
        }
    }
}
