//! The matcher and searchers a [`SearchOptions`] builds.

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, MmapChoice, Searcher, SearcherBuilder};

use super::{Boundary, Case, EncodingChoice, MatchOptions, SearchOptions};
use crate::error::{Error, Result};

impl SearchOptions {
    /// Builds the regex matcher; an invalid pattern is an [`Error::Pattern`]
    /// that says where it is invalid.
    pub fn matcher(&self) -> Result<RegexMatcher> {
        self.matcher.matcher(
            self.binary_detection(true) != BinaryDetection::none()
                || self.binary_detection(false) != BinaryDetection::none(),
        )
    }
}

impl MatchOptions {
    /// Builds the regex matcher of these options (`ban_nul`: binary
    /// detection is on, so the matcher never matches a NUL byte); an invalid
    /// pattern is an [`Error::Pattern`] that says where it is invalid.
    pub fn matcher(&self, ban_nul: bool) -> Result<RegexMatcher> {
        let mut b = RegexMatcherBuilder::new();
        b.multi_line(true).unicode(self.unicode).octal(false);
        b.fixed_strings(self.fixed_strings);
        match self.case {
            Case::Sensitive => b.case_insensitive(false),
            Case::Insensitive => b.case_insensitive(true),
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
        if self.multiline {
            b.dot_matches_new_line(self.multiline_dotall);
            if self.crlf {
                b.crlf(true).line_terminator(None);
            }
        } else {
            b.line_terminator(Some(b'\n')).dot_matches_new_line(false);
            if self.crlf {
                b.crlf(true);
            }
            if self.null_data {
                b.line_terminator(Some(b'\0'));
            }
        }
        if let Some(limit) = self.size_limit {
            b.size_limit(limit);
        }
        if let Some(limit) = self.dfa_size_limit {
            b.dfa_size_limit(limit);
        }
        if ban_nul {
            b.ban_byte(Some(b'\0'));
        }
        b.build_many(&self.patterns)
            .map_err(|e| Error::Pattern(suggest_text(suggest_multiline(e.to_string()))))
    }
}

impl SearchOptions {
    /// Builds a searcher; `mmap` says whether memory maps may be used.
    pub fn searcher(&self, mmap: bool) -> Searcher {
        let r = &self.read;
        let mut b = SearcherBuilder::new();
        b.max_matches(r.max_count)
            .line_terminator(self.line_terminator())
            .invert_match(r.invert_match)
            .line_number(r.line_number)
            .multi_line(self.matcher.multiline)
            .passthru(r.passthru)
            .stop_on_nonmatch(r.stop_on_nonmatch)
            .before_context(r.context.0)
            .after_context(r.context.1);
        // SAFETY: mapped files may change underneath us; like ripgrep we
        // accept that (a truncation can raise SIGBUS), and the callers only
        // map regular files, by ripgrep's rule or known to be large.
        b.memory_map(if mmap { unsafe { MmapChoice::auto() } } else { MmapChoice::never() });
        match &r.encoding {
            EncodingChoice::Auto => {}
            EncodingChoice::None => {
                b.bom_sniffing(false);
            }
            EncodingChoice::Label(encoding) => {
                b.encoding(Some(encoding.clone()));
            }
        }
        b.build()
    }
}

/// Adds ripgrep's hint about `-U` when a pattern contains a literal newline.
fn suggest_multiline(msg: String) -> String {
    if msg.contains("the literal") && msg.contains("not allowed") {
        format!(
            "{msg}\n\nConsider enabling multiline mode with the --multiline flag (or -U for short).\nWhen multiline mode is enabled, new line characters can be matched."
        )
    } else {
        msg
    }
}

/// Adds ripgrep's hint about `-a` when a pattern can match only a NUL while
/// binary detection bans it.
fn suggest_text(msg: String) -> String {
    if msg.contains("pattern contains \"\\0\"") {
        format!(
            "{msg}\n\nConsider enabling text mode with the --text flag (or -a for short). Otherwise,\nbinary detection is enabled and matching a NUL byte is impossible."
        )
    } else {
        msg
    }
}
