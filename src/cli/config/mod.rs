//! Stage two of flag parsing: raw [`SearchArgs`] become the engine's
//! [`SearchOptions`], once.
//!
//! Every default that depends on the environment (is stdout a terminal? is
//! stdin readable? is the one path a file?) is decided here, the way
//! ripgrep decides it, from an [`Env`] (so tests can pin it). One resolver
//! per concern: [`resolve_mode`], [`targets`] (patterns and paths),
//! [`output::print_options`], [`engine::match_options`],
//! [`engine::read_options`], [`engine::walk_filters`],
//! [`engine::run_options`]. Nothing after this step reads a flag.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use trigrep::options::{IndexUse, Mode, OutputMode, SearchOptions, WalkOptions};

use super::args::SearchArgs;

mod engine;
mod output;
#[cfg(test)]
mod tests;

/// What the environment says about this run.
#[derive(Clone, Copy, Debug)]
pub struct Env {
    /// stdout is a terminal (headings, line numbers and color by default).
    pub stdout_tty: bool,
    /// stdin is a pipe or a file that can be searched.
    pub stdin_readable: bool,
    /// Threads to use when `-j` does not say (one per core, at most 12).
    pub default_threads: usize,
}

impl Env {
    /// This process's environment.
    pub fn detect() -> Env {
        Env {
            stdout_tty: std::io::stdout().is_terminal(),
            stdin_readable: grep_cli::is_readable_stdin(),
            default_threads: std::thread::available_parallelism().map_or(1, |n| n.get()).min(12),
        }
    }
}

/// The patterns and paths of a search, and how the paths were given.
struct Targets {
    patterns: Vec<String>,
    paths: Vec<PathBuf>,
    implicit_path: bool,
    one_file: bool,
}

/// Resolves `args` in `env` into the engine's options.
pub fn resolve(mut args: SearchArgs, env: Env) -> anyhow::Result<SearchOptions> {
    let mode = resolve_mode(&args);
    let targets = targets(&mut args, mode, env)?;
    let only_stdin = targets.paths.len() == 1 && targets.paths[0] == Path::new("-");
    let print = output::print_options(&args, mode, env, targets.one_file)?;
    let read = engine::read_options(&args, mode, &print, env, only_stdin)?;
    let walk = WalkOptions {
        paths: targets.paths,
        implicit_path: targets.implicit_path,
        one_file: targets.one_file,
        filters: engine::walk_filters(&args)?,
        sort: engine::sort(&args),
    };
    let run = engine::run_options(&args, walk.sort.is_some() || walk.one_file, env);
    Ok(SearchOptions {
        mode,
        matcher: engine::match_options(&args, targets.patterns),
        read,
        print,
        walk,
        run,
        index: IndexUse { enabled: !args.no_index, base: args.index_dir.base() },
    })
}

/// What the run produces, from the mode flags (the last one given wins
/// among those that override each other).
fn resolve_mode(args: &SearchArgs) -> Mode {
    let out = if args.type_list {
        return Mode::Types;
    } else if args.files {
        return Mode::Files;
    } else if args.json {
        OutputMode::Json
    } else if args.files_with_matches {
        OutputMode::FilesWithMatches
    } else if args.files_without_match {
        OutputMode::FilesWithoutMatch
    } else if args.count {
        OutputMode::Count
    } else if args.count_matches {
        OutputMode::CountMatches
    } else {
        OutputMode::Standard
    };
    Mode::Search(match out {
        OutputMode::CountMatches if args.invert_match => OutputMode::Count,
        OutputMode::Count if args.only_matching => OutputMode::CountMatches,
        other => other,
    })
}

/// The patterns (from the first positional, `-e` and `-f`) and the paths
/// (the rest, else stdin or `./`), as ripgrep takes them.
fn targets(args: &mut SearchArgs, mode: Mode, env: Env) -> anyhow::Result<Targets> {
    let mut stdin_consumed = false;
    let mut patterns: Vec<String> = Vec::new();
    if matches!(mode, Mode::Search(_)) {
        let mut add = |p: String| {
            if !patterns.contains(&p) {
                patterns.push(p);
            }
        };
        if args.regexp.is_empty() && args.file.is_empty() {
            if args.positional.is_empty() {
                bail!("trigrep requires at least one pattern to execute a search");
            }
            match args.positional.remove(0).into_string() {
                Ok(p) => add(p),
                Err(_) => bail!("pattern given is not valid UTF-8"),
            }
        } else {
            std::mem::take(&mut args.regexp).into_iter().for_each(&mut add);
            for path in std::mem::take(&mut args.file) {
                let from_stdin = path == Path::new("-");
                stdin_consumed |= from_stdin;
                let pats = if from_stdin {
                    grep_cli::patterns_from_stdin()
                } else {
                    grep_cli::patterns_from_path(&path)
                };
                pats?.into_iter().for_each(&mut add);
            }
        }
    }
    let mut paths: Vec<PathBuf> = args.positional.drain(..).map(PathBuf::from).collect();
    if !paths.is_empty() {
        if stdin_consumed && paths.iter().any(|p| p == Path::new("-")) {
            bail!("error: attempted to read patterns from stdin while also searching stdin");
        }
        let one_file = paths.len() == 1 && (paths[0] == Path::new("-") || !paths[0].is_dir());
        return Ok(Targets { patterns, paths, implicit_path: false, one_file });
    }
    let use_cwd = !env.stdin_readable || stdin_consumed || !matches!(mode, Mode::Search(_));
    paths.push(PathBuf::from(if use_cwd { "./" } else { "-" }));
    Ok(Targets { patterns, paths, implicit_path: true, one_file: !use_cwd })
}

/// Parses a size for `flag`: a number with an optional K, M or G suffix.
pub fn parse_size(s: &str, flag: &str) -> anyhow::Result<u64> {
    let (num, mult) = match s.as_bytes().last() {
        Some(b'K' | b'k') => (&s[..s.len() - 1], 1u64 << 10),
        Some(b'M' | b'm') => (&s[..s.len() - 1], 1 << 20),
        Some(b'G' | b'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    let n: u64 = num.parse().with_context(|| format!("invalid size '{s}' for {flag}"))?;
    n.checked_mul(mult).with_context(|| format!("size '{s}' for {flag} is too big"))
}
