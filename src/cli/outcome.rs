//! How a run of `tg` ended ([`Outcome`]), as every command reports it and
//! `main` maps it to an exit code.

/// How a run ended, before it becomes an exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Something matched and nothing failed (or `-q` found a match): exit 0.
    Matched,
    /// Nothing matched and nothing failed: exit 1.
    NoMatch,
    /// Some file or step failed: exit 2.
    Errored,
}
