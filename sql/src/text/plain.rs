//! A huge file with a block index: read by `pread`, trusted only while
//! [`BlockIndex::freshness`] says it is fresh or grown.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use datafusion::error::Result;
use trigrep::index::blocks::{BlockIndex, Freshness};
use trigrep::query::Query;

use super::{BlockText, Opened, Span, error, open_file, spans_of};
use crate::filter::Pred;

/// Files smaller than this are read whole without looking for a block
/// index (what one would spare is less than the look-up).
pub const MIN_SIZE: u64 = 1 << 20;

/// Whether `path` has a block index under `base` (fresh or not).
pub fn has_index(path: &Path, base: &Path) -> bool {
    matches!(BlockIndex::open(base, path), Ok(Some(_)))
}

/// A fresh (or grown) huge file and its block index.
struct Plain {
    index: BlockIndex,
    file: File,
    /// The file's length when opened (past the index's: grown).
    len: u64,
    path: std::path::PathBuf,
}

/// Opens `path` through its block index, or whole when it has none or a
/// stale one.
pub fn open(path: &Path, base: &Path) -> Result<Opened> {
    let Some(index) = BlockIndex::open(base, path).ok().flatten() else {
        return Ok(Opened::Whole);
    };
    let file = open_file(path)?;
    let len = file.metadata().map_err(|e| error(path, e))?.len();
    match index.freshness(&file).map_err(|e| error(path, e))? {
        Freshness::Stale => Ok(Opened::Whole),
        Freshness::Fresh | Freshness::Grown => {
            Ok(Opened::Text(Box::new(Plain { index, file, len, path: path.to_path_buf() })))
        }
    }
}

impl BlockText for Plain {
    fn kind(&self) -> &'static str {
        "blocks"
    }

    fn text_len(&self) -> u64 {
        self.len
    }

    fn block_count(&self) -> usize {
        self.index.block_count() as usize
    }

    fn has_nul(&self) -> bool {
        self.index.source.text.has_nul
    }

    fn spans(&self, pred: Option<&Pred>) -> Result<Vec<Span>> {
        let query = pred.map_or(Query::All, |p| p.query(self.index.has_edges()));
        let blocks = self.index.candidates(&query, 0).map_err(|e| error(&self.path, e))?;
        let mut spans = spans_of(blocks);
        if self.len > self.index.source.text.len {
            // Grown: the last indexed block is read again with the new
            // tail, since the tail may continue its last line.
            let last = self.index.last_block().unwrap_or(trigrep::index::blocks::Block {
                offset: 0,
                len: 0,
                first_line: 1,
            });
            spans.retain(|s| s.offset != last.offset);
            spans.push(Span {
                offset: last.offset,
                len: self.len - last.offset,
                first_line: last.first_line,
            });
        }
        Ok(spans)
    }

    fn read(&mut self, span: &Span, buf: &mut Vec<u8>) -> Result<()> {
        buf.clear();
        buf.resize(span.len as usize, 0);
        self.file.read_exact_at(buf, span.offset).map_err(|e| error(&self.path, e))
    }
}
