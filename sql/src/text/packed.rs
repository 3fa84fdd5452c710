//! A packed `.zst` (`tg pack`): its frames are the blocks of the index it
//! carries, trusted only after [`trigrep::pack::verify::check`] found the
//! container sound.

use std::fs::File;
use std::path::{Path, PathBuf};

use datafusion::error::Result;
use trigrep::index::blocks::BlockIndex;
use trigrep::pack::read::PackedFile;
use trigrep::pack::verify;
use trigrep::query::Query;

use super::{BlockText, Opened, Span, error, open_file, spans_of};
use crate::filter::Pred;

/// A sound tg container.
struct Packed {
    packed: PackedFile,
    index: BlockIndex,
    dctx: zstd::bulk::Decompressor<'static>,
    path: PathBuf,
}

/// Whether `path` is a tg container or another tool's seekable zstd file.
pub fn is_packed(path: &Path) -> bool {
    File::open(path).is_ok_and(|f| matches!(PackedFile::open(&f), Ok(Some(_))))
}

/// Opens `path` as a packed file (`None`: it is none); another tool's
/// seekable file, which carries no index, is decompressed whole.
pub fn open(path: &Path, base: &Path) -> Result<Option<Opened>> {
    let file = open_file(path)?;
    let Some(packed) = PackedFile::open(&file).map_err(|e| error(path, e))? else {
        return Ok(None);
    };
    let Some(index) = packed.block_index() else {
        let stream = zstd::stream::read::Decoder::new(file).map_err(|e| error(path, e))?;
        return Ok(Some(Opened::Stream(Box::new(stream))));
    };
    verify::check(&packed, &file, path, base).map_err(|e| error(path, e))?;
    let index = index.map_err(|e| error(path, e))?;
    let dctx = zstd::bulk::Decompressor::new().map_err(|e| error(path, e))?;
    let packed = Packed { packed, index, dctx, path: path.to_path_buf() };
    Ok(Some(Opened::Text(Box::new(packed))))
}

impl BlockText for Packed {
    fn kind(&self) -> &'static str {
        "packed"
    }

    fn text_len(&self) -> u64 {
        self.packed.text_len()
    }

    fn block_count(&self) -> usize {
        self.packed.frames().len()
    }

    fn has_nul(&self) -> bool {
        self.packed.has_nul().unwrap_or(true)
    }

    fn spans(&self, pred: Option<&Pred>) -> Result<Vec<Span>> {
        let query = pred.map_or(Query::All, |p| p.query(self.index.has_edges()));
        let blocks = self.index.candidates(&query, 0).map_err(|e| error(&self.path, e))?;
        Ok(spans_of(blocks))
    }

    fn read(&mut self, span: &Span, buf: &mut Vec<u8>) -> Result<()> {
        let frames = self.packed.frames();
        let i = frames.partition_point(|f| f.text_offset < span.offset);
        if frames.get(i).is_none_or(|f| f.text_offset != span.offset) {
            return Err(error(&self.path, format!("no frame starts at {}", span.offset)));
        }
        self.packed.frame(i, &mut self.dctx, buf).map_err(|e| error(&self.path, e))
    }
}
