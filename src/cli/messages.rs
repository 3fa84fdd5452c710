//! Error and warning lines on stderr, and whether the run has errored.
//!
//! Every message is one line prefixed `tg: `. A per-file error marks the run
//! as errored (exit code 2) and lets the search go on. Terminal control
//! characters in file names are escaped before they reach stderr.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static ERRORED: AtomicBool = AtomicBool::new(false);
static QUIET_ERRORS: AtomicBool = AtomicBool::new(false);

/// Suppresses per-file error messages (`--no-messages`); the exit code still says 2.
pub fn set_quiet_errors(yes: bool) {
    QUIET_ERRORS.store(yes, Ordering::Relaxed);
}

/// Whether any error was reported so far.
pub fn errored() -> bool {
    ERRORED.load(Ordering::Relaxed)
}

/// Reports an error that does not stop the run: prints it and marks the run as errored.
pub fn error(msg: impl std::fmt::Display) {
    ERRORED.store(true, Ordering::Relaxed);
    if !QUIET_ERRORS.load(Ordering::Relaxed) {
        line(&msg.to_string());
    }
}

/// Prints a warning that does not change the exit code.
pub fn warn(msg: impl std::fmt::Display) {
    line(&msg.to_string());
}

/// Writes `tg: <msg>` to stderr with stdout locked, so lines never interleave.
pub fn line(msg: &str) {
    let _stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "tg: {}", sanitize(msg));
}

/// Escapes terminal control characters (except newline and tab) in `s`.
pub fn sanitize(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let escape = c.is_control() && c != '\n' && c != '\t';
            let shown: Box<dyn Iterator<Item = char>> =
                if escape { Box::new(c.escape_default()) } else { Box::new(std::iter::once(c)) };
            shown
        })
        .collect()
}
