//! The block-indexed texts one scan reads, opened once and shared by its
//! partitions: the parts of a text each read their share of the same
//! candidate spans, and opening the text (its index checked, its
//! byte-order mark read, its candidates found) is done by the first part
//! to get there, while the others wait for it. A scan on a Ballista
//! executor shares with the other partitions of its task only. Under a
//! `time` condition only the spans that can hold a time in its range are
//! kept ([`crate::time_prune`]: by the times the index recorded per
//! block, or, for an older index of a table whose times go up
//! (`'times=ascending'`), by bisecting).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use datafusion::error::{DataFusionError, Result, SharedResult};
use trigrep::text::{Block, BlockText};

use crate::plain_parts::PlainCuts;
use crate::pushdown::Pred;
use crate::remote::{self, Object};
use crate::rows::FileInfo;
use crate::stamps::format_of;
use crate::text::{self, Bom, Compression, Opened};
use crate::time_filter::TimeCut;
use crate::{tail, time_prune};
use trigrep::logline::time::SAMPLE;

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
    /// The huge plain files without an index, cut once.
    pub plain: PlainCuts,
}

impl fmt::Debug for OpenTexts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let texts = self.texts.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_set().entries(texts.keys()).finish()
    }
}

impl OpenTexts {
    /// The text at `path` (the remote `object` when given, read with
    /// `compression`), opened and its candidates for `pred` and `times`
    /// found once: `None` when it is read whole, not by spans.
    pub fn get(
        &self,
        (path, object): (&Path, Option<&Object>),
        base: &Path,
        compression: Compression,
        (pred, times): (Option<&Pred>, Option<TimeCut>),
    ) -> Result<Option<Arc<Prepared>>> {
        let cell = {
            let mut texts = self.texts.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(texts.entry(path.to_path_buf()).or_default())
        };
        let found = cell.get_or_init(|| {
            let opened = remote::open_indexed(object, path, base, compression);
            prepare(path, opened, (pred, times)).map(|p| p.map(Arc::new)).map_err(Arc::new)
        });
        found.clone().map_err(DataFusionError::Shared)
    }
}

/// Finds what of the text at `path`, as `opened`, can satisfy `pred` and
/// `times`.
fn prepare(
    path: &Path,
    opened: Result<Opened>,
    (pred, times): (Option<&Pred>, Option<TimeCut>),
) -> Result<Option<Prepared>> {
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
    let mut spans = text::spans(&*text, pred, tail.spans.clone())?;
    if let Some(TimeCut { range, ascending }) = times {
        let file = FileInfo::of(path, std::fs::metadata(path).ok().as_ref());
        let head = text.head(SAMPLE).map_err(|e| text::error(path, e))?;
        if let Some(format) = format_of(&head, file.modified_ms()) {
            // Ranges read in another format (a syslog year taken from
            // another modification time) say nothing of these rows.
            let recorded = text.index().times().filter(|t| t.format == format);
            let tail_from = tail.spans.first().map(|s| s.offset);
            if let Some(recorded) = recorded {
                spans = time_prune::by_ranges(&text.blocks(), &recorded, spans, tail_from, range);
            } else if ascending {
                let blocks = text::spans(&*text, None, tail.spans)?;
                let start = bom.dropped();
                spans = time_prune::by_time(&*text, format, start, &blocks, spans, range)
                    .map_err(|e| text::error(path, e))?;
            }
        }
    }
    Ok(Some(Prepared { text, bom, spans }))
}
