//! The config file (`RIPGREP_CONFIG_PATH`) from arbitrary bytes, through
//! tg's real command line (`src/cli`, included as a module: it is the
//! binary's, not the library's): `rcfile::parse` yields arguments that are
//! never empty, never hold a newline, never start with `#` and are trimmed;
//! followed by a command line, they are parsed by the flag parser and
//! resolved into the engine's options (as `cli::parse` and `cli::search`
//! do) with errors or values, never a panic.
//!
//! Two things a config file can name are left out, because they reach
//! outside the process rather than parse bytes: pattern files (`-f`, which
//! may be stdin) and `--hostname-bin` (a program to run).
#![no_main]

#[allow(dead_code)]
#[path = "../../src/cli/mod.rs"]
mod cli;
// The command line calls the viewer (`tg view`): it comes along.
#[allow(dead_code)]
#[path = "../../src/view/mod.rs"]
mod view;

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use cli::args::{LowMode, PatternSource};
use cli::config::Env;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let args = cli::rcfile::parse(data);
    for a in &args {
        let b = a.as_bytes();
        assert!(!b.is_empty() && b[0] != b'#' && !b.contains(&b'\n'), "{a:?}");
        assert!(!b[0].is_ascii_whitespace() && !b[b.len() - 1].is_ascii_whitespace(), "{a:?}");
    }
    // The config file's arguments come first, then the command line's.
    let argv = args.into_iter().chain(["needle", "/nonexistent"].map(OsString::from)).collect();
    let Ok(mut low) = cli::parse::parse_low(argv) else { return };
    low.special = None;
    low.hostname_bin = None;
    low.patterns.retain(|p| matches!(p, PatternSource::Regexp(_)));
    if matches!(low.mode, LowMode::Generate(_)) {
        return;
    }
    let env = Env {
        stdout_tty: false,
        stdin_readable: false,
        default_threads: 2,
        index_base: None,
        chunk_threshold: None,
        chunk_size: None,
        wsl_distro: None,
    };
    let _ = cli::config::resolve(low, &env);
});
