//! Which regex engine compiles a search's patterns: [`Engine`]. The
//! default engine's matcher is built in [`super::builders`], PCRE2's in
//! [`super::pcre2_builder`]; the matcher a search runs, either one, is
//! `crate::matcher::PatternMatcher`.

/// The regex engine asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// Rust's regex engine (`grep-regex`), the default.
    #[default]
    Default,
    /// The default engine, else PCRE2 when the default cannot compile the
    /// patterns (look-around, backreferences: `--engine auto`).
    Auto,
    /// PCRE2 (`-P`, `--engine pcre2`).
    Pcre2,
}
