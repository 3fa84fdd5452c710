//! `tg --generate man`: one page, `tg(1)`, holding the subcommands too.
//!
//! `clap_mangen` renders the title, synopsis, description and the flags;
//! its own subcommand section would point at `tg-index(1)` and the like,
//! pages nobody installs, so the subcommands get a section here instead:
//! each one's usage, description and flags, from the same clap commands
//! that parse them ([`super::subcommands::SUBCOMMANDS`]).

use std::io::Write;

use clap::{Arg, Command};
use roff::{Inline, Roff, bold, italic, roman};

use super::subcommands::SUBCOMMANDS;

/// Writes the man page of `cmd` (tg's whole command line) to `out`.
pub fn render(cmd: Command, out: &mut dyn Write) -> std::io::Result<()> {
    let man = clap_mangen::Man::new(cmd);
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    subcommands(out)?;
    man.render_extra_section(out)?;
    man.render_version_section(out)
}

/// The SUBCOMMANDS section: a subsection per subcommand.
fn subcommands(out: &mut dyn Write) -> std::io::Result<()> {
    let mut roff = Roff::new();
    roff.control("SH", ["SUBCOMMANDS"]);
    for sub in SUBCOMMANDS {
        let mut cmd = (sub.command)();
        let usage = cmd.render_usage().to_string();
        roff.control("SS", [usage.trim_start_matches("Usage:").trim()]);
        if let Some(about) = cmd.get_long_about().or_else(|| cmd.get_about()) {
            roff.text([roman(about.to_string())]);
        }
        for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
            roff.control("TP", []);
            roff.text(names(arg));
            let mut help = arg.get_long_help().or_else(|| arg.get_help()).map(|h| h.to_string());
            if let Some(var) = arg.get_env() {
                let var = var.to_string_lossy();
                help = Some(format!("{} [env: {var}]", help.unwrap_or_default()));
            }
            if let Some(help) = help {
                roff.text([roman(help)]);
            }
        }
    }
    roff.to_writer(out)
}

/// How an argument is written: `-o, --output=PATH`, or `DIR`.
fn names(arg: &Arg) -> Vec<Inline> {
    let value = arg.get_value_names().and_then(|v| v.first()).map(|v| v.to_string());
    let mut out = Vec::new();
    if arg.is_positional() {
        out.push(italic(value.unwrap_or_else(|| arg.get_id().to_string())));
        return out;
    }
    if let Some(short) = arg.get_short() {
        out.push(bold(format!("-{short}")));
    }
    if let Some(long) = arg.get_long() {
        if !out.is_empty() {
            out.push(roman(", "));
        }
        out.push(bold(format!("--{long}")));
    }
    if arg.get_action().takes_values() {
        out.push(roman("="));
        out.push(italic(value.unwrap_or_else(|| "VALUE".to_string())));
    }
    out
}
