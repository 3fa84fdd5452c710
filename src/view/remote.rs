//! `tg view s3://BUCKET/KEY`: a remote object (`trigrep::remote`) opened
//! as the door says a viewer opens a file ([`Door::Viewer`]), its bytes
//! fetched by range where an index says where lines are: a packed object
//! through the block index it carries (its ends fetched, then one frame
//! per screen or jump), a plain object through its index object (`tg
//! index s3://…`: one block per screen or jump); anything else (a
//! compressed object, a plain one without an index object) is fetched
//! as a stream into a spool, as stdin is.
//!
//! Scrolling through a huge object keeps memory bounded: a reader holds
//! at most [`HOLDING`] bytes of what it fetched (the pieces used least
//! recently dropped first), and the viewer a few pieces of text
//! ([`super::ahead`]), the next one read ahead in the background.

use std::sync::Arc;

use trigrep::kind::Door;
use trigrep::remote::{self, Rules, indexed};
use trigrep::search::decode::Transform;
use trigrep::text::Opened;
use trigrep::text::packed::PackedText;

use super::text::{self, Text};

/// Bytes of what was fetched of an object a viewing session holds at
/// most: many screens' frames, and a block index's worth of them.
const HOLDING: u64 = 16 << 20;

/// Opens the one object the remote path `written` names, with index
/// objects kept under `base`.
pub fn open(written: &str, base: &std::path::Path) -> anyhow::Result<Arc<dyn Text>> {
    let failed = |e: &dyn std::fmt::Display| anyhow::anyhow!("{written}: {e}");
    let listed = match remote::list(written, Rules::default()) {
        Some(listed) => listed.map_err(|e| failed(&e))?,
        None => anyhow::bail!("{written}: not a remote path"),
    };
    let [one] = &listed[..] else {
        anyhow::bail!("{written}: names {} objects; the viewer shows one", listed.len())
    };
    anyhow::ensure!(one.explicit, "{written}: is a prefix; the viewer shows one object");
    let object = &one.object.clone().holding_at_most(HOLDING);
    let opening = Door::Viewer.opening(std::path::Path::new(written));
    let packed = match opening.packed {
        true => remote::open_packed(object, written, base).map_err(|e| failed(&e))?,
        false => None,
    };
    if let Some(packed) = packed.filter(|p| p.is_tg() || opening.seekable) {
        if packed.is_tg()
            && let Opened::Trusted(text) =
                PackedText::read_checked(&packed).map_err(|e| failed(&e))?
        {
            return Ok(text::indexed(text, "packed, fetched by range"));
        }
        return Ok(text::frames(packed));
    }
    if let Some(format) = opening.decompress {
        let body = Box::new(object.reader().map_err(|e| failed(&e))?);
        let path = std::path::Path::new(written);
        let decoded = Transform::decode(format, path, body).map_err(|e| failed(&e))?;
        return text::spool(decoded, "fetching");
    }
    if let Some(text) = indexed::open(object, written, base).map_err(|e| failed(&e))? {
        return Ok(text::indexed(text, "block index, fetched by range"));
    }
    text::spool(Box::new(object.reader().map_err(|e| failed(&e))?), "fetching")
}
