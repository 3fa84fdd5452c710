//! The blocks of an indexed `.gz` file's text, for readers that map lines
//! to offsets (`tg view`) rather than search candidates.

use super::GzIndex;
use crate::index::blocks::Block;

impl GzIndex {
    /// Every block of the text, in text order: where it starts, its
    /// length and the line number of its first line.
    pub fn blocks(&self) -> impl Iterator<Item = Block> + '_ {
        self.reader.documents().map(|d| Block {
            offset: d.offset,
            len: d.len,
            first_line: d.first_line,
        })
    }
}
