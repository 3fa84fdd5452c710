//! The regex → trigram planner, with tg's own matcher as the oracle: from
//! arbitrary bytes, matcher flags, up to four patterns and a haystack.
//! Planning never panics, and whenever the matcher (built by
//! `MatchOptions::matcher`, as a search builds it) finds a match in the
//! haystack, the plan (`search_plan::query_for`, as a search plans) accepts
//! the haystack's trigrams (folded as the index folds them): no false
//! negative.
//!
//! Input: a flags byte (bits 0–1: case sensitive, `-i`, `-S`; 2: `-F`;
//! 3: `-U`; 4: `--multiline-dotall`; 5: `--no-unicode`; 6: `--crlf`;
//! 7: `--null-data`), a byte of more flags (bits 0–1: none, `-w`, `-x`;
//! 2: binary detection on, so NUL never matches), then the patterns (one
//! per line) and, after the first NUL byte, the haystack.
#![no_main]

use grep_matcher::Matcher;
use libfuzzer_sys::fuzz_target;
use trigrep::query::search_plan::query_for;
use trigrep::query::grams_have;
use trigrep::query::trigram::doc_grams;
use trigrep::options::{Boundary, Case, MatchOptions};

/// The compiled regex and lazy DFA limits: big enough for what the fuzzer
/// writes, small enough that it does not spend its time compiling.
const SIZE_LIMIT: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let [flags, more, rest @ ..] = data else { return };
    let (patterns, haystack) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let Ok(patterns) = std::str::from_utf8(patterns) else { return };
    let mut m = MatchOptions::new(patterns.split('\n').take(4).map(String::from).collect());
    m.case = match flags & 3 {
        1 => Case::Insensitive,
        2 => Case::Smart,
        _ => Case::Sensitive,
    };
    m.fixed_strings = flags & 4 != 0;
    m.multiline = flags & 8 != 0;
    m.multiline_dotall = flags & 16 != 0;
    m.unicode = flags & 32 == 0;
    m.crlf = flags & 64 != 0;
    m.null_data = flags & 128 != 0;
    m.boundary = match more & 3 {
        1 => Boundary::Word,
        2 => Boundary::Line,
        _ => Boundary::None,
    };
    m.size_limit = Some(SIZE_LIMIT);
    m.dfa_size_limit = Some(SIZE_LIMIT);
    let query = query_for(&m, true);
    let Ok(matcher) = m.matcher(more & 4 != 0) else { return };
    if matcher.is_match(haystack) == Ok(true) {
        let doc = doc_grams(haystack);
        assert!(
            query.accepts(&grams_have(&doc)),
            "false negative: {:?} planned as {query} rejects {:?}",
            m.patterns,
            String::from_utf8_lossy(haystack)
        );
    }
});
