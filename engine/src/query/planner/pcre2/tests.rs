//! The rewrite of PCRE2 patterns: what each construct becomes, and that
//! the plan of the rewrite accepts every line PCRE2 matches (PCRE2 itself,
//! through `grep-pcre2`, is the oracle).

use grep_matcher::Matcher;
use grep_pcre2::RegexMatcherBuilder;

use super::{Reading, superset};
use crate::query::grams_have;
use crate::query::planner::{PlanOptions, plan};
use crate::query::trigram::grams;

fn rewrite(p: &str) -> Option<String> {
    superset(p, how(true, false))
}

fn how(unicode: bool, caseless: bool) -> Reading {
    Reading { unicode, caseless, wrapped: false, lines: false, crlf: false }
}

#[test]
fn what_each_construct_becomes() {
    let cases: &[(&str, Option<&str>)] = &[
        ("foo(?=bar)", Some("foo(?:bar)")),
        ("(?<=ba)r|c(?=d)|e(?=f)g", Some("(?:ba)r|c(?:d)|e(?:)g")),
        ("(?:a(?=b))(?<=c)d", Some("(?:a(?:))(?:)d")),
        ("(?<!x)foo(?!y)", Some("(?:)foo(?:)")),
        (r"(\w+) \1", Some(r"(?:\w+) (?s:.*)")),
        (r"(?<n>ab)\k<n>", Some("(?:ab)(?s:.*)")),
        (r"(?P<n>ab)(?P=n)", Some("(?:ab)(?s:.*)")),
        (r"a\Kb", Some("ab")),
        (r"(?>ab)c++d?+e{2,3}+", Some("(?:ab)c+d?e{2,3}")),
        (r"\Qa.b\E", Some(r"a\.b")),
        (r"x{,3}y{ 2 }z{a", Some(r"x{0,3}y{2,2}z\{a")),
        (r"\x{41}\101\o{102}\cA", Some("A(?s:.*)B\u{1}")),
        (r"[a-c\]x]", Some(r"[\x{61}-\x{63}\x{5D}-\x{5D}\x{78}-\x{78}]")),
        (r"[^\d]", Some("(?s:.)")),
        (r"[[:alpha:]]", Some("(?s:.)")),
        (r"\h\p{L}\R", Some("(?s:.)(?s:.)(?s:.{1,2})")),
        (r"caf\N{U+E9}!", Some("caf(?s:.)!")),
        ("(?i)Foo(?#note)", Some("(?i)Foo")),
        ("(?x) a b", None),
        ("(?(1)a|b)", None),
        ("(*ACCEPT)a", None),
        ("a)", None),
        ("(?1)x(?&n)", Some("(?s:.*)x(?s:.*)")),
    ];
    let mut wrong = Vec::new();
    for &(p, want) in cases {
        let got = rewrite(p);
        if got.as_deref() != want {
            wrong.push(format!("{p:?}: got {got:?}, want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn non_ascii_is_any_character_where_case_may_be_ignored() {
    assert_eq!(superset("é", how(true, false)).unwrap(), "é");
    assert_eq!(superset("é", how(true, true)).unwrap(), "(?s:.)");
    assert_eq!(superset("a(?i)é", how(true, false)).unwrap(), "a(?i)(?s:.)");
    // Without UTF, PCRE2 reads the pattern's bytes one by one.
    assert_eq!(superset("é", how(false, false)).unwrap(), r"(?-u:\xC3)(?-u:\xA9)");
    assert_eq!(superset("[é]", how(false, false)).unwrap(), "(?s:.)");
}

/// A PCRE2 pattern, and lines of which PCRE2 matches some.
const PATTERNS: &[&str] = &[
    r"foo(?=bar)",
    r"(?<=ba)rfoo",
    r"(?<!x)needle(?!s)",
    r"(\w+) \1",
    r"\b(\w)(\w)\2\1\b",
    r"(?<q>['\x22]).*?\k<q>",
    r"ab\Kcd",
    r"(?>x+)y",
    r"colou?r{1,}+",
    r"\Qa.b*c\E",
    r"[^\s]{3}end",
    r"\h+tab",
    r"(?i)straße",
    r"(?i:ÉTÉ)",
    r"\x{e9}t\x{E9}",
    r"(a|b)\g{-1}c",
    r"^(?:(?!abc).)*$",
    r"qu(?=ick)ick",
    r"\d{2}(?<=1\d)x",
    r"(?|(a)|(b))\1z",
];

const LINES: &[&str] = &[
    "foobar",
    "barfoo rfoo",
    "a needle here",
    "needles",
    "xneedle",
    "the the cat",
    "abba noon",
    "say 'hi' and \"yo\"",
    "abcd",
    "xxxy",
    "colourrr",
    "a.b*c",
    "xyzend",
    "\t tab",
    "STRASSE and Straße",
    "été ÉTÉ",
    "été",
    "aac bbc abc",
    "",
    "xyz",
    "quick",
    "12x 22x",
    "aaz bbz",
    "ünïcödé wörds",
];

#[test]
fn the_plan_of_the_rewrite_accepts_every_line_pcre2_matches() {
    let mut misses = Vec::new();
    for &p in PATTERNS {
        for caseless in [false, true] {
            for unicode in [true, false] {
                let mut b = RegexMatcherBuilder::new();
                b.multi_line(true).caseless(caseless);
                if unicode {
                    b.utf(true).ucp(true);
                }
                let Ok(m) = b.build(p) else { continue };
                let rewritten = superset(p, how(unicode, caseless)).expect(p);
                let opts =
                    PlanOptions { case_insensitive: caseless, unicode, ..PlanOptions::default() };
                let q = plan(std::slice::from_ref(&rewritten), &opts);
                for line in LINES {
                    if m.is_match(line.as_bytes()).unwrap() {
                        let mut doc = b"\n".to_vec();
                        doc.extend_from_slice(line.as_bytes());
                        doc.push(b'\n');
                        if !q.accepts(&grams_have(&grams(&doc))) {
                            misses.push(format!("{p:?} ({rewritten:?}, -i {caseless}, utf {unicode}) on {line:?}: {q}"));
                        }
                    }
                }
            }
        }
    }
    assert!(misses.is_empty(), "{}", misses.join("\n"));
}

#[test]
fn look_arounds_stay_out_of_a_wrapped_pattern() {
    let wrapped = Reading { wrapped: true, ..how(true, false) };
    assert_eq!(superset("foo(?=.bar)", wrapped).unwrap(), "foo(?:)");
    assert_eq!(superset("(?<=a)foo", wrapped).unwrap(), "(?:)foo");
}

#[test]
fn selective_patterns_keep_their_trigrams() {
    let q = plan(&[rewrite(r"(?<=static )int\s+(\w+)\(\1").unwrap()], &PlanOptions::default());
    assert!(q.to_string().contains("int"), "{q}");
    assert!(!q.accepts(&grams_have(&grams(b"\nno such thing\n"))));
}

#[test]
fn fixed_strings_under_pcre2_are_escaped_then_rewritten() {
    use crate::options::{Case, Engine, MatchOptions};
    use crate::query::search_plan::query_for;
    let mut m = MatchOptions::new(vec!["a.b(c".into(), "été".into()]);
    m.engine = Engine::Pcre2;
    m.fixed_strings = true;
    let q = query_for(&m, true);
    assert!(q.accepts(&grams_have(&grams(b"\nxa.b(cx\n"))), "{q}");
    assert!(q.accepts(&grams_have(&grams("\nété\n".as_bytes()))), "{q}");
    assert!(!q.accepts(&grams_have(&grams(b"\naxb(c\n"))), "{q}");
    // Ignoring case, a non-ASCII letter is any character.
    m.case = Case::Insensitive;
    assert!(query_for(&m, true).accepts(&grams_have(&grams("\nÉTÉ\n".as_bytes()))));
}
