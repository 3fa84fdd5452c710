//! Stage one of flag parsing: the arguments (the config file's, then the
//! command line's) become [`LowArgs`], as rg's own parser makes them.
//!
//! Tokens come from `lexopt`, the crate rg parses with, so `-e-foo`,
//! `-m=1`, `-ni`, `--color=never`, `--` and a value that starts with a dash
//! mean exactly what they mean to rg. Each flag occurrence runs its
//! [`Flag::update`] in order. Errors are rg's, word for word: "unrecognized
//! flag --x" (with rg's similar-name suggestions), "missing value for flag
//! -m: ...", "error parsing flag -m: ...".
//!
//! Why not clap for this step: clap resolves repeated and overriding flags
//! per argument (`overrides_with`, `args_override_self`), which cannot say
//! that `-u` after `--ignore` turns ignore files off again, that `-C`
//! never beats `-A` but `--passthru` and `-A` replace each other, or that
//! `-e` and `-f` patterns keep one order; rg's semantics are "apply every
//! occurrence in order", which a table of update functions gives by
//! construction. clap still renders `--help` and generates the man page and
//! completions from the same table ([`super::help`]).

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsString;
use std::sync::OnceLock;

use anyhow::Context;

use super::args::{LowArgs, Special};
use super::flags::{self, Flag, Value};
use super::rcfile::{self, Config};

/// The parsed arguments, and what became of the config file.
#[derive(Debug)]
pub struct Parsed {
    /// The arguments.
    pub low: LowArgs,
    /// The config file.
    pub config: Config,
}

/// Parses `cli` (without the program name): the command line alone first,
/// so help, version and `--no-config` need no config file; then, unless
/// `--no-config`, the config file's arguments followed by `cli` again.
pub fn parse(cli: Vec<OsString>) -> anyhow::Result<Parsed> {
    let low = parse_low(cli.clone())?;
    if low.special.is_some() || low.no_config {
        return Ok(Parsed { low, config: Config::Skipped });
    }
    let config = rcfile::args(!low.no_messages);
    let Config::Read(_, args) = &config else { return Ok(Parsed { low, config }) };
    if args.is_empty() {
        return Ok(Parsed { low, config });
    }
    let mut low = parse_low(args.iter().cloned().chain(cli).collect())?;
    // Help and version in the config file are not special (rg never reads
    // the file when the command line asks for them).
    low.special = None;
    Ok(Parsed { low, config })
}

/// How a name found a flag.
#[derive(Clone, Copy, Debug)]
struct Found {
    flag: &'static Flag,
    /// The `--no-…` form: a switch that undoes.
    negated: bool,
}

/// Every flag name (`"--long"`, `"-s"`, aliases, negations) and its flag.
fn names() -> &'static HashMap<String, Found> {
    static NAMES: OnceLock<HashMap<String, Found>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut map = HashMap::new();
        for flag in flags::all() {
            let mut add = |name: String, negated: bool| {
                let old = map.insert(name, Found { flag, negated });
                assert!(old.is_none(), "flag {} defined twice", flag.long);
            };
            add(format!("--{}", flag.long), false);
            for alias in flag.aliases {
                add(format!("--{alias}"), false);
            }
            if let Some(c) = flag.short {
                add(format!("-{c}"), false);
            }
            if let Some(neg) = flag.negated {
                add(format!("--{neg}"), true);
            }
        }
        map
    })
}

/// Parses `args` alone (no config file).
pub fn parse_low(args: Vec<OsString>) -> anyhow::Result<LowArgs> {
    let mut low = LowArgs::default();
    parse_into(args, &mut low)?;
    Ok(low)
}

/// Applies every argument of `args` to `low`, in order.
fn parse_into(args: Vec<OsString>, low: &mut LowArgs) -> anyhow::Result<()> {
    let mut p = lexopt::Parser::from_args(args);
    while let Some(arg) = p.next().context("invalid CLI arguments")? {
        let name = match arg {
            lexopt::Arg::Value(v) => {
                low.positional.push(v);
                continue;
            }
            lexopt::Arg::Short('h') => {
                low.special = Some(Special::HelpShort);
                continue;
            }
            lexopt::Arg::Short('V') => {
                low.special = Some(Special::VersionShort);
                continue;
            }
            lexopt::Arg::Long("help") => {
                low.special = Some(Special::HelpLong);
                continue;
            }
            lexopt::Arg::Long("version") => {
                low.special = Some(Special::VersionLong);
                continue;
            }
            lexopt::Arg::Short(c) => format!("-{c}"),
            lexopt::Arg::Long(long) => format!("--{long}"),
        };
        let Some(&Found { flag, negated }) = names().get(&name) else {
            return Err(unrecognized(&name));
        };
        let value = if negated {
            Value::Switch(false)
        } else if flag.var.is_none() {
            Value::Switch(true)
        } else {
            Value::Given(p.value().with_context(|| format!("missing value for flag {name}"))?)
        };
        (flag.update)(value, low).with_context(|| format!("error parsing flag {name}"))?;
    }
    Ok(())
}

/// rg's error for an unknown flag, with the flags whose names are alike.
fn unrecognized(name: &str) -> anyhow::Error {
    let mut msg = format!("unrecognized flag {name}");
    if let Some(long) = name.strip_prefix("--") {
        let similar = similar_names(long);
        if !similar.is_empty() {
            let list: Vec<String> = similar.iter().map(|n| format!("--{n}")).collect();
            msg.push_str(&format!("\n\nsimilar flags that are available: {}", list.join(", ")));
        }
    }
    anyhow::anyhow!(msg)
}

/// Long names (with negations and aliases) alike to `given`: rg's rule, a
/// Jaccard index of at least 0.4 between the sets of 3-grams.
fn similar_names(given: &str) -> Vec<&'static str> {
    let bag = ngrams(given);
    let mut flags: Vec<&Flag> = flags::all().collect();
    flags.sort_by_key(|f| f.long);
    let mut out = Vec::new();
    for f in flags {
        let names = std::iter::once(f.long).chain(f.negated).chain(f.aliases.iter().copied());
        for name in names {
            let other = ngrams(name);
            let inter = bag.intersection(&other).count() as f64;
            let union = bag.union(&other).count() as f64;
            if inter / union >= 0.4 {
                out.push(name);
            }
        }
    }
    out
}

/// The 3-grams of a name (padded with `!` when shorter than three bytes).
fn ngrams(name: &str) -> BTreeSet<Vec<u8>> {
    let b = name.as_bytes();
    if b.len() < 3 {
        let mut padded = b.to_vec();
        padded.resize(3, b'!');
        return BTreeSet::from([padded]);
    }
    b.windows(3).map(<[u8]>::to_vec).collect()
}

#[cfg(test)]
mod tests;
