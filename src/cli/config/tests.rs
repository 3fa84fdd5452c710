//! Resolution from flags to options, with the environment pinned.

use clap::Parser;
use trigrep::options::{BinaryMode, Case, EncodingChoice, IoChoice, MmapRule, SortBy};

use super::*;

const PIPE: Env = Env { stdout_tty: false, stdin_readable: false, default_threads: 4 };
const TTY: Env = Env { stdout_tty: true, stdin_readable: false, default_threads: 4 };

fn opts(env: Env, argv: &[&str]) -> SearchOptions {
    let args = SearchArgs::try_parse_from(std::iter::once("tg").chain(argv.iter().copied()))
        .expect("flags parse");
    resolve(args, env).expect("flags resolve")
}

#[test]
fn a_terminal_gets_headings_line_numbers_and_color() {
    let o = opts(TTY, &["foo", "src"]);
    assert!(o.print.heading && o.read.line_number);
    assert_eq!(o.print.color, termcolor::ColorChoice::Auto);
    assert_eq!(o.print.file_separator, Some(Vec::new()));
    let o = opts(PIPE, &["foo", "src"]);
    assert!(!o.print.heading && !o.read.line_number);
    assert_eq!(o.print.color, termcolor::ColorChoice::Never);
    assert!(o.print.with_filename, "a directory means many files");
}

#[test]
fn no_path_searches_the_current_directory_or_a_readable_stdin() {
    let o = opts(PIPE, &["foo"]);
    assert_eq!(o.walk.paths, vec![PathBuf::from("./")]);
    assert!(o.walk.implicit_path && !o.walk.one_file);
    assert_eq!(o.run.threads, 4);
    let stdin = Env { stdin_readable: true, ..PIPE };
    let o = opts(stdin, &["foo"]);
    assert_eq!(o.walk.paths, vec![PathBuf::from("-")]);
    assert!(o.walk.one_file && !o.print.with_filename);
    assert_eq!(o.run.threads, 1);
}

#[test]
fn patterns_come_from_the_first_positional_or_from_e_deduplicated() {
    let o = opts(PIPE, &["-e", "a", "-e", "b", "-e", "a", "x", "y"]);
    assert_eq!(o.matcher.patterns, vec!["a", "b"]);
    assert_eq!(o.walk.paths, vec![PathBuf::from("x"), PathBuf::from("y")]);
    let args = SearchArgs::try_parse_from(["tg"]).unwrap();
    let err = resolve(args, PIPE).unwrap_err().to_string();
    assert!(err.contains("requires at least one pattern"), "{err}");
}

#[test]
fn output_modes_and_their_interplay() {
    assert_eq!(opts(PIPE, &["-c", "x"]).mode, Mode::Search(OutputMode::Count));
    assert_eq!(opts(PIPE, &["-c", "-o", "x"]).mode, Mode::Search(OutputMode::CountMatches));
    assert_eq!(opts(PIPE, &["--count-matches", "-v", "x"]).mode, Mode::Search(OutputMode::Count));
    assert_eq!(opts(PIPE, &["--files"]).mode, Mode::Files);
    let json = opts(PIPE, &["--json", "x"]);
    assert_eq!(json.mode, Mode::Search(OutputMode::Json));
    assert!(json.read.line_number && json.print.stats && !json.run.stats);
}

#[test]
fn unrestricted_levels_widen_the_walk_step_by_step() {
    let o = opts(PIPE, &["x"]);
    assert!(o.walk.filters.is_default());
    assert_eq!(o.read.binary, BinaryMode::Default);
    let o = opts(PIPE, &["-u", "x"]);
    let f = &o.walk.filters;
    assert!(f.no_ignore_vcs && f.no_ignore_dot && f.no_ignore_parent && !f.hidden);
    assert!(opts(PIPE, &["-uu", "x"]).walk.filters.hidden);
    assert_eq!(opts(PIPE, &["-uuu", "x"]).read.binary, BinaryMode::SearchAndSuppress);
    assert_eq!(opts(PIPE, &["--null-data", "x"]).read.binary, BinaryMode::AsText);
    assert!(!opts(PIPE, &["-g", "*.rs", "x"]).walk.filters.is_default());
}

#[test]
fn sorting_runs_on_one_thread() {
    let o = opts(PIPE, &["--sortr", "modified", "x"]);
    let sort = o.walk.sort.unwrap();
    assert_eq!((sort.by, sort.reverse), (SortBy::Modified, true));
    assert_eq!((o.run.threads, o.run.chunk_threads), (1, 4));
    assert!(opts(PIPE, &["--sort", "none", "x"]).walk.sort.is_none());
    assert!(opts(PIPE, &["--sort", "path", "x"]).walk.sort.unwrap().is_path_order());
}

#[test]
fn io_and_mmap_flags_resolve_to_one_choice_each() {
    let o = opts(PIPE, &["x"]);
    assert_eq!((o.run.io, o.read.mmap), (IoChoice::Auto, MmapRule::Auto));
    let o = opts(PIPE, &["--io", "read", "x"]);
    assert_eq!((o.run.io, o.read.mmap), (IoChoice::Read, MmapRule::Auto));
    let o = opts(PIPE, &["--mmap", "x"]);
    assert_eq!((o.run.io, o.read.mmap), (IoChoice::Mmap, MmapRule::Always));
    let o = opts(PIPE, &["--mmap", "--no-mmap", "x"]);
    assert_eq!((o.run.io, o.read.mmap), (IoChoice::Read, MmapRule::Never));
}

#[test]
fn case_encoding_and_context() {
    let o = opts(PIPE, &["-S", "-E", "none", "-C", "2", "-A", "5", "x"]);
    assert_eq!(o.matcher.case, Case::Smart);
    assert!(matches!(o.read.encoding, EncodingChoice::None));
    assert_eq!(o.read.context, (2, 5));
    assert_eq!(o.print.file_separator, Some(b"--".to_vec()));
    assert_eq!(opts(PIPE, &["--passthru", "-C", "3", "x"]).read.context, (0, 0));
    let args = SearchArgs::try_parse_from(["tg", "-E", "klingon", "x"]).unwrap();
    assert!(resolve(args, PIPE).is_err());
}

#[test]
fn path_separators_and_sizes_are_checked() {
    assert_eq!(opts(PIPE, &["--path-separator", "/", "x"]).print.path_separator, Some(b'/'));
    let args = SearchArgs::try_parse_from(["tg", "--path-separator", "ab", "x"]).unwrap();
    assert!(resolve(args, PIPE).unwrap_err().to_string().contains("exactly one byte"));
    assert_eq!(parse_size("2K", "--x").unwrap(), 2048);
    assert_eq!(parse_size("3m", "--x").unwrap(), 3 << 20);
    let err = parse_size("abc", "--index-memory").unwrap_err().to_string();
    assert!(err.contains("--index-memory"), "{err}");
}
