//! [`line_literals`] picks literals only when they beat the engine's, and
//! they never cost a line: searched with [`LineMatcher`] and with the bare
//! regex matcher, random regexes over random texts match the same lines.

use grep_searcher::sinks::Bytes;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::*;
use crate::options::Boundary;

fn opts(patterns: &[&str]) -> MatchOptions {
    MatchOptions::new(patterns.iter().map(|p| p.to_string()).collect())
}

fn sorted(mut v: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    v.sort();
    v
}

#[test]
fn inner_literals_beat_a_short_suffix() {
    let lits = line_literals(&opts(&[r"^\s+goto (err|out)_\w+;"])).unwrap();
    assert_eq!(sorted(lits), vec![b"goto err_".to_vec(), b"goto out_".to_vec()]);
    // Two patterns: the union; one without literals: none at all.
    let two = line_literals(&opts(&[r"\s+goto out_\w+;", r"\w+ = kzalloc\(\w+;"])).unwrap();
    assert_eq!(sorted(two), vec![b" = kzalloc(".to_vec(), b"goto out_".to_vec()]);
    assert_eq!(line_literals(&opts(&[r"\s+goto out_\w+;", r"\w+;"])), None);
}

/// Where grep-regex (or the engine under it) searches a literal
/// of three bytes or more, the regex matcher searches alone, so tg never
/// does more work than rg (inner literals found through one rare byte made
/// `\b(?:[0-9]{1,3}\.){3}[0-9]{1,3} port 80[0-9][0-9]\b` 3.5x slower).
#[test]
fn issue_23_what_grep_regex_searches_well_is_left_to_it() {
    let none = |p: &str| assert_eq!(line_literals(&opts(&[p])), None, "{p}");
    // A Unicode word boundary: grep-regex searches inner literals itself.
    none(r"\b(?:[0-9]{1,3}\.){3}[0-9]{1,3} port 80[0-9][0-9]\b");
    none(r"\bgoto (err|out)_\w+;");
    let mut word = opts(&[r"\s+goto (err|out)_\w+;"]);
    word.boundary = Boundary::Word;
    assert_eq!(line_literals(&word), None);
    // No fast prefix, no suffix: the engine's own inner literal.
    none(r"(?:[0-9]{1,3}\.){3}[0-9]{1,3} port 80[0-9][0-9]");
    // Alternatives with no common suffix: grep-regex's inner literals.
    none(r"\s+goto out_\w+;|\w+ = kzalloc\(");
    // A prefix of three bytes or more, line anchor or not.
    none(r"^Feb  1 0[0-9]:[0-9]{2}:[0-9]{2} web-0[0-9] nginx: .*timeout");
    none(r"Feb \d+ \d\d:\d\d:\d\d web-0[0-9] nginx: .*timeout");
    // A start-of-text anchor: the engine has no prefilter, grep-regex's.
    none(r"\A\s+goto (err|out)_\w+;");
    // With no Unicode, `\b` is ASCII: the engine's one-byte suffix again.
    let mut ascii = opts(&[r"\s+\bgoto (err|out)_\w+;"]);
    ascii.unicode = false;
    assert!(line_literals(&ascii).is_some());
}

#[test]
fn the_engine_keeps_what_it_accelerates_well() {
    // A literal prefix or suffix as long as any inner literal.
    assert_eq!(line_literals(&opts(&[r"^static inline bool \w+\("])), None);
    assert_eq!(line_literals(&opts(&[r"\w+_probe_device\("])), None);
    assert_eq!(line_literals(&opts(&["kmalloc_array"])), None);
    assert_eq!(line_literals(&opts(&[r"\w+\s+\d+"])), None);
    let mut fixed = opts(&[r"\s+goto out_\w+;"]);
    fixed.fixed_strings = true;
    assert_eq!(line_literals(&fixed), None);
    let mut multi = opts(&[r"\s+goto out_\w+;"]);
    multi.multiline = true;
    assert_eq!(line_literals(&multi), None);
}

#[test]
fn case_folding_spells_every_case() {
    let mut m = opts(&[r"\s+gO_x\d;"]);
    m.case = Case::Insensitive;
    let lits = line_literals(&m).unwrap();
    assert!(lits.contains(&b"go_x".to_vec()) && lits.contains(&b"GO_X".to_vec()), "{lits:?}");
    m.case = Case::Smart;
    assert!(line_literals(&m).unwrap().contains(&b"go_x".to_vec()));
}

/// The lines `matcher` matches in `text`, searched as a walk would.
fn matched_lines<M: Matcher>(matcher: M, text: &[u8]) -> Vec<u64> {
    let mut lines = Vec::new();
    SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::none())
        .build()
        .search_slice(
            matcher,
            text,
            Bytes(|n, _| {
                lines.push(n);
                Ok(true)
            }),
        )
        .unwrap();
    lines
}

/// A random pattern: parts that hold literals, and parts that do not.
fn pattern() -> impl Strategy<Value = (String, bool, u8)> {
    let part = select(vec![
        "goto ",
        "err",
        "out",
        "_",
        ";",
        "abc",
        "K",
        "\u{212A}",
        "é",
        r"\s+",
        r"\w+",
        r"\w*",
        "[a-c]",
        ".",
        r"\d",
        "(?:err|out)",
        "(?:ab|c)",
        "^",
        "$",
        r"\b",
        "x?",
        "(?:goto|go)",
    ]);
    (prop::collection::vec(part, 1..7).prop_map(|v| v.concat()), any::<bool>(), 0u8..3)
}

#[test]
fn candidate_lines_never_lose_a_match() {
    // A fixed seed: the count of patterns that take the literal path (the
    // point of the test) must not depend on the draw.
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(Config { cases: 600, ..Config::default() }, rng);
    let used = std::cell::Cell::new(0);
    runner
        .run(&pattern(), |(p, insensitive, boundary)| {
            let mut m = opts(&[&p]);
            m.case = if insensitive { Case::Insensitive } else { Case::Sensitive };
            m.boundary = [Boundary::None, Boundary::Word, Boundary::Line][usize::from(boundary)];
            let Ok(regex) = m.matcher(false) else { return Ok(()) };
            let ours = LineMatcher::new(regex.clone(), &m);
            used.set(used.get() + usize::from(ours.finds_lines_by_literals()));
            // Lines made of the same parts, and some noise.
            let mut rng = StdRng::seed_from_u64(p.len() as u64 * 31 + u64::from(boundary));
            let words =
                ["goto ", "err", "out", "_", ";", "abc", "K", "\u{212A}", "é", " ", "\t", "x", "7"];
            let mut text = Vec::new();
            for _ in 0..60 {
                for _ in 0..rng.random_range(0..8) {
                    let w = words[rng.random_range(0..words.len())];
                    let w = if rng.random_bool(0.2) { w.to_uppercase() } else { w.to_string() };
                    text.extend_from_slice(w.as_bytes());
                }
                text.push(b'\n');
            }
            prop_assert_eq!(matched_lines(&ours, &text), matched_lines(&regex, &text), "{}", p);
            Ok(())
        })
        .unwrap();
    eprintln!("patterns that took the literal path: {}", used.get());
    assert!(used.get() > 12, "too few patterns had literals to test: {}", used.get());
}
