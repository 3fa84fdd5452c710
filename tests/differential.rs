//! Differential tests: `tg` must print exactly what rg 15.2.0 prints.
//!
//! Each `#[test]` builds one fixture tree, runs a list of cases through
//! [`util::Report`] and fails once at the end with every mismatch, so a
//! single run shows the whole picture. Cases get `--sort path` prepended
//! (unless marked `no_sort`) so multi-file output is deterministic.
//!
//! The lists:
//! * `matrix_*` — every pattern in [`PATTERNS`] × every flag set in
//!   [`FLAG_SETS`] on the small text corpus (walked), plus a single-file slice.
//! * `walk` — ignore rules, hidden files, globs, types, depth, size, symlinks.
//! * `binary_and_encoding` — NUL handling (walked = quit, explicit = convert),
//!   `-a`, `--binary`, BOMs, `-E`, invalid UTF-8, CRLF, unicode, long lines.
//! * `inputs_and_errors` — stdin, `-`, `-f`, missing paths, `-q`, bad flags.
//! * `output_formats` — `--json`, `--vimgrep`, colors, `--stats`, `--files`,
//!   `--type-list`, multiline, replacement, context edge cases.
//! * `big_line` — a 5 MB single line.

mod util;

use util::{Case, Report, Tree, fixtures};

/// (name, pattern) pairs for the matrix.
const PATTERNS: &[(&str, &str)] = &[
    ("lit", "foo"),
    ("case", "Foo"),
    ("class", r"fo+\w*"),
    ("suffix_ing", r"[a-z]+ing\b"),
    ("alt", "cat|dog"),
    ("anchor_start", "^start"),
    ("anchor_end", "end$"),
    ("word_b", r"\bbar\b"),
    ("unicode", "café"),
    ("greek_upper", "ΔΈΛΤΑ"),
    ("kelvin_k", "k"),
    ("digits", r"\d{2,}"),
    ("nomatch", "zzqqxx"),
    ("empty", ""),
    ("invalid", "a("),
];

/// (name, flags) pairs for the matrix.
const FLAG_SETS: &[(&str, &[&str])] = &[
    ("plain", &[]),
    ("n", &["-n"]),
    ("N", &["-N"]),
    ("H", &["-H"]),
    ("I", &["-I"]),
    ("i", &["-i"]),
    ("S", &["-S"]),
    ("i_s", &["-i", "-s"]),
    ("w", &["-w"]),
    ("x", &["-x"]),
    ("v", &["-v"]),
    ("c", &["-c"]),
    ("count_matches", &["--count-matches"]),
    ("l", &["-l"]),
    ("files_without_match", &["--files-without-match"]),
    ("o", &["-o"]),
    ("o_n", &["-o", "-n"]),
    ("r", &["-r", "<$0>"]),
    ("o_r", &["-o", "-r", "[$0]"]),
    ("m1", &["-m", "1"]),
    ("m2_C1", &["-m", "2", "-C", "1"]),
    ("A1", &["-A", "1"]),
    ("B2", &["-B", "2"]),
    ("C2_n", &["-C", "2", "-n"]),
    ("json", &["--json"]),
    ("vimgrep", &["--vimgrep"]),
    ("color", &["--color", "always"]),
    ("color_n_heading", &["--color", "always", "-n", "--heading"]),
    ("heading_n", &["--heading", "-n"]),
    ("null_n", &["-0", "-n"]),
    ("trim", &["--trim"]),
    ("M20", &["-M", "20"]),
    ("F", &["-F"]),
    ("v_c", &["-v", "-c"]),
    ("i_w_o", &["-i", "-w", "-o"]),
    ("c_include_zero", &["-c", "--include-zero"]),
    ("count_matches_include_zero", &["--count-matches", "--include-zero"]),
    ("E_none", &["-E", "none"]),
];

fn c(name: &str, a: &[&str]) -> Case {
    Case::new(name, a)
}

fn corpus_tree() -> Tree {
    let t = Tree::new("corpus");
    fixtures::corpus(&t);
    t
}

fn walk_tree() -> Tree {
    let t = Tree::new("walk");
    fixtures::walk(&t);
    t
}

/// The full matrix for the patterns in `pats`, walking `corpus/`.
fn matrix_cases(pats: &[(&str, &str)]) -> Vec<Case> {
    let mut v = Vec::new();
    for (pname, pat) in pats {
        for (fname, flags) in FLAG_SETS {
            let mut a: Vec<&str> = flags.to_vec();
            // `-e` keeps the empty pattern and future leading dashes unambiguous.
            a.extend(["-e", pat]);
            v.push(c(&format!("matrix/{fname}/{pname}"), &a).cwd("corpus"));
        }
    }
    v
}

/// Runs the matrix for patterns `PATTERNS[range]`; split into several
/// tests so the test runner can spread them over cores.
fn run_matrix(label: &str, range: std::ops::Range<usize>) {
    let t = corpus_tree();
    let mut r = Report::new(label);
    r.check_all(&t, &matrix_cases(&PATTERNS[range]));
    r.finish();
}

#[test]
fn matrix_literals() {
    run_matrix("matrix_literals", 0..2); // lit, case
}

#[test]
fn matrix_classes() {
    run_matrix("matrix_classes", 2..4); // class, suffix_ing
}

#[test]
fn matrix_alt_anchors() {
    run_matrix("matrix_alt_anchors", 4..7); // alt, anchor_start, anchor_end
}

#[test]
fn matrix_word_unicode() {
    run_matrix("matrix_word_unicode", 7..10); // word_b, unicode, greek_upper
}

#[test]
fn matrix_kelvin_digits() {
    run_matrix("matrix_kelvin_digits", 10..12); // kelvin_k, digits
}

#[test]
fn matrix_degenerate() {
    run_matrix("matrix_degenerate", 12..15); // nomatch, empty, invalid
}

/// The flag sets on one explicit file (no file names by default) and with
/// a positional pattern instead of `-e`.
#[test]
fn matrix_single_file() {
    let t = corpus_tree();
    let mut r = Report::new("matrix_single_file");
    for (fname, flags) in FLAG_SETS {
        for (pname, pat) in [("lit", "foo"), ("alt", "cat|dog"), ("nomatch", "zzqqxx")] {
            let mut a: Vec<&str> = flags.to_vec();
            a.extend([pat, "a.txt"]);
            r.check(&t, &c(&format!("single_file/{fname}/{pname}"), &a).cwd("corpus"));
        }
    }
    r.finish();
}

fn walk_cases() -> Vec<Case> {
    let mut v = vec![
        c("walk/default", &["needle"]),
        c("walk/n", &["-n", "needle"]),
        c("walk/files", &["--files"]),
        c("walk/files_hidden", &["--files", "--hidden"]),
        c("walk/files_no_ignore", &["--files", "--no-ignore"]),
        c("walk/files_u", &["--files", "-u"]),
        c("walk/files_uu", &["--files", "-uu"]),
        c("walk/files_uuu", &["--files", "-uuu"]),
        c("walk/u", &["-u", "needle"]),
        c("walk/uu", &["-uu", "needle"]),
        c("walk/uuu_count", &["-uuu", "-c", "needle"]),
        c("walk/hidden", &["--hidden", "needle"]),
        c("walk/no_ignore", &["--no-ignore", "needle"]),
        c("walk/no_ignore_hidden_l", &["--no-ignore", "--hidden", "-l", "needle"]),
        c("walk/c", &["-c", "needle"]),
        c("walk/count_matches", &["--count-matches", "needle"]),
        c("walk/l", &["-l", "needle"]),
        c("walk/files_without_match", &["--files-without-match", "needle"]),
        c("walk/i_l", &["-i", "-l", "NEEDLE"]),
        c("walk/heading_n", &["--heading", "-n", "needle", "src", "notes.txt"]),
        c("walk/no_heading", &["--no-heading", "needle", "src"]),
        c("walk/color_heading", &["--color", "always", "--heading", "-n", "needle", "src"]),
        c("walk/vimgrep", &["--vimgrep", "needle", "src", "c"]),
        c("walk/json_src", &["--json", "needle", "src"]),
        // Symlinks.
        c("walk/L", &["-L", "-l", "needle"]),
        c("walk/L_files", &["-L", "--files"]),
        c("walk/L_links_dir", &["-L", "needle", "links"]),
        c("walk/links_dir_no_follow", &["needle", "links"]),
        c("walk/link_file_explicit", &["needle", "links/to_file"]),
        c("walk/link_dir_explicit", &["needle", "links/to_dir"]),
        c("walk/link_broken_explicit", &["needle", "links/broken"]),
        c("walk/L_loop", &["-L", "needle", "loop"]),
        c("walk/loop_no_follow", &["needle", "loop"]),
        // Depth and size.
        c("walk/max_depth_0", &["--max-depth", "0", "needle"]),
        c("walk/max_depth_0_file", &["--max-depth", "0", "needle", "notes.txt"]),
        c("walk/max_depth_1", &["--max-depth", "1", "needle"]),
        c("walk/max_depth_2_sub", &["--max-depth", "2", "needle", "sub"]),
        c("walk/max_depth_3_files", &["--max-depth", "3", "--files", "sub"]),
        c("walk/max_filesize_100", &["--max-filesize", "100", "-l", "needle"]),
        c("walk/max_filesize_1K", &["--max-filesize", "1K", "-c", "needle"]),
        c("walk/max_filesize_1M_files", &["--max-filesize", "1M", "--files"]),
        c("walk/max_filesize_bad", &["--max-filesize", "1Q", "needle"]),
        // Globs.
        c("walk/glob_rs", &["-g", "*.rs", "needle"]),
        c("walk/glob_not_rs", &["-g", "!*.rs", "-l", "needle"]),
        c("walk/glob_brace", &["-g", "*.{rs,go}", "needle"]),
        c("walk/glob_dir", &["-g", "src/**", "needle"]),
        c("walk/glob_not_many", &["-g", "!many", "-c", "needle"]),
        c("walk/glob_two", &["-g", "*.txt", "-g", "!notes.txt", "-l", "needle"]),
        c("walk/glob_case_miss", &["-g", "*.RS", "needle"]),
        c("walk/iglob", &["--iglob", "*.RS", "needle"]),
        c("walk/glob_files", &["--files", "-g", "*.md"]),
        c("walk/glob_overrides_ignore", &["-g", "*.log", "needle"]),
        c("walk/glob_hidden", &["--hidden", "-g", ".hidden*/**", "needle"]),
        // Types.
        c("walk/type_rust", &["-t", "rust", "needle"]),
        c("walk/type_py_go", &["-t", "py", "-t", "go", "needle"]),
        c("walk/type_not_rust", &["-T", "rust", "-l", "needle"]),
        c("walk/type_md", &["-t", "md", "-i", "needle"]),
        c("walk/type_c", &["-t", "c", "needle"]),
        c("walk/type_txt_c", &["-t", "txt", "-c", "needle"]),
        c("walk/type_unknown", &["-t", "nosuchtype", "needle"]),
        c("walk/type_files", &["--files", "-t", "rust"]),
        c("walk/type_list", &["--type-list"]).stderr_exact(),
        // Path formatting and threads.
        c("walk/path_separator_slash", &["--path-separator", "/", "needle", "sub"]),
        c("walk/path_separator_backslash", &["--path-separator", "\\", "needle", "sub"]),
        c("walk/path_separator_bad", &["--path-separator", "ab", "needle", "sub"]),
        c("walk/null_l", &["-0", "-l", "needle"]),
        c("walk/null_c", &["--null", "-c", "needle", "sub"]),
        c("walk/null_files", &["-0", "--files", "src"]),
        c("walk/j1_sub", &["-j1", "needle", "sub"]).no_sort(),
        c("walk/j1_files_src", &["-j1", "--files", "src"]).no_sort(),
        c("walk/stats", &["--stats", "needle", "src"]),
        c("walk/stats_c", &["--stats", "-c", "needle"]),
        // The default parallel walk: file order varies, so lines are
        // compared as a sorted multiset.
        c("parallel/default", &["needle"]).unordered(),
        c("parallel/n", &["-n", "needle"]).unordered(),
        c("parallel/c", &["-c", "needle"]).unordered(),
        c("parallel/l", &["-l", "needle"]).unordered(),
        c("parallel/files", &["--files"]).unordered(),
        c("parallel/files_uuu", &["--files", "-uuu"]).unordered(),
        c("parallel/json", &["--json", "needle"]).unordered(),
        c("parallel/vimgrep", &["--vimgrep", "needle"]).unordered(),
        c("parallel/stats", &["--stats", "-c", "needle"]).unordered(),
        c("parallel/j2_count_matches", &["-j2", "--count-matches", "needle"]).unordered(),
        c("parallel/L", &["-L", "-l", "needle"]).unordered(),
        c("parallel/q", &["-q", "needle"]).unordered(),
        c("parallel/m1", &["-m", "1", "needle"]).unordered(),
        // Working directory below the repo root: parent ignores still apply.
        c("walk/sub_cwd", &["needle"]).cwd("repo/sub"),
        c("walk/sub_cwd_files", &["--files"]).cwd("repo/sub"),
        c("walk/sub_cwd_parent", &["needle", ".."]).cwd("repo/sub"),
        // Non-git directory: .gitignore is not honoured, .ignore/.rgignore are.
        c("plain/default", &["needle"]).cwd("plain"),
        c("plain/files", &["--files"]).cwd("plain"),
        c("plain/hidden", &["--hidden", "needle"]).cwd("plain"),
        c("plain/no_ignore", &["--no-ignore", "needle"]).cwd("plain"),
        c("plain/from_repo", &["needle", "../plain"]).cwd("repo"),
        c("plain/two_roots", &["-l", "needle", "plain", "repo/src"]),
    ];
    for case in v.iter_mut() {
        if case.cwd.as_os_str().is_empty() && !case.name.starts_with("plain/") {
            case.cwd = "repo".into();
        }
    }
    v
}

#[test]
fn walk() {
    let t = walk_tree();
    let mut r = Report::new("walk");
    r.check_all(&t, &walk_cases());
    r.finish();
}

fn binary_and_encoding_cases() -> Vec<Case> {
    let v = vec![
        // Walked binaries stop at the first NUL ("quit").
        c("bin/walk", &["needle", "bin"]),
        c("bin/walk_n", &["-n", "needle", "bin"]),
        c("bin/walk_c", &["-c", "needle", "bin"]),
        c("bin/walk_l", &["-l", "needle", "bin"]),
        c("bin/walk_count_matches", &["--count-matches", "needle", "bin"]),
        c("bin/walk_files_without_match", &["--files-without-match", "needle", "bin"]),
        c("bin/walk_json", &["--json", "needle", "bin"]),
        c("bin/walk_include_zero", &["-c", "--include-zero", "needle", "bin"]),
        c("bin/walk_E_none_without_match", &["-E", "none", "--files-without-match", "needle"]),
        c("bin/walk_a_c", &["-a", "-c", "needle", "bin"]),
        c("bin/walk_binary_c", &["--binary", "-c", "needle", "bin"]),
        c("bin/walk_binary", &["--binary", "tail", "bin"]),
        c("bin/walk_binary_n", &["--binary", "-n", "needle", "bin"]),
        c("bin/walk_tail_quit", &["tail", "bin"]),
        c("bin/walk_v_c", &["-v", "-c", "needle", "bin"]),
        // Explicit binaries are searched with NULs converted ("convert").
        c("bin/explicit_early", &["needle", "bin/early_nul.bin"]),
        c("bin/explicit_early_n", &["-n", "needle", "bin/early_nul.bin"]),
        c("bin/explicit_early_c", &["-c", "needle", "bin/early_nul.bin"]),
        c("bin/explicit_early_l", &["-l", "needle", "bin/early_nul.bin"]),
        c("bin/explicit_late_c", &["-c", "needle", "bin/late_nul.txt"]),
        c("bin/explicit_late_tail", &["-n", "tail", "bin/late_nul.txt"]),
        c("bin/explicit_middle", &["-n", "needle", "bin/middle_nul.txt"]),
        c("bin/explicit_middle_o", &["-o", "needle", "bin/middle_nul.txt"]),
        c(
            "bin/explicit_middle_count_matches",
            &["--count-matches", "needle", "bin/middle_nul.txt"],
        ),
        c("bin/explicit_middle_json", &["--json", "needle", "bin/middle_nul.txt"]),
        c("bin/explicit_two", &["-H", "-c", "needle", "bin/early_nul.bin", "bin/middle_nul.txt"]),
        c("bin/explicit_a", &["-a", "-n", "y needle", "bin/middle_nul.txt"]),
        c("bin/explicit_a_nul_pattern", &["-a", "-c", "(?-u:\\x00)", "bin/middle_nul.txt"]),
        c("bin/explicit_binary", &["--binary", "-n", "needle", "bin/early_nul.bin"]),
        c("bin/explicit_q", &["-q", "needle", "bin/early_nul.bin"]),
        c("bin/explicit_v", &["-v", "-n", "plain", "bin/middle_nul.txt"]),
        c("bin/explicit_A2", &["-A", "2", "-n", "line 00024", "bin/middle_nul.txt"]),
        c("bin/uuu_walk", &["-uuu", "-l", "needle", "bin"]),
        // Files around the searcher's 64 KiB buffer, walked.
        c("edge/walk_c", &["-c", "needle", "edge"]),
        c("edge/walk_tail", &["-n", "Z$", "edge"]),
        c("edge/walk_binary_c", &["--binary", "-c", "needle", "edge"]),
        c("edge/walk_binary_tail", &["--binary", "-n", "Z$", "edge"]),
        c("edge/walk_a_c", &["-a", "-c", "needle", "edge"]),
        c("edge/walk_without", &["--files-without-match", "line 00001", "edge"]),
        c("edge/walk_json_tail", &["--json", "Z$", "edge"]),
        // Encodings: BOM sniffing, -E, invalid UTF-8, CRLF.
        c("enc/walk", &["needle", "enc"]),
        c("enc/walk_c", &["-c", "needle", "enc"]),
        c("enc/walk_cafe", &["café", "enc"]),
        c("enc/utf16le_bom", &["-n", "needle", "enc/utf16le.txt"]),
        c("enc/utf16be_bom", &["-n", "café", "enc/utf16be.txt"]),
        c("enc/utf16le_nobom_auto", &["-c", "needle", "enc/utf16le_nobom.txt"]),
        c("enc/E_utf16le_nobom", &["-E", "utf-16le", "-n", "needle", "enc/utf16le_nobom.txt"]),
        c("enc/E_utf16be_on_le", &["-E", "utf-16be", "needle", "enc/utf16le.txt"]),
        c("enc/E_none_utf16", &["-E", "none", "-c", "needle", "enc/utf16le.txt"]),
        c("enc/E_none_bom8", &["-E", "none", "-o", "^.needle", "enc/utf8bom.txt"]),
        c("enc/utf8bom", &["-n", "^needle", "enc/utf8bom.txt"]),
        c("enc/utf8bom_json", &["--json", "^needle", "enc/utf8bom.txt"]),
        c("enc/latin1_default", &["-c", "café", "enc/latin1.txt"]),
        c("enc/E_latin1", &["-E", "latin1", "-n", "café|naïve", "enc/latin1.txt"]),
        c("enc/E_latin1_o", &["-E", "latin1", "-o", "caf.", "enc/latin1.txt"]),
        c("enc/E_latin1_walk", &["-E", "latin1", "-c", "needle", "enc"]),
        c("enc/E_utf8_latin1", &["-E", "utf-8", "-n", "caf.", "enc/latin1.txt"]),
        c("enc/E_bogus", &["-E", "bogus-enc", "needle", "enc"]),
        c("enc/invalid_utf8", &["-n", "needle", "enc/invalid_utf8.txt"]),
        c("enc/invalid_utf8_byte", &["-c", "(?-u:\\xFF)", "enc/invalid_utf8.txt"]),
        c("enc/invalid_utf8_o_any", &["-o", "needle .", "enc/invalid_utf8.txt"]),
        c("enc/invalid_utf8_json", &["--json", "needle", "enc/invalid_utf8.txt"]),
        c("enc/crlf_end", &["-c", "end$", "enc/crlf.txt"]),
        c("enc/crlf_lines", &["-n", "needle", "enc/crlf.txt"]),
        c("enc/crlf_dollar_literal", &["-F", "needle$", "enc/crlf.txt"]),
        c("enc/crlf_vimgrep", &["--vimgrep", "hay", "enc/crlf.txt"]),
        // Unicode.
        c("uni/cafe_i", &["-i", "-n", "café", "unicode.txt"]),
        c("uni/kelvin_i", &["-i", "-o", "k", "unicode.txt"]),
        c("uni/kelvin_exact", &["-o", "\u{212A}", "unicode.txt"]),
        c("uni/sigma_i", &["-i", "σίσυφος", "unicode.txt"]),
        c("uni/smart_case_upper", &["-S", "CAFÉ", "unicode.txt"]),
        c("uni/smart_case_lower", &["-S", "café", "unicode.txt"]),
        c("uni/word_o", &["-o", "\\w+", "unicode.txt"]),
        c("uni/ascii_word_o", &["-o", "(?-u)\\w+", "unicode.txt"]),
        c("uni/cjk", &["-n", "東京", "unicode.txt"]),
        c("uni/w_needle", &["-w", "needle", "unicode.txt"]),
        c("uni/emoji_o", &["-o", "🎉", "unicode.txt"]),
        c("uni/dot_o", &["-o", "Stra.e", "unicode.txt"]),
        c("uni/color", &["--color", "always", "-i", "café|東京", "unicode.txt"]),
        c("uni/vimgrep", &["--vimgrep", "needle", "unicode.txt"]),
        c("uni/json", &["--json", "Kelvin", "unicode.txt"]),
        // Long line, empty file, no trailing newline.
        c("long/c", &["-c", "needle", "long/line100k.txt"]),
        c("long/M20", &["-M", "20", "needle", "long/line100k.txt"]),
        c("long/M20_n", &["-M", "20", "-n", "needle", "long"]),
        c("long/o", &["-o", "needle", "long/line100k.txt"]),
        c("long/o_n", &["-o", "-n", "needle", "long/line100k.txt"]),
        c("long/vimgrep_M", &["--vimgrep", "-M", "30", "needle", "long/line100k.txt"]),
        c("long/full", &["-n", "needle", "long/line100k.txt"]),
        c("misc/empty_file", &["needle", "empty.txt"]),
        c("misc/empty_file_v", &["-v", "-c", "x", "empty.txt"]),
        c("misc/empty_pattern_empty_file", &["-c", "", "empty.txt"]),
        c("misc/no_newline", &["needle", "no_newline.txt"]),
        c("misc/no_newline_o", &["-o", "newline$", "no_newline.txt"]),
        c("misc/no_newline_json", &["--json", "newline", "no_newline.txt"]),
        c("misc/no_newline_color", &["--color", "always", "-n", "without", "no_newline.txt"]),
        c("misc/no_newline_r", &["-r", "X", "newline", "no_newline.txt"]),
        c("misc/many_c", &["-c", "needle", "many"]),
        c("misc/many_l_null", &["-l", "-0", "needle", "many"]),
        c("misc/many_m1", &["-m", "1", "file", "many"]),
    ];
    v.into_iter().map(|c| if c.cwd.as_os_str().is_empty() { c.cwd("repo") } else { c }).collect()
}

#[test]
fn binary_and_encoding() {
    let t = walk_tree();
    let mut r = Report::new("binary_and_encoding");
    r.check_all(&t, &binary_and_encoding_cases());
    r.finish();
}

fn inputs_and_errors_cases() -> Vec<Case> {
    let text = "foo\nbar\nfoo bar\nbaz\n";
    vec![
        // stdin: no path and piped input means "search stdin".
        c("stdin/plain", &["foo"]).stdin(text),
        c("stdin/n", &["-n", "foo"]).stdin(text),
        c("stdin/H", &["-H", "foo"]).stdin(text),
        c("stdin/c", &["-c", "foo"]).stdin(text),
        c("stdin/l", &["-l", "foo"]).stdin(text),
        c("stdin/v", &["-v", "foo"]).stdin(text),
        c("stdin/A1", &["-A", "1", "bar"]).stdin(text),
        c("stdin/json", &["--json", "foo"]).stdin(text),
        c("stdin/vimgrep", &["--vimgrep", "bar"]).stdin(text),
        c("stdin/color", &["--color", "always", "foo"]).stdin(text),
        c("stdin/nomatch", &["zzz"]).stdin(text),
        c("stdin/empty_input", &["foo"]).stdin(""),
        c("stdin/binary", &["foo"]).stdin("foo\0bar\nfoo again\n"),
        c("stdin/binary_c", &["-c", "foo"]).stdin("foo\0bar\nfoo again\n"),
        c("stdin/crlf", &["-n", "bar$"]).stdin("foo\r\nbar\r\n"),
        c("stdin/utf16", &["-n", "needle"]).stdin(b"\xFF\xFEn\0e\0e\0d\0l\0e\0\n\0"),
        c("stdin/no_trailing_newline", &["foo"]).stdin("bar\nfoo"),
        c("stdin/dash", &["foo", "-"]).stdin(text),
        c("stdin/dash_and_file", &["foo", "-", "corpus/sub/d.txt"]).stdin(text),
        c("stdin/dash_n_heading", &["--heading", "-n", "foo", "-"]).stdin(text),
        c("stdin/q_match", &["-q", "foo"]).stdin(text),
        c("stdin/q_nomatch", &["-q", "zzz"]).stdin(text),
        c("stdin/multiline", &["-U", "foo\\nbar"]).stdin(text),
        // Patterns from files and -e.
        c("pat/f_file", &["-f", "pats.txt"]).cwd("corpus"),
        c("pat/f_file_n", &["-n", "-f", "pats.txt", "a.txt"]).cwd("corpus"),
        c("pat/f_empty", &["-f", "pats_empty.txt"]).cwd("corpus"),
        c("pat/f_missing", &["-f", "no_such_patterns.txt"]).cwd("corpus").stderr_exact(),
        c("pat/f_stdin", &["-f", "-", "a.txt"]).cwd("corpus").stdin("cat\n^start\n"),
        c("pat/f_and_e", &["-f", "pats.txt", "-e", "prose", "-c"]).cwd("corpus"),
        c("pat/e_twice", &["-e", "foo", "-e", "bar", "a.txt"]).cwd("corpus"),
        c("pat/e_dash", &["-e", "-dash", "a.txt"]).cwd("corpus"),
        c("pat/double_dash", &["-n", "--", "-dash", "a.txt"]).cwd("corpus"),
        c("pat/e_empty_and_lit", &["-c", "-e", "", "-e", "foo", "a.txt"]).cwd("corpus"),
        c("pat/F_meta", &["-F", "a(", "a.txt"]).cwd("corpus"),
        c("pat/F_x", &["-F", "-x", "start", "a.txt"]).cwd("corpus"),
        c("pat/x_regex", &["-x", "st.*", "a.txt"]).cwd("corpus"),
        c("pat/w_F_multi", &["-w", "-F", "-e", "foo", "-e", "bar", "a.txt"]).cwd("corpus"),
        c("pat/newline_without_U", &["foo\\nbar", "a.txt"]).cwd("corpus"),
        c("pat/literal_newline_arg", &["foo\nbar", "a.txt"]).cwd("corpus"),
        c("pat/backref_unsupported", &["(a)\\1", "a.txt"]).cwd("corpus"),
        c("pat/huge_repeat", &["a{1000000}", "a.txt"]).cwd("corpus"),
        // Paths that are missing or not what they claim.
        c("path/missing", &["foo", "nope.txt", "a.txt"]).cwd("corpus").stderr_exact(),
        c("path/missing_only", &["foo", "nope.txt"]).cwd("corpus").stderr_exact(),
        c("path/missing_nomatch", &["zzz", "nope.txt", "a.txt"]).cwd("corpus"),
        c("path/not_a_dir", &["foo", "a.txt/"]).cwd("corpus"),
        c("path/dir_explicit", &["foo", "sub"]).cwd("corpus"),
        c("path/dot", &["foo", "."]).cwd("corpus"),
        c("path/dot_slash", &["foo", "./sub"]).cwd("corpus"),
        c("path/parent", &["deep", "../corpus/sub"]).cwd("corpus"),
        c("path/duplicate", &["-c", "foo", "a.txt", "a.txt"]).cwd("corpus"),
        // NOTE: an unreadable file (chmod 000) cannot be tested: the suite
        // runs as root, which reads it anyway. A directory given where a
        // file is expected ("not_a_dir") and missing paths cover the error path.
        // -q exit codes.
        c("q/match", &["-q", "foo"]).cwd("corpus"),
        c("q/nomatch", &["-q", "zzqqxx"]).cwd("corpus"),
        c("q/match_with_error", &["-q", "foo", "nope.txt", "a.txt"]).cwd("corpus"),
        c("q/nomatch_with_error", &["-q", "zzz", "nope.txt", "a.txt"]).cwd("corpus"),
        c("q/invalid_regex", &["-q", "a("]).cwd("corpus"),
        c("q/l", &["-q", "-l", "foo"]).cwd("corpus"),
        // Bad command lines.
        c("err/unknown_flag", &["--no-such-flag", "foo"]).cwd("corpus"),
        c("err/missing_pattern", &[]).cwd("corpus"),
        c("err/bad_m", &["-m", "x", "foo"]).cwd("corpus"),
        c("err/bad_context", &["-C", "-1", "foo"]).cwd("corpus"),
        c("err/bad_color", &["--color", "sometimes", "foo"]).cwd("corpus"),
        c("err/bad_sort", &["--sort", "bogus", "foo"]).cwd("corpus").no_sort(),
        c("err/bad_j", &["-j", "x", "foo"]).cwd("corpus"),
        c("err/invalid_regex_json", &["--json", "a("]).cwd("corpus"),
        c("err/unclosed_class", &["[a-"]).cwd("corpus"),
        c("err/bad_escape", &["\\q"]).cwd("corpus"),
    ]
}

#[test]
fn inputs_and_errors() {
    let t = corpus_tree();
    let mut r = Report::new("inputs_and_errors");
    r.check_all(&t, &inputs_and_errors_cases());
    r.finish();
}

fn output_format_cases() -> Vec<Case> {
    vec![
        // Context: overlapping windows, separators, -m with context.
        c("ctx/A2_B2_overlap", &["-A", "2", "-B", "2", "-n", "foo", "a.txt"]),
        c("ctx/C5_groups", &["-C", "1", "-n", "foo|cat", "b.md"]),
        c("ctx/C1_walk", &["-C", "1", "foo"]),
        c("ctx/C1_heading", &["-C", "1", "--heading", "-n", "foo"]),
        c("ctx/C2_v", &["-C", "1", "-v", "-n", "o", "a.txt"]),
        c("ctx/A1_json", &["-A", "1", "--json", "cat", "a.txt"]),
        c("ctx/C1_vimgrep", &["-C", "1", "--vimgrep", "cat", "a.txt"]),
        c("ctx/C1_color", &["-C", "1", "--color", "always", "-n", "cat", "a.txt"]),
        c("ctx/m1_A3", &["-m", "1", "-A", "3", "foo", "a.txt"]),
        c("ctx/m2_B3", &["-m", "2", "-B", "3", "-n", "foo", "a.txt"]),
        c("ctx/m0", &["-m", "0", "foo"]),
        c("ctx/m1_c", &["-m", "1", "-c", "foo"]),
        c("ctx/m1_l", &["-m", "1", "-l", "foo"]),
        c("ctx/m2_o", &["-m", "2", "-o", "o", "a.txt"]),
        c("ctx/C0", &["-C", "0", "foo", "a.txt"]),
        c("ctx/A1_null", &["-A", "1", "-0", "-n", "cat"]),
        c("ctx/C3_o", &["-C", "3", "-o", "cat", "a.txt"]),
        c("ctx/C1_trim", &["-C", "1", "--trim", "indented", "a.txt"]),
        // Replacement.
        c("r/empty", &["-r", "", "foo", "a.txt"]),
        c("r/group", &["-r", "$1-$1", "(f)oo", "a.txt"]),
        c("r/named", &["-r", "<${x}>", "(?P<x>o+)", "a.txt"]),
        c("r/missing_group", &["-r", "[$9]", "foo", "a.txt"]),
        c("r/o_n", &["-o", "-n", "-r", "X", "cat|dog"]),
        c("r/color", &["--color", "always", "-r", "X", "cat"]),
        c("r/json", &["--json", "-r", "X", "cat", "a.txt"]),
        c("r/c", &["-c", "-r", "X", "foo"]),
        // JSON.
        c("json/walk", &["--json", "foo"]),
        c("json/nomatch", &["--json", "zzqqxx"]),
        c("json/o", &["--json", "-o", "foo", "a.txt"]),
        c("json/c", &["--json", "-c", "foo"]),
        c("json/stats", &["--json", "--stats", "cat"]),
        c("json/multi_match_line", &["--json", "o", "a.txt"]),
        c("json/empty_pattern", &["--json", "", "c.rs"]),
        c("json/missing_file", &["--json", "foo", "nope.txt", "a.txt"]),
        c("json/unicode", &["--json", "δ", "a.txt"]),
        // vimgrep.
        c("vimgrep/multi", &["--vimgrep", "o", "a.txt"]),
        c("vimgrep/o", &["--vimgrep", "-o", "o+", "a.txt"]),
        c("vimgrep/walk", &["--vimgrep", "cat|dog"]),
        c("vimgrep/color", &["--color", "always", "--vimgrep", "foo"]),
        c("vimgrep/heading", &["--vimgrep", "--heading", "foo"]),
        c("vimgrep/null", &["--vimgrep", "-0", "foo"]),
        // Color.
        c("color/never", &["--color", "never", "foo"]),
        c("color/auto", &["--color", "auto", "foo"]),
        c("color/always_c", &["--color", "always", "-c", "foo"]),
        c("color/always_l", &["--color", "always", "-l", "foo"]),
        c("color/always_o", &["--color", "always", "-o", "-n", "fo+"]),
        c("color/always_i_multi", &["--color", "always", "-i", "foo|bar", "a.txt"]),
        c("color/always_empty_match", &["--color", "always", "x*", "c.rs"]),
        c("color/always_v", &["--color", "always", "-v", "o", "c.rs"]),
        c("color/always_M", &["--color", "always", "-M", "10", "foo", "a.txt"]),
        c("color/always_null", &["--color", "always", "-0", "-l", "foo"]),
        c("color/always_files", &["--color", "always", "--files"]),
        c("color/always_stats", &["--color", "always", "--stats", "cat"]),
        c("color/always_count_matches", &["--color", "always", "--count-matches", "o"]),
        // Stats, files, type list, heading.
        c("stats/plain", &["--stats", "foo"]),
        c("stats/nomatch", &["--stats", "zzqqxx"]),
        c("stats/q", &["--stats", "-q", "foo"]),
        c("stats/l", &["--stats", "-l", "foo"]),
        c("files/plain", &["--files"]),
        c("files/with_path", &["--files", "sub", "a.txt"]),
        c("files/missing", &["--files", "nope"]),
        c("files/type_list", &["--type-list"]).stderr_exact(),
        c("heading/forced_walk", &["--heading", "foo"]),
        c("heading/forced_single", &["--heading", "foo", "a.txt"]),
        c("heading/no_heading_n", &["--no-heading", "-n", "foo"]),
        c("heading/H_single", &["-H", "-n", "foo", "a.txt"]),
        c("heading/I_walk", &["-I", "-n", "foo"]),
        c("trim/o", &["--trim", "-o", "indented.*", "a.txt"]),
        c("trim/n_C", &["--trim", "-n", "-C", "1", "tab", "a.txt"]),
        c("maxcol/M5", &["-M", "5", "foo", "a.txt"]),
        c("maxcol/M5_o", &["-M", "5", "-o", "foo bar baz", "a.txt"]),
        c("maxcol/M0", &["-M", "0", "foo", "a.txt"]),
        c("maxcol/M20_json", &["-M", "20", "--json", "foo", "a.txt"]),
        c("path/sep_slash", &["--path-separator", "/", "deep"]),
        c("path/null_heading", &["-0", "--heading", "deep"]),
        c("threads/j1", &["-j1", "deep", "sub"]).no_sort(),
        c("threads/j2_sorted", &["-j2", "-c", "foo"]),
        // Multiline.
        c("U/basic", &["-U", "baz\\nFoo", "a.txt"]),
        c("U/n", &["-U", "-n", "baz\\nFoo", "a.txt"]),
        c("U/o", &["-U", "-o", "baz\\n\\w+", "a.txt"]),
        c("U/c", &["-U", "-c", "o\\n", "a.txt"]),
        c("U/count_matches", &["-U", "--count-matches", "o\\n", "a.txt"]),
        c("U/json", &["-U", "--json", "baz\\nFoo", "a.txt"]),
        c("U/vimgrep", &["-U", "--vimgrep", "baz\\nFoo", "a.txt"]),
        c("U/color", &["-U", "--color", "always", "baz\\nFoo", "a.txt"]),
        c("U/C1", &["-U", "-C", "1", "-n", "end\\nfood", "a.txt"]),
        c("U/walk", &["-U", "-l", "foo\\n"]),
        c("U/crlf_file", &["-U", "-c", "one\\r\\nbar", "crlf.txt"]),
        c("U/dotall_not_default", &["-U", "-c", "foo.bar", "a.txt"]),
        c("U/v", &["-U", "-v", "-c", "baz\\nFoo", "a.txt"]),
        c("U/r", &["-U", "-r", "<NL>", "\\n", "b.md"]),
    ]
    .into_iter()
    .map(|c| c.cwd("corpus"))
    .collect()
}

#[test]
fn output_formats() {
    let t = corpus_tree();
    let mut r = Report::new("output_formats");
    r.check_all(&t, &output_format_cases());
    r.finish();
}

#[test]
fn big_line() {
    let t = Tree::new("big");
    fixtures::big(&t);
    let cases = [
        c("big/c", &["-c", "needle"]),
        c("big/count_matches", &["--count-matches", "needle\\d"]),
        c("big/l", &["-l", "needle"]),
        c("big/o", &["-o", "needle\\d"]),
        c("big/o_n", &["-o", "-n", "needle\\d"]),
        c("big/M100", &["-M", "100", "-n", "needle"]),
        c("big/v", &["-v", "needle"]),
        c("big/tail", &["-n", "^tail"]),
        c("big/json_M", &["--json", "-M", "50", "-c", "needle"]),
        c("big/nomatch", &["-c", "zzqq"]),
    ];
    let mut r = Report::new("big_line");
    for case in cases {
        r.check(&t, &case.cwd("big"));
    }
    r.finish();
}

fn edge_cases() -> Vec<Case> {
    vec![
        // Awkward file names.
        c("names/walk", &["needle"]).cwd("names"),
        c("names/files", &["--files"]).cwd("names"),
        c("names/json", &["--json", "non-utf8"]).cwd("names"),
        c("names/json_all", &["--json", "-c", "needle"]).cwd("names"),
        c("names/vimgrep", &["--vimgrep", "needle"]).cwd("names"),
        c("names/null_l", &["-0", "-l", "needle"]).cwd("names"),
        c("names/color_heading", &["--color", "always", "--heading", "needle"]).cwd("names"),
        c("names/dash_path", &["needle", "--", "-dash.txt"]).cwd("names"),
        c("names/dash_dot_path", &["needle", "./-dash.txt"]).cwd("names"),
        c("names/space_path", &["-H", "needle", "with space.txt"]).cwd("names"),
        c("names/glob_upper", &["-g", "*.txt", "-l", "needle"]).cwd("names"),
        c("names/iglob_upper", &["--iglob", "*.txt", "-l", "needle"]).cwd("names"),
        c("names/iglob_negated", &["--iglob", "!*.TXT", "-l", "needle"]).cwd("names"),
        c("names/type_make", &["-t", "make", "needle"]).cwd("names"),
        c("names/glob_noext", &["-g", "noext", "needle"]).cwd("names"),
        c("names/path_sep", &["--path-separator", "\\", "-l", "needle", "../names"]).cwd("names"),
        // Harder ignore rules.
        c("rules/walk", &["needle"]).cwd("rules"),
        c("rules/files", &["--files"]).cwd("rules"),
        c("rules/l", &["-l", "needle"]).cwd("rules"),
        c("rules/no_ignore", &["--no-ignore", "-l", "needle"]).cwd("rules"),
        c("rules/hidden", &["--hidden", "--files"]).cwd("rules"),
        c("rules/u", &["-u", "--files"]).cwd("rules"),
        c("rules/from_above", &["-l", "needle", "rules"]),
        c("rules/nested_cwd", &["-l", "needle"]).cwd("rules/nested"),
        c("rules/explicit_ignored_file", &["needle", "anchored.txt"]).cwd("rules"),
        c("rules/explicit_ignored_dir", &["needle", "only_dir"]).cwd("rules"),
        c("rules/glob_reinclude", &["-g", "*.gen", "-l", "needle"]).cwd("rules"),
        c("rules/glob_anchored", &["-g", "/main.rs", "needle"]).cwd("rules"),
        c("rules/glob_double_star", &["-g", "**/nested/**", "-l", "needle"]).cwd("rules"),
        c("rules/max_depth_1", &["--max-depth", "1", "--files"]).cwd("rules"),
        c("rules/type_rust", &["-t", "rust", "--files"]).cwd("rules"),
        // Special paths.
        c("special/dev_null", &["needle", "/dev/null"]),
        c("special/dev_null_c", &["-c", "needle", "/dev/null"]),
        c("special/empty_path", &["needle", ""]),
        // Flag combinations not in the matrix.
        c("combo/l_v", &["-l", "-v", "foo"]).cwd("corpus"),
        c("combo/c_count_matches", &["-c", "--count-matches", "o"]).cwd("corpus"),
        c("combo/o_v", &["-o", "-v", "foo", "a.txt"]).cwd("corpus"),
        c("combo/x_w", &["-x", "-w", "start", "a.txt"]).cwd("corpus"),
        c("combo/vimgrep_o", &["--vimgrep", "-o", "o", "c.rs"]).cwd("corpus"),
        c("combo/json_v", &["--json", "-v", "o", "c.rs"]).cwd("corpus"),
        c("combo/A1_v", &["-A", "1", "-v", "o", "a.txt"]).cwd("corpus"),
        c("combo/trim_vimgrep", &["--trim", "--vimgrep", "indented"]).cwd("corpus"),
        c("combo/r_v", &["-r", "X", "-v", "o", "c.rs"]).cwd("corpus"),
        c("combo/heading_c", &["--heading", "-c", "foo"]).cwd("corpus"),
        c("combo/null_heading_n", &["-0", "--heading", "-n", "foo"]).cwd("corpus"),
        c("combo/color_trim", &["--color", "always", "--trim", "indented", "a.txt"]).cwd("corpus"),
        c("combo/m1_v", &["-m", "1", "-v", "foo", "a.txt"]).cwd("corpus"),
        c("combo/m1_json", &["-m", "1", "--json", "o", "a.txt"]).cwd("corpus"),
        c("combo/stats_json_c", &["--stats", "--json", "-c", "foo"]).cwd("corpus"),
        c("combo/M10_o", &["-M", "10", "-o", "foo bar baz", "a.txt"]).cwd("corpus"),
        c("combo/M10_vimgrep", &["-M", "10", "--vimgrep", "foo"]).cwd("corpus"),
        c("combo/S_class_upper", &["-S", "[A-Z]oo", "a.txt"]).cwd("corpus"),
        c("combo/S_escape_upper", &["-S", "\\Bar", "a.txt"]).cwd("corpus"),
        c("combo/S_F", &["-S", "-F", "Foo", "a.txt"]).cwd("corpus"),
        c("combo/S_then_i", &["-S", "-i", "Foo", "a.txt"]).cwd("corpus"),
        c("combo/i_then_S", &["-i", "-S", "Foo", "a.txt"]).cwd("corpus"),
        c("combo/w_nonword", &["-w", "-F", "a(", "a.txt"]).cwd("corpus"),
        c("combo/x_empty", &["-x", "-c", "", "a.txt"]).cwd("corpus"),
        c("combo/q_json", &["-q", "--json", "foo"]).cwd("corpus"),
        c("combo/files_without_match_c", &["--files-without-match", "-c", "foo"]).cwd("corpus"),
        c("combo/l_json", &["-l", "--json", "foo"]).cwd("corpus"),
        c("combo/o_C1", &["-o", "-C", "1", "-n", "cat", "a.txt"]).cwd("corpus"),
        c("combo/count_matches_v", &["--count-matches", "-v", "foo", "a.txt"]).cwd("corpus"),
        // Pattern syntax.
        c("syntax/inline_i", &["(?i)straße", "a.txt"]).cwd("corpus"),
        c("syntax/greek_class", &["-o", "\\p{Greek}+", "a.txt"]).cwd("corpus"),
        c("syntax/kelvin_escape_i", &["-i", "-c", "\\x{212A}", "a.txt"]).cwd("corpus"),
        c("syntax/posix_class", &["-o", "[[:digit:]]+", "a.txt"]).cwd("corpus"),
        c("syntax/not_word_boundary", &["-o", "\\Bar\\b", "a.txt"]).cwd("corpus"),
        c("syntax/lookahead", &["foo(?=bar)", "a.txt"]).cwd("corpus"),
        c("syntax/empty_lines", &["-n", "^$", "b.md"]).cwd("corpus"),
        c("syntax/dollar_only_c", &["-c", "$", "a.txt"]).cwd("corpus"),
        c("syntax/z_anchor", &["-c", "end\\z", "a.txt"]).cwd("corpus"),
        c("syntax/repetition", &["-o", "o{2}", "a.txt"]).cwd("corpus"),
        c("syntax/dot_star_o", &["-o", "-m", "2", ".*", "a.txt"]).cwd("corpus"),
        c("syntax/space_class", &["-c", "\\s$", "a.txt"]).cwd("corpus"),
        c("syntax/octal_escape_err", &["\\1", "a.txt"]).cwd("corpus"),
    ]
}

#[test]
fn edge() {
    let t = Tree::new("edge");
    fixtures::edge(&t);
    fixtures::corpus(&t);
    let mut r = Report::new("edge");
    r.check_all(&t, &edge_cases());
    r.finish();
}

/// Prefixes case names with the search path they exercise.
fn on_path(path: &str, cases: Vec<Case>) -> Vec<Case> {
    cases
        .into_iter()
        .map(|mut c| {
            c.name = format!("{path}/{}", c.name);
            c
        })
        .collect()
}

/// Patterns for the indexed run of the matrix (the slow debug-build
/// `\w` patterns are left to the scan run).
const INDEXED_PATTERNS: &[(&str, &str)] = &[
    ("lit", "foo"),
    ("case", "Foo"),
    ("alt", "cat|dog"),
    ("anchor_start", "^start"),
    ("word_b", r"\bbar\b"),
    ("unicode", "café"),
    ("kelvin_k", "k"),
    ("nomatch", "zzqqxx"),
    ("empty", ""),
    ("invalid", "a("),
];

/// The same expectations with tg's trigram index built over the corpus:
/// output must not change when an index narrows the candidates.
#[test]
fn indexed_matrix() {
    let t = corpus_tree();
    util::tg_index(&t, "corpus");
    util::mutate_after_index(&t, "corpus");
    let mut r = Report::new("indexed_matrix");
    r.check_all(&t, &on_path("indexed", matrix_cases(INDEXED_PATTERNS)));
    r.check_all(&t, &on_path("indexed", output_format_cases()));
    r.finish();
}

/// Walks, binaries and encodings with an index over `repo/` and `plain/`.
#[test]
fn indexed_walk() {
    let t = walk_tree();
    util::tg_index(&t, "repo");
    util::tg_index(&t, "plain");
    util::mutate_after_index(&t, "repo");
    util::mutate_after_index(&t, "plain");
    let mut r = Report::new("indexed_walk");
    r.check_all(&t, &on_path("indexed", walk_cases()));
    r.check_all(&t, &on_path("indexed", binary_and_encoding_cases()));
    r.finish();
}

/// Guards the size of the matrix: the brief asks for at least 300 cases.
#[test]
fn case_count() {
    // The matrix_* tests split PATTERNS by index ranges 0..15.
    assert_eq!(PATTERNS.len(), 15, "update the matrix_* ranges");
    let n = matrix_cases(PATTERNS).len()
        + FLAG_SETS.len() * 3
        + walk_cases().len()
        + binary_and_encoding_cases().len()
        + inputs_and_errors_cases().len()
        + output_format_cases().len()
        + edge_cases().len()
        + 10;
    eprintln!("differential cases: {n}");
    assert!(n >= 300, "only {n} differential cases");
}
