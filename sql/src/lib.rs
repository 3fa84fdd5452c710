//! trigrep-sql: trigrep's texts as SQL tables on Apache DataFusion,
//! distributed with Ballista.
//!
//! A [`provider::LinesTable`] has one row per line of every file under its
//! paths (`path`, `line_number`, `byte_offset`, `line`, `modified`,
//! `time`, `level`, `host`), read
//! as `tg` and `rg` read them. Conditions on `line` ([`pushdown`]) become a
//! trigram plan made by trigrep's own planner, and only the files, blocks
//! and frames that can match are read (a regex planned as [`lossy`] says,
//! since the `line` column holds lines decoded lossily):
//!
//! - [`tree`] finds the files of each path as `tg` does: listed from a
//!   tree index (its candidates and the files changed since its build),
//!   else walked with `tg`'s rules; [`remote`] lists the objects of an
//!   `s3://` path; [`scan_units`] makes them [`read::Unit`]s, dealt to
//!   partitions;
//! - [`text`] opens each file's text through the engine's seam over
//!   block-indexed texts ([`trigrep::text`]: a huge file, an indexed
//!   `.gz`, a packed `.zst`), each trusted only while fresh, or whole;
//!   a table whose times go up skips blocks outside a `time` range
//!   ([`time_filter`], [`time_prune`]);
//! - [`read`] turns a unit into rows ([`span_rows`], [`rows`], [`hosts`]), in
//!   [`exec::LinesExec`]'s partitions (their units are the rows of an
//!   in-memory input, which Ballista deals to its tasks); a line's `time`,
//!   `level` and `host`, when projected, are read as `tg view` reads them
//!   ([`stamps`]; a continuation line's time carried from before its
//!   span: [`look_back`]);
//! - [`codec`] ships tables and scans through Ballista, whose scheduler
//!   and executors [`cluster`] starts; [`session`] makes an embedded or a
//!   remote session; [`printing`] prints results (columns named as
//!   written: [`headers`]; nested values as JSON: [`nested`]),
//!   [`notes`] what a query says besides them (the files that are
//!   binary), and [`errors`] says why a query failed.
//!
//! ```no_run
//! # async fn f() -> datafusion::error::Result<()> {
//! use trigrep_sql::session::{SessionOptions, context};
//! let opts = SessionOptions {
//!     base: trigrep::index::location::default_base(),
//!     pushdown: true,
//!     partitions: 2,
//!     tables: vec![],
//!     scheduler: None,
//! };
//! let ctx = context(&opts).await?;
//! let df = ctx.sql("SELECT count(*) FROM lines('/var/log') WHERE line LIKE '%panic%'").await?;
//! df.show().await?;
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

pub mod cluster;
pub mod codec;
pub mod errors;
pub mod exec;
pub mod headers;
pub mod hosts;
pub mod line_filter;
pub mod look_back;
pub mod lossy;
pub mod nested;
pub mod notes;
pub mod opened;
pub mod paths;
pub mod plain_parts;
pub mod printing;
pub mod provider;
pub mod pushdown;
pub mod read;
pub mod regex_ops;
pub mod remote;
pub mod rows;
pub mod scan_units;
pub mod serve;
pub mod session;
pub mod span_rows;
pub mod stamps;
pub mod tail;
pub mod text;
pub mod time_filter;
pub mod time_prune;
pub mod tree;
