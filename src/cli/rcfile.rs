//! The config file: `RIPGREP_CONFIG_PATH`, read exactly as rg reads it.
//!
//! One argument per line (no shell quoting: `--glob=*.rs` or `-g` and
//! `*.rs` on two lines), leading and trailing whitespace trimmed, blank
//! lines and lines starting with `#` skipped. Its arguments come before the
//! command line's, so the command line wins. An unset or empty variable
//! reads nothing; a file that cannot be read is reported (unless
//! `--no-messages`) and the search goes on without it, as in rg.

use std::ffi::OsString;
use std::io::Read;
use std::path::PathBuf;

use trigrep::report;

/// The environment variable naming the config file.
pub const VAR: &str = "RIPGREP_CONFIG_PATH";

/// What became of the config file (for `--debug`).
#[derive(Debug, PartialEq, Eq)]
pub enum Config {
    /// Not looked for: `--no-config`, or a help or version run.
    Skipped,
    /// `RIPGREP_CONFIG_PATH` is not set (or empty).
    Unset,
    /// It could not be read (already reported).
    Unreadable,
    /// Read: its path and arguments.
    Read(PathBuf, Vec<OsString>),
}

/// The config file named by the environment, and its arguments (a file
/// that cannot be read is reported on stderr when `messages`).
pub fn args(messages: bool) -> Config {
    let Some(path) = std::env::var_os(VAR).filter(|p| !p.is_empty()) else {
        return Config::Unset;
    };
    let path = PathBuf::from(path);
    // rg names the file when it cannot be opened, not when reading fails.
    let read = std::fs::File::open(&path)
        .map_err(|err| format!("{}: {err}", path.display()))
        .and_then(|mut f| {
            let mut bytes = Vec::new();
            f.read_to_end(&mut bytes).map(|_| bytes).map_err(|err| err.to_string())
        });
    match read {
        Ok(bytes) => {
            let args = parse(&bytes);
            Config::Read(path, args)
        }
        Err(err) => {
            if messages {
                report::line(&format!("failed to read the file specified in {VAR}: {err}"));
            }
            Config::Unreadable
        }
    }
}

/// The line `--debug` prints about the config file, in rg's words.
pub fn debug_line(config: &Config) -> String {
    let what = match config {
        Config::Skipped => "not reading config files because --no-config is present".to_string(),
        Config::Unset => {
            format!("{VAR} environment variable is not set, therefore not reading any config file")
        }
        Config::Unreadable => format!("the file specified in {VAR} could not be read"),
        Config::Read(path, args) => {
            format!("{}: arguments loaded from config file: {args:?}", path.display())
        }
    };
    format!("DEBUG|tg::cli::rcfile|src/cli/rcfile.rs: {what}")
}

/// The arguments in a config file's contents.
pub fn parse(contents: &[u8]) -> Vec<OsString> {
    contents
        .split(|&b| b == b'\n')
        .map(trim)
        .filter(|line| !line.is_empty() && line[0] != b'#')
        .map(|line| trigrep::sys::os_string(line.to_vec()))
        .collect()
}

/// `line` without leading and trailing whitespace (Unicode's, when the line
/// is UTF-8; ASCII's otherwise).
fn trim(line: &[u8]) -> &[u8] {
    match std::str::from_utf8(line) {
        Ok(s) => s.trim().as_bytes(),
        Err(_) => line.trim_ascii(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_argument_per_line_comments_and_blanks_skipped() {
        let args = parse(b"# Test\n--context=0\n   --smart-case\r\n-u\n\n\n   # --bar\n--foo\n");
        assert_eq!(args, ["--context=0", "--smart-case", "-u", "--foo"]);
        assert_eq!(parse(b"-g\n*.rs \t\n"), ["-g", "*.rs"]);
        assert_eq!(parse(b"--glob=a b\n"), ["--glob=a b"], "no shell splitting");
    }

    #[test]
    fn invalid_utf8_is_kept_as_bytes() {
        assert_eq!(
            parse(b" -e\n\xFFfoo \n"),
            [OsString::from("-e"), trigrep::sys::os_string(b"\xFFfoo".to_vec())]
        );
    }
}
