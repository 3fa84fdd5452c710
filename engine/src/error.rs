//! The engine's error type: what can stop a search before it starts or
//! while it runs (a per-file error is reported and the search goes on; see
//! [`crate::report`]).

use std::io;

/// Why a search could not be set up or carried out.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A pattern is not a valid regex (the message shows where).
    #[error("{0}")]
    Pattern(String),
    /// A glob, file type or ignore rule given for the walk is invalid.
    #[error(transparent)]
    Walk(#[from] ignore::Error),
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// The engine's result type.
pub type Result<T> = std::result::Result<T, Error>;
