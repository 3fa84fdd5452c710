//! A huge plain file without a block index, read by parts, so that one
//! big log spreads over partitions as a block-indexed one does. The file
//! is read once first, by the first part to get there while the others
//! wait, in 1 MiB windows ([`tail::whole`]): cut at line ends into spans
//! of about [`tail::TAIL_SPAN`], each knowing its first line's number,
//! and looked at for a NUL. A file holding a NUL, or starting with a
//! UTF-16 byte-order mark, is not cut: it is read whole, through the
//! searcher, by part 0, as `rg` reads it (where rg stops at a NUL depends
//! on its buffers). Each part then reads its share of the spans, dealt in
//! turn.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use datafusion::error::{DataFusionError, Result, SharedResult};
use trigrep::text::Block;

use crate::tail;
use crate::text::{self, Bom};

/// A plain file gets one part per this many bytes, at most one per
/// partition (as a block-indexed text's parts: `scan_units`).
pub const PART_BYTES: u64 = 64 << 20;

/// The bytes per part of a plain file: [`PART_BYTES`], or for tests
/// `TG_SQL_TEST_PART_BYTES` (then its spans are a quarter of that), so
/// that small files are read by parts of several spans.
pub fn part_bytes() -> u64 {
    test_part_bytes().unwrap_or(PART_BYTES)
}

/// `TG_SQL_TEST_PART_BYTES`, when set.
fn test_part_bytes() -> Option<u64> {
    std::env::var("TG_SQL_TEST_PART_BYTES").ok()?.parse().ok().filter(|&b| b > 0)
}

/// A plain file cut at line ends.
#[derive(Debug)]
pub struct Cut {
    /// Its spans, in file order.
    pub spans: Vec<Block>,
    /// The byte-order mark it starts with (UTF-8 or none).
    pub bom: Bom,
    /// Its length when cut.
    pub len: u64,
}

/// What cutting a file found (`None`: it is read whole), or the error
/// every part reports.
type Found = SharedResult<Option<Arc<Cut>>>;

/// The cuts of the plain files of one scan, each made once.
#[derive(Debug, Default)]
pub struct PlainCuts {
    cuts: Mutex<HashMap<PathBuf, Arc<OnceLock<Found>>>>,
}

impl PlainCuts {
    /// The cut of the plain file at `path`, made once (`None`: it holds a
    /// NUL or starts with a UTF-16 mark, and is read whole).
    pub fn get(&self, path: &Path) -> Result<Option<Arc<Cut>>> {
        let cell = {
            let mut cuts = self.cuts.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(cuts.entry(path.to_path_buf()).or_default())
        };
        let found = cell.get_or_init(|| {
            cut(path).map(|c| c.map(Arc::new)).map_err(|e| Arc::new(text::error(path, e)))
        });
        found.clone().map_err(DataFusionError::Shared)
    }
}

/// Reads `file` from `at` into `buf` (filled).
pub fn read_at(file: &mut File, at: u64, buf: &mut [u8]) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(buf)
}

/// Cuts the file at `path` (see the module's comment).
fn cut(path: &Path) -> std::io::Result<Option<Cut>> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut head = vec![0; len.min(3) as usize];
    read_at(&mut file, 0, &mut head)?;
    let bom = Bom::in_head(&head);
    if bom == Bom::Utf16 {
        return Ok(None);
    }
    let file = std::cell::RefCell::new(file);
    let span = test_part_bytes().map_or(tail::TAIL_SPAN, |b| (b / 4).max(1));
    let whole = tail::whole(&|at, buf| read_at(&mut file.borrow_mut(), at, buf), len, span)?;
    Ok((!whole.has_nul).then_some(Cut { spans: whole.spans, bom, len }))
}
