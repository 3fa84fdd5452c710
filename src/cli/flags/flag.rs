//! What a flag table is made of: [`Flag`], the [`Value`] of one
//! occurrence, and the parsers of values the tables' updates share.

use std::ffi::{OsStr, OsString};

use anyhow::Context;

use crate::cli::args::LowArgs;

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
