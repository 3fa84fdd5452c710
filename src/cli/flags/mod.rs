//! The flag table: every flag `tg` accepts, once.
//!
//! A [`Flag`] is a name (long, short, aliases, a `--no-…` negation), a
//! value name when it takes one, its help, and an `update` that applies one
//! occurrence to [`LowArgs`] — rg's own design (`crates/core/flags/defs.rs`),
//! so that occurrences apply in command-line order and the last one wins
//! exactly where rg's does. The tables are grouped by [`Category`] as rg's
//! help is: [`input`], [`search`], [`filter`], [`output`], [`modes`] (output
//! modes, logging, other behaviours) and [`trigrep`] (tg's own flags).
//! The parser ([`super::parse`]) and the clap command behind `--help` and
//! `--generate` ([`super::help`]) both read them from [`tables`].

use std::ffi::{OsStr, OsString};

use anyhow::Context;

use super::args::LowArgs;

pub mod filter;
pub mod input;
pub mod modes;
pub mod output;
pub mod search;
pub mod trigrep;

/// How one occurrence of a flag changes the arguments.
pub type Update = fn(Value, &mut LowArgs) -> anyhow::Result<()>;

/// One occurrence's value: a switch (`true`, or `false` for the `--no-…`
/// form) or the value given.
#[derive(Debug)]
pub enum Value {
    /// A switch, on or off.
    Switch(bool),
    /// The value of a flag that takes one.
    Given(OsString),
}

impl Value {
    /// The switch's state (a flag that takes a value is never a switch).
    pub fn on(self) -> bool {
        match self {
            Value::Switch(on) => on,
            Value::Given(_) => unreachable!("a flag with a value used as a switch"),
        }
    }

    /// The value given (only the `--no-…` form of a flag that takes a value
    /// is a switch, and its update checks for it first).
    pub fn given(self) -> OsString {
        match self {
            Value::Given(v) => v,
            Value::Switch(_) => unreachable!("a switch used as a flag with a value"),
        }
    }
}

/// One flag.
#[derive(Clone, Copy, Debug)]
pub struct Flag {
    /// The long name, without dashes.
    pub long: &'static str,
    /// The one-letter name, if any.
    pub short: Option<char>,
    /// The long name of the `--no-…` form that undoes it, if any.
    pub negated: Option<&'static str>,
    /// Other long names.
    pub aliases: &'static [&'static str],
    /// The value's name in help (`None`: a switch).
    pub var: Option<&'static str>,
    /// The values accepted and what each means (for help and completion).
    pub choices: &'static [(&'static str, &'static str)],
    /// One line of help (`-h`).
    pub help: &'static str,
    /// More help for `--help` (empty: the one line says it all).
    pub more: &'static str,
    /// Applies one occurrence.
    pub update: Update,
}

impl Flag {
    /// A switch.
    pub const fn switch(long: &'static str, help: &'static str, update: Update) -> Flag {
        Flag {
            long,
            short: None,
            negated: None,
            aliases: &[],
            var: None,
            choices: &[],
            help,
            more: "",
            update,
        }
    }

    /// A flag that takes a value named `var`.
    pub const fn value(
        long: &'static str,
        var: &'static str,
        help: &'static str,
        update: Update,
    ) -> Flag {
        Flag { var: Some(var), ..Flag::switch(long, help, update) }
    }

    /// With a one-letter name.
    pub const fn short(self, c: char) -> Flag {
        Flag { short: Some(c), ..self }
    }

    /// With a `--no-…` form.
    pub const fn negated(self, name: &'static str) -> Flag {
        Flag { negated: Some(name), ..self }
    }

    /// With other long names.
    pub const fn aliases(self, names: &'static [&'static str]) -> Flag {
        Flag { aliases: names, ..self }
    }

    /// With the values it accepts.
    pub const fn choices(self, choices: &'static [(&'static str, &'static str)]) -> Flag {
        Flag { choices, ..self }
    }

    /// With more help for `--help`.
    pub const fn more(self, text: &'static str) -> Flag {
        Flag { more: text, ..self }
    }
}

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

/// The value as UTF-8 text.
pub fn text(v: &OsStr) -> anyhow::Result<&str> {
    v.to_str().context("value is not valid UTF-8")
}

/// The value as an owned UTF-8 string.
pub fn string(v: OsString) -> anyhow::Result<String> {
    v.into_string().ok().context("value is not valid UTF-8")
}

/// The value as a count.
pub fn usize(v: &OsStr) -> anyhow::Result<usize> {
    text(v)?.parse().context("value is not a valid number")
}

/// The value as a 64-bit number.
pub fn u64(v: &OsStr) -> anyhow::Result<u64> {
    text(v)?.parse().context("value is not a valid number")
}

/// The value as a size: digits and an optional `K`, `M` or `G`.
pub fn size(v: &OsStr) -> anyhow::Result<u64> {
    grep_cli::parse_human_readable_size(text(v)?).context("invalid size")
}

/// The value as a size that fits in memory.
pub fn size_usize(v: &OsStr) -> anyhow::Result<usize> {
    usize::try_from(size(v)?).ok().context("size is too big")
}

/// A separator with escapes (`\t`, `\x00`) decoded.
pub fn separator(v: &OsStr) -> anyhow::Result<Vec<u8>> {
    let Some(s) = v.to_str() else {
        anyhow::bail!(
            "separator must be valid UTF-8 (use escape sequences to provide a separator \
             that is not valid UTF-8)"
        )
    };
    Ok(grep_cli::unescape(s))
}

/// An error for a value that is not one of the choices.
pub fn unknown_choice(v: &str) -> anyhow::Error {
    anyhow::anyhow!("choice '{v}' is unrecognized")
}
