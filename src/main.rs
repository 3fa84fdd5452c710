//! `tg`: run, map the outcome to an exit code (0 match, 1 none, 2 error).
//!
//! The binary holds the front doors that need a terminal or a command
//! line: `cli` (flags, subcommands, output) and `view` (the pager). The
//! engine is the `trigrep` library (`engine/`).

mod cli;
mod view;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run(std::env::args_os().collect()) {
        Ok(cli::Outcome::Matched) => ExitCode::from(0),
        Ok(cli::Outcome::NoMatch) => ExitCode::from(1),
        Ok(cli::Outcome::Errored) => ExitCode::from(2),
        Err(err) if is_broken_pipe(&err) => ExitCode::from(0),
        Err(err) => {
            trigrep::report::line(&format!("{err:#}"));
            ExitCode::from(2)
        }
    }
}

/// A closed stdout (`tg ... | head`) is success, as in ripgrep.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
