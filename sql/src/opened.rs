//! The block-indexed texts one scan reads, opened once and shared by its
//! partitions: the parts of a text each read their share of the same
//! candidate spans, and opening the text (its index checked, its
//! byte-order mark read, its candidates found) is done by the first part
//! to get there, while the others wait for it. A scan on a Ballista
//! executor shares with the other partitions of its task only.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use datafusion::error::{DataFusionError, Result, SharedResult};
use trigrep::text::{Block, BlockText};

use crate::filter::Pred;
use crate::remote::{self, Object};
use crate::tail;
use crate::text::{self, Bom, Compression, Opened};

/// A text read by its candidate spans.
pub struct Prepared {
    /// The text.
    pub text: Box<dyn BlockText>,
    /// The byte-order mark it starts with (UTF-8 or none).
    pub bom: Bom,
    /// Its candidate spans, in text order.
    pub spans: Vec<Block>,
}

/// What opening a text found: `None` when it is not read by spans (no
/// trusted index, a NUL, a UTF-16 mark), so it is read whole, by part 0;
/// or the error every part reports.
type Found = SharedResult<Option<Arc<Prepared>>>;

/// The texts of one scan, each opened once.
#[derive(Default)]
pub struct OpenTexts {
    texts: Mutex<HashMap<PathBuf, Arc<OnceLock<Found>>>>,
}

impl fmt::Debug for OpenTexts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let texts = self.texts.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_set().entries(texts.keys()).finish()
    }
}

impl OpenTexts {
    /// The text at `path` (the remote `object` when given, read with
    /// `compression`), opened and its candidates for `pred` found once:
    /// `None` when it is read whole, not by spans.
    pub fn get(
        &self,
        (path, object): (&Path, Option<&Object>),
        base: &Path,
        compression: Compression,
        pred: Option<&Pred>,
    ) -> Result<Option<Arc<Prepared>>> {
        let cell = {
            let mut texts = self.texts.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(texts.entry(path.to_path_buf()).or_default())
        };
        let found = cell.get_or_init(|| {
            let opened = remote::open_indexed(object, path, base, compression);
            prepare(path, opened, pred).map(|p| p.map(Arc::new)).map_err(Arc::new)
        });
        found.clone().map_err(DataFusionError::Shared)
    }
}

/// Finds what of the text at `path`, as `opened`, can satisfy `pred`.
fn prepare(path: &Path, opened: Result<Opened>, pred: Option<&Pred>) -> Result<Option<Prepared>> {
    let Opened::Text(text) = opened? else { return Ok(None) };
    let bom = Bom::of(&*text).map_err(|e| text::error(path, e))?;
    // rg stops reading at a NUL, where its buffers happen to find one, and
    // transcodes a UTF-16 text: such a text is read whole, as rg reads it.
    if bom == Bom::Utf16 || text.covered().has_nul {
        return Ok(None);
    }
    let tail = tail::grown_tail(&*text).map_err(|e| text::error(path, e))?;
    if tail.has_nul {
        return Ok(None);
    }
    let spans = text::spans(&*text, pred, tail.spans)?;
    Ok(Some(Prepared { text, bom, spans }))
}
