//! The matcher every search uses, [`PatternMatcher`]: the default engine's
//! ([`LineMatcher`], ripgrep's `grep-regex` with a faster search for
//! candidate lines where the regex engine's own literal acceleration is
//! weak; see the `literal` module) or PCRE2's (`grep-pcre2`, built as rg
//! builds it: [`crate::options::MatchOptions::pcre2_matcher`]), chosen by
//! [`Engine`] as rg chooses: `--engine auto` takes the default engine's
//! unless it cannot compile the patterns.
//!
//! Like rg's, a PCRE2 matcher confirms one line at a time; its candidate
//! lines are found by the default engine where it can (the `pcre2`
//! module). Everything else (searcher, printers, sinks) is the same for
//! both.

use grep_matcher::{ByteSet, Captures, LineMatchKind, LineTerminator, Match, Matcher, NoError};

use crate::error::{Error, Result as EngineResult};
use crate::options::pcre2_builder::{hybrid_error, suggest_pcre2};
use crate::options::{Engine, SearchOptions};

mod literal;
mod pcre2;

pub use literal::LineMatcher;
pub use pcre2::Pcre2Matcher;

/// The matcher of one search: the default engine's or PCRE2's.
#[derive(Clone, Debug)]
pub enum PatternMatcher {
    /// Rust's regex engine (`grep-regex`).
    Rust(LineMatcher),
    /// PCRE2 (`grep-pcre2`).
    Pcre2(Pcre2Matcher),
}

impl PatternMatcher {
    /// Builds the matcher of `opts` with the engine it asks for; an invalid
    /// pattern is an [`Error::Pattern`] in rg's words (the default engine's
    /// error hints at `--pcre2` for look-around and backreferences; under
    /// `--engine auto`, both engines' errors).
    pub fn new(opts: &SearchOptions) -> EngineResult<PatternMatcher> {
        let rust =
            || opts.matcher().map(|m| PatternMatcher::Rust(LineMatcher::new(m, &opts.matcher)));
        // Where the searcher's fast path (candidate lines in whole buffers)
        // and rg's PCRE2 search (one line at a time) part: under `-v` the
        // fast path passes over a matching line without a stop
        // (`--stop-on-nonmatch`) and over the printer's request to stop
        // (`-l`, `-q`: it reads on, to a NUL that drops the listing); and
        // at `-m`'s limit it stops at once, where rg reads the next buffer
        // first when the limit falls on a buffer's last line (a NUL there
        // is reported).
        let read = &opts.read;
        let by_lines = !read.invert_match && read.max_count.is_none();
        let term = by_lines.then(|| opts.line_terminator());
        let pcre2 = || Pcre2Matcher::new(&opts.matcher, term).map(PatternMatcher::Pcre2);
        match opts.matcher.engine {
            Engine::Default => rust().map_err(|e| Error::Pattern(suggest_pcre2(e.to_string()))),
            Engine::Pcre2 => pcre2(),
            Engine::Auto => rust().or_else(|rust_err| {
                pcre2().map_err(|pcre2_err| {
                    Error::Pattern(hybrid_error(&rust_err.to_string(), &pcre2_err.to_string()))
                })
            }),
        }
    }

    /// The engine `opts` runs with: under `--engine auto`, the default
    /// engine when it compiles the patterns, else PCRE2 (the error when
    /// neither does); otherwise the one asked for (`Engine::Auto` never
    /// comes back). Callers resolve it once, so that planning and
    /// matching agree.
    pub fn engine_of(opts: &SearchOptions) -> EngineResult<Engine> {
        Ok(match opts.matcher.engine {
            Engine::Auto => match PatternMatcher::new(opts)? {
                PatternMatcher::Rust(_) => Engine::Default,
                PatternMatcher::Pcre2(_) => Engine::Pcre2,
            },
            other => other,
        })
    }
}

/// Unwraps what the default engine, which never fails to search, returns.
fn never<T>(r: Result<T, NoError>) -> T {
    r.unwrap_or_else(|e| unreachable!("grep-regex reported a search error: {e:?}"))
}

/// The capture groups of a match of either engine.
#[derive(Clone, Debug)]
pub enum PatternCaptures {
    /// The default engine's.
    Rust(grep_regex::RegexCaptures),
    /// PCRE2's.
    Pcre2(grep_pcre2::RegexCaptures),
}

impl Captures for PatternCaptures {
    fn len(&self) -> usize {
        match self {
            PatternCaptures::Rust(c) => c.len(),
            PatternCaptures::Pcre2(c) => c.len(),
        }
    }

    fn get(&self, i: usize) -> Option<Match> {
        match self {
            PatternCaptures::Rust(c) => c.get(i),
            PatternCaptures::Pcre2(c) => c.get(i),
        }
    }
}

impl Matcher for PatternMatcher {
    type Captures = PatternCaptures;
    /// PCRE2's (a match limit or the JIT stack exhausted, on a search);
    /// the default engine reports none.
    type Error = grep_pcre2::Error;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Self::Error> {
        match self {
            PatternMatcher::Rust(m) => Ok(never(m.find_at(haystack, at))),
            PatternMatcher::Pcre2(m) => m.regex.find_at(haystack, at),
        }
    }

    fn new_captures(&self) -> Result<PatternCaptures, Self::Error> {
        match self {
            PatternMatcher::Rust(m) => Ok(PatternCaptures::Rust(never(m.new_captures()))),
            PatternMatcher::Pcre2(m) => m.regex.new_captures().map(PatternCaptures::Pcre2),
        }
    }

    fn capture_count(&self) -> usize {
        match self {
            PatternMatcher::Rust(m) => m.capture_count(),
            PatternMatcher::Pcre2(m) => m.regex.capture_count(),
        }
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        match self {
            PatternMatcher::Rust(m) => m.capture_index(name),
            PatternMatcher::Pcre2(m) => m.regex.capture_index(name),
        }
    }

    fn try_find_iter<F, E>(&self, haystack: &[u8], matched: F) -> Result<Result<(), E>, Self::Error>
    where
        F: FnMut(Match) -> Result<bool, E>,
    {
        match self {
            PatternMatcher::Rust(m) => Ok(never(m.try_find_iter(haystack, matched))),
            PatternMatcher::Pcre2(m) => m.regex.try_find_iter(haystack, matched),
        }
    }

    fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut PatternCaptures,
    ) -> Result<bool, Self::Error> {
        match (self, caps) {
            (PatternMatcher::Rust(m), PatternCaptures::Rust(c)) => {
                Ok(never(m.captures_at(haystack, at, c)))
            }
            (PatternMatcher::Pcre2(m), PatternCaptures::Pcre2(c)) => {
                m.regex.captures_at(haystack, at, c)
            }
            // Captures come from this matcher's `new_captures`.
            _ => unreachable!("captures of another engine"),
        }
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, Self::Error> {
        match self {
            PatternMatcher::Rust(m) => Ok(never(m.shortest_match_at(haystack, at))),
            PatternMatcher::Pcre2(m) => m.regex.shortest_match_at(haystack, at),
        }
    }

    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        match self {
            PatternMatcher::Rust(m) => m.non_matching_bytes(),
            PatternMatcher::Pcre2(m) => m.regex.non_matching_bytes(),
        }
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        match self {
            PatternMatcher::Rust(m) => m.line_terminator(),
            PatternMatcher::Pcre2(m) => m.line_terminator(),
        }
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, Self::Error> {
        match self {
            PatternMatcher::Rust(m) => Ok(never(m.find_candidate_line(haystack))),
            PatternMatcher::Pcre2(m) => m.candidate(haystack),
        }
    }
}
