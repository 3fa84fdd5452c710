//! Resolution from flags to options, with the environment pinned.

use std::ffi::OsString;

use trigrep::options::{
    BinaryMode, BufferMode, Case, EncodingChoice, Engine, IoChoice, MmapRule, SortBy,
};

use super::*;

const PIPE: Env = Env {
    stdout_tty: false,
    stdin_readable: false,
    default_threads: 4,
    index_base: None,
    chunk_threshold: None,
    chunk_size: None,
    wsl_distro: None,
};
const TTY: Env = Env { stdout_tty: true, ..PIPE };

fn low(argv: &[&str]) -> LowArgs {
    crate::cli::parse::parse_low(argv.iter().map(OsString::from).collect()).expect("flags parse")
}

fn opts(env: Env, argv: &[&str]) -> SearchOptions {
    resolve(low(argv), &env).expect("flags resolve").opts
}

fn error(env: Env, argv: &[&str]) -> String {
    format!("{:#}", resolve(low(argv), &env).unwrap_err())
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
fn pretty_is_color_heading_and_line_numbers_until_undone() {
    let o = opts(PIPE, &["-p", "foo", "src"]);
    assert!(o.print.heading && o.read.line_number);
    assert_eq!(o.print.color, termcolor::ColorChoice::Always);
    let o = opts(PIPE, &["-p", "--no-heading", "-N", "foo", "src"]);
    assert!(!o.print.heading && !o.read.line_number);
    assert!(!opts(PIPE, &["--heading", "--vimgrep", "foo"]).print.heading);
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
    assert!(error(PIPE, &[]).contains("requires at least one pattern"));
}

#[test]
fn output_modes_and_their_interplay() {
    assert_eq!(opts(PIPE, &["-c", "x"]).mode, Mode::Search(OutputMode::Count));
    assert_eq!(opts(PIPE, &["-c", "-o", "x"]).mode, Mode::Search(OutputMode::CountMatches));
    assert_eq!(opts(PIPE, &["--count-matches", "-v", "x"]).mode, Mode::Search(OutputMode::Count));
    assert_eq!(opts(PIPE, &["--files"]).mode, Mode::Files);
    assert_eq!(opts(PIPE, &["--json", "-l", "x"]).mode, Mode::Search(OutputMode::FilesWithMatches));
    let json = opts(PIPE, &["--json", "x"]);
    assert_eq!(json.mode, Mode::Search(OutputMode::Json));
    assert!(json.read.line_number && json.print.stats && !json.run.stats);
    assert!(!opts(PIPE, &["--stats", "--files"]).print.stats, "no statistics without a search");
}

#[test]
fn unrestricted_levels_widen_the_walk_step_by_step() {
    let o = opts(PIPE, &["x"]);
    assert!(o.walk.filters.is_default());
    assert_eq!(o.read.binary, BinaryMode::Default);
    let o = opts(PIPE, &["-u", "x"]);
    let f = &o.walk.filters;
    assert!(f.no_ignore_vcs && f.no_ignore_dot && f.no_ignore_parent && !f.hidden);
    assert!(f.no_ignore_global && f.no_ignore_exclude && !f.no_ignore_files);
    assert!(opts(PIPE, &["-uu", "x"]).walk.filters.hidden);
    assert_eq!(opts(PIPE, &["-uuu", "x"]).read.binary, BinaryMode::SearchAndSuppress);
    assert_eq!(opts(PIPE, &["--null-data", "x"]).read.binary, BinaryMode::AsText);
    assert!(!opts(PIPE, &["-g", "*.rs", "x"]).walk.filters.is_default());
    assert!(!opts(PIPE, &["--ignore-file", "i", "x"]).walk.filters.is_default());
    assert!(opts(PIPE, &["-u", "--ignore", "x"]).walk.filters.is_default());
}

#[test]
fn sorting_runs_on_one_thread() {
    let o = opts(PIPE, &["--sortr", "modified", "x"]);
    let sort = o.walk.sort.unwrap();
    assert_eq!((sort.by, sort.reverse), (SortBy::Modified, true));
    assert_eq!((o.run.threads, o.run.chunk_threads), (1, 4));
    assert!(opts(PIPE, &["--sort", "none", "x"]).walk.sort.is_none());
    assert!(opts(PIPE, &["--sort", "path", "x"]).walk.sort.unwrap().is_path_order());
    assert!(opts(PIPE, &["--sort-files", "x"]).walk.sort.unwrap().is_path_order());
    assert!(opts(PIPE, &["--sort-files", "--no-sort-files", "x"]).walk.sort.is_none());
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
    let o = opts(PIPE, &["--passthru", "-C", "3", "x"]);
    assert_eq!((o.read.context, o.read.passthru), ((3, 3), false));
    let o = opts(PIPE, &["-C", "3", "--passthru", "x"]);
    assert_eq!((o.read.context, o.read.passthru), ((0, 0), true));
    assert!(matches!(
        opts(PIPE, &["-E", "latin1", "--no-encoding", "x"]).read.encoding,
        EncodingChoice::Auto
    ));
}

#[test]
fn separators_hyperlinks_and_buffering() {
    let o = opts(PIPE, &["--field-match-separator", "\\t", "--field-context-separator", "|", "x"]);
    assert_eq!(
        (o.print.field_match_separator, o.print.field_context_separator),
        (b"\t".to_vec(), b"|".to_vec())
    );
    assert_eq!(opts(PIPE, &["--path-separator", "/", "x"]).print.path_separator, Some(b'/'));
    assert_eq!(opts(PIPE, &["--line-buffered", "x"]).print.buffer, BufferMode::Line);
    assert_eq!(
        opts(PIPE, &["--line-buffered", "--block-buffered", "x"]).print.buffer,
        BufferMode::Block
    );
    assert_eq!(
        opts(PIPE, &["--block-buffered", "--no-block-buffered", "x"]).print.buffer,
        BufferMode::Auto
    );
    assert_eq!(opts(PIPE, &["-r", "a\\tb", "x"]).print.replacement, Some(b"a\\tb".to_vec()));
}

#[test]
fn sizes_and_chunks_take_suffixes_from_flags_or_the_environment() {
    let o = opts(PIPE, &["--chunk-threshold", "1M", "--chunk-size", "64K", "x"]);
    assert_eq!((o.run.chunk_threshold, o.run.chunk_size), (1 << 20, Some(64 << 10)));
    let env = Env { chunk_threshold: Some("2K".into()), ..PIPE };
    assert_eq!(opts(env, &["x"]).run.chunk_threshold, 2048);
    let env = Env { chunk_threshold: Some("2K".into()), ..PIPE };
    assert_eq!(opts(env, &["--chunk-threshold", "3", "x"]).run.chunk_threshold, 3);
    let env = Env { index_base: Some("/tmp/idx".into()), ..PIPE };
    assert_eq!(opts(env, &["x"]).index.base, PathBuf::from("/tmp/idx"));
    assert_eq!(parse_size("2K", "--x").unwrap(), 2048);
    let err = format!("{:#}", parse_size("abc", "--index-memory").unwrap_err());
    assert!(err.starts_with("error parsing flag --index-memory: invalid size"), "{err}");
}

#[test]
fn engines_and_types_are_checked_before_the_search() {
    assert_eq!(opts(PIPE, &["-P", "x"]).matcher.engine, Engine::Pcre2);
    assert_eq!(opts(PIPE, &["-P", "--engine", "default", "x"]).matcher.engine, Engine::Default);
    assert_eq!(opts(PIPE, &["--engine", "auto", "x"]).matcher.engine, Engine::Auto);
    assert!(error(PIPE, &["-t", "nosuch", "x"]).contains("unrecognized file type: nosuch"));
    let o = opts(PIPE, &["--type-add", "foo:*.foo", "-t", "foo", "x"]);
    assert!(o.walk.filters.types().is_ok());
}
