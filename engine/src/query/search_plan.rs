//! The trigram query of a search: its patterns planned with its matching
//! options, for the tree index ([`crate::index::fresh`]) and block indexes
//! ([`crate::index::blocks`]) alike, and why a search used no index
//! ([`Unused`]; which search options forbid one is the search's to say).

use super::Query;
use super::planner::pcre2::supersets;
use super::planner::{PlanOptions, plan};
use std::borrow::Cow;
use std::sync::OnceLock;

use crate::options::{Boundary, Case, Engine, MatchOptions};

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
    /// The search paths are remote objects (a packed one is read through
    /// the block index it carries).
    Remote,
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
            Unused::Remote => "the paths are remote objects (no tree index describes a bucket)",
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
