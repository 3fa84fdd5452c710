//! A `.gz` file with an index of its text: spans decompressed from the
//! access point before them, trusted only while [`GzIndex::is_fresh`].

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::error::Result;
use trigrep::index::gz::{GzIndex, TextReader};
use trigrep::query::Query;

use super::{BlockText, Opened, Span, error, open_file, spans_of};
use crate::filter::Pred;

/// A fresh `.gz` index and its file.
struct Gz {
    index: GzIndex,
    file: Arc<File>,
    /// Where the last read stopped: read on from there when the next span follows.
    reader: Option<TextReader>,
    path: PathBuf,
}

/// Opens `path` through its index (`None`: it has none); a stale index
/// means the file is decompressed whole.
pub fn open(path: &Path, base: &Path) -> Result<Option<Opened>> {
    let Some(index) = GzIndex::open(base, path).ok().flatten() else {
        return Ok(None);
    };
    let file = open_file(path)?;
    if !index.is_fresh(&file).map_err(|e| error(path, e))? {
        let stream = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file));
        return Ok(Some(Opened::Stream(Box::new(stream))));
    }
    let gz = Gz { index, file: Arc::new(file), reader: None, path: path.to_path_buf() };
    Ok(Some(Opened::Text(Box::new(gz))))
}

impl BlockText for Gz {
    fn kind(&self) -> &'static str {
        "gz"
    }

    fn text_len(&self) -> u64 {
        self.index.record.text.len
    }

    fn block_count(&self) -> usize {
        self.index.block_count() as usize
    }

    fn has_nul(&self) -> bool {
        self.index.record.text.has_nul
    }

    fn spans(&self, pred: Option<&Pred>) -> Result<Vec<Span>> {
        let query = pred.map_or(Query::All, |p| p.query(self.index.has_edges()));
        let blocks = self.index.candidates(&query).map_err(|e| error(&self.path, e))?;
        Ok(spans_of(blocks))
    }

    fn read(&mut self, span: &Span, buf: &mut Vec<u8>) -> Result<()> {
        buf.clear();
        buf.resize(span.len as usize, 0);
        let reader = self
            .index
            .read_text(&self.file, span.offset, buf, self.reader.take())
            .map_err(|e| error(&self.path, e))?;
        self.reader = Some(reader);
        Ok(())
    }
}
