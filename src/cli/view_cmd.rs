//! `tg view`'s command line: its flags (clap), read into the viewer's
//! [`ViewArgs`], with the automatic index the search also starts.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Parser;

use super::auto_index::AutoIndex;
use super::flags::trigrep::IndexDirArg;
use crate::view::{self, ViewArgs};

/// `tg view [FILE...]`: a terminal viewer for files of any size, with the
/// keys of `less` (h shows them); searches go through the file's block
/// index when it has one.
#[derive(Debug, Parser)]
#[command(name = "tg view")]
pub struct ViewCommand {
    /// The files to view (none, or `-`: stdin; `:n` and `:p` go from one
    /// to the next). An argument `+CMD` runs CMD on opening each, as in
    /// less: `+G` (the end), `+F` (follow), `+/pattern`, `+N` (line N),
    /// `+-S` (long lines wrapped, not chopped).
    pub files: Vec<PathBuf>,
    /// Start at the first line matching PATTERN (as `+/PATTERN`).
    #[arg(short = 'p', long = "pattern", value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// When to use colours: auto, always or never (NO_COLOR also turns them off).
    #[arg(long = "color", value_name = "WHEN", default_value = "auto",
          value_parser = ["auto", "always", "never"])]
    pub color: String,
    /// Search case-insensitively, as rg's -i (toggled with -I in the
    /// viewer, as in less).
    #[arg(short = 'i', long = "ignore-case")]
    pub ignore_case: bool,
    /// Search with smart case, as rg's -S (toggled with -i in the viewer,
    /// as in less; -S typed in the viewer wraps long lines, as less's).
    #[arg(short = 'S', long = "smart-case")]
    pub smart_case: bool,
    /// `n` and `N` go round to the other end of the text instead of
    /// stopping there with "Pattern not found" (as less does).
    #[arg(long = "wrap-search")]
    pub wrap_search: bool,
    /// Start without line numbers (toggled with -N in the viewer).
    #[arg(short = 'n', long = "no-line-numbers")]
    pub no_line_numbers: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub index_base: IndexDirArg,
    /// Without a terminal: type these keys (`\n` for Enter, `{count}` to
    /// wait for the line count, `{density}` for the density bar), print
    /// each key's time to the screen and the last screen.
    #[arg(long = "replay", value_name = "KEYS", hide = true)]
    pub replay: Option<String>,
    /// The replayed screen's size, COLUMNSxROWS.
    #[arg(long = "size", value_name = "WxH", default_value = "120x40", hide = true)]
    pub size: String,
}

/// Runs `tg view` with `command`'s flags.
pub fn run(command: ViewCommand) -> anyhow::Result<()> {
    // Read before the screen is taken: a bad setting is said on stderr.
    let auto = AutoIndex::from_env();
    let base = command.index_base.base();
    let auto_base = base.clone();
    view::run_view(ViewArgs {
        files: command.files,
        pattern: command.pattern,
        color: command.color,
        ignore_case: command.ignore_case,
        smart_case: command.smart_case,
        wrap_search: command.wrap_search,
        no_line_numbers: command.no_line_numbers,
        index_base: base,
        replay: command.replay,
        size: command.size,
        auto_index: Arc::new(move |path| auto.start(&[path.to_path_buf()], &auto_base)),
    })
}
