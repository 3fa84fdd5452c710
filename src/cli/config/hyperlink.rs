//! `--hyperlink-format` and `--hostname-bin`: the hyperlink configuration,
//! with `{host}` and `{wslprefix}` found as rg finds them.

use std::path::Path;
use std::process::{Command, Stdio};

use grep_printer::{HyperlinkConfig, HyperlinkEnvironment, HyperlinkFormat};

use super::env::Env;

/// The hyperlink configuration for `format`. The host comes from
/// `hostname_bin`'s trimmed output, else the system's hostname (looked up
/// only when there is a format to fill in).
pub(super) fn config(
    format: HyperlinkFormat,
    hostname_bin: Option<&Path>,
    env: &Env,
) -> HyperlinkConfig {
    let mut hyper_env = HyperlinkEnvironment::new();
    if !format.is_empty() {
        hyper_env.host(hostname(hostname_bin));
        let wsl = env.wsl_distro.as_ref().and_then(|d| d.to_str()).map(|d| format!("wsl$/{d}"));
        hyper_env.wsl_prefix(wsl);
    }
    HyperlinkConfig::new(hyper_env, format)
}

/// The host name: `bin`'s output when it runs and prints one, else the system's.
fn hostname(bin: Option<&Path>) -> Option<String> {
    bin.and_then(run_hostname_bin).or_else(|| grep_cli::hostname().ok()?.into_string().ok())
}

/// What `bin` prints, trimmed, if it runs and prints something.
fn run_hostname_bin(bin: &Path) -> Option<String> {
    let bin = grep_cli::resolve_binary(bin).ok()?;
    let mut cmd = Command::new(bin);
    cmd.stdin(Stdio::null());
    let rdr = grep_cli::CommandReader::new(&mut cmd).ok()?;
    let out = std::io::read_to_string(rdr).ok()?;
    let host = out.trim();
    (!host.is_empty()).then(|| host.to_string())
}
