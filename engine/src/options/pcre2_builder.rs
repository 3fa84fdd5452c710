//! PCRE2's matcher (`grep-pcre2`, the crate rg uses), built as rg 15.2's
//! `--pcre2` builds it, and rg's words about PCRE2: the errors of
//! `--engine auto` and of the default engine, and `--pcre2-version`.

use grep_pcre2::{RegexMatcher, RegexMatcherBuilder};

use super::{Boundary, Case, MatchOptions};
use crate::error::{Error, Result};

/// PCRE2's JIT stack limit: rg's (10 MiB; PCRE2's default is 32 KiB).
const JIT_STACK: usize = 10 << 20;

impl MatchOptions {
    /// Builds the PCRE2 matcher of these options, as rg does: `^` and `$`
    /// at line ends, `-F`, case (smart case from the pattern's letters),
    /// `-w` as `(?<!\w)(?:P)(?!\w)`, `-x`, the JIT, UTF and Unicode
    /// properties unless `--no-unicode`, `.` matching a line end with
    /// `-U --multiline-dotall`, and `--crlf`. An invalid pattern is an
    /// [`Error::Pattern`] in PCRE2's words.
    pub fn pcre2_matcher(&self) -> Result<RegexMatcher> {
        let mut b = RegexMatcherBuilder::new();
        b.multi_line(true).fixed_strings(self.fixed_strings);
        match self.case {
            Case::Sensitive => b.caseless(false),
            Case::Insensitive => b.caseless(true),
            Case::Smart => b.case_smart(true),
        };
        match self.boundary {
            Boundary::Line => {
                b.whole_line(true);
            }
            Boundary::Word => {
                b.word(true);
            }
            Boundary::None => {}
        }
        if cfg!(target_pointer_width = "64") {
            b.jit_if_available(true).max_jit_stack_size(Some(JIT_STACK));
        }
        if self.unicode {
            b.utf(true).ucp(true);
        }
        if self.multiline {
            b.dotall(self.multiline_dotall);
        }
        if self.crlf {
            b.crlf(true);
        }
        b.build_many(&self.patterns).map_err(|e| Error::Pattern(e.to_string()))
    }
}

/// rg's error when neither engine compiles the patterns under
/// `--engine auto`: both engines' errors.
pub fn hybrid_error(default_error: &str, pcre2_error: &str) -> String {
    let divider = "~".repeat(79);
    format!(
        "regex could not be compiled with either the default regex engine or with PCRE2.\n\n\
         default regex engine error:\n{divider}\n{default_error}\n{divider}\n\n\
         PCRE2 regex engine error:\n{pcre2_error}"
    )
}

/// The default engine's error with rg's hint when PCRE2 could compile what
/// it cannot (backreferences, look-around).
pub fn suggest_pcre2(msg: String) -> String {
    if msg.contains("backreferences") || msg.contains("look-around") {
        format!(
            "{msg}\n\nConsider enabling PCRE2 with the --pcre2 flag, which can handle \
             backreferences\nand look-around."
        )
    } else {
        msg
    }
}

/// The PCRE2 line of `--version` and the output of `--pcre2-version`:
/// the library's version and whether its JIT is available.
pub fn pcre2_version() -> String {
    let (major, minor) = grep_pcre2::version();
    let jit = cfg!(target_pointer_width = "64") && grep_pcre2::is_jit_available();
    format!("PCRE2 {major}.{minor} is available (JIT is {}available)", if jit { "" } else { "un" })
}
