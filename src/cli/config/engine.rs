//! Resolving what the engine does: matching, reading, walking, running.

use grep_searcher::Encoding;
use trigrep::options::{
    BinaryMode, Boundary, Case, DEFAULT_CHUNK_THRESHOLD, EncodingChoice, MatchOptions, MmapRule,
    Mode, OutputMode, PrintOptions, ReadOptions, RunOptions, Sort, SortBy, WalkFilters,
};

use super::output::context;
use super::{Env, parse_size};
use crate::cli::args::{SearchArgs, SortBy as SortFlag};

/// How `patterns` match.
pub(super) fn match_options(args: &SearchArgs, patterns: Vec<String>) -> MatchOptions {
    let case = if args.ignore_case {
        Case::Insensitive
    } else if args.smart_case {
        Case::Smart
    } else {
        Case::Sensitive
    };
    let boundary = if args.line_regexp {
        Boundary::Line
    } else if args.word_regexp {
        Boundary::Word
    } else {
        Boundary::None
    };
    MatchOptions {
        patterns,
        case,
        fixed_strings: args.fixed_strings,
        boundary,
        multiline: args.multiline,
        multiline_dotall: args.multiline_dotall,
        unicode: !args.no_unicode,
        crlf: args.crlf,
        null_data: args.null_data,
    }
}

/// How haystacks are read; `print` is resolved already (line numbers
/// follow `--column` and `--vimgrep`); `only_stdin`: stdin alone.
pub(super) fn read_options(
    args: &SearchArgs,
    mode: Mode,
    print: &PrintOptions,
    env: Env,
    only_stdin: bool,
) -> anyhow::Result<ReadOptions> {
    let line_number = if args.line_number {
        true
    } else if args.no_line_number || args.quiet {
        false
    } else {
        match mode {
            Mode::Search(OutputMode::Json) => true,
            Mode::Search(OutputMode::Standard) => {
                (env.stdout_tty && !only_stdin) || print.column || print.per_match
            }
            _ => false,
        }
    };
    let binary = if args.text || args.null_data {
        BinaryMode::AsText
    } else if args.binary || args.unrestricted >= 3 {
        BinaryMode::SearchAndSuppress
    } else {
        BinaryMode::Default
    };
    let encoding = match args.encoding.as_deref() {
        None | Some("auto") => EncodingChoice::Auto,
        Some("none") => EncodingChoice::None,
        Some(label) => EncodingChoice::Label(Encoding::new(label)?),
    };
    let mmap = if args.mmap {
        MmapRule::Always
    } else if args.no_mmap {
        MmapRule::Never
    } else {
        MmapRule::Auto
    };
    Ok(ReadOptions {
        invert_match: args.invert_match,
        max_count: args.max_count,
        context: context(args),
        passthru: args.passthru,
        line_number,
        encoding,
        binary,
        mmap,
        search_zip: args.search_zip,
        preprocessor: args.pre.clone().filter(|p| !p.as_os_str().is_empty()),
        preprocessor_globs: args.pre_glob.clone(),
    })
}

/// Which files a walk yields (`-u` counts as `--no-ignore`, `-uu` adds `--hidden`).
pub(super) fn walk_filters(args: &SearchArgs) -> anyhow::Result<WalkFilters> {
    let no_ignore = args.no_ignore || args.unrestricted >= 1;
    let max_filesize =
        args.max_filesize.as_deref().map(|s| parse_size(s, "--max-filesize")).transpose()?;
    Ok(WalkFilters {
        globs: args.glob.clone(),
        iglobs: args.iglob.clone(),
        glob_case_insensitive: args.glob_case_insensitive,
        type_select: args.type_select.clone(),
        type_not: args.type_not.clone(),
        type_add: args.type_add.clone(),
        hidden: args.hidden || args.unrestricted >= 2,
        no_ignore_vcs: no_ignore || args.no_ignore_vcs,
        no_ignore_dot: no_ignore || args.no_ignore_dot,
        no_ignore_parent: no_ignore || args.no_ignore_parent,
        no_require_git: args.no_require_git,
        follow: args.follow,
        max_depth: args.max_depth,
        max_filesize,
        one_file_system: args.one_file_system,
    })
}

/// The order of the results (`--sort none` or nothing: unsorted).
pub(super) fn sort(args: &SearchArgs) -> Option<Sort> {
    let (flag, reverse) = match (args.sort, args.sortr) {
        (Some(SortFlag::None), _) | (_, Some(SortFlag::None)) | (None, None) => return None,
        (Some(s), None) => (s, false),
        (_, Some(s)) => (s, true),
    };
    let by = match flag {
        SortFlag::Path | SortFlag::None => SortBy::Path,
        SortFlag::Modified => SortBy::Modified,
        SortFlag::Accessed => SortBy::Accessed,
        SortFlag::Created => SortBy::Created,
    };
    Some(Sort { by, reverse })
}

/// Threads and reading; `one_thread`: the search must run on one thread
/// (sorted output, or one file).
pub(super) fn run_options(args: &SearchArgs, one_thread: bool, env: Env) -> RunOptions {
    let chunk_threads = match args.threads {
        Some(n) if n > 0 => n,
        _ => env.default_threads,
    };
    let io = if args.no_mmap {
        trigrep::options::IoChoice::Read
    } else if args.mmap {
        trigrep::options::IoChoice::Mmap
    } else {
        args.io
    };
    RunOptions {
        threads: if one_thread { 1 } else { chunk_threads },
        chunk_threads,
        io,
        chunk_threshold: args.chunk_threshold.unwrap_or(DEFAULT_CHUNK_THRESHOLD),
        chunk_size: args.chunk_size,
        stats: args.stats,
    }
}
