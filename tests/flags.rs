//! Every ripgrep flag, ripgrep's way — `tg` against the pinned rg
//! 15.2.0, flag family by flag family.
//!
//! * `repeated_and_negated` — the last occurrence wins, `--no-…` undoes,
//!   flags and patterns interleave (the issue's own examples first).
//! * `input_and_search`, `filters`, `output`, `modes_and_logging` — every
//!   flag of rg's `--help` in its category, with its negation and aliases.
//! * `errors` — common mistakes: stderr's first line in rg's words
//!   (`rg: ` read as `tg: `, "ripgrep" as "trigrep"), exit 2.
//! * `config_file` — `RIPGREP_CONFIG_PATH` (set in the processes' env).
//! * `every_rg_flag_is_known`, `generate_output_parses` — the flag table
//!   against rg's help; `--generate` output checked by its own tools.
//!
//! Cases without their own environment go through [`util::Report`]
//! (stdout bytes, exit code, stderr presence; `--sort path` prepended).
//! Cases that set an environment variable or compare stderr's first line
//! go through [`Checks`] here, which runs both tools the same way.

mod util;

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use util::{Case, Report, Tree};

fn c(name: &str, a: &[&str]) -> Case {
    Case::new(name, a).cwd("repo")
}

/// A git repo exercising every filter: ignore files of each kind (a
/// global excludes file through the tree's private HOME), hidden files, a
/// binary, CRLF, a run of matching lines, scripts for `--pre` and
/// `--hostname-bin`.
fn tree() -> Tree {
    let t = Tree::new("flags");
    t.git_init("repo");
    t.write(
        "repo/a.txt",
        "foo bar\nFoo baz\n  indented foo\ncat\ndog\nfoo again\nab abc\nlast line\n",
    );
    t.write("repo/b.md", "needle one\nno\nneedle two\n");
    t.write("repo/sub/c.rs", "fn main() { needle(); }\n// foo\n");
    t.write("repo/sub/deeper/d.txt", "needle deep\n");
    t.write("repo/.hidden.txt", "needle hidden\n");
    t.write("repo/.gitignore", "*.log\n");
    t.write("repo/ignored.log", "needle ignored\n");
    t.write("repo/.ignore", "dotig.txt\n");
    t.write("repo/dotig.txt", "needle dot-ignored\n");
    t.write("repo/.git/info/exclude", "excluded.txt\n");
    t.write("repo/excluded.txt", "needle excluded\n");
    t.write("repo/global.txt", "needle global\n");
    t.write(".home/gexcludes", "global.txt\n");
    let config = format!("[core]\n\texcludesFile = {}\n", t.path(".home/gexcludes").display());
    t.write(".home/.gitconfig", config);
    t.write("extra.ignore", "b.md\n");
    t.write("upper.ignore", "B.MD\n");
    t.write("repo/bin.dat", "needle\0bin\n");
    t.write("repo/crlf.txt", "x1 foo\r\nx2 bar\r\n");
    t.write("repo/run.txt", "foo1\nfoo2\nbar\nfoo3\n");
    t.write("repo/utf16.txt", b"\xFF\xFEn\0e\0e\0d\0l\0e\0\n\0");
    t.write("pats.txt", "abc\nab\n");
    script(&t, "up.sh", "#!/bin/sh\ntr a-z A-Z\n");
    script(&t, "host.sh", "#!/bin/sh\necho '  myhost  '\n");
    t
}

/// Writes an executable script at `rel`.
fn script(t: &Tree, rel: &str, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    t.write(rel, text);
    std::fs::set_permissions(t.path(rel), std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn repeated_and_negated() {
    let t = tree();
    let cases = [
        c("issue/i_n_F_i", &["-i", "-n", "-F", "-i", "-e", "foo", "."]),
        c("issue/C1_C0", &["-C", "1", "cat", "a.txt", "-C", "0"]),
        c(
            "issue/path_sep_twice",
            &["--path-separator", "/", "foo", "--path-separator", "Z", "sub"],
        ),
        c("issue/S_then_s", &["-S", "-s", "FOO"]),
        c("case/s_then_i", &["-s", "-i", "FOO", "a.txt"]),
        c("case/i_then_S", &["-i", "-S", "Foo", "a.txt"]),
        c("interleaved", &["foo", "-n", "a.txt", "-i", "sub", "--column"]),
        c("double_dash", &["-n", "--", "-x", "a.txt"]),
        c("F_no_F", &["-F", "--no-fixed-strings", "f.o", "a.txt"]),
        c("v_no_v", &["-v", "--no-invert-match", "foo", "a.txt"]),
        c("x_then_w", &["-x", "-w", "foo", "a.txt"]),
        c("w_then_x", &["-w", "-x", "foo bar", "a.txt"]),
        c("m_twice", &["-m1", "--max-count=2", "foo", "a.txt"]),
        c("j_twice", &["-j1", "-j", "2", "-c", "foo"]),
        c("heading_no_heading", &["--heading", "--no-heading", "foo"]),
        c("no_heading_heading", &["--no-heading", "--heading", "foo"]),
        c("n_N", &["-n", "-N", "foo", "a.txt"]),
        c("N_n", &["-N", "-n", "foo", "a.txt"]),
        c("H_I", &["-H", "-I", "foo", "a.txt"]),
        c("I_H", &["-I", "-H", "foo", "a.txt"]),
        c("column_no_column", &["--column", "--no-column", "foo", "a.txt"]),
        c("b_no_b", &["-b", "--no-byte-offset", "foo", "a.txt"]),
        c("trim_no_trim", &["--trim", "--no-trim", "foo", "a.txt"]),
        c("stats_no_stats", &["--stats", "--no-stats", "foo"]),
        c("L_no_follow", &["-L", "--no-follow", "needle"]),
        c("hidden_no_hidden", &["--hidden", "--no-hidden", "needle"]),
        c("no_hidden_uu", &["--no-hidden", "-uu", "needle"]),
        c("uu_no_hidden", &["-uu", "--no-hidden", "needle"]),
        c("u_ignore", &["-u", "--ignore", "needle"]),
        c("u_ignore_vcs", &["-u", "--ignore-vcs", "needle"]),
        c("ignore_vcs_u", &["--ignore-vcs", "-u", "needle"]),
        c("uuu_a", &["-uuu", "-a", "needle", "bin.dat"]),
        c("a_uuu", &["-a", "-uuu", "needle"]),
        c("a_no_text", &["-a", "--no-text", "needle"]),
        c("binary_no_binary", &["--binary", "--no-binary", "needle"]),
        c("crlf_no_crlf", &["--crlf", "--no-crlf", "bar$", "crlf.txt"]),
        c("U_no_U", &["-U", "--no-multiline", "-c", "foo\\nFoo", "a.txt"]),
        c("mmap_no_mmap", &["--mmap", "--no-mmap", "foo"]),
        c("E_no_encoding", &["-E", "utf-16be", "--no-encoding", "needle", "utf16.txt"]),
        c("include_zero_no", &["--include-zero", "--no-include-zero", "-c", "zzz", "a.txt"]),
        c("context_sep_no", &["--context-separator", "XX", "--no-context-separator", "-C1", "cat"]),
        c(
            "no_context_sep_sep",
            &["--no-context-separator", "--context-separator", "@", "-C1", "cat"],
        ),
        c(
            "glob_ci_no",
            &["--glob-case-insensitive", "--no-glob-case-insensitive", "-g", "*.MD", "needle"],
        ),
        c("json_no_json", &["--json", "--no-json", "foo", "a.txt"]),
        c("c_no_json", &["-c", "--no-json", "foo", "a.txt"]),
        c("sort_files_no", &["--sort-files", "--no-sort-files", "-j1", "-c", "foo"]).no_sort(),
        c("sortr_sort", &["--sortr", "path", "--sort", "path", "-l", "foo"]).no_sort(),
        c("sort_sortr", &["--sort", "path", "--sortr", "path", "-l", "foo"]).no_sort(),
        c("pre_no_pre", &["--pre", "../up.sh", "--no-pre", "foo", "a.txt"]),
        c("z_no_z", &["-z", "--no-search-zip", "foo", "a.txt"]),
        c("stats_then_files", &["--stats", "--files"]),
    ];
    let mut r = Report::new("repeated_and_negated");
    r.check_all(&t, &cases);
    r.finish();
}

#[test]
fn input_and_search() {
    let t = tree();
    let cases = [
        c("e_and_f_order", &["-o", "-f", "../pats.txt", "-e", "a", "a.txt"]),
        c("e_then_f_order", &["-o", "-e", "a", "-f", "../pats.txt", "a.txt"]),
        c("e_attached", &["-e-dash", "-efoo", "a.txt"]),
        c("regexp_eq", &["--regexp=foo", "--file=../pats.txt", "a.txt"]),
        c("pre", &["--pre", "../up.sh", "FOO", "a.txt"]),
        c("pre_empty", &["--pre", "", "foo", "a.txt"]),
        c("pre_glob", &["--pre", "../up.sh", "--pre-glob", "*.md", "-i", "needle|foo"]),
        c("pre_then_z", &["--pre", "../up.sh", "-z", "foo", "a.txt"]),
        c("z_then_pre", &["-z", "--pre", "../up.sh", "FOO", "a.txt"]),
        c("z_plain", &["-z", "foo", "a.txt"]),
        c("crlf", &["--crlf", "bar$", "crlf.txt"]),
        c("crlf_null_data", &["--crlf", "--null-data", "-c", "foo"]),
        c("null_data_crlf", &["--null-data", "--crlf", "bar$", "crlf.txt"]),
        c("dfa_size_limit", &["--dfa-size-limit", "1G", "foo", "a.txt"]),
        c("regex_size_limit", &["--regex-size-limit", "10M", "foo", "a.txt"]),
        c("encoding_auto", &["-E", "auto", "needle", "utf16.txt"]),
        c("encoding_none", &["--encoding=none", "-c", "needle", "utf16.txt"]),
        c("engine_default", &["--engine", "default", "foo", "a.txt"]).pcre2(),
        c("engine_auto", &["--engine", "auto", "foo", "a.txt"]).pcre2(),
        c("engine_pcre2_then_default", &["--engine", "pcre2", "--engine=default", "foo", "a.txt"])
            .pcre2(),
        c("P_no_pcre2", &["-P", "--no-pcre2", "foo", "a.txt"]).pcre2(),
        c("P_files", &["-P", "--files"]).pcre2(),
        c("P_m0", &["-P", "-m", "0", "foo"]).pcre2(),
        c("auto_hybrid", &["--auto-hybrid-regex", "foo", "a.txt"]).pcre2(),
        c("auto_hybrid_no", &["--auto-hybrid-regex", "--no-auto-hybrid-regex", "foo", "a.txt"])
            .pcre2(),
        c("no_pcre2_unicode", &["--no-pcre2-unicode", "-o", "\\w+", "a.txt"]).pcre2(),
        c("pcre2_unicode", &["--no-pcre2-unicode", "--pcre2-unicode", "-c", "\\w", "a.txt"])
            .pcre2(),
        c("no_unicode_unicode", &["--no-unicode", "--unicode", "-c", "\\w", "a.txt"]),
        c("multiline_dotall", &["-U", "--multiline-dotall", "-c", "foo.Foo", "a.txt"]),
        c(
            "multiline_dotall_no",
            &["-U", "--multiline-dotall", "--no-multiline-dotall", "-c", "foo.Foo", "a.txt"],
        ),
        c("text", &["--text", "needle", "bin.dat"]),
        c("threads_0", &["--threads", "0", "-c", "foo"]),
        c("mmap", &["--mmap", "foo", "a.txt", "sub"]),
        c("w_S", &["-w", "-S", "foo", "a.txt"]),
    ];
    let mut r = Report::new("input_and_search");
    r.check_all(&t, &cases);
    r.finish();
}

#[test]
fn filters() {
    let t = tree();
    let cases = [
        c("default", &["needle"]),
        c("u", &["-u", "needle"]),
        c("uu", &["-uu", "needle"]),
        c("uuu", &["-uuu", "needle"]),
        c("no_ignore", &["--no-ignore", "needle"]),
        c("no_ignore_vcs", &["--no-ignore-vcs", "needle"]),
        c("no_ignore_exclude", &["--no-ignore-exclude", "needle"]),
        c("ignore_exclude", &["--no-ignore-exclude", "--ignore-exclude", "needle"]),
        c("no_ignore_global", &["--no-ignore-global", "needle"]),
        c("ignore_global", &["--no-ignore", "--ignore-global", "needle"]),
        c("no_ignore_dot", &["--no-ignore-dot", "needle"]),
        c("ignore_dot", &["--no-ignore-dot", "--ignore-dot", "needle"]),
        c("no_ignore_parent", &["--no-ignore-parent", "needle"]).cwd("repo/sub"),
        c("no_require_git", &["--no-require-git", "--require-git", "needle"]),
        c("ignore_file", &["--ignore-file", "../extra.ignore", "needle"]),
        c("ignore_file_case", &["--ignore-file", "../upper.ignore", "needle"]),
        c(
            "ignore_file_ci",
            &["--ignore-file", "../upper.ignore", "--ignore-file-case-insensitive", "needle"],
        ),
        c(
            "ignore_file_ci_no",
            &[
                "--ignore-file-case-insensitive",
                "--no-ignore-file-case-insensitive",
                "--ignore-file",
                "../upper.ignore",
                "needle",
            ],
        ),
        c("no_ignore_files", &["--ignore-file", "../extra.ignore", "--no-ignore-files", "needle"]),
        c(
            "ignore_files",
            &["--no-ignore-files", "--ignore-files", "--ignore-file=../extra.ignore", "needle"],
        ),
        c("ignore_file_missing", &["--ignore-file", "../nope", "needle"]),
        c(
            "ignore_file_missing_quiet",
            &["--ignore-file", "../nope", "--no-ignore-messages", "needle"],
        ),
        c(
            "ignore_file_missing_no_messages",
            &["--ignore-file", "../nope", "--no-messages", "needle"],
        ),
        c(
            "ignore_messages",
            &["--no-ignore-messages", "--ignore-messages", "--ignore-file", "../nope", "needle"],
        ),
        c("type_clear_md", &["--type-clear", "md", "needle"]),
        c("type_clear_then_t", &["--type-clear", "md", "-t", "md", "needle"]),
        c("t_then_type_clear", &["-t", "md", "--type-clear", "md", "needle"]),
        c(
            "type_add_then_clear",
            &["--type-add", "md:*.txt", "--type-clear", "md", "-tmd", "needle"],
        ),
        c(
            "type_clear_then_add",
            &["--type-clear", "md", "--type-add", "md:*.txt", "-tmd", "needle"],
        ),
        c("t_T", &["-tmd", "-Tmd", "needle"]),
        c("type_list_clear", &["--type-list", "--type-clear", "rust", "--type-add", "zz:*.zz"]),
        c("files_type_clear", &["--files", "--type-clear", "rust", "-trust"]),
        c("d1", &["-d", "1", "needle"]),
        c("maxdepth_alias", &["--maxdepth", "2", "needle"]),
        c("max_depth_0", &["--max-depth=0", "needle"]),
        c("dot_short", &["-.", "needle"]),
        c("max_filesize", &["--max-filesize", "12", "needle"]),
        c("one_file_system", &["--one-file-system", "--no-one-file-system", "needle"]),
        c("binary", &["--binary", "needle"]),
        c("iglob", &["--iglob", "*.MD", "needle"]),
        c("glob_ci", &["--glob-case-insensitive", "-g", "*.MD", "needle"]),
    ];
    let mut r = Report::new("filters");
    r.check_all(&t, &cases);
    r.finish();
}

#[test]
fn output() {
    let t = tree();
    let host = t.path("host.sh");
    let host = host.to_str().unwrap();
    let cases = vec![
        c("pretty", &["-p", "foo"]),
        c("pretty_no_heading", &["-p", "--no-heading", "foo"]),
        c("pretty_color_never", &["--pretty", "--color", "never", "foo"]),
        c("pretty_N", &["-p", "-N", "foo", "a.txt"]),
        c("field_match", &["--field-match-separator", "|", "-n", "--column", "foo"]),
        c("field_context", &["--field-context-separator", "#", "-n", "-C1", "cat", "a.txt"]),
        c(
            "field_escapes",
            &[
                "--field-match-separator",
                "\\t",
                "--field-context-separator",
                "\\x00",
                "-nb",
                "-C1",
                "cat",
            ],
        ),
        c("field_empty", &["--field-match-separator=", "-n", "foo"]),
        c("field_vimgrep", &["--field-match-separator", "!", "--vimgrep", "foo"]),
        c(
            "hyperlink_default",
            &["--hyperlink-format", "default", "--color", "always", "foo", "a.txt"],
        ),
        c(
            "hyperlink_custom",
            &[
                "--hyperlink-format",
                "x://{host}{path}#{line}:{column}",
                "--color",
                "always",
                "-n",
                "--column",
                "foo",
            ],
        ),
        c(
            "hyperlink_wsl",
            &["--hyperlink-format", "y://{wslprefix}{path}", "--color", "always", "-l", "foo"],
        ),
        c(
            "hyperlink_vscode_l",
            &["--hyperlink-format", "vscode", "--color", "always", "-l", "foo"],
        ),
        c("hyperlink_files", &["--hyperlink-format", "file", "--color", "always", "--files"]),
        c("hyperlink_count", &["--hyperlink-format", "kitty", "--color", "always", "-c", "foo"]),
        c("hyperlink_none", &["--hyperlink-format", "none", "--color", "always", "foo", "a.txt"]),
        c("hyperlink_no_color", &["--hyperlink-format", "default", "foo", "a.txt"]),
        c(
            "hostname_bin",
            &[
                "--hostname-bin",
                host,
                "--hyperlink-format",
                "x://{host}{path}",
                "--color",
                "always",
                "-l",
                "foo",
            ],
        ),
        c(
            "hostname_bin_fails",
            &[
                "--hostname-bin",
                "false",
                "--hyperlink-format",
                "x://{host}/",
                "--color",
                "always",
                "-l",
                "foo",
            ],
        ),
        c(
            "hostname_bin_empty",
            &[
                "--hostname-bin",
                "",
                "--hyperlink-format",
                "x://{host}/",
                "--color",
                "always",
                "-l",
                "foo",
            ],
        ),
        c("line_buffered", &["--line-buffered", "foo"]),
        c("block_buffered", &["--block-buffered", "foo"]),
        c("line_then_block", &["--line-buffered", "--no-line-buffered", "--block-buffered", "foo"]),
        c("colors_match", &["--colors", "match:fg:green", "--color", "always", "foo"]),
        c(
            "colors_none",
            &["--colors", "match:fg:green", "--colors", "match:none", "--color", "always", "foo"],
        ),
        c(
            "colors_all",
            &[
                "--colors",
                "path:bg:blue",
                "--colors",
                "line:style:bold",
                "--colors",
                "column:fg:0x10,0x20,0x30",
                "--colors",
                "match:style:underline",
                "--color",
                "always",
                "-n",
                "--column",
                "foo",
            ],
        ),
        c(
            "colors_highlight",
            &["--colors", "highlight:bg:yellow", "--color", "always", "foo", "a.txt"],
        ),
        c(
            "colors_intense",
            &[
                "--colors",
                "match:style:intense",
                "--colors",
                "match:style:nointense",
                "--colors",
                "match:fg:17",
                "--color=always",
                "foo",
            ],
        ),
        c("color_ansi", &["--color", "ansi", "foo"]),
        c("color_last", &["--color", "always", "--color", "never", "foo"]),
        c("byte_offset", &["-b", "foo"]),
        c("column_vimgrep", &["--no-column", "--vimgrep", "foo"]),
        c("include_zero", &["--include-zero", "-c", "zzz"]),
        c("max_columns_preview", &["-M", "5", "--max-columns-preview", "foo"]),
        c(
            "max_columns_preview_no",
            &["-M", "5", "--max-columns-preview", "--no-max-columns-preview", "foo"],
        ),
        c("context_separator", &["--context-separator", "XX", "-A1", "cat", "a.txt", "b.md"]),
        c("context_separator_empty", &["--context-separator", "", "-C1", "cat|last"]),
        c("passthru", &["--passthru", "cat", "a.txt"]),
        c("passthrough_alias", &["--passthrough", "cat", "a.txt"]),
        c("passthru_then_A", &["--passthru", "-A1", "cat", "a.txt"]),
        c("A_then_passthru", &["-A1", "--passthru", "cat", "a.txt"]),
        c("C_then_A", &["-C2", "-A0", "cat", "a.txt"]),
        c("A_then_C", &["-A0", "-C2", "cat", "a.txt"]),
        c("B_after_C", &["-C", "1", "-B", "3", "dog", "a.txt"]),
        c("null", &["-0", "-l", "foo"]),
        c("sort_files", &["--sort-files", "foo"]).no_sort(),
        c("sortr_path", &["--sortr", "path", "foo"]).no_sort(),
        c("vimgrep_heading", &["--vimgrep", "--heading", "foo"]),
        c("o_r", &["-o", "-r", "X", "foo", "a.txt"]),
        c("replace_escape_literal", &["-r", "a\\tb", "foo", "a.txt"]),
        c("quiet", &["-q", "foo"]),
        c("trim", &["--trim", "foo", "a.txt"]),
        // The default parallel walk: lines compared as a multiset.
        c("parallel_pretty", &["-p", "foo"]).unordered(),
        c("parallel_fields", &["--field-match-separator", "|", "-n", "-C1", "foo"]).unordered(),
        c("parallel_hyperlink", &["--hyperlink-format", "default", "--color", "always", "foo"])
            .unordered(),
        c("parallel_line_buffered", &["--line-buffered", "-c", "foo"]).unordered(),
    ];
    let mut r = Report::new("output");
    r.check_all(&t, &cases);
    r.finish();
}

#[test]
fn modes_and_logging() {
    let t = tree();
    let cases = [
        c("json_then_c", &["--json", "-c", "foo", "a.txt"]),
        c("c_then_json", &["-c", "--json", "foo", "a.txt"]),
        c("files_then_l", &["--files", "-l", "foo"]),
        c("l_then_files", &["-l", "--files"]),
        c("type_list_then_files", &["--type-list", "--files"]),
        c("files_then_type_list", &["--files", "--type-list"]),
        c("l_then_count_matches", &["-l", "--count-matches", "foo"]),
        c("count_matches_then_files_without", &["--count-matches", "--files-without-match", "foo"]),
        c("c_o", &["-o", "-c", "o"]),
        c("count_matches_v", &["-v", "--count-matches", "o", "a.txt"]),
        c("no_messages", &["--no-messages", "foo", "nope", "a.txt"]),
        c("messages", &["--no-messages", "--messages", "foo", "nope", "a.txt"]),
        c("stats", &["--stats", "foo"]),
        c("debug_presence", &["--debug", "foo", "a.txt"]),
        c("trace_presence", &["--trace", "foo", "a.txt"]),
        c("no_config", &["--no-config", "foo", "a.txt"]),
        c("version_short", &["-V"]).no_sort(),
        c("help_exit", &["--help"]).no_sort(),
    ];
    let mut r = Report::new("modes_and_logging");
    // Help and version print tg's own text: only the exit code and stderr count.
    for case in &cases {
        if case.name.starts_with("version") || case.name.starts_with("help") {
            let (tg, rg) = run_pair(&t, "repo", &[], &case.args);
            assert_eq!((tg.0, tg.2.is_empty()), (rg.0, rg.2.is_empty()), "{}", case.name);
            assert!(!tg.1.is_empty(), "{} printed nothing", case.name);
        } else {
            r.check(&t, case);
        }
    }
    r.finish();
}

/// (exit code, stdout, stderr) of one process.
type Ran = (Option<i32>, Vec<u8>, Vec<u8>);

/// Runs tg and rg in `root/cwd` with `env` added to the harness's
/// environment (PATH, and HOME under the tree).
fn run_pair(t: &Tree, cwd: &str, env: &[(&str, &Path)], args: &[OsString]) -> (Ran, Ran) {
    run_pair_with(t, cwd, env, &[], args, false)
}

/// Like [`run_pair`], with `tg_only` (trigrep's own flags) before tg's arguments.
fn run_pair_with(
    t: &Tree,
    cwd: &str,
    env: &[(&str, &Path)],
    tg_only: &[&str],
    args: &[OsString],
    pcre2: bool,
) -> (Ran, Ran) {
    let run = |mut cmd: Command, extra: &[&str]| {
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.args(extra).args(args).output().expect("spawn");
        (out.status.code(), out.stdout, out.stderr)
    };
    let rg = if pcre2 {
        util::rg_pcre2_command(t, t.path(cwd))
    } else {
        util::rg_command(t, t.path(cwd))
    };
    (run(util::tg_command(t, t.path(cwd)), tg_only), run(rg, &[]))
}

/// The first line of rg's stderr in tg's words.
fn rg_words(stderr: &[u8]) -> String {
    let text =
        String::from_utf8_lossy(&util::normalize_rg_stderr(stderr)).replace("ripgrep", "trigrep");
    text.lines().next().unwrap_or("").to_string()
}

/// Cases compared on exit code, stdout and stderr's first line, each in
/// its own environment; every mismatch is collected, then reported once.
struct Checks<'t> {
    tree: &'t Tree,
    failures: Vec<String>,
    total: usize,
    /// Compared with the rg built with PCRE2.
    pcre2: bool,
}

impl<'t> Checks<'t> {
    fn new(tree: &'t Tree) -> Checks<'t> {
        let _ = util::rg_bin();
        Checks { tree, failures: Vec::new(), total: 0, pcre2: false }
    }

    /// Checks compared with the rg built with PCRE2 (`-P`, `--engine`).
    fn pcre2(tree: &'t Tree) -> Checks<'t> {
        let _ = util::rg_pcre2_bin();
        Checks { tree, failures: Vec::new(), total: 0, pcre2: true }
    }

    /// Runs `args` in `repo/` with `env`; stdout is compared with rg's
    /// "ripgrep" read as "trigrep".
    fn check(&mut self, name: &str, env: &[(&str, &Path)], args: &[&str]) {
        self.check_with(name, env, &[], args)
    }

    /// Like [`Checks::check`], with `tg_only` flags given to tg alone.
    fn check_with(&mut self, name: &str, env: &[(&str, &Path)], tg_only: &[&str], args: &[&str]) {
        self.total += 1;
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let (tg, rg) = run_pair_with(self.tree, "repo", env, tg_only, &args, self.pcre2);
        let rg_out = util::normalize_stdout(&rg.1);
        let rg_out = String::from_utf8_lossy(&rg_out).replace("ripgrep", "trigrep");
        let tg_out = util::normalize_stdout(&tg.1);
        let tg_out = String::from_utf8_lossy(&tg_out);
        let tg_err = String::from_utf8_lossy(&tg.2).lines().next().unwrap_or("").to_string();
        let rg_err = rg_words(&rg.2);
        let mut problems = Vec::new();
        if tg.0 != rg.0 {
            problems.push(format!("exit code: rg {:?}, tg {:?}", rg.0, tg.0));
        }
        if tg_out != rg_out {
            problems.push(format!(
                "stdout differs:\n{}",
                util::diff::render(rg_out.as_bytes(), tg_out.as_bytes(), "    ")
            ));
        }
        if tg_err != rg_err {
            problems.push(format!("stderr's first line:\n    rg: {rg_err}\n    tg: {tg_err}"));
        }
        if !problems.is_empty() {
            let cmd: Vec<String> = args.iter().map(|a| util::shell_quote(a)).collect();
            let cmd = cmd.join(" ");
            self.failures.push(format!("=== {name}: tg {cmd}\n  - {}", problems.join("\n  - ")));
        }
    }

    fn finish(self, label: &str) {
        eprintln!("[{label}] {} cases, {} mismatches", self.total, self.failures.len());
        assert!(self.failures.is_empty(), "\n{}\n", self.failures.join("\n"));
    }
}

#[test]
fn errors() {
    let t = tree();
    let mut k = Checks::new(&t);
    let cases: &[(&str, &[&str])] = &[
        ("unknown_long", &["--no-such-flag", "foo"]),
        ("unknown_long_similar", &["--hedding", "foo"]),
        ("unknown_colour", &["--colour", "never", "foo"]),
        ("unknown_short", &["-Q", "foo"]),
        ("unknown_in_cluster", &["-nQ", "foo"]),
        ("missing_value_short", &["-m"]),
        ("missing_value_long", &["foo", "--context-separator"]),
        ("missing_value_e", &["-e"]),
        ("bad_number", &["-m", "x", "foo"]),
        ("bad_number_attached", &["-jx", "foo"]),
        ("negative_context", &["-C", "-1", "foo"]),
        ("negative_threads", &["--threads=-1", "foo"]),
        ("number_too_large", &["-A", "99999999999999999999999", "foo"]),
        ("bad_size_5T", &["--max-filesize", "5T", "foo"]),
        ("bad_size_empty", &["--max-filesize=", "foo"]),
        ("size_too_big", &["--max-filesize", "99999999999G", "foo"]),
        ("bad_dfa_size", &["--dfa-size-limit", "5T", "foo"]),
        ("bad_regex_size", &["--regex-size-limit", "x", "foo"]),
        ("bad_color", &["--color", "sometimes", "foo"]),
        ("bad_sort", &["--sort", "bogus", "foo"]),
        ("bad_sortr", &["--sortr=x", "foo"]),
        ("bad_engine", &["--engine", "bogus", "foo"]),
        ("bad_generate", &["--generate", "bogus"]),
        ("bad_colors", &["--colors", "bogus", "foo"]),
        ("bad_colors_value", &["--colors", "match:fg:nocolor", "foo"]),
        ("bad_hyperlink", &["--hyperlink-format", "{bogus}", "foo"]),
        ("bad_encoding", &["-E", "bogus", "foo", "a.txt"]),
        ("bad_path_separator", &["--path-separator", "ab", "foo"]),
        ("bad_type_add", &["--type-add", "foo", "foo"]),
        ("unknown_type", &["-t", "nosuch", "foo"]),
        ("bad_glob", &["-g", "a[", "foo"]),
        ("bad_iglob", &["--iglob", "a[", "foo"]),
        ("bad_pre_glob", &["--pre", "cat", "--pre-glob", "a[", "foo"]),
        ("switch_with_value", &["--heading=yes", "foo"]),
        ("negation_with_value", &["--no-heading=3", "foo"]),
        ("u_four_times", &["-uuuu", "foo"]),
        ("no_pattern", &["-in"]),
        ("stdin_twice", &["-f", "-", "-f", "-", "foo"]),
        ("missing_pattern_file", &["-f", "nope.txt", "foo"]),
    ];
    for (name, args) in cases {
        k.check(name, &[], args);
    }
    k.finish("errors");
    // What PCRE2 changes, against the rg built with it.
    let mut k = Checks::pcre2(&t);
    let cases: &[(&str, &[&str])] = &[
        ("pcre2", &["-P", "--sort", "path", "foo"]),
        ("engine_pcre2", &["--engine", "pcre2", "--sort", "path", "--json", "foo"]),
        ("engine_auto_bad_regex", &["--engine", "auto", "a(", "a.txt"]),
        ("engine_auto_backref", &["--auto-hybrid-regex", "(a)\\1", "a.txt"]),
        ("backref_default_engine", &["(a)\\1", "a.txt"]),
        ("pcre2_bad_regex", &["-P", "a(?<", "a.txt"]),
        ("pcre2_version", &["--pcre2-version"]),
        ("pcre2_version_after_error", &["--pcre2-version", "-Q"]),
    ];
    for (name, args) in cases {
        k.check(name, &[], args);
    }
    k.finish("errors_pcre2");
}

#[test]
fn config_file() {
    let t = tree();
    t.write("rc/basic", "# a comment\n\n--ignore-case\n  -n  \n# --files\n--context=0\n");
    t.write("rc/sep", "--path-separator\n/\n-g\n*.rs\n");
    t.write("rc/unrestricted", "-uu\n--column\n");
    t.write("rc/bad_flag", "--no-such-flag\n");
    t.write("rc/bad_value", "--max-count=x\n");
    t.write("rc/empty", "# nothing\n\n");
    t.write("rc/pattern", "-e\nneedle\n");
    t.write("rc/json", "--json\n");
    t.write("rc/crlf", "-n\r\n--no-heading\r\n");
    let rc = |name: &str| t.path("rc").join(name);
    let var = "RIPGREP_CONFIG_PATH";
    let mut k = Checks::new(&t);
    let basic = rc("basic");
    k.check("basic", &[(var, &basic)], &["--sort", "path", "FOO"]);
    k.check("cli_wins", &[(var, &basic)], &["--sort", "path", "-s", "-N", "FOO", "a.txt"]);
    k.check("context_then_cli", &[(var, &basic)], &["-C", "1", "cat", "a.txt"]);
    k.check("no_config", &[(var, &basic)], &["--sort", "path", "--no-config", "FOO"]);
    k.check("no_config_twice", &[(var, &basic)], &["--no-config", "--no-config", "foo", "a.txt"]);
    let sep = rc("sep");
    k.check("separator_and_glob", &[(var, &sep)], &["--sort", "path", "needle"]);
    k.check(
        "separator_overridden",
        &[(var, &sep)],
        &["--sort", "path", "--path-separator", "Z", "needle"],
    );
    let unrestricted = rc("unrestricted");
    k.check("unrestricted", &[(var, &unrestricted)], &["--sort", "path", "needle"]);
    k.check(
        "unrestricted_undone",
        &[(var, &unrestricted)],
        &["--sort", "path", "--ignore", "--no-hidden", "--no-column", "needle"],
    );
    let missing = rc("missing");
    k.check("missing_file", &[(var, &missing)], &["foo", "a.txt"]);
    k.check("missing_file_no_messages", &[(var, &missing)], &["--no-messages", "foo", "a.txt"]);
    k.check("missing_file_no_config", &[(var, &missing)], &["--no-config", "foo", "a.txt"]);
    k.check("empty_var", &[(var, Path::new(""))], &["foo", "a.txt"]);
    k.check("bad_flag", &[(var, &rc("bad_flag"))], &["foo", "a.txt"]);
    k.check("bad_value", &[(var, &rc("bad_value"))], &["foo", "a.txt"]);
    k.check("bad_value_overridden", &[(var, &rc("bad_value"))], &["-m", "1", "foo", "a.txt"]);
    k.check("empty_file", &[(var, &rc("empty"))], &["foo", "a.txt"]);
    k.check("pattern_from_config", &[(var, &rc("pattern"))], &["--sort", "path", "b.md", "sub"]);
    k.check("mode_from_config_overridden", &[(var, &rc("json"))], &["-c", "foo", "a.txt"]);
    k.check("crlf_lines", &[(var, &rc("crlf"))], &["foo", "a.txt"]);
    k.check("a_directory", &[(var, &t.path("rc"))], &["foo", "a.txt"]);
    k.finish("config_file");
    let mut k = Checks::pcre2(&t);
    k.check("help_skips_config", &[(var, &rc("bad_flag"))], &["--pcre2-version"]);
    k.finish("config_file_pcre2");
}

/// What the environment adds: `{wslprefix}` from `WSL_DISTRO_NAME`, and
/// trigrep's own variables (which rg ignores, and which must not change
/// what is printed).
#[test]
fn environment() {
    let t = tree();
    t.write("repo/long.txt", util::fixtures::numbered_lines(2000, "foo"));
    let mut k = Checks::new(&t);
    let wsl = [("WSL_DISTRO_NAME", Path::new("Ubuntu"))];
    k.check(
        "wslprefix",
        &wsl,
        &[
            "--hyperlink-format",
            "y://{wslprefix}{path}",
            "--color",
            "always",
            "-l",
            "--sort",
            "path",
            "foo",
        ],
    );
    k.check(
        "wslprefix_unused",
        &wsl,
        &["--hyperlink-format", "default", "-c", "--sort", "path", "foo"],
    );
    let tiny = [("TG_CHUNK_THRESHOLD", Path::new("1K")), ("TG_CHUNK_SIZE", Path::new("2K"))];
    k.check("chunked_by_env", &tiny, &["-n", "has foo", "long.txt"]);
    let chunked = ["--chunk-threshold", "1K", "--chunk-size=4K"];
    k.check_with("chunked_by_flag", &[], &chunked, &["-c", "foo", "long.txt"]);
    k.check_with("chunked_by_flag_n", &[], &chunked, &["-n", "has foo", "long.txt"]);
    k.finish("environment");
}

/// Every long flag named in rg's `--help` (flags, negations, aliases
/// mentioned in its prose) is one tg's `--help` lists, and every short
/// flag of rg's `-h` is one tg's `-h` lists.
#[test]
fn every_rg_flag_is_known() {
    let help = |bin: &Path, flag: &str| {
        let out = Command::new(bin).arg(flag).output().expect("run help");
        assert!(out.status.success(), "{} {flag} failed", bin.display());
        String::from_utf8(out.stdout).unwrap()
    };
    let rg_long = help(&util::rg_bin(), "--help");
    let tg_long = help(&util::tg_bin(), "--help");
    let long = regex::Regex::new(r"--[a-z0-9][a-z0-9-]*[a-z0-9]").unwrap();
    let known: std::collections::BTreeSet<&str> =
        long.find_iter(&tg_long).map(|m| m.as_str()).collect();
    // rg's prose names one flag of another tool (`find -print0`, under -0).
    let not_rg = ["--print0"];
    let mut missing: Vec<&str> = long
        .find_iter(&rg_long)
        .map(|m| m.as_str())
        .filter(|n| !known.contains(n) && !not_rg.contains(n))
        .collect();
    missing.sort();
    missing.dedup();
    assert!(missing.is_empty(), "flags in rg's --help that tg's --help lacks: {missing:?}");
    let short = regex::Regex::new(r"(?m)^ +(-[a-zA-Z0-9.]),").unwrap();
    let tg_short = help(&util::tg_bin(), "-h");
    for m in short.captures_iter(&help(&util::rg_bin(), "-h")) {
        let s = &m[1];
        assert!(tg_short.contains(&format!("{s}, --")), "tg -h lacks {s}");
    }
}

/// `--generate` writes what each consumer can read: a man page with `.TH`
/// (rendered by `man` when present), completion scripts that their shell
/// parses (shells that are not installed are skipped, and said so), each
/// naming every long flag.
#[test]
fn generate_output_parses() {
    let t = tree();
    let generate = |kind: &str| {
        let out = util::tg_command(&t, t.root()).args(["--generate", kind]).output().unwrap();
        assert!(out.status.success() && out.stderr.is_empty(), "--generate {kind} failed");
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    let man = generate("man");
    assert!(man.contains(".TH tg 1") && man.contains("hyperlink\\-format"), "man page: {man:.300}");
    t.write("tg.1", &man);
    if let Ok(out) =
        Command::new("man").arg("-l").arg(t.path("tg.1")).env("MANWIDTH", "80").output()
    {
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("--max-filesize"), "man -l failed");
    } else {
        eprintln!("man is not installed: the man page is checked as text only");
    }
    for (kind, shell, syntax_check) in [
        ("complete-bash", "bash", "-n"),
        ("complete-zsh", "zsh", "-n"),
        ("complete-fish", "fish", "--no-execute"),
        ("complete-powershell", "pwsh", ""),
    ] {
        let script = generate(kind);
        for flag in ["--hyperlink-format", "--no-ignore-vcs", "--sort", "--type-clear"] {
            assert!(script.contains(flag.trim_start_matches('-')), "{kind} lacks {flag}");
        }
        let file = t.path(format!("completion.{shell}"));
        std::fs::write(&file, &script).unwrap();
        if syntax_check.is_empty() {
            continue;
        }
        match Command::new(shell).arg(syntax_check).arg(&file).output() {
            Ok(out) => assert!(
                out.status.success(),
                "{shell} {syntax_check} rejects the {kind} script: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(_) => eprintln!("{shell} is not installed: {kind} is not parsed"),
        }
    }
}

/// `--stop-on-nonmatch`, and the size limits, reach the engine.
#[test]
fn stop_on_nonmatch_and_size_limits() {
    let t = tree();
    let mut r = Report::new("stop_on_nonmatch");
    r.check(&t, &c("stop", &["--stop-on-nonmatch", "foo", "run.txt"]));
    r.check(&t, &c("stop_walk", &["--stop-on-nonmatch", "-n", "foo"]));
    r.check(&t, &c("stop_then_U", &["--stop-on-nonmatch", "-U", "foo", "run.txt"]));
    r.check(&t, &c("U_then_stop", &["-U", "--stop-on-nonmatch", "foo", "run.txt"]));
    r.check(
        &t,
        &c("regex_size_limit_small", &["--regex-size-limit", "100", "fo[a-z]{50}", "a.txt"]),
    );
    r.check(&t, &c("dfa_size_limit_small", &["--dfa-size-limit", "1", "foo", "a.txt"]));
    r.finish();
}
