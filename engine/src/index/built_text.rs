//! What a build of the index of a compressed file's text made (every
//! indexed format's build returns it: `crate::text::indexed_format`).

use std::path::PathBuf;
use std::time::Duration;

use super::writer::IndexSummary;

/// What a build of a compressed file's index made.
#[derive(Clone, Debug)]
pub struct BuiltText {
    /// The index directory.
    pub dir: PathBuf,
    /// Blocks indexed.
    pub blocks: usize,
    /// Bytes of text indexed.
    pub text_bytes: u64,
    /// Places decompression can start from, recorded.
    pub points: usize,
    /// What the writer wrote.
    pub summary: IndexSummary,
    /// Wall time of the build.
    pub elapsed: Duration,
    /// Peak private memory (RssAnon) seen during the build, in bytes.
    pub peak_private: u64,
}
