//! The progress bar `tg index` and `tg pack` show on a terminal.

use trigrep::index::build::Progress;

/// A progress bar on stderr when it is a terminal.
pub struct Bar(Option<indicatif::ProgressBar>);

impl Bar {
    /// A bar that counts what is indexed.
    pub fn new(quiet: bool) -> Bar {
        Bar::labelled(quiet, "indexing")
    }

    /// A bar that names what it counts with `label`.
    pub fn labelled(quiet: bool, label: &str) -> Bar {
        use std::io::IsTerminal;
        if quiet || !std::io::stderr().is_terminal() {
            return Bar(None);
        }
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template(&format!(
            "{label} {{bar:40}} {{bytes}}/{{total_bytes}} ({{bytes_per_sec}}, {{eta}})"
        )) {
            bar.set_style(style);
        }
        Bar(Some(bar))
    }

    /// Clears the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

impl Progress for Bar {
    fn start(&self, bytes: u64) {
        if let Some(b) = &self.0 {
            b.set_length(bytes);
        }
    }

    fn advance(&self, bytes: u64) {
        if let Some(b) = &self.0 {
            b.inc(bytes);
        }
    }
}
