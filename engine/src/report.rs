//! Messages for the user: per-file errors and warnings, one line each,
//! prefixed `tg: `, and whether the run has errored.
//!
//! A per-file error marks the run as errored (exit code 2) and lets the
//! search go on. Terminal control characters are escaped before they reach
//! the terminal. One [`Messages`] serves one run.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Where one run's errors and warnings go, and whether any error came.
#[derive(Debug, Default)]
pub struct Messages {
    errored: AtomicBool,
    quiet_errors: bool,
}

impl Messages {
    /// Messages to stderr; `quiet_errors` suppresses per-file errors
    /// (`--no-messages`), though the run still counts as errored.
    pub fn stderr(quiet_errors: bool) -> Messages {
        Messages { errored: AtomicBool::new(false), quiet_errors }
    }

    /// Reports an error that does not stop the run.
    pub fn error(&self, msg: impl std::fmt::Display) {
        self.errored.store(true, Ordering::Relaxed);
        if !self.quiet_errors {
            line(&msg.to_string());
        }
    }

    /// Prints a message that neither changes the exit code nor shows under
    /// `--no-messages` (e.g. an ignore file that cannot be parsed).
    pub fn notice(&self, msg: impl std::fmt::Display) {
        if !self.quiet_errors {
            line(&msg.to_string());
        }
    }

    /// Prints a warning that does not change the exit code.
    pub fn warn(&self, msg: impl std::fmt::Display) {
        line(&msg.to_string());
    }

    /// Whether any error was reported so far.
    pub fn errored(&self) -> bool {
        self.errored.load(Ordering::Relaxed)
    }
}

/// Writes `tg: <msg>` to stderr with stdout locked, so lines never interleave.
pub fn line(msg: &str) {
    let _stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "tg: {}", sanitize(msg));
}

/// Escapes terminal control characters (except newline and tab) in `s`.
pub(crate) fn sanitize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(sanitize("a\u{1b}[31mb\tc\nd"), "a\\u{1b}[31mb\tc\nd");
    }

    #[test]
    fn an_error_marks_the_run_even_when_quiet() {
        let m = Messages::stderr(true);
        assert!(!m.errored());
        m.error("x: gone");
        assert!(m.errored());
    }
}
