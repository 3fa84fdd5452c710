//! PCRE2's matcher, with its candidate lines found by the default engine.
//!
//! rg runs a PCRE2 matcher on one line at a time: it names no line
//! terminator, so the searcher hands it every line. [`Pcre2Matcher`]
//! names the search's terminator when it can find candidate lines itself,
//! so that the searcher looks for them in whole buffers and hands PCRE2
//! only those: a regex of the default engine, made of the patterns'
//! rewrite (`crate::query::planner::pcre2`, read for lines: look-arounds
//! dropped or read in at an alternative's edge, backreferences any run of
//! the line, word boundaries left out), which matches within every line
//! PCRE2 matches. The line a candidate starts in is then confirmed by
//! PCRE2 on that line alone, exactly as rg's search would run it, so the
//! lines printed are the same; a line without a candidate cannot match.
//! Not for `-U` (PCRE2 then sees the whole buffer), `--null-data`, or a
//! pattern the rewrite cannot read.

use grep_matcher::{LineMatchKind, LineTerminator, Matcher};
use grep_pcre2::{Error, RegexMatcher};
use regex_automata::meta::Regex;
use regex_automata::{Input, util::syntax};

use crate::error::Result as EngineResult;
use crate::options::{Case, MatchOptions};
use crate::query::planner::pcre2::supersets;

/// PCRE2's matcher, and maybe a regex finding its candidate lines.
#[derive(Clone, Debug)]
pub struct Pcre2Matcher {
    /// rg's PCRE2 matcher, which confirms every line.
    pub(super) regex: RegexMatcher,
    /// Finds where a candidate line starts, and the search's line
    /// terminator (`None`: PCRE2 searches every line).
    lines: Option<(Regex, LineTerminator)>,
}

impl Pcre2Matcher {
    /// Builds the PCRE2 matcher of `m` (an invalid pattern is an error in
    /// PCRE2's words) and, where it can, the regex finding candidate lines
    /// ended by `term`, the search's line terminator (`None`: the search
    /// must hand PCRE2 every line).
    pub fn new(m: &MatchOptions, term: Option<LineTerminator>) -> EngineResult<Pcre2Matcher> {
        let regex = m.pcre2_matcher()?;
        let lines = term.and_then(|term| candidate_lines(m).map(|r| (r, term)));
        Ok(Pcre2Matcher { regex, lines })
    }

    /// Whether candidate lines are found by the default engine (the tests
    /// ask).
    #[cfg(test)]
    pub(crate) fn finds_lines(&self) -> bool {
        self.lines.is_some()
    }

    /// Where the first line that may match in `haystack` (which starts at
    /// a line start) starts, as a candidate; `None` when no line can.
    pub(super) fn candidate(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, Error> {
        let Some((regex, term)) = &self.lines else {
            return self.regex.find_candidate_line(haystack);
        };
        // The earliest match, not the leftmost-first one: its start lies in
        // a line at or before the first line PCRE2 matches (any match ends
        // no earlier), and a rewrite such as `(?s:.)+` (of `\pL+`) would
        // otherwise run greedily to the buffer's end at every candidate.
        Ok(regex.find(Input::new(haystack).earliest(true)).and_then(|m| {
            // Past a final line terminator there is no line to confirm.
            let past_end = m.start() == haystack.len()
                && (haystack.is_empty() || haystack.ends_with(&[term.as_byte()]));
            (!past_end).then_some(LineMatchKind::Candidate(m.start()))
        }))
    }

    /// The search's line terminator when candidate lines are found here.
    pub(super) fn line_terminator(&self) -> Option<LineTerminator> {
        self.lines.as_ref().map(|(_, term)| *term)
    }
}

/// The regex finding candidate lines for `m`'s PCRE2 patterns; `None`
/// where it cannot (see the module docs).
fn candidate_lines(m: &MatchOptions) -> Option<Regex> {
    if m.multiline || m.null_data || m.patterns.is_empty() {
        return None;
    }
    let patterns = supersets(m, true)?;
    let syntax = syntax::Config::new()
        .utf8(false)
        .unicode(m.unicode)
        .multi_line(true)
        .crlf(m.crlf)
        .case_insensitive(m.case != Case::Sensitive);
    Regex::builder()
        .syntax(syntax)
        .configure(Regex::config().utf8_empty(false))
        .build_many(&patterns)
        .ok()
}

#[cfg(test)]
mod tests;
