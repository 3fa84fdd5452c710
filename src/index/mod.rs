//! The trigram index engine shared by tree indexes, huge-file blocks and the server.
//!
//! A *document* is a byte range of a file: a small file is one document, a
//! huge file is many. [`trigram`] defines the unit, [`query`] the boolean
//! tree the [`planner`] builds from a regex.

pub mod error;
pub mod extract;
pub mod format;
pub mod location;
pub mod planner;
pub mod postings;
pub mod query;
pub mod reader;
pub mod sort;
pub mod storage;
pub mod table;
pub mod trigram;
pub mod writer;
