//! Unit tests of the planner: plans of fixed patterns, displayed, and
//! acceptance checks against texts the patterns match.

use super::*;
use crate::query::grams_have;
use crate::query::trigram::doc_grams;

/// The plan of one pattern with `opts`, displayed.
fn show_with(pattern: &str, opts: &PlanOptions) -> String {
    plan(&[pattern.to_string()], opts).to_string()
}

/// The plan of one pattern with default options, displayed.
fn show(pattern: &str) -> String {
    show_with(pattern, &PlanOptions::default())
}

/// Whether `q` accepts a document holding `text` (with its edges, as an
/// index holds it).
fn accepts(q: &Query, text: &str) -> bool {
    q.accepts(&grams_have(&doc_grams(text.as_bytes())))
}

fn planned(pattern: &str) -> Query {
    plan(&[pattern.to_string()], &PlanOptions::default())
}

#[test]
fn literals_and_empty() {
    assert_eq!(show(""), "ALL");
    assert_eq!(show("ab"), "ALL");
    assert_eq!(show("abc"), r#""abc""#);
    assert_eq!(show("abcd"), r#"("abc"+d & "bcd")"#);
    assert_eq!(show("ABC"), r#""abc""#, "folded like the index");
}

#[test]
fn assertions_inside_a_pattern_are_empty() {
    assert_eq!(show(r"\Afo\Bo\z"), r#""foo""#);
    assert_eq!(show(r"fo\bo"), r#""foo""#);
    let q = planned(r"foo\b bar");
    assert!(accepts(&q, "foo bar"), "zero-width: no byte is added inside");
}

#[test]
fn line_anchors_at_the_edges_require_a_line_terminator_outside() {
    assert_eq!(show("^foo"), r#"("foo" & ("\nfo"+o | "\x00fo"+o))"#);
    let q = planned("^foo$");
    for text in ["foo", "a\nfoo\nb", "a\nfoo", "x\0foo\0y", "\u{FEFF}foo"] {
        assert!(accepts(&q, text), "{text:?}");
    }
    for text in ["afoo", "foob", "a foo\n", "\nfoo bar"] {
        assert!(!accepts(&q, text), "{text:?}");
    }
    let crlf = PlanOptions { crlf: true, ..PlanOptions::default() };
    let q = plan(&["^foo$".into()], &crlf);
    assert!(accepts(&q, "a\r\nfoo\r\nb") && accepts(&q, "a\rfoo\rb"));
    let lines = PlanOptions { whole_line: true, ..PlanOptions::default() };
    let q = plan(&["foo".into()], &lines);
    assert!(accepts(&q, "a\nfoo\nb") && !accepts(&q, "a\nfoo bar\nb"));
}

#[test]
fn word_boundaries_at_the_edges_require_a_non_word_byte_outside() {
    let words = PlanOptions { word: true, ..PlanOptions::default() };
    for q in [planned(r"\bfoo\b"), plan(&["foo".into()], &words), planned(r"\<foo\>")] {
        for text in ["foo", " foo ", "(foo)", "a\nfoo\n", "\u{e9}\u{2014}foo\u{2014}", "x\0foo"] {
            assert!(accepts(&q, text), "{q}: {text:?}");
        }
        for text in ["xfoo ", " foox", "_foo_", "foo1"] {
            assert!(!accepts(&q, text), "{q}: {text:?}");
        }
    }
    // Before a non-word character, \b says the outside byte is a word's.
    assert_eq!(show(r"\b-foo"), show("-foo"));
    // Under -w, a pattern that starts with a non-word character gets one
    // before it all the same (the half boundary asks only the outside).
    let q = plan(&["-foo".into()], &words);
    assert!(accepts(&q, " -foo") && !accepts(&q, "x-foo"));
}

#[test]
fn long_word_lists_under_w_are_planned_bare() {
    let words = PlanOptions { word: true, ..PlanOptions::default() };
    let list: Vec<String> = (0..2000).map(|i| format!("word{i}")).collect();
    let q = plan(&list, &words);
    assert_ne!(q, Query::All);
    assert!(accepts(&q, "word77") && !accepts(&q, "nothing"));
}

#[test]
fn unconstrained_patterns_plan_to_all() {
    for p in [r"[^\n]*", ".", ".*", r"\w+", "(?s).", "a.b", "[a-z]+"] {
        assert_eq!(show(p), "ALL", "{p}");
    }
}

#[test]
fn alternation() {
    assert_eq!(show("abc|def"), r#"("abc" | "def")"#);
    assert_eq!(show("(?i)a|b"), "ALL");
    assert_eq!(show("abc|d"), "ALL");
    // Alternation inside a concatenation: cross product.
    assert_eq!(show("a(b|c)d"), r#"("abd" | "acd")"#);
    assert_eq!(
        show("x(ab|cd)yz"),
        r#"(("xab"+y & "aby"+z & "byz") | ("xcd"+y & "cdy"+z & "dyz"))"#
    );
}

#[test]
fn optional_group_does_not_span() {
    let q = planned("foo_(bar_)?baz");
    assert_ne!(q, Query::All);
    assert!(accepts(&q, "foo_baz"));
    assert!(accepts(&q, "foo_bar_baz"));
    assert!(!accepts(&q, "foo_bar"));
    let q2 = plan(&["foo_(bar_)?".to_string()], &PlanOptions::default());
    assert_eq!(q2.to_string(), r#"("foo"+_ & "oo_")"#);
    assert!(accepts(&q2, "foo_"));
}

#[test]
fn classes() {
    assert_eq!(show("ab[cd]"), r#"("abc" | "abd")"#);
    assert_eq!(show("[Aa]bc"), r#""abc""#);
    assert!(accepts(&planned("x[0-9]yz"), "x7yz"));
    assert!(!accepts(&planned("x[0-9]yz"), "xayz"));
    // Too big to expand: any character.
    assert_eq!(show(r"ab\wcd"), "ALL");
    assert_eq!(show(r"abc\wdef"), r#"("abc" & "def")"#);
    // An empty class matches nothing.
    assert_eq!(show(r"a[^\x00-\x{10FFFF}]"), "NONE");
}

#[test]
fn repetition() {
    assert_eq!(show("(abc)+"), r#""abc""#);
    assert_eq!(show("(abc)*def"), r#""def""#);
    assert_eq!(show("abc+"), r#""abc""#);
    assert_eq!(show("a{3}"), r#""aaa""#);
    assert_eq!(show("ab?c"), "ALL");
    assert_eq!(show("xab?cd"), r#"(("xab"+c & "abc"+d & "bcd") | ("xac"+d & "acd"))"#);
    let q = planned("(ab){2,}");
    assert!(accepts(&q, "abab") && accepts(&q, "ababab"));
    assert!(!accepts(&q, "ab"));
    assert!(accepts(&planned("(abc){0,3}x"), "x"));
}

#[test]
fn big_inputs_stay_fast() {
    assert_eq!(show("a{1000}"), r#""aaa"+a"#);
    assert_eq!(show("(a{1000}){1000}"), r#""aaa"+a"#);
    assert_eq!(show("((ab|cd){100}){100}x"), planned("((ab|cd){100}){100}x").to_string());
    let words: Vec<String> = (0..5000).map(|i| format!("word{i}")).collect();
    let q = planned(&words.join("|"));
    assert!(words.iter().all(|w| accepts(&q, w)));
    assert!(!accepts(&q, "word"));
    let lits: Vec<String> = (0..2000).map(|i| format!("pattern{i}x")).collect();
    let qs = plan(&lits, &PlanOptions::default());
    assert!(lits.iter().all(|w| accepts(&qs, w)));
    // Deep nesting (near the parser's nest limit) and nested counted
    // repetitions stay bounded.
    let nested = format!("{}abc{}", "(?:bcd|".repeat(120), ")".repeat(120));
    assert_eq!(show(&nested), r#"("abc" | "bcd")"#);
    let reps = format!("{}ab{}", "(?:".repeat(120), "){2,3}".repeat(120));
    assert_eq!(show(&reps), r#"("aba"+b & "bab")"#);
    let q = planned("(?:(?:(?:(?:[a-p]x){8}y){8}z){8}){8}");
    assert!(q.node_count() < 2000, "{}", q.node_count());
    let text = format!("{}z", format!("{}y", "axbxcxdxexfxgxhx").repeat(8)).repeat(64);
    assert!(regex::Regex::new("(?:(?:(?:(?:[a-p]x){8}y){8}z){8}){8}").unwrap().is_match(&text));
    assert!(accepts(&q, &text));
    let long = "abcdefghij".repeat(1000);
    assert!(accepts(&planned(&long), &long));
}

#[test]
fn newlines_are_required_only_at_a_trigram_edge() {
    let opts = PlanOptions { multi_line: true, ..PlanOptions::default() };
    assert_eq!(
        show_with("abc\ndef", &opts),
        r#"("abc" & ("bc\n" | "bc\x00") & ("\nde"+f | "\x00de"+f) & "def")"#
    );
    let q = plan(&["abc\ndef".into()], &opts);
    assert!(accepts(&q, "abc\ndef") && accepts(&q, "abc\0def"));
    assert_eq!(show_with("ab\ncd", &opts), r#"(("ab\n" | "ab\x00") & ("\ncd" | "\x00cd"))"#);
    assert_eq!(show_with("a\nb", &opts), "ALL");
    let q = plan(&[r"abc\sdef".into()], &opts);
    for text in ["abc def", "abc\ndef", "abc\0def", "abc\u{3000}def"] {
        assert!(accepts(&q, text), "{text:?}");
    }
    assert!(!accepts(&q, "abc-def"));
}

#[test]
fn unicode() {
    let q = planned("héllo");
    assert!(accepts(&q, "xhéllox"));
    assert!(!accepts(&q, "hello"));
    let qi = plan(&["(?i)héllo".to_string()], &PlanOptions::default());
    assert!(accepts(&qi, "HÉLLO"));
    assert!(accepts(&qi, "hÉllo"));
    let raw = plan(&[r"(?-u:\xff)ab".to_string()], &PlanOptions::default());
    assert_eq!(raw.to_string(), r#""\xffab""#);
}

#[test]
fn case_insensitive_kelvin() {
    let opts = PlanOptions { case_insensitive: true, ..PlanOptions::default() };
    let q = plan(&["kelvin".to_string()], &opts);
    assert!(accepts(&q, "KELVIN"));
    assert!(accepts(&q, "\u{212A}elvin"), "Kelvin sign is a case variant of k");
    assert!(!accepts(&q, "elvin"));
    // Without -i the Kelvin sign is not a variant.
    assert!(!accepts(&plan(&["kelvin".to_string()], &PlanOptions::default()), "\u{212A}elvin"));
    // Smart case plans like -i.
    let smart = PlanOptions { case_smart: true, ..PlanOptions::default() };
    assert_eq!(plan(&["kelvin".to_string()], &smart), q);
}

#[test]
fn fixed_strings_escape_metacharacters() {
    let opts = PlanOptions { fixed_strings: true, ..PlanOptions::default() };
    assert_eq!(show_with("a.b*c", &opts), r#"("a.b"+* & ".b*"+c & "b*c")"#);
    assert_eq!(show_with("(", &opts), "ALL");
    assert_eq!(show_with("foo(", &opts), r#"("foo"+( & "oo(")"#);
}

#[test]
fn multiple_patterns() {
    let p = |ps: &[&str]| {
        plan(&ps.iter().map(|s| s.to_string()).collect::<Vec<_>>(), &PlanOptions::default())
            .to_string()
    };
    assert_eq!(p(&["foo", "bar"]), r#"("foo" | "bar")"#);
    assert_eq!(p(&["foo", "("]), "ALL", "a parse error plans to ALL");
    assert_eq!(p(&["foo", ".*"]), "ALL");
    assert_eq!(p(&[]), "NONE");
}

#[test]
fn query_simplify() {
    let t = |s: &[u8; 3]| Query::Trigram(crate::query::trigram::pack(*s));
    let q = Query::And(vec![t(b"abc"), Query::Or(vec![t(b"abc"), t(b"def")]), t(b"abc")]);
    assert_eq!(q.simplify(), t(b"abc"));
    let q = Query::Or(vec![Query::And(vec![]), t(b"abc")]);
    assert_eq!(q.simplify(), Query::All);
    let q = Query::And(vec![Query::Or(vec![]), t(b"abc")]);
    assert_eq!(q.simplify(), Query::Nothing);
    let q = Query::Or(vec![
        Query::And(vec![t(b"abc"), t(b"bcd")]),
        Query::And(vec![t(b"xyz"), t(b"abc"), t(b"yzw")]),
    ]);
    assert_eq!(q.simplify().to_string(), r#"("abc" & ("bcd" | ("xyz" & "yzw")))"#);
    assert_eq!(show("[0-9a-f]-deadbeef").matches("eef").count(), 1, "common terms factored");
    // A trigram followed by a byte implies the trigram, in small nodes and
    // in big ones (which only look up their siblings).
    let f = |s: &[u8; 3], b| Query::Followed(crate::query::trigram::pack(*s), b);
    for extra in [0, 40] {
        let others = || (0..extra).map(|i| t(&[b'0' + (i % 10) as u8, b'A' + i as u8, b'z']));
        let and = Query::And([t(b"abc"), f(b"abc", b'd')].into_iter().chain(others()).collect());
        let and = and.simplify().to_string();
        assert_eq!(and.matches("\"abc\"").count(), 1, "{extra}: {and}");
        assert!(and.contains("\"abc\"+d"), "{extra}: {and}");
        let or = Query::Or([f(b"abc", b'd'), t(b"abc")].into_iter().chain(others()).collect());
        assert!(!or.simplify().to_string().contains("+d"), "{extra}");
        let alt = Query::And(vec![f(b"abc", b'd'), t(b"xyz")]);
        let or = Query::Or([alt, t(b"abc")].into_iter().chain(others()).collect());
        assert!(!or.simplify().to_string().contains("xyz"), "{extra}");
    }
}
