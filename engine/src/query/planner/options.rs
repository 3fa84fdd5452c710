//! The matcher's flags as the planner needs them, and the regex they make
//! of a pattern: parsed as ripgrep's `grep-regex` parses it, and wrapped
//! for `-w` and `-x` as it wraps it.

use regex_syntax::hir::{Hir, Look};

/// Options mirroring the matcher's flags (ripgrep's `grep-regex`), so the
/// planner parses each pattern exactly as the matcher does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanOptions {
    /// `-i`: match case-insensitively.
    pub case_insensitive: bool,
    /// `-S`: case-insensitive unless the pattern has an upper-case literal.
    /// Planned as `-i`, which admits a superset of the documents (the index
    /// folds ASCII anyway; only non-ASCII case variants widen the query).
    pub case_smart: bool,
    /// `-F`: patterns are literal strings, not regexes.
    pub fixed_strings: bool,
    /// `-U`: matches may span lines.
    pub multi_line: bool,
    /// `--multiline-dotall`: `.` matches `\n` (only with `multi_line`).
    pub dot_matches_new_line: bool,
    /// Unicode-aware classes and case folding (`--no-unicode` clears it).
    pub unicode: bool,
    /// `--crlf`: `$` also matches before `\r\n`.
    pub crlf: bool,
    /// `-w`: matches start and end at word boundaries.
    pub word: bool,
    /// `-x`: matches are whole lines (wins over `word`, as in the matcher).
    pub whole_line: bool,
    /// The index holds each document's edges (feature version 3 on), so
    /// the plan may require the bytes outside a match at `^`, `$` and
    /// word boundaries.
    pub edges: bool,
}

impl Default for PlanOptions {
    /// ripgrep's defaults: case-sensitive regexes, line by line, Unicode on.
    fn default() -> PlanOptions {
        PlanOptions {
            case_insensitive: false,
            case_smart: false,
            fixed_strings: false,
            multi_line: false,
            dot_matches_new_line: false,
            unicode: true,
            crlf: false,
            word: false,
            whole_line: false,
            edges: true,
        }
    }
}

/// A parser configured as ripgrep's `grep-regex` configures its own.
pub(super) fn parser_builder(opts: &PlanOptions) -> regex_syntax::ParserBuilder {
    let mut parser = regex_syntax::ParserBuilder::new();
    parser
        .utf8(false)
        .case_insensitive(opts.case_insensitive || opts.case_smart)
        // ripgrep always sets the regex `m` flag; `-U` is a searcher mode.
        .multi_line(true)
        .dot_matches_new_line(opts.multi_line && opts.dot_matches_new_line)
        .crlf(opts.crlf)
        .unicode(opts.unicode);
    parser
}

/// The regex source for pattern `p`: escaped under `-F`.
pub(super) fn pattern_text<'a>(p: &'a str, opts: &PlanOptions) -> std::borrow::Cow<'a, str> {
    if opts.fixed_strings { regex_syntax::escape(p).into() } else { p.into() }
}

/// `hir` between the assertions ripgrep's `grep-regex` puts around a
/// pattern: line anchors under `-x`, else word half-boundaries under `-w`.
pub(super) fn wrapped(hir: Hir, opts: &PlanOptions) -> Hir {
    let (start, end) = if opts.whole_line {
        if opts.crlf { (Look::StartCRLF, Look::EndCRLF) } else { (Look::StartLF, Look::EndLF) }
    } else if opts.word {
        if opts.unicode {
            (Look::WordStartHalfUnicode, Look::WordEndHalfUnicode)
        } else {
            (Look::WordStartHalfAscii, Look::WordEndHalfAscii)
        }
    } else {
        return hir;
    };
    Hir::concat(vec![Hir::look(start), hir, Hir::look(end)])
}
