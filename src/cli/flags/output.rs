//! Output options: how results look.

use std::path::PathBuf;

use anyhow::Context;
use trigrep::options::{BufferMode, Sort, SortBy};

use super::flag::{Flag, Value, separator, string, text, u64, unknown_choice, usize};
use crate::cli::args::{ColorWhen, ContextMode, LowArgs};

/// The values of `--sort` and `--sortr`.
const SORT_CHOICES: &[(&str, &str)] = &[
    ("none", "do not sort (the default; searches in parallel)"),
    ("path", "by file path (one thread; each directory's entries sorted as walked)"),
    ("modified", "by last modification time (one thread)"),
    ("accessed", "by last access time (one thread)"),
    ("created", "by creation time (one thread)"),
];

/// `--sort` (`reverse`: `--sortr`).
fn sort(v: Value, a: &mut LowArgs, reverse: bool) -> anyhow::Result<()> {
    let by = match text(&v.given())? {
        "none" => {
            a.sort = None;
            return Ok(());
        }
        "path" => SortBy::Path,
        "modified" => SortBy::Modified,
        "accessed" => SortBy::Accessed,
        "created" => SortBy::Created,
        other => return Err(unknown_choice(other)),
    };
    a.sort = Some(Sort { by, reverse });
    Ok(())
}

/// `--line-buffered` and `--block-buffered` (`mode` when on).
fn buffer(v: Value, a: &mut LowArgs, mode: BufferMode) -> anyhow::Result<()> {
    a.buffer = if v.on() { mode } else { BufferMode::Auto };
    Ok(())
}

/// The output options, in help order.
pub const FLAGS: &[Flag] = &[
    Flag::value("after-context", "NUM", "Show NUM lines after each match.", |v, a| {
        a.context.set_after(usize(&v.given())?);
        Ok(())
    })
    .short('A')
    .more("Overrides --passthru; -C never overrides -A."),
    Flag::value("before-context", "NUM", "Show NUM lines before each match.", |v, a| {
        a.context.set_before(usize(&v.given())?);
        Ok(())
    })
    .short('B')
    .more("Overrides --passthru; -C never overrides -B."),
    Flag::switch("block-buffered", "Force block buffering.", |v, a| {
        buffer(v, a, BufferMode::Block)
    })
    .negated("no-block-buffered"),
    Flag::switch("byte-offset", "Print the byte offset for each matching line.", |v, a| {
        a.byte_offset = v.on();
        Ok(())
    })
    .short('b')
    .negated("no-byte-offset"),
    Flag::value("color", "WHEN", "When to use color.", |v, a| {
        a.color = match text(&v.given())? {
            "never" => ColorWhen::Never,
            "auto" => ColorWhen::Auto,
            "always" => ColorWhen::Always,
            "ansi" => ColorWhen::Ansi,
            other => return Err(unknown_choice(other)),
        };
        Ok(())
    })
    .choices(&[
        ("never", "never color"),
        ("auto", "color when stdout is a terminal (the default)"),
        ("always", "always color"),
        ("ansi", "always color, with ANSI escapes"),
    ]),
    Flag::value("colors", "COLOR_SPEC", "Configure color settings and styles.", |v, a| {
        a.colors.push(text(&v.given())?.parse()?);
        Ok(())
    })
    .more(
        "'{type}:{attribute}:{value}': type is path, line, column, match or highlight; \
         attribute is fg, bg or style; values are colors (red, 0-255, 0x0,0x0,0x0) or \
         styles (bold, nobold, intense, nointense, underline, nounderline, italic, \
         noitalic). '{type}:none' clears a type. May be given many times.",
    ),
    Flag::switch("column", "Show column numbers.", |v, a| {
        a.column = Some(v.on());
        Ok(())
    })
    .negated("no-column"),
    Flag::value("context", "NUM", "Show NUM lines before and after each match.", |v, a| {
        a.context.set_both(usize(&v.given())?);
        Ok(())
    })
    .short('C'),
    Flag::value(
        "context-separator",
        "SEPARATOR",
        "Set the separator for contextual chunks.",
        |v, a| {
            a.context_separator = match v {
                Value::Switch(_) => None,
                Value::Given(v) => Some(separator(&v)?),
            };
            Ok(())
        },
    )
    .negated("no-context-separator")
    .more("Default '--'; escapes such as \\x7F or \\t work."),
    Flag::value(
        "field-context-separator",
        "SEPARATOR",
        "Set the field context separator.",
        |v, a| {
            a.field_context_separator = separator(&v.given())?;
            Ok(())
        },
    )
    .more("Between the fields (path, line number, ...) of context lines; default '-'."),
    Flag::value("field-match-separator", "SEPARATOR", "Set the field match separator.", |v, a| {
        a.field_match_separator = separator(&v.given())?;
        Ok(())
    })
    .more("Between the fields (path, line number, ...) of matching lines; default ':'."),
    Flag::switch("heading", "Print matches grouped by each file.", |v, a| {
        a.heading = Some(v.on());
        Ok(())
    })
    .negated("no-heading"),
    Flag::value(
        "hostname-bin",
        "COMMAND",
        "Run a program to get this system's hostname.",
        |v, a| {
            let path = PathBuf::from(v.given());
            a.hostname_bin = (!path.as_os_str().is_empty()).then_some(path);
            Ok(())
        },
    )
    .more("Its trimmed stdout is {host} in --hyperlink-format."),
    Flag::value("hyperlink-format", "FORMAT", "Set the format of hyperlinks.", |v, a| {
        a.hyperlink_format = text(&v.given())?.parse().context("invalid hyperlink format")?;
        Ok(())
    })
    .more(
        "An alias (default, none, file, grep+, kitty, macvim, textmate, vscode, \
         vscode-insiders, vscodium) or a format with {path}, {line}, {column}, {host} \
         and {wslprefix}, e.g. 'file://{host}{path}'. Empty: no hyperlinks.",
    ),
    Flag::switch("include-zero", "Include zero matches in summary output.", |v, a| {
        a.include_zero = v.on();
        Ok(())
    })
    .negated("no-include-zero"),
    Flag::switch("line-buffered", "Force line buffering.", |v, a| buffer(v, a, BufferMode::Line))
        .negated("no-line-buffered"),
    Flag::switch("line-number", "Show line numbers.", |_, a| {
        a.line_number = Some(true);
        Ok(())
    })
    .short('n'),
    Flag::switch("no-line-number", "Suppress line numbers.", |_, a| {
        a.line_number = Some(false);
        Ok(())
    })
    .short('N'),
    Flag::value("max-columns", "NUM", "Omit lines longer than this limit.", |v, a| {
        let n = u64(&v.given())?;
        a.max_columns = (n > 0).then_some(n);
        Ok(())
    })
    .short('M'),
    Flag::switch("max-columns-preview", "Show preview for lines exceeding the limit.", |v, a| {
        a.max_columns_preview = v.on();
        Ok(())
    })
    .negated("no-max-columns-preview"),
    Flag::switch("null", "Print a NUL byte after file paths.", |_, a| {
        a.null = true;
        Ok(())
    })
    .short('0'),
    Flag::switch("only-matching", "Print only matched parts of a line.", |_, a| {
        a.only_matching = true;
        Ok(())
    })
    .short('o'),
    Flag::value(
        "path-separator",
        "SEPARATOR",
        "Set the path separator for printing paths.",
        |v, a| {
            let s = string(v.given())?;
            let raw = grep_cli::unescape(&s);
            a.path_separator = match raw.len() {
                0 => None,
                1 => Some(raw[0]),
                n => anyhow::bail!(
                    "A path separator must be exactly one byte, but the given separator is {n} \
                 bytes: {s}\nIn some shells on Windows '/' is automatically expanded. Use \
                 '//' instead."
                ),
            };
            Ok(())
        },
    ),
    Flag::switch("passthru", "Print both matching and non-matching lines.", |_, a| {
        a.context = ContextMode::Passthru;
        Ok(())
    })
    .aliases(&["passthrough"]),
    Flag::switch("pretty", "Alias for colors, headings and line numbers.", |_, a| {
        a.color = ColorWhen::Always;
        a.heading = Some(true);
        a.line_number = Some(true);
        Ok(())
    })
    .short('p')
    .more("--color always --heading --line-number."),
    Flag::switch("quiet", "Do not print anything to stdout.", |_, a| {
        a.quiet = true;
        Ok(())
    })
    .short('q'),
    Flag::value("replace", "REPLACEMENT", "Replace matches with the given text.", |v, a| {
        a.replace = Some(string(v.given())?);
        Ok(())
    })
    .short('r')
    .more("$1, $name or ${name} insert capture groups; $$ is a literal $."),
    Flag::value("sort", "SORTBY", "Sort results in ascending order.", |v, a| sort(v, a, false))
        .choices(SORT_CHOICES),
    Flag::value("sortr", "SORTBY", "Sort results in descending order.", |v, a| sort(v, a, true))
        .choices(SORT_CHOICES),
    Flag::switch("trim", "Trim prefix whitespace from matches.", |v, a| {
        a.trim = v.on();
        Ok(())
    })
    .negated("no-trim"),
    Flag::switch("vimgrep", "Print results in a vim compatible format.", |_, a| {
        a.vimgrep = true;
        Ok(())
    }),
    Flag::switch("with-filename", "Print the file path with each matching line.", |_, a| {
        a.with_filename = Some(true);
        Ok(())
    })
    .short('H'),
    Flag::switch("no-filename", "Never print the path with each matching line.", |_, a| {
        a.with_filename = Some(false);
        Ok(())
    })
    .short('I'),
    Flag::switch("sort-files", "(DEPRECATED) Sort results by file path.", |v, a| {
        a.sort = v.on().then_some(Sort { by: SortBy::Path, reverse: false });
        Ok(())
    })
    .negated("no-sort-files")
    .more("Same as --sort path."),
];
