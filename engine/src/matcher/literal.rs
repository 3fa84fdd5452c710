//! The default engine's matcher: ripgrep's regex matcher (`grep-regex`),
//! with a faster search for candidate lines where the regex engine's own
//! literal acceleration is weak.
//!
//! The regex engine (regex-automata's meta engine) accelerates a search
//! with a literal: the match's prefixes when they make a fast search; else
//! the longest suffix all matches share (then it scans backwards from each);
//! else an inner literal of the pattern's concatenation. grep-regex adds
//! its own inner-literal search (find a literal, then run the regex on its
//! line only) but only where the engine is not accelerated or the pattern
//! holds a Unicode word boundary. When the engine's literal is one or two
//! bytes (`^\s+goto (err|out)_\w+;` must end with `;`, and holds `goto err_`
//! or `goto out_`), it runs its automaton from every `;`, and neither
//! search helps. [`LineMatcher`] finds candidate lines by the inner literals
//! then (every match holds one of them, so a line without any cannot match),
//! searched the way grep-regex searches its own: one regex made of the
//! literals (memmem, Teddy). It leaves everything else, finding and
//! confirming matches included, to the regex matcher: the searcher confirms
//! each candidate line with it, so the lines printed are the same. On the
//! kernel, `^\s+goto (err|out)_\w+;` takes 79 ms instead of 240 ms.
//!
//! Everywhere else the regex matcher searches alone, so `tg` never does
//! more work than grep-regex on the same pattern: a literal of three bytes
//! or more the engine starts or ends with is its own; a Unicode word
//! boundary or no acceleration at all brings grep-regex's inner-literal
//! search. (Searching these literals through an Aho-Corasick automaton of
//! the `Standard` kind, which finds them through one rare byte, made
//! `\b(?:[0-9]{1,3}\.){3}[0-9]{1,3} port 80[0-9][0-9]\b` 3.5x slower than rg
//! on a 1 GiB log.)

use grep_matcher::{ByteSet, LineMatchKind, LineTerminator, Match, Matcher, NoError};
use grep_regex::{RegexCaptures, RegexMatcher};
use regex_automata::Input;
use regex_automata::meta::Regex;
use regex_syntax::ParserBuilder;
use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};
use regex_syntax::hir::{Hir, HirKind, Look};

use crate::options::{Boundary, Case, MatchOptions};

/// The most literals a candidate-line search looks for.
const MAX_LITERALS: usize = 64;

/// The shortest literal worth searching for; an engine literal as long as
/// this is left to the engine (regex-automata's own bar for a "fast"
/// multi-literal search).
const MIN_LEN: usize = 3;

/// The longest run of a concatenation tried as the source of literals.
const MAX_RUN: usize = 16;

/// A regex matcher whose candidate lines may be found by inner literals.
#[derive(Clone, Debug)]
pub struct LineMatcher {
    regex: RegexMatcher,
    /// Finds the literals one of which every match holds (`None`: ask
    /// `regex`).
    lines: Option<Regex>,
}

impl LineMatcher {
    /// Wraps `regex`, built from `m`; candidate lines are found by inner
    /// literals when [`line_literals`] finds them worth it.
    pub fn new(regex: RegexMatcher, m: &MatchOptions) -> LineMatcher {
        let lines = line_literals(m).and_then(|lits| literal_regex(&lits));
        LineMatcher { regex, lines }
    }

    /// Whether candidate lines are found by inner literals (the tests ask).
    #[cfg(test)]
    pub(crate) fn finds_lines_by_literals(&self) -> bool {
        self.lines.is_some()
    }
}

impl Matcher for LineMatcher {
    type Captures = RegexCaptures;
    type Error = NoError;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, NoError> {
        self.regex.find_at(haystack, at)
    }

    fn new_captures(&self) -> Result<RegexCaptures, NoError> {
        self.regex.new_captures()
    }

    fn capture_count(&self) -> usize {
        self.regex.capture_count()
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        self.regex.capture_index(name)
    }

    fn try_find_iter<F, E>(&self, haystack: &[u8], matched: F) -> Result<Result<(), E>, NoError>
    where
        F: FnMut(Match) -> Result<bool, E>,
    {
        self.regex.try_find_iter(haystack, matched)
    }

    fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut RegexCaptures,
    ) -> Result<bool, NoError> {
        self.regex.captures_at(haystack, at, caps)
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, NoError> {
        self.regex.shortest_match_at(haystack, at)
    }

    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        self.regex.non_matching_bytes()
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        self.regex.line_terminator()
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, NoError> {
        match &self.lines {
            Some(lits) => Ok(lits
                .search_half(&Input::new(haystack))
                .map(|m| LineMatchKind::Candidate(m.offset()))),
            None => self.regex.find_candidate_line(haystack),
        }
    }
}

/// Literals one of which every match of `m`'s patterns holds, when the
/// regex engine's own literal is shorter than three bytes and grep-regex
/// would not search inner literals itself; `None` otherwise (see the module
/// docs: fixed strings and multi-line searches are left to the engine too).
pub(crate) fn line_literals(m: &MatchOptions) -> Option<Vec<Vec<u8>>> {
    if m.fixed_strings || m.multiline || (m.boundary == Boundary::Word && m.unicode) {
        return None;
    }
    let mut parser = ParserBuilder::new();
    parser
        .unicode(m.unicode)
        .utf8(false)
        .octal(false)
        .multi_line(true)
        .crlf(m.crlf)
        // Smart case may end up either way; folding admits a superset.
        .case_insensitive(m.case != Case::Sensitive);
    let mut hirs = Vec::with_capacity(m.patterns.len());
    let mut lits: Vec<Vec<u8>> = Vec::new();
    for p in &m.patterns {
        let hir = parser.build().parse(p).ok()?;
        lits.extend(inner_literals(&hir)?);
        lits.sort_unstable();
        lits.dedup();
        if lits.len() > MAX_LITERALS {
            return None;
        }
        hirs.push(hir);
    }
    let all = Hir::alternation(hirs);
    (engine_literal_len(&all)? < MIN_LEN).then_some(lits)
}

/// The length of the literal the regex engine accelerates a search for
/// `hir` with, as regex-automata's meta engine picks it: its prefixes when
/// they make a fast search, else the longest common suffix. `None` when it
/// would pick neither (it then searches an inner literal, or grep-regex
/// does), or when `hir` holds a Unicode word boundary (grep-regex then
/// searches inner literals itself).
fn engine_literal_len(hir: &Hir) -> Option<usize> {
    let looks = hir.properties().look_set();
    if looks.contains_word_unicode() || hir.properties().look_set_prefix().contains(Look::Start) {
        return None;
    }
    let mut prefixes = Extractor::new().kind(ExtractKind::Prefix).extract(hir);
    prefixes.optimize_for_prefix_by_preference();
    if let Some(lits) = prefixes.literals() {
        let shortest = lits.iter().map(|l| l.len()).min().unwrap_or(0);
        // memchr (up to three bytes), memmem, or Teddy with no literal
        // shorter than three bytes: the searches regex-automata calls fast.
        let fast = match lits.len() {
            0 => false,
            1 => shortest > 0,
            2 | 3 => shortest > 0 && (lits.iter().all(|l| l.len() == 1) || shortest >= MIN_LEN),
            n => n <= MAX_LITERALS && shortest >= MIN_LEN,
        };
        if fast {
            return Some(shortest);
        }
    }
    let mut suffixes = Extractor::new().kind(ExtractKind::Suffix).extract(hir);
    suffixes.optimize_for_suffix_by_preference();
    suffixes.longest_common_suffix().filter(|s| !s.is_empty()).map(<[u8]>::len)
}

/// Literals one of which every match of `hir` holds, each at least
/// three bytes long: the best set made by a run of consecutive parts
/// of its top-level concatenation (every match of the whole holds a match
/// of each run, which starts with one of the run's prefix literals); a
/// run's literals as extracted, or shortened as grep-regex shortens its
/// own (common prefixes rather than too many literals).
pub(crate) fn inner_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let parts = match hir.kind() {
        HirKind::Concat(parts) => parts.as_slice(),
        HirKind::Capture(c) => return inner_literals(&c.sub),
        _ => std::slice::from_ref(hir),
    };
    let mut best: Option<Seq> = None;
    for i in 0..parts.len() {
        for j in i + 1..=parts.len().min(i + MAX_RUN) {
            let seq = Extractor::new()
                .kind(ExtractKind::Prefix)
                .extract(&Hir::concat(parts[i..j].to_vec()));
            let mut short = seq.clone();
            short.optimize_for_prefix_by_preference();
            for seq in [seq, short] {
                let better = match &best {
                    None => good_len(&seq) >= MIN_LEN,
                    Some(b) => good_len(&seq) > good_len(b),
                };
                if better {
                    best = Some(seq);
                }
            }
        }
    }
    Some(best?.literals()?.iter().map(|l| l.as_bytes().to_vec()).collect())
}

/// The length of the shortest literal of `seq` when it is a finite set of
/// at most [`MAX_LITERALS`]; 0 otherwise.
fn good_len(seq: &Seq) -> usize {
    match seq.len() {
        Some(n) if n > 0 && n <= MAX_LITERALS => seq.min_literal_len().unwrap_or(0),
        _ => 0,
    }
}

/// One regex that finds any of `lits`, built as grep-regex builds the one
/// for its own inner literals (memmem for one, Teddy for a few).
fn literal_regex(lits: &[Vec<u8>]) -> Option<Regex> {
    let alts = lits.iter().map(|l| Hir::literal(l.as_slice())).collect();
    Regex::builder()
        .configure(Regex::config().utf8_empty(false))
        .build_from_hir(&Hir::alternation(alts))
        .ok()
}

#[cfg(test)]
mod tests;
