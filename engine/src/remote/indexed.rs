//! A remote object's own bytes read through its block index: the index
//! object beside it (`tg index s3://BUCKET/KEY` writes `KEY.tgidx`,
//! [`build`]), which a reader on any machine fetches once and keeps under
//! its index directory, keyed by the object's ETag and size ([`open`]):
//! an object replaced since is another ETag, so it is never answered from
//! the old object's index (neither the kept copy nor the index object,
//! which names the ETag it was built from, is used for it).
//!
//! Then the text is a [`BlockText`] like a local file's ([`RemoteText`]):
//! its candidate blocks are fetched by range, neighbours joined, several
//! requests in flight (`Fetched`).

use std::borrow::Cow;
use std::io;
use std::ops::Range;
use std::path::Path;

use super::client::RemoteError;
use super::fetched::Fetched;
use super::kept;
use super::object::RemoteObject;
use super::sibling::{self, IndexObject};
use crate::index::blocks::{BlockIndex, Text, cut, index_text};
use crate::index::build::Progress;
use crate::index::reader::IndexReader;
use crate::kind::index_object_name;
use crate::pack::Store;
use crate::text::{BlockText, TextIndex};

/// A remote object's bytes through its block index.
pub struct RemoteText {
    index: BlockIndex,
    fetched: Fetched,
}

impl RemoteText {
    /// Fetches `ranges` of the text now, together (see [`Store::want`]).
    pub fn want(&self, ranges: &[Range<u64>]) -> io::Result<()> {
        self.fetched.want(ranges)
    }

    /// The bytes of `range`, fetched unless held.
    pub fn bytes(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        self.fetched.bytes(range)
    }
}

impl BlockText for RemoteText {
    fn kind(&self) -> &'static str {
        "remote block index"
    }

    fn len(&self) -> u64 {
        self.fetched.len()
    }

    fn index(&self) -> &dyn TextIndex {
        &self.index
    }

    /// The blocks a read covers are fetched whole (those not held yet,
    /// neighbours in one request), so that reads of nearby ranges fetch
    /// nothing twice.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let end = offset + buf.len() as u64;
        let blocks: Vec<Range<u64>> = self
            .index
            .blocks()
            .filter(|b| b.offset < end && offset < b.offset + b.len)
            .map(|b| b.offset..b.offset + b.len)
            .collect();
        self.fetched.want(&blocks)?;
        let bytes = self.fetched.bytes(offset..end)?;
        buf.copy_from_slice(&bytes);
        Ok(())
    }
}

/// The text of `object` (printed as `name`) through its index object,
/// kept under the index directory `base` (`None`: it has none, or one
/// built from another version of the object).
pub fn open(
    object: &RemoteObject,
    name: &str,
    base: &Path,
) -> Result<Option<RemoteText>, RemoteError> {
    // Its ETag: listed, or from its HEAD fetched ahead with its index object.
    let object = &object.with_e_tag_ahead();
    let Some(etag) = object.e_tag() else { return Ok(None) };
    let kept = kept::path(base, name, etag, object.size(), "tgidx");
    let bytes = match std::fs::read(&kept) {
        Ok(bytes) => bytes,
        Err(_) if !object.may_be_indexed() => return Ok(None),
        Err(_) => match object.neighbour(&index_object_name(object.key()))? {
            Some(bytes) => bytes,
            None => return Ok(None),
        },
    };
    let found = sibling::decode(bytes.clone())?;
    if found.etag != etag || found.size != object.size() {
        return Ok(None);
    }
    // Kept for the next search; a failure to keep it costs a fetch then.
    let _ = kept::keep(&kept, &bytes);
    let IndexObject { index, .. } = found;
    let unusable = |e: crate::index::error::IndexError| {
        RemoteError(format!("its index object is unusable ({e})"))
    };
    let reader = IndexReader::from_bytes(index).map_err(unusable)?;
    let dir = kept.parent().map(Path::to_path_buf).unwrap_or_default();
    let index = BlockIndex::from_reader(reader, dir).map_err(unusable)?;
    if index.source.text.len != object.size() {
        return Err(RemoteError("its index object describes another length".into()));
    }
    Ok(Some(RemoteText { index, fetched: Fetched::new(object.clone()) }))
}

/// What [`build`] made.
#[derive(Clone, Copy, Debug)]
pub struct Built {
    /// Blocks indexed.
    pub blocks: usize,
    /// Bytes indexed (the object's size).
    pub bytes: u64,
    /// The index object's size.
    pub index_len: u64,
}

/// Builds the block index of `object` (printed as `name`): its body
/// fetched once into an unlinked temporary file, cut into blocks of about
/// `block_size` bytes, indexed with `budget` bytes for the sort, and
/// written beside it as its index object.
pub fn build(
    object: &RemoteObject,
    name: &str,
    block_size: u64,
    budget: usize,
    progress: &dyn Progress,
) -> Result<Built, RemoteError> {
    let failed = |e: &dyn std::fmt::Display| RemoteError(e.to_string());
    let etag = object.e_tag().ok_or_else(|| RemoteError("the store gave it no ETag".into()))?;
    let mut file = tempfile::tempfile().map_err(|e| failed(&e))?;
    io::copy(&mut object.reader()?, &mut file).map_err(|e| failed(&e))?;
    let md = file.metadata().map_err(|e| failed(&e))?;
    // SAFETY: a map of an unlinked file only this process holds.
    let map = match md.len() {
        0 => None,
        _ => Some(unsafe { memmap2::Mmap::map(&file) }.map_err(|e| failed(&e))?),
    };
    let data: &[u8] = map.as_deref().unwrap_or(&[]);
    let blocks = cut(data, block_size);
    let text = Text { path: Path::new(name), md: &md, data, blocks: &blocks, block_size };
    let spill = std::env::temp_dir();
    let (writer, _) = index_text(&text, false, budget, &spill, progress, &mut |_| Ok(()))
        .map_err(|e| failed(&e))?;
    let (index, _) = writer.finish_to_vec().map_err(|e| failed(&e))?;
    let bytes = sibling::encode(etag, object.size(), &index);
    let index_len = bytes.len() as u64;
    object.put_neighbour(&index_object_name(object.key()), bytes)?;
    Ok(Built { blocks: blocks.len(), bytes: data.len() as u64, index_len })
}
