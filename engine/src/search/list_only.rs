//! The two runs that list instead of searching: `--files` and `--type-list`.

use std::io::{self, Write};

use super::walk::Walk;
use crate::error::Result;
use crate::index::fresh::sweep::Swept;
use crate::options::SearchOptions;
use crate::report::Messages;

/// Lists the files that would be searched (`--files`); returns whether any was.
pub fn files(opts: &SearchOptions, msgs: &Messages) -> Result<bool> {
    let mut printer = opts.path_printer(opts.print.stdout());
    let mut matched = false;
    for subject in Walk::new(opts, msgs).subjects()? {
        matched = true;
        if opts.print.quit_after_match() {
            break;
        }
        if let Err(err) = printer.write(subject.path()) {
            if err.kind() == io::ErrorKind::BrokenPipe {
                break;
            }
            return Err(err.into());
        }
    }
    Ok(matched)
}

/// Prints the files listed from an index (the files a walk would list,
/// `--files`), as they come; returns whether any was.
pub(crate) fn files_of(opts: &SearchOptions, files: &[Swept]) -> Result<bool> {
    if opts.print.quit_after_match() {
        return Ok(!files.is_empty());
    }
    let mut printer = opts.path_printer(opts.print.stdout());
    for f in files {
        match printer.write(&f.path) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::BrokenPipe => break,
            Err(err) => return Err(err.into()),
        }
    }
    Ok(!files.is_empty())
}

/// Prints every file type and its globs (`--type-list`); returns whether any was.
pub fn type_list(opts: &SearchOptions) -> Result<bool> {
    let types = opts.walk.filters.types()?;
    let mut out = grep_cli::stdout(termcolor::ColorChoice::Never);
    let mut any = false;
    for def in types.definitions() {
        any = true;
        writeln!(out, "{}: {}", def.name(), def.globs().join(", "))?;
    }
    Ok(any)
}
