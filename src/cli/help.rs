//! What `tg` prints about itself: `-h`, `--help`, `-V`, `--version`,
//! `--pcre2-version` and `--generate`.
//!
//! The flag table ([`super::flags`]) becomes one `clap::Command`; clap
//! renders the help from it, `clap_mangen` the man page and `clap_complete`
//! the shell completions, so none of them can drift from what the parser
//! accepts. The command also holds every subcommand of
//! [`super::subcommands::SUBCOMMANDS`] (their own clap definitions), so
//! help, the man page ([`super::man`]) and completions list them all.

use std::io::Write;

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Arg, ArgAction, Command};
use clap_complete::Shell;

use trigrep::options::pcre2_builder::pcre2_version;

use super::args::{Generate, Special};
use super::flags::{self, Flag};
use super::subcommands::SUBCOMMANDS;

/// The usage lines of a search; each subcommand's follow.
const USAGE: &str = "tg [OPTIONS] PATTERN [PATH ...]
       tg [OPTIONS] -e PATTERN ... [PATH ...]
       tg [OPTIONS] -f PATTERNFILE ... [PATH ...]
       tg [OPTIONS] --files [PATH ...]
       tg [OPTIONS] --type-list
       command | tg [OPTIONS] PATTERN";

/// The last words of `--help`.
const AFTER: &str = "Flags may be repeated (the last one wins) and most have a --no-... form \
that undoes them. Arguments from the file named by RIPGREP_CONFIG_PATH (one per line, '#' \
comments) come first, unless --no-config. A subcommand's own flags: tg SUBCOMMAND --help. To \
search for a word that is a subcommand name, use -e (tg -e index).";

/// The usage lines: a search's, then one per subcommand.
fn usage() -> String {
    let mut usage = USAGE.to_string();
    for sub in SUBCOMMANDS {
        let line = (sub.command)().render_usage().to_string();
        usage.push_str("\n       ");
        usage.push_str(line.trim_start_matches("Usage:").trim());
    }
    usage
}

/// `tg`'s command line as a clap command: every flag, the positional
/// arguments and the subcommands.
pub fn command() -> Command {
    let mut cmd = Command::new("tg")
        .version(env!("CARGO_PKG_VERSION"))
        .about("trigrep: ripgrep-compatible search, faster on the second query")
        .override_usage(usage())
        .after_help(AFTER)
        .args_conflicts_with_subcommands(true)
        .disable_help_subcommand(true)
        .arg(
            Arg::new("pattern")
                .value_name("PATTERN")
                .help("A regular expression used for searching (unless -e or -f is given)."),
        )
        .arg(
            Arg::new("path")
                .value_name("PATH")
                .num_args(0..)
                .value_hint(clap::ValueHint::AnyPath)
                .help("A file or directory to search ('-' is stdin)."),
        );
    for sub in SUBCOMMANDS {
        cmd = cmd.subcommand((sub.command)().name(sub.name));
    }
    for (category, table) in flags::tables() {
        for flag in table {
            cmd = cmd.arg(arg(flag).help_heading(category.heading()));
            if let Some(neg) = flag.negated {
                let undo = Arg::new(neg)
                    .long(neg)
                    .action(ArgAction::SetTrue)
                    .help(format!("Undo --{}.", flag.long))
                    .help_heading(category.heading())
                    .hide_short_help(true);
                cmd = cmd.arg(undo);
            }
        }
    }
    cmd
}

/// One flag as a clap argument.
fn arg(flag: &Flag) -> Arg {
    let mut arg = Arg::new(flag.long).long(flag.long).help(flag.help);
    if !flag.more.is_empty() {
        arg = arg.long_help(format!("{}\n{}", flag.help, flag.more));
    }
    if let Some(c) = flag.short {
        arg = arg.short(c);
    }
    if !flag.aliases.is_empty() {
        arg = arg.visible_aliases(flag.aliases.iter().copied());
    }
    let Some(var) = flag.var else { return arg.action(ArgAction::SetTrue) };
    arg = arg.value_name(var).action(ArgAction::Append).allow_hyphen_values(true);
    if !flag.choices.is_empty() {
        let values = flag.choices.iter().map(|&(name, help)| PossibleValue::new(name).help(help));
        arg = arg.value_parser(PossibleValuesParser::new(values));
    }
    arg
}

/// Prints what a special run asks for; returns whether it succeeded.
pub fn special(which: Special) -> anyhow::Result<bool> {
    let mut cmd = command();
    let text = match which {
        Special::HelpShort => cmd.render_help().to_string(),
        Special::HelpLong => cmd.render_long_help().to_string(),
        Special::VersionShort => format!("tg {}", env!("CARGO_PKG_VERSION")),
        Special::VersionLong => format!(
            "tg {} (trigrep)\n\nflags and output of ripgrep 15.2.0\nfeatures:+pcre2\n\n{}",
            env!("CARGO_PKG_VERSION"),
            pcre2_version()
        ),
        Special::Pcre2Version => pcre2_version(),
    };
    writeln!(std::io::stdout(), "{}", text.trim_end())?;
    Ok(true)
}

/// Writes what `--generate` asks for to stdout.
pub fn generate(kind: Generate) -> anyhow::Result<()> {
    let mut cmd = command();
    let mut out = Vec::new();
    match kind {
        Generate::Man => super::man::render(cmd, &mut out)?,
        Generate::Bash => clap_complete::generate(Shell::Bash, &mut cmd, "tg", &mut out),
        Generate::Zsh => clap_complete::generate(Shell::Zsh, &mut cmd, "tg", &mut out),
        Generate::Fish => clap_complete::generate(Shell::Fish, &mut cmd, "tg", &mut out),
        Generate::PowerShell => {
            clap_complete::generate(Shell::PowerShell, &mut cmd, "tg", &mut out)
        }
    }
    let text = String::from_utf8_lossy(&out);
    writeln!(std::io::stdout(), "{}", text.trim_end())?;
    Ok(())
}
