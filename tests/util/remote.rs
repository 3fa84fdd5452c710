//! What the remote tests run and compare: `tg` with a store's settings,
//! `rg` on the local copy, their outputs with names mapped, `--stats`
//! values.

use std::process::Output;

use super::Tree;

/// `tg ARGS` in `tree`'s root with `env` (and nothing else but `PATH`,
/// `HOME`).
pub fn tg(tree: &Tree, env: &[(&str, String)], args: &[&str]) -> Output {
    let mut cmd = super::tg_command(tree, tree.root());
    cmd.envs(env.iter().map(|(k, v)| (*k, v.as_str()))).args(args);
    cmd.output().unwrap()
}

/// `rg ARGS` in `tree`'s root.
pub fn rg(tree: &Tree, args: &[&str]) -> Output {
    super::rg_command(tree, tree.root()).args(args).output().unwrap()
}

/// What differs between tg's output and rg's (`diff::remote_differs`):
/// JSON's bytes printed (names included) blanked.
pub fn differs(tg: &Output, rg: &Output, remote: &str, local: &str) -> Option<String> {
    super::diff::remote_differs(tg, rg, remote, local, r#""(bytes_printed)":\d+"#)
}

/// The value of `name: N` in tg's `--stats`.
pub fn stat(stderr: &[u8], name: &str) -> u64 {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().find_map(|l| l.trim().strip_prefix(&format!("{name}: ")));
    line.unwrap_or_else(|| panic!("no {name} in:\n{text}")).parse().unwrap()
}

/// Writes `big.log` (a generated log of 100,000 lines) in `tree` and packs
/// it as `big.log.zst` in 32 KiB frames; the packed bytes.
pub fn packed_log(tree: &Tree) -> Vec<u8> {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    tree.write("big.log", super::logs::log(&mut rng, 100_000, false));
    let out = super::tg_command(tree, tree.root())
        .args(["pack", "-q", "--frame-size", "32K", "big.log"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::read(tree.path("big.log.zst")).unwrap()
}
