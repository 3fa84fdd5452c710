//! Output modes, logging options and other behaviours.

use trigrep::options::OutputMode;

use super::flag::{Flag, text, unknown_choice};
use crate::cli::args::{Generate, Logging, LowMode, Special};

/// The output modes: the last one given wins (as among every mode flag).
pub const OUTPUT_MODES: &[Flag] = &[
    Flag::switch("count", "Show count of matching lines for each file.", |_, a| {
        a.mode = LowMode::Search(OutputMode::Count);
        Ok(())
    })
    .short('c')
    .more("With -o, counts every match (as --count-matches)."),
    Flag::switch("count-matches", "Show count of every match for each file.", |_, a| {
        a.mode = LowMode::Search(OutputMode::CountMatches);
        Ok(())
    })
    .more("With -v, counts lines (as -c)."),
    Flag::switch("files-with-matches", "Print the paths with at least one match.", |_, a| {
        a.mode = LowMode::Search(OutputMode::FilesWithMatches);
        Ok(())
    })
    .short('l'),
    Flag::switch("files-without-match", "Print the paths that contain zero matches.", |_, a| {
        a.mode = LowMode::Search(OutputMode::FilesWithoutMatch);
        Ok(())
    }),
    Flag::switch("json", "Show search results in a JSON Lines format.", |v, a| {
        if v.on() {
            a.mode = LowMode::Search(OutputMode::Json);
        } else if a.mode == LowMode::Search(OutputMode::Json) {
            a.mode = LowMode::Search(OutputMode::Standard);
        }
        Ok(())
    })
    .negated("no-json")
    .more(
        "Messages of type begin, match, context, end and summary, as rg prints them \
         (implies --stats). --no-json undoes only --json.",
    ),
];

/// The logging options.
pub const LOGGING: &[Flag] = &[
    Flag::switch("debug", "Show debug messages.", |_, a| {
        a.logging = Some(Logging::Debug);
        Ok(())
    })
    .more("trigrep prints one line saying where its arguments came from."),
    Flag::switch("no-ignore-messages", "Suppress gitignore parse error messages.", |v, a| {
        a.no_ignore_messages = v.on();
        Ok(())
    })
    .negated("ignore-messages"),
    Flag::switch("no-messages", "Suppress some error messages.", |v, a| {
        a.no_messages = v.on();
        Ok(())
    })
    .negated("messages")
    .more("Errors opening and reading files are not printed (the exit code still says so)."),
    Flag::switch("stats", "Print statistics about the search.", |v, a| {
        a.stats = v.on();
        Ok(())
    })
    .negated("no-stats")
    .more(
        "rg's statistics on stdout after the results; trigrep adds its own (phases, \
         bytes, read strategy, index use, memory) on stderr.",
    ),
    Flag::switch("trace", "Show trace messages.", |_, a| {
        a.logging = Some(Logging::Trace);
        Ok(())
    })
    .more("As --debug in trigrep."),
];

/// Other behaviours.
pub const OTHER: &[Flag] = &[
    Flag::switch("files", "Print each file that would be searched.", |_, a| {
        a.mode = LowMode::Files;
        Ok(())
    }),
    Flag::value("generate", "KIND", "Generate man pages and completion scripts.", |v, a| {
        let kind = match text(&v.given())? {
            "man" => Generate::Man,
            "complete-bash" => Generate::Bash,
            "complete-zsh" => Generate::Zsh,
            "complete-fish" => Generate::Fish,
            "complete-powershell" => Generate::PowerShell,
            other => return Err(unknown_choice(other)),
        };
        a.mode = LowMode::Generate(kind);
        Ok(())
    })
    .choices(&[
        ("man", "a manual page in roff"),
        ("complete-bash", "a completion script for bash"),
        ("complete-zsh", "a completion script for zsh"),
        ("complete-fish", "a completion script for fish"),
        ("complete-powershell", "a completion script for PowerShell"),
    ]),
    Flag::switch("no-config", "Never read configuration files.", |_, a| {
        a.no_config = true;
        Ok(())
    })
    .more("RIPGREP_CONFIG_PATH is not read (see docs/COMPAT.md for the config file)."),
    Flag::switch("pcre2-version", "Print the version of PCRE2 that ripgrep uses.", |_, a| {
        a.special = Some(Special::Pcre2Version);
        Ok(())
    })
    .more("trigrep has no PCRE2: it says so and exits 1."),
    Flag::switch("type-list", "Show all supported file types.", |_, a| {
        a.mode = LowMode::Types;
        Ok(())
    })
    .more("Each type and its globs, after --type-add and --type-clear."),
];
