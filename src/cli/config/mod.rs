//! Stage two of flag parsing: [`LowArgs`] become the engine's
//! [`SearchOptions`], once.
//!
//! Every default that depends on the environment (is stdout a terminal? is
//! stdin readable? is the one path a file?) is decided here, the way
//! ripgrep decides it (its `hiargs.rs`), from an [`Env`] (so tests can pin
//! it). One resolver per concern: [`targets`] (patterns and paths),
//! [`output::print_options`], [`engine::match_options`],
//! [`engine::read_options`], [`engine::walk_filters`],
//! [`engine::run_options`]. Nothing after this step reads a flag.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use trigrep::options::{IndexUse, Mode, OutputMode, SearchOptions, WalkOptions};
use trigrep::query::Query;
use trigrep::query::search_plan::query_for;

use super::args::{LowArgs, LowMode, PatternSource};

mod engine;
mod env;
mod hyperlink;
mod output;
#[cfg(test)]
mod tests;

pub use env::Env;

/// The engine's options, and what the command line still has to act on.
#[derive(Debug)]
pub struct Resolved {
    /// The search.
    pub opts: SearchOptions,
}

/// The patterns and paths of a search, and how the paths were given.
struct Targets {
    patterns: Vec<String>,
    paths: Vec<PathBuf>,
    implicit_path: bool,
    one_file: bool,
}

/// Resolves `low` in `env` into the engine's options. `--generate` and the
/// special runs (help, version) are the caller's to handle first.
pub fn resolve(mut low: LowArgs, env: &Env) -> anyhow::Result<Resolved> {
    if let Some(sort) = low.sort {
        engine::check_sort(sort)?;
    }
    let mode = resolve_mode(&low);
    let targets = targets(&mut low, mode, env)?;
    let only_stdin = targets.paths.len() == 1 && targets.paths[0] == Path::new("-");
    let print = output::print_options(&mut low, mode, env, targets.one_file)?;
    let read = engine::read_options(&low, mode, &print, env, only_stdin);
    let filters = engine::walk_filters(&low);
    filters.types()?;
    let walk = WalkOptions {
        paths: targets.paths,
        implicit_path: targets.implicit_path,
        one_file: targets.one_file,
        filters,
        sort: low.sort,
    };
    let run = engine::run_options(&low, walk.sort.is_some() || walk.one_file, env)?;
    let opts = SearchOptions {
        mode,
        matcher: engine::match_options(&low, targets.patterns),
        read,
        print,
        walk,
        run,
        index: IndexUse {
            enabled: !low.no_index,
            server: !low.no_server,
            base: env.base(low.index_base.take()),
        },
    };
    Ok(Resolved { opts })
}

/// What the run produces: the last mode flag given, with rg's two
/// adjustments (`-v --count-matches` counts lines, `-o -c` counts matches).
fn resolve_mode(low: &LowArgs) -> Mode {
    match low.mode {
        LowMode::Files => Mode::Files,
        LowMode::Types => Mode::Types,
        LowMode::Generate(_) => unreachable!("--generate runs before resolution"),
        LowMode::Search(out) => Mode::Search(match out {
            OutputMode::CountMatches if low.invert_match => OutputMode::Count,
            OutputMode::Count if low.only_matching => OutputMode::CountMatches,
            other => other,
        }),
    }
}

/// The patterns (from the first positional, or `-e` and `-f` in order) and
/// the paths (the rest, else stdin or `./`), as ripgrep takes them.
fn targets(low: &mut LowArgs, mode: Mode, env: &Env) -> anyhow::Result<Targets> {
    let mut stdin_consumed = false;
    let mut patterns: Vec<String> = Vec::new();
    if matches!(mode, Mode::Search(_)) {
        let mut add = |p: String| {
            if !patterns.contains(&p) {
                patterns.push(p);
            }
        };
        if low.patterns.is_empty() {
            if low.positional.is_empty() {
                bail!("trigrep requires at least one pattern to execute a search");
            }
            match low.positional.remove(0).into_string() {
                Ok(p) => add(p),
                Err(_) => bail!("pattern given is not valid UTF-8"),
            }
        }
        for source in std::mem::take(&mut low.patterns) {
            match source {
                PatternSource::Regexp(p) => add(p),
                PatternSource::File(path) if path == Path::new("-") => {
                    anyhow::ensure!(
                        !stdin_consumed,
                        "error reading -f/--file from stdin: stdin has already been consumed"
                    );
                    grep_cli::patterns_from_stdin()?.into_iter().for_each(&mut add);
                    stdin_consumed = true;
                }
                PatternSource::File(path) => {
                    grep_cli::patterns_from_path(&path)?.into_iter().for_each(&mut add);
                }
            }
        }
    }
    let mut paths: Vec<PathBuf> = low.positional.drain(..).map(PathBuf::from).collect();
    if !paths.is_empty() {
        if stdin_consumed && paths.iter().any(|p| p == Path::new("-")) {
            bail!("error: attempted to read patterns from stdin while also searching stdin");
        }
        let base = env.base(low.index_base.clone());
        let query = || query_for(&engine::match_options(low, patterns.clone()), false);
        let one_file =
            paths.len() == 1 && (paths[0] == Path::new("-") || !is_dir(&paths[0], &base, &query));
        return Ok(Targets { patterns, paths, implicit_path: false, one_file });
    }
    let use_cwd = !env.stdin_readable || stdin_consumed || !matches!(mode, Mode::Search(_));
    paths.push(PathBuf::from(if use_cwd { "./" } else { "-" }));
    Ok(Targets { patterns, paths, implicit_path: true, one_file: !use_cwd })
}

/// Parses a size for `flag` (digits and an optional K, M or G), with rg's
/// words when it is not one.
pub fn parse_size(s: &str, flag: &str) -> anyhow::Result<u64> {
    grep_cli::parse_human_readable_size(s)
        .context("invalid size")
        .with_context(|| format!("error parsing flag {flag}"))
}

/// Whether `path` is a directory, or a remote prefix walked like one (by
/// a search for `query()` whose indexes are under `base`).
#[cfg_attr(not(feature = "remote"), allow(unused_variables))]
fn is_dir(path: &Path, base: &Path, query: &dyn Fn() -> Query) -> bool {
    #[cfg(feature = "remote")]
    if let Some(walked) = trigrep::remote::is_walked(path, base, query) {
        return walked;
    }
    path.is_dir()
}
