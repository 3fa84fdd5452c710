//! The printers a [`SearchOptions`] builds: standard, summary, JSON and path.

use super::{OutputMode, SearchOptions};

impl SearchOptions {
    /// Builds the standard (line) printer; `separator_search` writes the
    /// file separator between files (one-thread search; in parallel the
    /// buffer writer does).
    pub fn standard_printer<W: termcolor::WriteColor>(
        &self,
        wtr: W,
        separator_search: bool,
    ) -> grep_printer::Standard<W> {
        let p = &self.print;
        let mut b = grep_printer::StandardBuilder::new();
        b.byte_offset(p.byte_offset)
            .color_specs(p.color_specs.clone())
            .column(p.column)
            .heading(p.heading)
            .hyperlink(p.hyperlink.clone())
            .max_columns(p.max_columns)
            .max_columns_preview(p.max_columns_preview)
            .only_matching(p.only_matching)
            .path(p.with_filename)
            .path_terminator(p.path_terminator)
            .per_match_one_line(true)
            .per_match(p.per_match)
            .replacement(p.replacement.clone())
            .separator_context(p.context_separator.clone())
            .separator_field_context(p.field_context_separator.clone())
            .separator_field_match(p.field_match_separator.clone())
            .separator_path(p.path_separator)
            .stats(p.stats)
            .trim_ascii(p.trim);
        if separator_search {
            b.separator_search(p.file_separator.clone());
        }
        b.build(wtr)
    }

    /// Builds the summary printer (`-c`, `-l`, ...) for `mode`.
    pub fn summary_printer<W: termcolor::WriteColor>(
        &self,
        wtr: W,
        mode: OutputMode,
    ) -> grep_printer::Summary<W> {
        use grep_printer::SummaryKind as K;
        let p = &self.print;
        let kind = if p.quiet {
            if mode == OutputMode::FilesWithoutMatch {
                K::QuietWithoutMatch
            } else {
                K::QuietWithMatch
            }
        } else {
            match mode {
                OutputMode::FilesWithMatches => K::PathWithMatch,
                OutputMode::FilesWithoutMatch => K::PathWithoutMatch,
                OutputMode::Count => K::Count,
                _ => K::CountMatches,
            }
        };
        grep_printer::SummaryBuilder::new()
            .color_specs(p.color_specs.clone())
            .exclude_zero(!p.include_zero)
            .hyperlink(p.hyperlink.clone())
            .kind(kind)
            .path(p.with_filename)
            .path_terminator(p.path_terminator)
            .separator_field(b":".to_vec())
            .separator_path(p.path_separator)
            .stats(p.stats)
            .build(wtr)
    }

    /// Builds the JSON lines printer.
    pub fn json_printer<W: std::io::Write>(&self, wtr: W) -> grep_printer::JSON<W> {
        grep_printer::JSONBuilder::new()
            .pretty(false)
            .always_begin_end(false)
            .replacement(self.print.replacement.clone())
            .build(wtr)
    }

    /// Builds the path printer used by `--files`.
    pub fn path_printer<W: termcolor::WriteColor>(&self, wtr: W) -> grep_printer::PathPrinter<W> {
        let p = &self.print;
        grep_printer::PathPrinterBuilder::new()
            .color_specs(p.color_specs.clone())
            .hyperlink(p.hyperlink.clone())
            .separator(p.path_separator)
            .terminator(p.path_terminator.unwrap_or(b'\n'))
            .build(wtr)
    }
}
