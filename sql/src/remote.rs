//! Objects in a bucket as a table's files (`lines('s3://BUCKET/logs/')`,
//! a glob, one object), through the engine's seam to object stores
//! ([`trigrep::remote`]).
//!
//! The paths are listed when the scan is planned ([`list`]: where the
//! query is planned, the client or a Ballista scheduler; a `HEAD` for an
//! object listed without an ETag), each object
//! becoming an [`Object`]: its address, ETag, size and time, plain data
//! that travels in a unit of the scan to whoever reads it. The reader
//! sends no listing and no `HEAD`: it reads the object as it was listed
//! ([`open`]), every request carrying that ETag, so an object replaced
//! since the planning is an error naming it, never a mix of two objects.
//!
//! What is fetched is decided as for a local file ([`text::kind`]): a
//! packed `zstd` object by range (its ends, then the frames its block
//! index names), a plain object with an index object beside it (`tg
//! index s3://…`) by range (the index object, then the candidate
//! blocks), anything else as one stream of its body (decompressed as it
//! arrives). What is kept is what `tg` keeps: block indexes, under the
//! index directory of the process that reads ([`local_base`]), by ETag
//! and size.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, UNIX_EPOCH};

use datafusion::error::{DataFusionError, Result};
use serde::{Deserialize, Serialize};
use trigrep::remote::object::RemoteObject;
use trigrep::remote::{self, Listed, Rules, indexed};
use trigrep::search::decode::{Format, Transform};
use trigrep::text::packed::PackedText;
use trigrep::text::{BlockText, Opened as Trust};

use crate::text::{self, Compression, Kind, Opened};

/// An object as it was listed: what a reader anywhere needs to read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Object {
    /// Its address, `s3://BUCKET/KEY`.
    pub url: String,
    /// Its ETag (`None`: the store gave none).
    pub e_tag: Option<String>,
    /// Its size in bytes.
    pub size: u64,
    /// When it was last modified, in nanoseconds since the epoch.
    pub modified: Option<i64>,
    /// Whether its listing showed an index object beside it (`None`:
    /// named alone, not listed with its neighbours).
    pub indexed: Option<bool>,
}

impl Object {
    /// What the listing said of `listed`.
    fn of(listed: &Listed) -> Object {
        let o = &listed.object;
        let modified = o.modified().duration_since(UNIX_EPOCH).ok();
        Object {
            url: listed.name.clone(),
            e_tag: o.e_tag().map(String::from),
            size: o.size(),
            modified: modified.and_then(|d| i64::try_from(d.as_nanos()).ok()),
            indexed: o.listed_index(),
        }
    }

    /// The object to read, as listed (no request is sent).
    fn remote(&self) -> Result<RemoteObject> {
        let modified = UNIX_EPOCH + Duration::from_nanos(self.modified.unwrap_or(0).max(0) as u64);
        let at =
            remote::object_at(&self.url, self.size, self.e_tag.clone(), modified, self.indexed);
        at.map_err(|e| error(&self.url, e))
    }

    /// Whether it may be read by its block index (a packed object, or a
    /// plain one with an index object): then it is cut into parts.
    pub fn by_blocks(&self, compression: Compression) -> bool {
        match text::kind(Path::new(&self.url), compression) {
            Kind::Compressed(format) => format == Format::Zstd,
            Kind::Plain => self.indexed != Some(false),
        }
    }
}

/// The objects the remote path `path` names, listed now (`None`: it is
/// not a remote path); a path that names none is an error (a glob that
/// matches nothing too, as a local one). An object listed without an
/// ETag (some stores list none) is asked for its own (a `HEAD`), so that
/// it is read as it was planned wherever it is read.
pub fn list(path: &Path) -> Option<Result<Vec<Object>>> {
    let written = path.to_str()?;
    let listed = remote::list_afresh(written, Rules::default())?;
    Some(match listed {
        Ok(listed) if listed.is_empty() => Err(error(written, "no object matches")),
        Ok(listed) => listed
            .into_iter()
            .map(|mut l| {
                l.object = l.object.with_e_tag().map_err(|e| error(&l.name, e))?;
                Ok(Object::of(&l))
            })
            .collect(),
        Err(e) => Err(error(written, e)),
    })
}

/// Whether `path` is a remote one (`s3://…`).
pub fn is_remote(path: &Path) -> bool {
    remote::is_remote(path.as_os_str().as_encoded_bytes())
}

/// Whether any of `args` (a query's arguments) names a remote path.
pub fn mentioned(args: &[Vec<u8>]) -> bool {
    args.iter().any(|a| remote::mentions_remote(a))
}

/// The index directory a reader keeps remote objects' block indexes in:
/// its own, on a Ballista executor ([`keep_in`]); else `base`, the one
/// the query names.
pub fn local_base(base: &Path) -> &Path {
    KEPT_IN.get().map_or(base, PathBuf::as_path)
}

/// Where this process keeps remote objects' block indexes, whatever
/// index directory the plans it runs name: set by an executor, whose
/// disk is its own.
static KEPT_IN: OnceLock<PathBuf> = OnceLock::new();

/// Keeps remote objects' block indexes under `base` in this process
/// (an executor's own index directory).
pub fn keep_in(base: PathBuf) {
    let _ = KEPT_IN.set(base);
}

/// The text of a unit: the file at `path`, or the remote `object` when
/// given, with indexes under `base`, as a table reading with
/// `compression` reads it.
pub fn open(
    object: Option<&Object>,
    path: &Path,
    base: &Path,
    compression: Compression,
) -> Result<Opened> {
    let Some(object) = object else { return text::open(path, base, compression) };
    let remote = object.remote()?;
    if let Some(text) = by_index(object, &remote, path, base, compression)? {
        return Ok(Opened::Text(text));
    }
    let failed = |e: &dyn std::fmt::Display| error(&object.url, e);
    let body = Filled(remote.reader().map_err(|e| failed(&e))?);
    let format = match text::kind(path, compression) {
        Kind::Plain => return Ok(Opened::Stream(Box::new(body))),
        Kind::Compressed(Format::Compress) => {
            return Err(failed(&"a `.Z` object is not read (`uncompress` needs a local file)"));
        }
        Kind::Compressed(format) => format,
    };
    // The decoder reads the body as it reads a local file; what it gives
    // is read as the local file's decoder output is.
    let decoded = Transform::decode(format, path, Box::new(body)).map_err(|e| failed(&e))?;
    Ok(Opened::Stream(decoded))
}

/// [`open`], but a text not read by its block index is only said to be
/// read whole ([`Opened::Whole`]), its body not asked for: what the parts
/// of a text ask first.
pub fn open_indexed(
    object: Option<&Object>,
    path: &Path,
    base: &Path,
    compression: Compression,
) -> Result<Opened> {
    let Some(object) = object else { return text::open(path, base, compression) };
    let text = by_index(object, &object.remote()?, path, base, compression)?;
    Ok(text.map_or(Opened::Whole, Opened::Text))
}

/// The text of `object` (as `remote`) through a block index, fetched by
/// range: a packed object's own, or a plain object's index object
/// (`None`: it has none, and is read as a stream).
fn by_index(
    object: &Object,
    remote: &RemoteObject,
    path: &Path,
    base: &Path,
    compression: Compression,
) -> Result<Option<Box<dyn BlockText>>> {
    let (url, base) = (object.url.as_str(), local_base(base));
    let failed = |e: &dyn std::fmt::Display| error(url, e);
    match text::kind(path, compression) {
        Kind::Compressed(Format::Zstd) => {
            let packed = remote::open_packed(remote, url, base).map_err(|e| failed(&e))?;
            let Some(packed) = packed.filter(|p| p.is_tg()) else { return Ok(None) };
            match PackedText::read_checked(&packed).map_err(|e| failed(&e))? {
                Trust::Trusted(text) => Ok(Some(Box::new(text))),
                _ => Ok(None),
            }
        }
        Kind::Compressed(_) => Ok(None),
        // An index object that cannot be fetched or read is an error, as
        // a damaged packed object is: no request of a store that fails is
        // retried as another.
        Kind::Plain => match indexed::open(remote, url, base).map_err(|e| failed(&e))? {
            Some(text) => Ok(Some(Box::new(text))),
            None => Ok(None),
        },
    }
}

/// An error about the object `url`.
fn error(url: &str, e: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(format!("{url}: {e}"))
}

/// A stream whose every read fills the buffer it is given (short only at
/// the end), as a file's does: a body arrives in pieces of the network's
/// sizes, and the searcher's buffers (where it finds a NUL, say) must be
/// the ones it has reading the local copy.
struct Filled<R>(R);

impl<R: Read> Read for Filled<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while n < out.len() {
            match self.0.read(&mut out[n..]) {
                Ok(0) => break,
                Ok(got) => n += got,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_fills_each_buffer_until_its_end() {
        /// Gives at most 3 bytes a read.
        struct Trickle(&'static [u8]);
        impl Read for Trickle {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let n = out.len().min(3).min(self.0.len());
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut r = Filled(Trickle(b"0123456789"));
        let mut buf = [0; 8];
        assert_eq!(r.read(&mut buf).unwrap(), 8);
        assert_eq!(r.read(&mut buf).unwrap(), 2);
        assert_eq!(r.read(&mut buf).unwrap(), 0);
        assert!(mentioned(&[b"x".to_vec(), b"SELECT * FROM lines('s3://b/k')".to_vec()]));
        assert!(!mentioned(&[b"lines('/s3/b')".to_vec()]));
    }
}
