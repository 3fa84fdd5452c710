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

/// Writes `bytes` at `path` whole or not at all (a temporary file renamed).
pub fn keep(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().ok_or_else(|| io::Error::other("no directory"))?;
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
