//! The flag table: every flag `tg` accepts, once.
//!
//! A [`Flag`] is a name (long, short, aliases, a `--no-…` negation), a
//! value name when it takes one, its help, and an `update` that applies one
//! occurrence to [`LowArgs`](super::args::LowArgs) — rg's own design (`crates/core/flags/defs.rs`),
//! so that occurrences apply in command-line order and the last one wins
//! exactly where rg's does. The tables are grouped by [`Category`] as rg's
//! help is: [`input`], [`search`], [`filter`], [`output`], [`modes`] (output
//! modes, logging, other behaviours) and [`trigrep`] (tg's own flags).
//! The parser ([`super::parse`]) and the clap command behind `--help` and
//! `--generate` ([`super::help`]) both read them from [`tables`]. What a
//! table is made of — [`Flag`], [`Value`] and the value parsers — lives in
//! `flag.rs`, which the tables import (none imports this file).

pub mod filter;
mod flag;
pub mod input;
pub mod modes;
pub mod output;
pub mod search;
pub mod trigrep;

pub use flag::{Flag, Value};

/// A heading of the help, as rg groups its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    /// Where patterns and haystacks come from.
    Input,
    /// How patterns match.
    Search,
    /// Which files are searched.
    Filter,
    /// How results look.
    Output,
    /// What kind of results (`-c`, `-l`, `--json`, ...).
    OutputModes,
    /// Messages and statistics.
    Logging,
    /// Everything else (`--files`, `--generate`, ...).
    Other,
    /// trigrep's own flags (index, huge files).
    Trigrep,
}

impl Category {
    /// The heading printed in help.
    pub fn heading(self) -> &'static str {
        match self {
            Category::Input => "Input options",
            Category::Search => "Search options",
            Category::Filter => "Filter options",
            Category::Output => "Output options",
            Category::OutputModes => "Output modes",
            Category::Logging => "Logging options",
            Category::Other => "Other behaviors",
            Category::Trigrep => "trigrep options",
        }
    }
}

/// Every flag, by category, in help order.
pub fn tables() -> [(Category, &'static [Flag]); 8] {
    [
        (Category::Input, input::FLAGS),
        (Category::Search, search::FLAGS),
        (Category::Filter, filter::FLAGS),
        (Category::Output, output::FLAGS),
        (Category::OutputModes, modes::OUTPUT_MODES),
        (Category::Logging, modes::LOGGING),
        (Category::Other, modes::OTHER),
        (Category::Trigrep, trigrep::FLAGS),
    ]
}

/// Every flag.
pub fn all() -> impl Iterator<Item = &'static Flag> {
    tables().into_iter().flat_map(|(_, flags)| flags.iter())
}
