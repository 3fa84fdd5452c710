//! The trigram query of a search: its patterns planned with its matching
//! options, for the tree index ([`crate::index::fresh`]) and block indexes
//! ([`crate::index::blocks`]) alike, and why a search cannot use an index at all.

use super::Query;
use super::planner::pcre2::supersets;
use super::planner::{PlanOptions, plan};
use std::borrow::Cow;
use std::path::Path;
use std::sync::OnceLock;

use crate::options::{
    Boundary, Case, EncodingChoice, Engine, MatchOptions, Mode, OutputMode, SearchOptions,
};

/// The query every line a search can match satisfies, for an index whose
/// documents hold their `edges` (see [`IndexReader::has_edges`]; a
/// server's always do).
///
/// PCRE2 patterns are planned through a regex matching every span they
/// match ([`supersets`]: look-arounds dropped, backreferences any string);
/// `All` when one cannot be rewritten. `--engine auto` is planned as the
/// engine the command line chose for it; left undecided, as the default
/// engine (a pattern it cannot parse plans to `All`).
///
/// [`IndexReader::has_edges`]: crate::index::reader::IndexReader::has_edges
pub fn query_for(m: &MatchOptions, edges: bool) -> Query {
    let Some(patterns) = plannable(m) else { return Query::All };
    // PCRE2's patterns come back rewritten as regexes, `-F` ones escaped.
    let fixed_strings = m.fixed_strings && m.engine != Engine::Pcre2;
    plan(
        &patterns,
        &PlanOptions {
            // Smart case may end up either way; planning case-insensitively
            // is always sound (it admits a superset).
            case_insensitive: m.case != Case::Sensitive,
            fixed_strings,
            multi_line: m.multiline,
            dot_matches_new_line: m.multiline_dotall,
            unicode: m.unicode,
            crlf: m.crlf,
            word: m.boundary == Boundary::Word,
            whole_line: m.boundary == Boundary::Line,
            edges,
            ..PlanOptions::default()
        },
    )
}

/// A search's trigram queries, planned once per kind of index (without
/// and with edges), by whichever thread asks first, and shared by every
/// index the search reads: its tree's, and the block indexes of its huge
/// files, `.gz` texts and packed files.
pub struct Plans<'m> {
    matcher: &'m MatchOptions,
    planned: [OnceLock<Query>; 2],
}

impl<'m> Plans<'m> {
    /// Nothing planned yet for the patterns and flags of `matcher`.
    pub fn new(matcher: &'m MatchOptions) -> Plans<'m> {
        Plans { matcher, planned: [OnceLock::new(), OnceLock::new()] }
    }

    /// The query for an index whose documents hold their `edges` or not
    /// ([`query_for`]), planned on first use.
    pub fn query(&self, edges: bool) -> &Query {
        self.planned[usize::from(edges)].get_or_init(|| query_for(self.matcher, edges))
    }

    /// Why the patterns plan to no trigram at all ([`why_all`]).
    pub fn why_all(&self) -> Unused {
        why_all(self.matcher)
    }
}

/// The patterns as the planner reads them: PCRE2's rewritten
/// ([`supersets`]), `None` when one cannot be.
fn plannable(m: &MatchOptions) -> Option<Cow<'_, [String]>> {
    if m.engine != Engine::Pcre2 {
        return Some(Cow::Borrowed(&m.patterns));
    }
    supersets(m, false).map(Cow::Owned)
}

/// Why a search's patterns plan to no trigram at all: PCRE2 patterns the
/// planner cannot read, or patterns that require none.
pub fn why_all(m: &MatchOptions) -> Unused {
    if plannable(m).is_none() { Unused::Pcre2Unread } else { Unused::NoTrigrams }
}

/// Why a search did not use an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unused {
    /// `--no-index`.
    Disabled,
    /// `-v`: the lines selected are those without a match.
    Inverted,
    /// `--passthru`: every line of every file is printed, matched or not.
    Passthru,
    /// `-E` with an encoding: the index holds the files' raw bytes.
    Encoding,
    /// `--pre`: what is searched is not the files' bytes.
    Transformed,
    /// Only stdin is searched.
    Stdin,
    /// The patterns require no trigram: every file can match.
    NoTrigrams,
    /// A PCRE2 pattern holds what the planner cannot read (a conditional,
    /// a backtracking verb, `(?x)`): every file can match.
    Pcre2Unread,
    /// No index covers the search path.
    NoIndex,
    /// The index is corrupt or from another version (a warning said so).
    Unusable,
    /// The index is not readable by this user (another user's): to this
    /// user there is no index, and nothing is said outside `--stats`.
    Unreadable,
}

impl std::fmt::Display for Unused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unused::Disabled => "--no-index",
            Unused::Inverted => "-v selects the lines without a match",
            Unused::Passthru => "--passthru prints every line of every file",
            Unused::Encoding => "-E reads files in an encoding the index does not hold",
            Unused::Transformed => {
                "--pre searches what files turn into, and a tree index holds their bytes"
            }
            Unused::Stdin => "only stdin is searched",
            Unused::NoTrigrams => "the patterns require no trigram (every file can match)",
            Unused::Pcre2Unread => {
                "a PCRE2 pattern holds what the planner cannot read (a conditional, a verb, \
                 (?x)): every file can match"
            }
            Unused::NoIndex => "no tree index covers the search path (build one: tg index DIR)",
            Unused::Unusable => "the index is unusable",
            Unused::Unreadable => "the index is not readable by this user",
        })
    }
}

/// Why this search cannot be answered from an index at all, if it cannot.
/// With `-z` a tree index answers for the files `-z` leaves as they are;
/// compressed ones are always read (`fresh::judge::maybe_compressed`),
/// each through its own index if it has one.
///
/// Every output mode can: `--json`'s messages are the scan's, except that
/// its summary's statistics (and `--stats`) count what was really read; a
/// listing of files without a match reports the files the index ruled out
/// without reading them. `-E none` reads raw bytes, as indexed.
pub fn unusable_for(opts: &SearchOptions) -> Option<Unused> {
    let stdin_only = opts.walk.paths.iter().all(|p| p == Path::new("-"));
    Some(if !opts.index.enabled {
        Unused::Disabled
    } else if opts.read.invert_match {
        Unused::Inverted
    } else if passes_through(opts) {
        Unused::Passthru
    } else if matches!(opts.read.encoding, EncodingChoice::Label(_)) {
        Unused::Encoding
    } else if opts.read.preprocessor.is_some() {
        Unused::Transformed
    } else if stdin_only {
        Unused::Stdin
    } else {
        return None;
    })
}

/// Whether `--passthru` prints lines: in the modes that print lines (a
/// count or a listing prints the same with or without it).
fn passes_through(opts: &SearchOptions) -> bool {
    opts.read.passthru && matches!(opts.mode, Mode::Search(OutputMode::Standard | OutputMode::Json))
}

/// Why the block index of a file's own bytes (a huge file, a packed
/// file's text) cannot serve a search of those bytes, if it cannot: as
/// [`unusable_for`], except that `--pre`, which left this file as it is
/// (no `--pre-glob` took it), does not apply.
pub fn bytes_unusable_for(opts: &SearchOptions) -> Option<Unused> {
    unusable_for(opts).filter(|why| *why != Unused::Transformed)
}

/// Why the index of a compressed file's text ([`crate::index::gz`]) cannot
/// serve this search at all, if it cannot. `-z` is what such an index is
/// for; an inverted search, or one whose trigram query is everything,
/// still reads the whole text through it, in parallel pieces.
pub fn text_unusable_for(opts: &SearchOptions) -> Option<Unused> {
    Some(if !opts.index.enabled {
        Unused::Disabled
    } else if matches!(opts.read.encoding, EncodingChoice::Label(_)) {
        Unused::Encoding
    } else if opts.read.preprocessor.is_some() {
        Unused::Transformed
    } else {
        return None;
    })
}

/// Whether a walked binary file, which an index saw only up to its first
/// NUL (all that a walk with default binary detection reads of it), must
/// be read whatever its candidacy: the search reads binary files whole, or
/// lists files without a match (ripgrep lists no binary file that its
/// detection stopped, so only a read can tell).
pub fn reads_binary_whole(opts: &SearchOptions) -> bool {
    !opts.walked_binary_stops_at_nul() || lists_misses(opts)
}

/// Whether the output lists files without a match.
pub fn lists_misses(opts: &SearchOptions) -> bool {
    match opts.mode {
        Mode::Search(OutputMode::FilesWithoutMatch) => true,
        Mode::Search(OutputMode::Count | OutputMode::CountMatches) => opts.print.include_zero,
        _ => false,
    }
}
