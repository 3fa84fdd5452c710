//! trigrep: ripgrep-compatible search with a trigram index.
//!
//! The binary `tg` lives in `src/main.rs`; everything it does is here.
//! See `docs/ARCHITECTURE.md` for a tour.
#![deny(missing_docs)]

pub mod index;
