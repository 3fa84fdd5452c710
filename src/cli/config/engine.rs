//! Resolving what the engine does: matching, reading, walking, running.

use std::ffi::OsStr;

use anyhow::Context;
use trigrep::options::{
    BinaryMode, DEFAULT_CHUNK_THRESHOLD, MatchOptions, Mode, OutputMode, PrintOptions, ReadOptions,
    RunOptions, Sort, SortBy, WalkFilters,
};

use super::env::Env;
use crate::cli::args::{ContextMode, LowArgs};

/// How `patterns` match.
pub(super) fn match_options(low: &LowArgs, patterns: Vec<String>) -> MatchOptions {
    MatchOptions {
        patterns,
        engine: low.engine,
        case: low.case,
        fixed_strings: low.fixed_strings,
        boundary: low.boundary,
        multiline: low.multiline,
        multiline_dotall: low.multiline_dotall,
        unicode: !low.no_unicode,
        crlf: low.crlf,
        null_data: low.null_data,
        size_limit: low.regex_size_limit,
        dfa_size_limit: low.dfa_size_limit,
    }
}

/// How haystacks are read; `print` is resolved already (line numbers
/// follow `--column` and `--vimgrep`); `only_stdin`: stdin alone.
pub(super) fn read_options(
    low: &LowArgs,
    mode: Mode,
    print: &PrintOptions,
    env: &Env,
    only_stdin: bool,
) -> ReadOptions {
    let line_number = low.line_number.unwrap_or(
        !low.quiet
            && match mode {
                Mode::Search(OutputMode::Json) => true,
                Mode::Search(OutputMode::Standard) => {
                    (env.stdout_tty && !only_stdin) || print.column || print.per_match
                }
                _ => false,
            },
    );
    let binary = if low.null_data { BinaryMode::AsText } else { low.binary };
    ReadOptions {
        invert_match: low.invert_match,
        max_count: low.max_count,
        context: low.context.lines(),
        passthru: low.context == ContextMode::Passthru,
        line_number,
        encoding: low.encoding.clone(),
        binary,
        mmap: low.mmap,
        search_zip: low.search_zip,
        preprocessor: low.pre.clone(),
        preprocessor_globs: low.pre_glob.clone(),
        stop_on_nonmatch: low.stop_on_nonmatch,
    }
}

/// Which files a walk yields.
pub(super) fn walk_filters(low: &LowArgs) -> WalkFilters {
    WalkFilters {
        globs: low.globs.clone(),
        iglobs: low.iglobs.clone(),
        glob_case_insensitive: low.glob_case_insensitive,
        type_changes: low.type_changes.clone(),
        hidden: low.hidden,
        no_ignore_vcs: low.no_ignore_vcs,
        no_ignore_dot: low.no_ignore_dot,
        no_ignore_parent: low.no_ignore_parent,
        no_ignore_global: low.no_ignore_global,
        no_ignore_exclude: low.no_ignore_exclude,
        ignore_files: low.ignore_file.clone(),
        no_ignore_files: low.no_ignore_files,
        ignore_file_case_insensitive: low.ignore_file_case_insensitive,
        no_ignore_messages: low.no_ignore_messages,
        no_require_git: low.no_require_git,
        follow: low.follow,
        max_depth: low.max_depth,
        max_filesize: low.max_filesize,
        one_file_system: low.one_file_system,
    }
}

/// Fails, as rg does, when this system cannot tell the time `sort` sorts by.
pub(super) fn check_sort(sort: Sort) -> anyhow::Result<()> {
    let md = std::env::current_exe().and_then(|p| p.metadata());
    let (time, what) = match sort.by {
        SortBy::Path => return Ok(()),
        SortBy::Modified => (md.and_then(|m| m.modified()), "last modified"),
        SortBy::Accessed => (md.and_then(|m| m.accessed()), "last accessed"),
        SortBy::Created => (md.and_then(|m| m.created()), "creation time"),
    };
    match time {
        Ok(_) => Ok(()),
        Err(err) => anyhow::bail!("sorting by {what} isn't supported: {err}"),
    }
}

/// Threads and reading; `one_thread`: the search must run on one thread
/// (sorted output, or one file).
pub(super) fn run_options(
    low: &LowArgs,
    one_thread: bool,
    env: &Env,
) -> anyhow::Result<RunOptions> {
    let chunk_threads = low.threads.unwrap_or(env.default_threads);
    let chunk_threshold = match low.chunk_threshold {
        Some(n) => Some(n),
        None => env_size(env.chunk_threshold.as_deref(), "TG_CHUNK_THRESHOLD")?,
    };
    let chunk_size = match low.chunk_size {
        Some(n) => Some(n),
        None => env_size(env.chunk_size.as_deref(), "TG_CHUNK_SIZE")?,
    };
    Ok(RunOptions {
        threads: if one_thread { 1 } else { chunk_threads },
        chunk_threads,
        io: low.io,
        chunk_threshold: chunk_threshold.unwrap_or(DEFAULT_CHUNK_THRESHOLD),
        chunk_size,
        stats: low.stats,
    })
}

/// A size from the environment variable `name`, if set.
fn env_size(value: Option<&OsStr>, name: &str) -> anyhow::Result<Option<u64>> {
    let Some(value) = value else { return Ok(None) };
    let text = value.to_str().with_context(|| format!("{name} is not valid UTF-8"))?;
    let size = grep_cli::parse_human_readable_size(text)
        .context("invalid size")
        .with_context(|| format!("error parsing {name}"))?;
    Ok(Some(size))
}
