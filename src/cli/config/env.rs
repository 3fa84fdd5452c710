//! What the environment says about a run ([`Env`]): read once per process,
//! and pinned by tests. The base directory of indexes is resolved here for
//! every command: `--index-dir`, else `TG_INDEX_DIR`, else the user's cache
//! directory ([`Env::base`]).

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;

/// What the environment says about this run.
#[derive(Clone, Debug)]
pub struct Env {
    /// stdout is a terminal (headings, line numbers and color by default).
    pub stdout_tty: bool,
    /// stdin is a pipe or a file that can be searched.
    pub stdin_readable: bool,
    /// Threads to use when `-j` does not say (one per core, at most 12).
    pub default_threads: usize,
    /// `TG_INDEX_DIR`: the base directory of indexes unless `--index-dir` says.
    pub index_base: Option<OsString>,
    /// `TG_CHUNK_THRESHOLD`: the chunk threshold unless the flag says.
    pub chunk_threshold: Option<OsString>,
    /// `TG_CHUNK_SIZE`: the chunk size unless the flag says.
    pub chunk_size: Option<OsString>,
    /// `WSL_DISTRO_NAME`: `{wslprefix}` in hyperlinks.
    pub wsl_distro: Option<OsString>,
}

impl Env {
    /// This process's environment.
    pub fn detect() -> Env {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        Env {
            stdout_tty: std::io::stdout().is_terminal(),
            stdin_readable: grep_cli::is_readable_stdin(),
            default_threads: std::thread::available_parallelism().map_or(1, |n| n.get()).min(12),
            index_base: var("TG_INDEX_DIR"),
            chunk_threshold: var("TG_CHUNK_THRESHOLD"),
            chunk_size: var("TG_CHUNK_SIZE"),
            wsl_distro: var("WSL_DISTRO_NAME"),
        }
    }

    /// The base directory of indexes: `given` (`--index-dir`), else
    /// `TG_INDEX_DIR`, else the user's cache directory.
    pub fn base(&self, given: Option<PathBuf>) -> PathBuf {
        given
            .or_else(|| self.index_base.clone().map(PathBuf::from))
            .unwrap_or_else(trigrep::index::location::default_base)
    }
}
