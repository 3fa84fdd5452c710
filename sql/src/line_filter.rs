//! Lines tested in the scan, before they become rows: a line that cannot
//! satisfy the pushed-down conditions is dropped where it is read, so that
//! only the lines that may match are copied into Arrow arrays (which
//! DataFusion then checks again: the pushdown stays `Inexact`).
//!
//! Why no matching line is dropped: a [`Pred`] holds for every line the
//! conditions accept ([`crate::pushdown`]), and a [`LineFilter`] evaluates it
//! on the string DataFusion evaluates (the line decoded lossily) with the
//! regex crate arrow uses, with the same flags (`case_insensitive` as
//! arrow's `ILIKE` and `~*`; a literal is an escaped regex).
//!
//! Why it is fast: a span of valid UTF-8 is not cut into lines first. Its
//! finder (the regexes of the predicate's leaves, `^` and `$` at line
//! ends) searches the span whole; only the lines where it matches are
//! tested. Every line holding a match holds one the search finds: the
//! search resumes at line starts, and a leaf whose regex anchors to the
//! text's own ends (`\A`, `\z`), or whose CRLF anchors (`(?mR)^`,
//! `(?mR)$`) cannot hold between a line's `\r` and its `\n`, gives no
//! finder (then every line is tested).
//! A span holding invalid UTF-8 is tested line by line, on decoded lines.

use regex::bytes::Regex as BytesRegex;
use regex::{Regex, RegexBuilder};
use regex_syntax::hir::Look;

use crate::pushdown::Pred;

/// A predicate, ready to test lines and to find the lines worth testing.
#[derive(Debug)]
pub struct LineFilter {
    test: Node,
    finder: Option<Finder>,
}

/// The predicate's tree, each leaf compiled for one line.
#[derive(Debug)]
enum Node {
    Leaf(Regex),
    And(Vec<Node>),
    Or(Vec<Node>),
}

/// Regexes, one of which matches within every line the predicate holds for.
#[derive(Debug)]
struct Finder(Vec<BytesRegex>);

impl LineFilter {
    /// The test of `pred`; `None` when a leaf does not compile (a regex
    /// past the size limit, say): then no line is dropped.
    pub fn of(pred: &Pred) -> Option<LineFilter> {
        Some(LineFilter { test: node(pred)?, finder: finder(pred) })
    }

    /// Whether `line` (decoded, without its `\n`) may satisfy the predicate.
    pub fn matches(&self, line: &str) -> bool {
        self.test.matches(line)
    }

    /// Calls `each` with the start and the decoded text (without its `\n`)
    /// of every line of `text` that may satisfy the predicate, in order;
    /// stops when `each` says `false`. `text`'s lines end with `\n` (the
    /// last may not).
    pub fn lines(&self, text: &[u8], each: &mut dyn FnMut(usize, &str) -> bool) {
        match (&self.finder, std::str::from_utf8(text)) {
            (Some(finder), Ok(valid)) => self.found_lines(finder, valid, each),
            _ => self.every_line(text, each),
        }
    }

    /// [`LineFilter::lines`] by testing each line.
    fn every_line(&self, text: &[u8], each: &mut dyn FnMut(usize, &str) -> bool) {
        let mut start = 0;
        while start < text.len() {
            let end = memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |i| start + i);
            let line = String::from_utf8_lossy(&text[start..end]);
            if self.matches(&line) && !each(start, &line) {
                return;
            }
            start = end + 1;
        }
    }

    /// [`LineFilter::lines`] on valid UTF-8, testing the lines `finder` finds.
    fn found_lines(&self, finder: &Finder, text: &str, each: &mut dyn FnMut(usize, &str) -> bool) {
        let bytes = text.as_bytes();
        let mut next = vec![Next::Unknown; finder.0.len()];
        let mut start = 0;
        while start < bytes.len() {
            let Some(at) = finder.next_at(bytes, start, &mut next) else { return };
            let line_start =
                memchr::memrchr(b'\n', &bytes[start..at]).map_or(start, |i| start + i + 1);
            if line_start >= bytes.len() {
                return;
            }
            let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
            let line = &text[line_start..end];
            if self.test.matches(line) && !each(line_start, line) {
                return;
            }
            start = end + 1;
        }
    }
}

impl Node {
    fn matches(&self, line: &str) -> bool {
        match self {
            Node::Leaf(re) => re.is_match(line),
            Node::And(all) => all.iter().all(|n| n.matches(line)),
            Node::Or(any) => any.iter().any(|n| n.matches(line)),
        }
    }
}

/// Where a finder's regex next matches, as far as known.
#[derive(Clone, Copy, Debug)]
enum Next {
    /// Not searched yet, or searched from before where the search now is.
    Unknown,
    /// Its leftmost match from the last search starts here.
    At(usize),
    /// It matches nowhere after the last search's start.
    Never,
}

impl Finder {
    /// Where the first match of any of its regexes at or after `from` (a
    /// line start) starts. `next` remembers each regex's last answer: a
    /// match found from an earlier start that is still ahead is the
    /// leftmost from `from` too.
    fn next_at(&self, text: &[u8], from: usize, next: &mut [Next]) -> Option<usize> {
        let mut first = None;
        for (re, n) in self.0.iter().zip(next.iter_mut()) {
            if matches!(*n, Next::Unknown) || matches!(*n, Next::At(at) if at < from) {
                *n = match re.find_at(text, from) {
                    Some(m) => Next::At(m.start()),
                    None => Next::Never,
                };
            }
            if let Next::At(at) = *n {
                first = Some(first.map_or(at, |f: usize| f.min(at)));
            }
        }
        first
    }
}

/// The source of `pred`'s leaf as a regex: a literal escaped.
fn leaf_regex(pattern: &str, fixed: bool) -> String {
    if fixed { regex::escape(pattern) } else { pattern.to_string() }
}

/// The tree of `pred`, each leaf a regex on one line.
fn node(pred: &Pred) -> Option<Node> {
    Some(match pred {
        Pred::Pattern { pattern, fixed, case_insensitive } => Node::Leaf(
            RegexBuilder::new(&leaf_regex(pattern, *fixed))
                .case_insensitive(*case_insensitive)
                .build()
                .ok()?,
        ),
        Pred::And(all) => Node::And(all.iter().map(node).collect::<Option<_>>()?),
        Pred::Or(any) => Node::Or(any.iter().map(node).collect::<Option<_>>()?),
    })
}

/// A finder for `pred`: a leaf's regex with `^` and `$` at line ends; one
/// side of a conjunction (a literal one first: it is searched fastest);
/// every side of a disjunction. `None` when a leaf anchors to the text's
/// ends or has a CRLF anchor, or does not compile.
fn finder(pred: &Pred) -> Option<Finder> {
    match pred {
        Pred::Pattern { pattern, fixed, case_insensitive } => {
            let source = leaf_regex(pattern, *fixed);
            let hir = regex_syntax::ParserBuilder::new()
                .multi_line(true)
                .case_insensitive(*case_insensitive)
                .build()
                .parse(&source)
                .ok()?;
            // `\A`, `\z` and `(?-m)` anchors hold at the span's ends only;
            // CRLF anchors (`(?mR)^`, `(?mR)$`) hold at the end of a line
            // ending in `\r`, but in the span never between that `\r` and
            // its `\n`.
            let looks = hir.properties().look_set();
            let ends = [Look::Start, Look::End, Look::StartCRLF, Look::EndCRLF];
            if ends.iter().any(|&l| looks.contains(l)) {
                return None;
            }
            let re = regex::bytes::RegexBuilder::new(&source)
                .multi_line(true)
                .case_insensitive(*case_insensitive)
                .build()
                .ok()?;
            Some(Finder(vec![re]))
        }
        Pred::And(all) => {
            let literal_first = all
                .iter()
                .filter(|p| matches!(p, Pred::Pattern { fixed: true, .. }))
                .chain(all.iter().filter(|p| !matches!(p, Pred::Pattern { fixed: true, .. })));
            literal_first.filter_map(finder).next()
        }
        Pred::Or(any) => {
            let all = any.iter().map(finder).collect::<Option<Vec<Finder>>>()?;
            Some(Finder(all.into_iter().flat_map(|f| f.0).collect()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(p: &str, fixed: bool, ci: bool) -> Pred {
        Pred::Pattern { pattern: p.into(), fixed, case_insensitive: ci }
    }

    /// The lines `test` keeps of `text`, found through its finder and
    /// one by one: both ways must agree.
    fn kept(pred: &Pred, text: &[u8]) -> Vec<String> {
        let test = LineFilter::of(pred).expect("compiles");
        let mut found = Vec::new();
        test.lines(text, &mut |_, line| {
            found.push(line.to_string());
            true
        });
        let mut each = Vec::new();
        test.every_line(text, &mut |_, line| {
            each.push(line.to_string());
            true
        });
        assert_eq!(found, each, "the finder and the line-by-line test disagree");
        found
    }

    #[test]
    fn anchors_hold_at_every_line_not_only_the_text_start() {
        let text = b"foo bar\nbar foo\nfoo\n";
        assert_eq!(kept(&pat("^foo", false, false), text), ["foo bar", "foo"]);
        assert_eq!(kept(&pat("foo$", false, false), text), ["bar foo", "foo"]);
        assert_eq!(kept(&pat("^$", false, false), b"a\n\nb"), [""]);
        // \A holds only at a line's own start: no finder, every line tested.
        assert_eq!(kept(&pat("\\Abar", false, false), text), ["bar foo"]);
        assert!(LineFilter::of(&pat("\\Abar", false, false)).unwrap().finder.is_none());
    }

    #[test]
    fn crlf_anchors_hold_at_a_line_ending_in_a_carriage_return() {
        // `(?mR)$` and `(?mR)^` hold at the end of the line "foo\r" alone,
        // never between the `\r` and `\n` of the text: no finder, every
        // line tested.
        let text = b"foo\r\nbar\nbaz\r";
        assert_eq!(kept(&pat("(?mR)\\r$", false, false), text), ["foo\r", "baz\r"]);
        assert_eq!(kept(&pat("(?mR)o\\r$", false, false), text), ["foo\r"]);
        assert_eq!(kept(&pat("o\\r(?mR:^)", false, false), text), ["foo\r"]);
    }

    #[test]
    fn a_match_across_lines_is_no_line_and_hides_none_after_it() {
        // `a\sb` matches "a\nb" across two lines: neither line holds it;
        // the line after still does.
        let text = b"xa\nbx\na b\n";
        assert_eq!(kept(&pat("a\\sb", false, false), text), ["a b"]);
    }

    #[test]
    fn case_folding_and_literals_are_arrows() {
        let text = "STRUCT x\nstruct y\nſtruct z\nstr.ct\n".as_bytes();
        assert_eq!(kept(&pat("struct", true, false), text), ["struct y"]);
        assert_eq!(kept(&pat("struct", true, true), text), ["STRUCT x", "struct y", "ſtruct z"]);
        assert_eq!(kept(&pat("str.ct", true, false), text), ["str.ct"]);
    }

    #[test]
    fn conjunctions_and_disjunctions_test_every_leaf() {
        let text = b"ab\nb\nabc\nc\n";
        let and = Pred::And(vec![pat("a", true, false), pat("c", true, false)]);
        assert_eq!(kept(&and, text), ["abc"]);
        let or = Pred::Or(vec![pat("c", true, false), pat("^b", false, false)]);
        assert_eq!(kept(&or, text), ["b", "abc", "c"]);
    }

    #[test]
    fn invalid_utf8_is_tested_as_decoded() {
        // `.` matches U+FFFD in the decoded line (what DataFusion sees),
        // never the invalid byte itself.
        let text = b"a\xffb\nab\n";
        assert_eq!(kept(&pat("a.b", false, false), text), ["a\u{FFFD}b"]);
    }

    #[test]
    fn a_last_line_without_newline_and_an_empty_match_at_the_end() {
        assert_eq!(kept(&pat("x*", false, false), b"a\nb"), ["a", "b"]);
        assert_eq!(kept(&pat("x*", false, false), b"a\n"), ["a"]);
        assert_eq!(kept(&pat("b$", false, false), b"a\nb"), ["b"]);
    }
}
