//! trigrep: ripgrep-compatible search with a trigram index, as a library.
//!
//! This crate is the engine; the `tg` binary (`src/main.rs`, `src/cli/`)
//! only parses flags into [`options::SearchOptions`], calls
//! [`search::run`] or [`index::build::build`], and prints what they return.
//! Dependencies point one way (see `docs/ARCHITECTURE.md`):
//!
//! - [`options`], [`error`], [`report`], [`stats`], `readfull`: the shared
//!   ground;
//! - `matcher`: ripgrep's regex matcher, with candidate lines found by
//!   inner literals when the regex engine's own acceleration is weak;
//! - `worker`: one haystack searched with that matcher and ripgrep's
//!   searcher and printer;
//! - `chunk`: one huge file searched on every core;
//! - [`kind`]: the one door to a file's text: what a file is (names and
//!   magic bytes, one list) and how each front door opens it;
//! - [`query`]: what a search asks of an index (trigrams, the planner);
//! - [`index`]: the trigram index (format, build, freshness);
//! - [`pack`]: packed logs (zstd seekable frames plus a block index);
//! - [`text`]: how a text with a block index is read (a huge file, a
//!   `.gz` file's text, a packed file's text): one trait, [`text::BlockText`];
//! - [`search`]: where subjects come from ([`search::Source`]), how each
//!   is read, and the drivers that search them;
//! - [`serve`]: `tg serve`, a watched, live index, and its client;
//! - [`logline`]: what a log line says beyond its text (its time, its
//!   level): pure functions over bytes, for the viewer and `tg sql`;
//! - `remote` (feature `remote`, on by default): objects in S3 named
//!   `s3://BUCKET/KEY`, listed and read by range.
//!
//! The modules named without a link are private: the surface is what the
//! linked ones export (`tests/layout.rs` keeps the list).
#![deny(missing_docs)]

mod chunk;
pub mod error;
pub mod index;
pub mod kind;
pub mod logline;
mod matcher;
pub mod options;
pub mod pack;
pub mod query;
mod readfull;
#[cfg(feature = "remote")]
pub mod remote;
pub mod report;
pub mod search;
pub mod serve;
pub mod stats;
pub mod sys;
pub mod text;
mod worker;
