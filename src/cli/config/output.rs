//! Resolving how results look: [`PrintOptions`].

use grep_printer::ColorSpecs;
use trigrep::options::{Mode, OutputMode, PrintOptions};

use super::env::Env;
use super::hyperlink;
use crate::cli::args::{ColorWhen, LowArgs};

/// Resolves the printer's settings (taking the color specs and the
/// hyperlink format out of `low`); `one_file`: exactly one file (or stdin)
/// is searched.
pub(super) fn print_options(
    low: &mut LowArgs,
    mode: Mode,
    env: &Env,
    one_file: bool,
) -> anyhow::Result<PrintOptions> {
    let color = match low.color {
        ColorWhen::Auto if env.stdout_tty => termcolor::ColorChoice::Auto,
        ColorWhen::Auto | ColorWhen::Never => termcolor::ColorChoice::Never,
        ColorWhen::Always => termcolor::ColorChoice::Always,
        ColorWhen::Ansi => termcolor::ColorChoice::AlwaysAnsi,
    };
    let column = low.column.unwrap_or(low.vimgrep);
    let heading = match low.heading {
        None => !low.vimgrep && env.stdout_tty,
        Some(on) => on && !low.vimgrep,
    };
    let with_filename = low.with_filename.unwrap_or(low.vimgrep || !one_file);
    let (before, after) = low.context.lines();
    let file_separator = match mode {
        Mode::Search(OutputMode::Standard) if heading => Some(Vec::new()),
        Mode::Search(OutputMode::Standard) if before > 0 || after > 0 => {
            low.context_separator.clone()
        }
        _ => None,
    };
    let mut specs = grep_printer::default_color_specs();
    specs.append(&mut low.colors);
    let format = std::mem::take(&mut low.hyperlink_format);
    Ok(PrintOptions {
        color,
        color_specs: ColorSpecs::new(&specs),
        heading,
        with_filename,
        column,
        byte_offset: low.byte_offset,
        only_matching: low.only_matching,
        per_match: low.vimgrep,
        replacement: low.replace.take().map(String::into_bytes),
        trim: low.trim,
        max_columns: low.max_columns,
        max_columns_preview: low.max_columns_preview,
        path_terminator: low.null.then_some(0),
        path_separator: low.path_separator,
        context_separator: low.context_separator.clone(),
        file_separator,
        include_zero: low.include_zero,
        quiet: low.quiet,
        stats: matches!(mode, Mode::Search(_))
            && (low.stats || mode == Mode::Search(OutputMode::Json)),
        field_match_separator: std::mem::take(&mut low.field_match_separator),
        field_context_separator: std::mem::take(&mut low.field_context_separator),
        hyperlink: hyperlink::config(format, low.hostname_bin.as_deref(), env),
        buffer: low.buffer,
    })
}
