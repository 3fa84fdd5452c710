//! The parser against rg's semantics: order, repetition, negation, errors.

use std::ffi::OsString;

use trigrep::options::{BinaryMode, Boundary, Case, OutputMode, SortBy, TypeChange};

use super::parse_low;
use crate::cli::args::{ColorWhen, ContextMode, LowArgs, LowMode, PatternSource, Special};

fn low(argv: &[&str]) -> LowArgs {
    parse_low(argv.iter().map(OsString::from).collect()).expect("flags parse")
}

fn error(argv: &[&str]) -> String {
    format!("{:#}", parse_low(argv.iter().map(OsString::from).collect()).unwrap_err())
}

#[test]
fn repeated_flags_and_the_last_one_wins() {
    let l = low(&["-i", "-n", "-F", "-i", "-e", "foo", "dir"]);
    assert_eq!((l.case, l.fixed_strings, l.line_number), (Case::Insensitive, true, Some(true)));
    assert_eq!(l.positional, ["dir"]);
    assert_eq!(low(&["-S", "-s"]).case, Case::Sensitive);
    assert_eq!(low(&["-C", "1", "x", "-C", "0"]).context.lines(), (0, 0));
    let l = low(&["--path-separator", "/", "--path-separator", "Z"]);
    assert_eq!(l.path_separator, Some(b'Z'));
    assert_eq!(low(&["-w", "-x"]).boundary, Boundary::Line);
    assert_eq!(low(&["-x", "-w"]).boundary, Boundary::Word);
}

#[test]
fn negations_undo_and_modes_follow_the_last_flag() {
    assert!(!low(&["-F", "--no-fixed-strings"]).fixed_strings);
    assert_eq!(low(&["--heading", "--no-heading"]).heading, Some(false));
    assert_eq!(low(&["--files", "-l"]).mode, LowMode::Search(OutputMode::FilesWithMatches));
    assert_eq!(low(&["-l", "--files"]).mode, LowMode::Files);
    assert_eq!(low(&["-c", "--json", "--no-json"]).mode, LowMode::Search(OutputMode::Standard));
    assert_eq!(low(&["--json", "-c", "--no-json"]).mode, LowMode::Search(OutputMode::Count));
    assert_eq!(
        low(&["--context-separator", "x", "--no-context-separator"]).context_separator,
        None
    );
}

#[test]
fn unrestricted_and_ignore_flags_apply_in_order() {
    let l = low(&["-u", "--ignore-vcs"]);
    assert!(l.no_ignore_dot && !l.no_ignore_vcs);
    let l = low(&["--ignore-vcs", "-u"]);
    assert!(l.no_ignore_vcs);
    assert!(!low(&["-uu", "--no-hidden"]).hidden);
    assert!(low(&["--no-hidden", "-uu"]).hidden);
    assert_eq!(low(&["-uuu", "-a"]).binary, BinaryMode::AsText);
    assert_eq!(low(&["-a", "-uuu"]).binary, BinaryMode::SearchAndSuppress);
    assert!(error(&["-uuuu"]).contains("flag can only be repeated up to 3 times"));
}

#[test]
fn context_passthru_and_patterns_keep_rgs_rules() {
    assert_eq!(low(&["-A", "2", "-C", "5"]).context.lines(), (5, 2));
    assert_eq!(low(&["-C", "5", "--passthru"]).context, ContextMode::Passthru);
    assert_eq!(low(&["--passthru", "-A", "1"]).context.lines(), (0, 1));
    let l = low(&["-f", "p.txt", "-e", "a"]);
    assert_eq!(
        l.patterns,
        [PatternSource::File("p.txt".into()), PatternSource::Regexp("a".into())]
    );
    let l = low(&["-p", "--no-heading", "--color=never"]);
    assert_eq!((l.color, l.heading, l.line_number), (ColorWhen::Never, Some(false), Some(true)));
    let l = low(&["-tpy", "--type-clear", "py", "--type-add=py:*.x"]);
    assert_eq!(l.type_changes[1], TypeChange::Clear("py".into()));
    let l = low(&["--sortr", "modified", "--sort-files"]);
    assert_eq!(l.sort.map(|s| (s.by, s.reverse)), Some((SortBy::Path, false)));
}

#[test]
fn tokens_are_lexopts() {
    assert_eq!(low(&["-e-foo"]).patterns, [PatternSource::Regexp("-foo".into())]);
    assert_eq!(low(&["-m=1"]).max_count, Some(1));
    assert_eq!(low(&["-ni", "x"]).case, Case::Insensitive);
    assert_eq!(low(&["--", "-x", "-"]).positional, ["-x", "-"]);
    assert_eq!(low(&["-e", "--", "x"]).patterns, [PatternSource::Regexp("--".into())]);
    assert_eq!(low(&["-h", "x"]).special, Some(Special::HelpShort));
    assert_eq!(low(&["--pcre2-version"]).special, Some(Special::Pcre2Version));
}

#[test]
fn errors_are_in_rgs_words() {
    assert_eq!(error(&["--no-such-flag"]), "unrecognized flag --no-such-flag");
    assert_eq!(error(&["-Q"]), "unrecognized flag -Q");
    assert_eq!(
        error(&["--colour", "x"]),
        "unrecognized flag --colour\n\nsimilar flags that are available: --color"
    );
    assert_eq!(error(&["-m"]), "missing value for flag -m: missing argument for option '-m'");
    assert_eq!(
        error(&["-m", "x"]),
        "error parsing flag -m: value is not a valid number: invalid digit found in string"
    );
    assert!(error(&["--max-filesize", "5T"]).starts_with(
        "error parsing flag --max-filesize: invalid size: invalid format for size '5T'"
    ));
    assert_eq!(error(&["--color", "x"]), "error parsing flag --color: choice 'x' is unrecognized");
    assert_eq!(
        error(&["--heading=yes"]),
        "invalid CLI arguments: unexpected argument for option '--heading': \"yes\""
    );
    assert!(error(&["--maxdepth", "x"]).starts_with("error parsing flag --maxdepth:"));
}

#[test]
fn every_name_is_unique() {
    // Building the name map asserts that no name is defined twice.
    assert!(super::names().len() > 150);
}
