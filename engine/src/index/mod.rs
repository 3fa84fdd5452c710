//! The trigram index engine shared by tree indexes, huge-file blocks and the server.
//!
//! A *document* is a byte range of a file: a small file is one document, a
//! huge file is many. What a search asks of an index (trigrams, the
//! boolean query, its planning) is [`crate::query`]; this module stores
//! and answers it. [`mod@format`], [`table`],
//! [`postings`], [`sort`], [`writer`], [`reader`] and [`storage`] are the
//! on-disk index (docs/INDEX-FORMAT.md); [`location`] says where a tree's
//! index lives. For trees: [`build`] makes the index, [`recorded`] holds what
//! build and [`fresh`] share, and [`fresh`] decides which files a query must
//! read so that no answer is stale.

pub mod blocks;
pub mod build;
pub mod built_text;
pub(crate) mod encoding;
pub mod error;
pub mod extract;
pub mod format;
pub mod fresh;
pub mod gz;
pub mod integrity;
pub(crate) mod kept_lists;
pub mod location;
pub mod lock;
pub(crate) mod merged_lists;
pub(crate) mod posting_encoder;
pub mod postings;
pub mod prune;
pub mod reader;
pub use encoding::TextShape;
pub mod recorded;
pub mod sort;
pub(crate) mod spool;
pub mod storage;
pub mod style;
pub mod table;
pub(crate) mod temp;
pub(crate) mod trigram_dir;
pub mod trust;
pub mod writer;
