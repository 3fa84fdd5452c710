//! Candidate lines found by the default engine never lose a PCRE2 match:
//! random PCRE2 patterns (look-arounds, backreferences, `\K`, possessive
//! and atomic forms, `\b`, anchors, case) over random lines, with every
//! line terminator setting, print the lines PCRE2 alone prints.

use grep_matcher::{LineTerminator, Matcher};
use grep_searcher::SearcherBuilder;
use grep_searcher::sinks::Bytes;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::Pcre2Matcher;
use crate::matcher::PatternMatcher;
use crate::options::{Boundary, Case, Engine, MatchOptions};

/// The lines `matcher` matches in `text`, with their numbers.
fn matched_lines<M: Matcher>(matcher: M, text: &[u8], crlf: bool) -> Vec<(u64, String)> {
    let mut b = SearcherBuilder::new();
    if crlf {
        b.line_terminator(LineTerminator::crlf());
    }
    let mut lines = Vec::new();
    b.build()
        .search_slice(
            matcher,
            text,
            Bytes(|n, line| {
                lines.push((n, String::from_utf8_lossy(line).into_owned()));
                Ok(true)
            }),
        )
        .unwrap();
    lines
}

/// A random PCRE2 pattern of parts that the rewrite reads in all its ways.
fn pattern() -> impl Strategy<Value = (String, u8, u8, bool)> {
    let part = select(vec![
        "ab",
        "c",
        "é",
        r"\s",
        r"\w+",
        ".",
        "(?=ab)",
        "(?!c)",
        "(?<=a)",
        "(?<!b)",
        r"(\w)\1",
        r"(a|b)\g{-1}",
        r"\K",
        "c++",
        "(?>ab|a)",
        r"\b",
        "^",
        "$",
        "x?",
        "[^a]",
        r"\h",
        r"\v",
        "(?i)",
        r"\QA.\E",
        "a{2}",
    ]);
    (prop::collection::vec(part, 1..6).prop_map(|v| v.concat()), 0u8..3, 0u8..3, any::<bool>())
}

#[test]
fn candidate_lines_never_lose_a_pcre2_match() {
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(Config { cases: 500, ..Config::default() }, rng);
    let used = std::cell::Cell::new(0);
    runner
        .run(&pattern(), |(p, case, boundary, crlf)| {
            let m = MatchOptions {
                engine: Engine::Pcre2,
                case: [Case::Sensitive, Case::Insensitive, Case::Smart][usize::from(case)],
                boundary: [Boundary::None, Boundary::Word, Boundary::Line][usize::from(boundary)],
                crlf,
                ..MatchOptions::new(vec![p.clone()])
            };
            let term = if crlf { LineTerminator::crlf() } else { LineTerminator::byte(b'\n') };
            let Ok(ours) = Pcre2Matcher::new(&m, Some(term)) else { return Ok(()) };
            used.set(used.get() + usize::from(ours.finds_lines()));
            let mut rng = StdRng::seed_from_u64(p.len() as u64 * 17 + u64::from(case));
            let words = ["ab", "a", "b", "c", "cc", "é", "É", " ", "\t", "x", "A.", "\u{0b}"];
            let mut text = Vec::new();
            for _ in 0..60 {
                for _ in 0..rng.random_range(0..7) {
                    text.extend_from_slice(words[rng.random_range(0..words.len())].as_bytes());
                }
                text.extend_from_slice(if rng.random_bool(0.3) { b"\r\n" } else { b"\n" });
            }
            let want = matched_lines(&ours.regex, &text, crlf);
            let ours = PatternMatcher::Pcre2(ours);
            prop_assert_eq!(matched_lines(&ours, &text, crlf), want, "{}", p);
            Ok(())
        })
        .unwrap();
    eprintln!("patterns whose candidate lines the default engine found: {}", used.get());
    assert!(used.get() > 300, "too few patterns had candidate lines: {}", used.get());
}
