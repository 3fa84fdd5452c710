//! Property test: the planner never rejects a text its regex matches.
//!
//! Random regexes are built over a small alphabet that mixes upper and
//! lower case, case-folding traps (`K`/Kelvin sign, `s`/long s) and
//! multibyte characters, with classes, alternations, repetitions, optional
//! groups, anchors, word boundaries and inline flags. Texts come from two
//! sources: `rand_regex` samples of the pattern (anchors removed, then
//! padded with random noise) and random strings over the alphabet. Every
//! text the real `regex` crate matches must be accepted by the plan, as
//! must every match inside it and the text with its newlines turned into
//! NUL bytes.

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rand::distr::Distribution;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use regex::bytes::RegexBuilder;
use regex_syntax::hir::{self, Hir, HirKind};

use super::{PlanOptions, parser_builder, pattern_text, plan};
use crate::query::trigram::doc_grams;
use crate::query::{Query, grams_have};

/// Characters texts and literals are made of.
const ALPHABET: &[&str] = &[
    "a", "b", "c", "A", "B", "k", "K", "s", "S", "\u{17F}", "\u{212A}", "é", "É", "_", " ", "\n",
    "\r",
];

/// A regex leaf: a literal, a class, an assertion or nothing.
fn leaf() -> impl Strategy<Value = String> {
    let chars: Vec<String> =
        ALPHABET.iter().map(|c| c.replace('\n', "\\n").replace('\r', "\\r")).collect();
    prop_oneof![
        4 => select(chars),
        2 => select(vec!["abc", "Kab", "\u{17F}é", "bca", "aab", "ba", "ABc", "cab"]).prop_map(String::from),
        2 => select(vec![
            "[abc]", "[^a]", "[a-c]", "[kK]", "[éÉ_]", "[^\\n]", ".", "\\w", "\\s", "[sS]", "[a-cK]",
        ])
        .prop_map(String::from),
        1 => select(vec!["^", "$", "\\b", "\\B", "\\A", "\\z", ""]).prop_map(String::from),
        // Raw bytes (invalid UTF-8 on their own) and an empty class.
        1 => select(vec!["(?-u:\\xC3)", "(?-u:[\\x80-\\xFF])", "(?-u:\\xA9a)", "(?-i:[^\\x00-\\x{10FFFF}])"])
            .prop_map(String::from),
    ]
}

/// A random regex built from [`leaf`]s.
fn regex_source() -> impl Strategy<Value = String> {
    let ops = vec!["?", "*", "+", "{2}", "{1,3}", "{0,2}", "{2,}", "??", "+?", "{3}", "{0}"];
    let flags = vec!["i", "-i", "s", "-u", "i-u"];
    let pattern = leaf().prop_recursive(4, 24, 4, move |inner| {
        prop_oneof![
            3 => prop::collection::vec(inner.clone(), 2..5).prop_map(|v| v.concat()),
            2 => prop::collection::vec(inner.clone(), 2..4)
                .prop_map(|v| format!("(?:{})", v.join("|"))),
            1 => inner.clone().prop_map(|x| format!("({x})")),
            2 => (inner.clone(), select(ops.clone())).prop_map(|(x, op)| format!("(?:{x}){op}")),
            1 => (inner, select(flags.clone())).prop_map(|(x, f)| format!("(?{f}:{x})")),
        ]
    });
    (pattern, prop::bool::weighted(0.15)).prop_map(|(p, i)| if i { format!("(?i){p}") } else { p })
}

/// Random matcher flags, mostly ripgrep's defaults.
fn options() -> impl Strategy<Value = PlanOptions> {
    use prop::bool::weighted;
    let flags = (weighted(0.2), weighted(0.05), weighted(0.08), weighted(0.3), weighted(0.5));
    let more = (weighted(0.9), weighted(0.15), weighted(0.25), weighted(0.1));
    (flags, more).prop_map(|((i, smart, fixed, multi, dotall), (unicode, crlf, word, line))| {
        PlanOptions {
            case_insensitive: i,
            case_smart: smart,
            fixed_strings: fixed,
            multi_line: multi,
            dot_matches_new_line: dotall,
            unicode,
            crlf,
            word,
            whole_line: line,
            edges: true,
        }
    })
}

/// `hir` with every assertion replaced by the empty regex (`rand_regex`
/// cannot sample assertions; the `regex` crate filters the samples).
fn strip_looks(h: &Hir) -> Hir {
    match h.kind() {
        HirKind::Look(_) => Hir::empty(),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) => h.clone(),
        HirKind::Capture(c) => Hir::capture(hir::Capture {
            index: c.index,
            name: c.name.clone(),
            sub: Box::new(strip_looks(&c.sub)),
        }),
        HirKind::Repetition(r) => Hir::repetition(hir::Repetition {
            min: r.min,
            max: r.max,
            greedy: r.greedy,
            sub: Box::new(strip_looks(&r.sub)),
        }),
        HirKind::Concat(v) => Hir::concat(v.iter().map(strip_looks).collect()),
        HirKind::Alternation(v) => Hir::alternation(v.iter().map(strip_looks).collect()),
    }
}

/// A random string of up to `max` alphabet characters.
fn noise(rng: &mut StdRng, max: usize) -> Vec<u8> {
    let len = rng.random_range(0..=max);
    (0..len).flat_map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())].bytes()).collect()
}

/// Counters showing the property test is not vacuous.
#[derive(Default)]
struct Stats {
    /// Cases with at least one matching text.
    cases_matched: AtomicUsize,
    /// Matching texts checked.
    texts: AtomicUsize,
}

/// Fails unless `q` accepts a document holding exactly `text` (with its
/// edges, as an index holds it).
fn assert_accepts(q: &Query, text: &[u8], pattern: &str, what: &str) -> Result<(), TestCaseError> {
    let doc = doc_grams(text);
    prop_assert!(
        q.accepts(&grams_have(&doc)),
        "false negative: pattern {pattern:?} planned as {q} rejects {what} {:?}",
        bstr::BStr::new(text)
    );
    Ok(())
}

/// Checks one case: plans `pattern` and tries texts it matches.
fn check(pattern: &str, opts: &PlanOptions, seed: u64, stats: &Stats) -> Result<(), TestCaseError> {
    let q = plan(&[pattern.to_string()], opts);
    let src = pattern_text(pattern, opts);
    // Wrapped for -x and -w as grep-regex wraps it.
    let matched_src = if opts.whole_line {
        format!("(?m:^)(?:{src})(?m:$)")
    } else if opts.word {
        format!(r"\b{{start-half}}(?:{src})\b{{end-half}}")
    } else {
        src.to_string()
    };
    let Ok(re) = RegexBuilder::new(&matched_src)
        .case_insensitive(opts.case_insensitive || opts.case_smart)
        .multi_line(true)
        .dot_matches_new_line(opts.multi_line && opts.dot_matches_new_line)
        .unicode(opts.unicode)
        .crlf(opts.crlf)
        .build()
    else {
        return Ok(());
    };
    let mut rng = StdRng::seed_from_u64(seed);
    let mut texts = Vec::new();
    if let Ok(hir) = parser_builder(opts).build().parse(&src)
        && let Ok(sampler) = rand_regex::Regex::with_hir(strip_looks(&hir), 3)
    {
        for _ in 0..3 {
            let s: Vec<u8> = sampler.sample(&mut rng);
            let mut padded = noise(&mut rng, 3);
            padded.extend_from_slice(&s);
            padded.extend(noise(&mut rng, 3));
            texts.push(s);
            texts.push(padded);
        }
    }
    for _ in 0..4 {
        texts.push(noise(&mut rng, 8));
    }
    let mut matched = false;
    for text in &texts {
        if !re.is_match(text) {
            continue;
        }
        matched = true;
        stats.texts.fetch_add(1, Ordering::Relaxed);
        assert_accepts(&q, text, pattern, "text")?;
        for m in re.find_iter(text) {
            assert_accepts(&q, m.as_bytes(), pattern, "match")?;
        }
        let nul: Vec<u8> = text.iter().map(|&b| if b == b'\n' { 0 } else { b }).collect();
        assert_accepts(&q, &nul, pattern, "text with NUL for newline")?;
    }
    if matched {
        stats.cases_matched.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

#[test]
fn planner_has_no_false_negatives() {
    const CASES: u32 = 10_000;
    let config = Config { failure_persistence: None, ..Config::with_cases(CASES) };
    let mut runner = TestRunner::new(config);
    let stats = Stats::default();
    let start = std::time::Instant::now();
    let result = runner.run(&(regex_source(), options(), any::<u64>()), |(p, o, seed)| {
        check(&p, &o, seed, &stats)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let matched = stats.cases_matched.load(Ordering::Relaxed);
    eprintln!(
        "planner property: {CASES} cases, {matched} with matching texts, {} texts, {:?}",
        stats.texts.load(Ordering::Relaxed),
        start.elapsed()
    );
    // Most cases must exercise the property, or the test proves little.
    assert!(matched * 10 > CASES as usize * 7, "only {matched} cases had a matching text");
}
