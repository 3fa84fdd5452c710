//! What a reader keeps on disk of a remote object: its block index (an
//! index object's, or a packed object's own), under the index directory,
//! keyed by the object's name, ETag and size, so that a replaced object
//! (another ETag) is never read through what was kept of the old one.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::index::location::index_dir_for;

/// Where the index of the object printed as `name`, of ETag `etag` and
/// `size` bytes, is kept under `base`; `what` names the kind of index.
pub fn path(base: &Path, name: &str, etag: &str, size: u64, what: &str) -> PathBuf {
    let dir = index_dir_for(&base.join("remote"), Path::new(name));
    let etag: String = etag.bytes().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("{etag}-{size}.{what}"))
}

/// Whether anything is kept under `base` of an object printed as `name`
/// (of any ETag and size).
pub(crate) fn any(base: &Path, name: &str) -> bool {
    let dir = index_dir_for(&base.join("remote"), Path::new(name));
    std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some())
}

/// Writes `bytes` at `path` whole or not at all (a temporary file renamed).
pub fn keep(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().ok_or_else(|| io::Error::other("no directory"))?;
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Where the parts of a block index read by range are kept, beside the
/// whole index's place `kept` (another name: a part is never taken for
/// the whole).
pub(crate) fn part_of(kept: &Path) -> PathBuf {
    kept.with_extension("zstpart")
}

/// The kept parts `parts` (each its offset in the object and its bytes)
/// as bytes: for each, its offset and length (`u64` each) and its bytes.
pub(crate) fn encode_parts(parts: &[(u64, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (start, bytes) in parts {
        out.extend_from_slice(&start.to_le_bytes());
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(bytes);
    }
    out
}

/// The parts `encode_parts` wrote, each within an object of `size`
/// bytes (`None`: the bytes are not such parts). What the parts hold is
/// checked where it is read (each table and list against its CRC).
pub fn parse_parts(mut bytes: &[u8], size: u64) -> Option<Vec<(u64, &[u8])>> {
    let mut parts = Vec::new();
    while !bytes.is_empty() {
        let start = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
        let len = u64::from_le_bytes(bytes.get(8..16)?.try_into().ok()?);
        let body = bytes.get(16..)?.get(..usize::try_from(len).ok()?)?;
        if start.checked_add(len)? > size {
            return None;
        }
        parts.push((start, body));
        bytes = &bytes[16 + body.len()..];
    }
    Some(parts)
}
