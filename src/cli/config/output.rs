//! Resolving how results look: [`PrintOptions`].

use anyhow::bail;
use grep_printer::{ColorSpecs, UserColorSpec};
use trigrep::options::{Mode, OutputMode, PrintOptions};

use super::Env;
use crate::cli::args::{ColorWhen, SearchArgs};

/// Lines of context before and after each match (`-B`, `-A`, `-C`;
/// `--passthru` needs none).
pub(super) fn context(args: &SearchArgs) -> (usize, usize) {
    let both = if args.passthru { 0 } else { args.context.unwrap_or(0) };
    (args.before_context.unwrap_or(both), args.after_context.unwrap_or(both))
}

/// Resolves the printer's settings; `one_file`: exactly one file (or
/// stdin) is searched.
pub(super) fn print_options(
    args: &SearchArgs,
    mode: Mode,
    env: Env,
    one_file: bool,
) -> anyhow::Result<PrintOptions> {
    let color = match args.color {
        ColorWhen::Auto if env.stdout_tty => termcolor::ColorChoice::Auto,
        ColorWhen::Auto | ColorWhen::Never => termcolor::ColorChoice::Never,
        ColorWhen::Always => termcolor::ColorChoice::Always,
        ColorWhen::Ansi => termcolor::ColorChoice::AlwaysAnsi,
    };
    let column = if args.column {
        true
    } else if args.no_column {
        false
    } else {
        args.vimgrep
    };
    let heading = if args.heading {
        !args.vimgrep
    } else if args.no_heading {
        false
    } else {
        !args.vimgrep && env.stdout_tty
    };
    let with_filename = if args.with_filename {
        true
    } else if args.no_filename {
        false
    } else {
        args.vimgrep || !one_file
    };
    let context_separator =
        (!args.no_context_separator).then(|| grep_cli::unescape(&args.context_separator));
    let (before, after) = context(args);
    let file_separator = match mode {
        Mode::Search(OutputMode::Standard) if heading => Some(Vec::new()),
        Mode::Search(OutputMode::Standard) if before > 0 || after > 0 => context_separator.clone(),
        _ => None,
    };
    let mut specs = grep_printer::default_color_specs();
    for c in &args.colors {
        specs.push(c.parse::<UserColorSpec>().map_err(|e| anyhow::anyhow!("{e}"))?);
    }
    Ok(PrintOptions {
        color,
        color_specs: ColorSpecs::new(&specs),
        heading,
        with_filename,
        column,
        byte_offset: args.byte_offset,
        only_matching: args.only_matching,
        per_match: args.vimgrep,
        replacement: args.replace.as_deref().map(grep_cli::unescape),
        trim: args.trim,
        max_columns: args.max_columns.filter(|&n| n > 0),
        max_columns_preview: args.max_columns_preview,
        path_terminator: args.null.then_some(0),
        path_separator: path_separator(args.path_separator.as_deref())?,
        context_separator,
        file_separator,
        include_zero: args.include_zero,
        quiet: args.quiet,
        stats: args.stats || mode == Mode::Search(OutputMode::Json),
    })
}

/// `--path-separator`: exactly one byte (escapes allowed), or empty for the default.
fn path_separator(given: Option<&str>) -> anyhow::Result<Option<u8>> {
    let Some(s) = given else { return Ok(None) };
    let bytes = grep_cli::unescape(s);
    match bytes.len() {
        0 => Ok(None),
        1 => Ok(Some(bytes[0])),
        n => bail!(
            "A path separator must be exactly one byte, but the given separator is {n} bytes: {s}"
        ),
    }
}
