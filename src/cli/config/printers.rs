//! The printers a [`Config`] builds: standard, summary, JSON and path.

use super::{Config, SearchMode, unescape};

impl Config {
    /// Builds the standard (line) printer.
    pub fn standard_printer<W: termcolor::WriteColor>(
        &self,
        wtr: W,
        separator_search: bool,
    ) -> grep_printer::Standard<W> {
        let a = &self.args;
        let mut b = grep_printer::StandardBuilder::new();
        b.byte_offset(a.byte_offset)
            .color_specs(self.color_specs.clone())
            .column(self.column)
            .heading(self.heading)
            .max_columns(self.max_columns)
            .max_columns_preview(a.max_columns_preview)
            .only_matching(a.only_matching)
            .path(self.with_filename)
            .path_terminator(self.path_terminator)
            .per_match_one_line(true)
            .per_match(a.vimgrep)
            .replacement(a.replace.as_ref().map(|r| unescape(r)))
            .separator_context(if a.no_context_separator {
                None
            } else {
                Some(unescape(&a.context_separator))
            })
            .separator_field_context(b"-".to_vec())
            .separator_field_match(b":".to_vec())
            .separator_path(self.path_separator)
            .stats(self.stats)
            .trim_ascii(a.trim);
        if separator_search {
            b.separator_search(self.file_separator.clone());
        }
        b.build(wtr)
    }

    /// Builds the summary printer (`-c`, `-l`, ...) for `kind`.
    pub fn summary_printer<W: termcolor::WriteColor>(
        &self,
        wtr: W,
        mode: SearchMode,
    ) -> grep_printer::Summary<W> {
        use grep_printer::SummaryKind as K;
        let kind = if self.quiet {
            if mode == SearchMode::FilesWithoutMatch {
                K::QuietWithoutMatch
            } else {
                K::QuietWithMatch
            }
        } else {
            match mode {
                SearchMode::FilesWithMatches => K::PathWithMatch,
                SearchMode::FilesWithoutMatch => K::PathWithoutMatch,
                SearchMode::Count => K::Count,
                _ => K::CountMatches,
            }
        };
        grep_printer::SummaryBuilder::new()
            .color_specs(self.color_specs.clone())
            .exclude_zero(!self.args.include_zero)
            .kind(kind)
            .path(self.with_filename)
            .path_terminator(self.path_terminator)
            .separator_field(b":".to_vec())
            .separator_path(self.path_separator)
            .stats(self.stats)
            .build(wtr)
    }

    /// Builds the JSON lines printer.
    pub fn json_printer<W: std::io::Write>(&self, wtr: W) -> grep_printer::JSON<W> {
        grep_printer::JSONBuilder::new()
            .pretty(false)
            .always_begin_end(false)
            .replacement(self.args.replace.as_ref().map(|r| unescape(r)))
            .build(wtr)
    }

    /// Builds the path printer used by `--files`.
    pub fn path_printer<W: termcolor::WriteColor>(&self, wtr: W) -> grep_printer::PathPrinter<W> {
        grep_printer::PathPrinterBuilder::new()
            .color_specs(self.color_specs.clone())
            .separator(self.path_separator)
            .terminator(self.path_terminator.unwrap_or(b'\n'))
            .build(wtr)
    }
}
