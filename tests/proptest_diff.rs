//! Property test: random patterns from a small alphabet, over random text
//! files built from the same alphabet (so patterns actually hit), with a
//! random subset of `-i -w -x -v -o -c -F -n`; `tg` must print exactly what
//! rg prints.
//!
//! Deterministic by default (fixed seed) so CI is reproducible. Knobs:
//! * `TG_PROPTEST_SEED=<u64>` picks another seed, `=random` a fresh one;
//! * `TG_PROPTEST_CASES=<n>` changes the case count (default 256).
//!
//! On failure proptest shrinks to a small input and prints the exact
//! command line and a diff.

mod util;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use util::{Case, Tree};

const DEFAULT_SEED: u64 = 0x7467_0001;

fn config() -> Config {
    let seed = match std::env::var("TG_PROPTEST_SEED") {
        Ok(s) if s == "random" => RngSeed::Random,
        Ok(s) => RngSeed::Fixed(s.parse().expect("TG_PROPTEST_SEED must be a u64 or 'random'")),
        Err(_) => RngSeed::Fixed(DEFAULT_SEED),
    };
    let cases = std::env::var("TG_PROPTEST_CASES")
        .ok()
        .map(|s| s.parse().expect("TG_PROPTEST_CASES must be a number"))
        .unwrap_or(256);
    Config {
        cases,
        rng_seed: seed,
        max_shrink_iters: 150,
        failure_persistence: None,
        ..Config::default()
    }
}

/// Tokens that make up the text: mixed case, a word boundary-ish `_`,
/// digits, a non-ASCII letter in both cases, and spaces.
const TOKENS: &[&str] =
    &["ab", "ba", "Ab", "aB", "abc", "a", "b", "c", "_", "x1", "é", "É", "abé", " ", " ", "\t"];

fn line() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..7).prop_map(|v| v.concat())
}

fn text() -> impl Strategy<Value = String> {
    (prop::collection::vec(line(), 0..10), any::<bool>()).prop_map(|(lines, final_nl)| {
        let mut s = lines.join("\n");
        if final_nl && !s.is_empty() {
            s.push('\n');
        }
        s
    })
}

const ATOMS: &[&str] =
    &["a", "b", "c", "é", "A", "ab", "[ab]", "[^a ]", ".", r"\w", r"\s", r"\d", r"\b", "_"];
const QUANTS: &[&str] = &["", "", "", "+", "*", "?", "{1,2}"];

fn regex_pattern() -> impl Strategy<Value = String> {
    let piece = (prop::sample::select(ATOMS), prop::sample::select(QUANTS))
        .prop_map(|(a, q)| if a == r"\b" { a.to_string() } else { format!("{a}{q}") });
    let seq = prop::collection::vec(piece, 1..4).prop_map(|v| v.concat());
    (seq.clone(), prop::option::of(seq), any::<bool>(), any::<bool>()).prop_map(
        |(a, alt, start, end)| {
            let mut p = match alt {
                Some(b) => format!("{a}|{b}"),
                None => a,
            };
            if start {
                p = format!("^(?:{p})");
            }
            if end {
                p = format!("(?:{p})$");
            }
            p
        },
    )
}

fn literal_pattern() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(&["a", "b", "ab", "é", "A", " ", "_", "c"][..]),
        1..4,
    )
    .prop_map(|v| v.concat())
}

fn pattern() -> impl Strategy<Value = String> {
    prop_oneof![literal_pattern(), regex_pattern()]
}

const FLAGS: &[&str] = &["-i", "-w", "-x", "-v", "-o", "-c", "-F", "-n"];

#[derive(Debug, Clone)]
enum Input {
    /// 1–3 files, searched by walking the temp dir.
    Files(Vec<String>),
    /// Text piped to stdin.
    Stdin(String),
}

fn input() -> impl Strategy<Value = Input> {
    prop_oneof![
        3 => prop::collection::vec(text(), 1..4).prop_map(Input::Files),
        1 => text().prop_map(Input::Stdin),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn tg_matches_rg(
        pat in pattern(),
        flags in prop::sample::subsequence(FLAGS, 0..=4),
        inp in input(),
    ) {
        let t = Tree::new("prop");
        let mut args: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        args.push("-e".into());
        args.push(pat.clone());
        let mut case = Case::new("proptest", &args).cwd("d");
        match &inp {
            Input::Files(files) => {
                for (i, body) in files.iter().enumerate() {
                    t.write(format!("d/f{i}.txt"), body);
                }
            }
            Input::Stdin(body) => {
                t.mkdir("d");
                case = case.stdin(body);
            }
        }
        if let Err(report) = util::compare(t.root(), &case) {
            let shown = match &inp {
                Input::Files(f) => format!("files: {f:?}"),
                Input::Stdin(s) => format!("stdin: {s:?}"),
            };
            prop_assert!(false, "{report}  input {shown}");
        }
    }
}
