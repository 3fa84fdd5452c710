//! Remote logs: objects in S3 (and stores that speak its protocol: Garage,
//! MinIO, Ceph) named `s3://BUCKET/KEY`, in Google Cloud Storage
//! (`gs://`), in Azure Blob Storage (`az://`) and on web servers
//! (`http(s)://`), read through Apache Arrow's `object_store` crate, the
//! client DataFusion and Ballista read with (`stores`: one store a
//! scheme's bucket).
//!
//! Two ways in, for any front door (the search, a viewer, SQL):
//!
//! - [`list`]: the objects a remote path names (`address::Address`: an
//!   object, a prefix walked like a directory, a glob), each with the
//!   name it is printed by ([`listing::Listed`]); [`list_afresh`] for a
//!   process that outlives its queries, and [`object_at`] for an object
//!   listed by another process (SQL's units, which carry its address,
//!   ETag and size to a Ballista executor);
//! - [`open_packed`]: a packed container (`tg pack`) in a bucket as a
//!   [`PackedFile`] that fetches its ends (seek table, footer, block
//!   index) and then only the frames read, neighbours joined into one
//!   request, requests side by side (`fetched::Fetched`, behind the
//!   packed reader's [`crate::pack::Store`] seam); its text is then a
//!   [`crate::text::BlockText`] like a local one
//!   ([`crate::text::packed::PackedText::read_checked`]).
//!
//! - [`indexed::open`]: a plain object with an index object beside it
//!   (`tg index s3://…`, [`indexed::build`]) as a [`crate::text::BlockText`]
//!   whose candidate blocks are fetched by range, its index kept locally
//!   under the object's ETag and size.
//!
//! - [`upload::upload`]: a local file written as an object by multipart
//!   upload (`tg pack FILE -o s3://…`).
//!
//! Anything else is read as one stream ([`object::RemoteObject::reader`]).
//! Every read is of the object as listed (its ETag), and complete, or an
//! error ([`object`]); credentials, region and endpoint come from where the
//! store's own tool takes them (the AWS CLI's: [`settings`]); `--stats`
//! counts requests and bytes (`client::traffic`). Only block indexes are
//! kept on disk ([`kept`]: index objects, and packed objects' own), by ETag
//! and size.

pub mod address;
mod ahead;
pub mod client;
pub mod fetched;
pub mod indexed;
pub mod kept;
pub mod listing;
pub mod object;
pub mod profile;
pub mod settings;
pub mod sibling;
mod stores;
pub mod upload;

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

pub(crate) use address::Address;
pub use address::{is_remote, mentions_remote};
pub use client::RemoteError;
pub use listing::{Listed, Rules};

use crate::pack::PackError;
use crate::pack::read::PackedFile;
use crate::query::Query;
use object::RemoteObject;

/// The objects the remote path `written` names, in the order a search
/// prints them (`None`: it is not a remote path).
pub fn list(written: &str, rules: Rules) -> Option<Result<Vec<Listed>, RemoteError>> {
    let address = match Address::parse(written)? {
        Ok(address) => address,
        Err(bad) => return Some(Err(RemoteError(bad.0))),
    };
    Some(listing::list(&address, rules, None))
}

/// [`list`] for a search for `query()` (planned only when the listing
/// needs it) whose block indexes are kept under `base`: an object named
/// by the path is listed with what a first reader of it reads first
/// (`listing::first_look`), in the same round trip.
pub(crate) fn list_searched(
    written: &str,
    rules: Rules,
    base: &Path,
    query: &dyn Fn() -> Query,
) -> Option<Result<Vec<Listed>, RemoteError>> {
    let address = match Address::parse(written)? {
        Ok(address) => address,
        Err(bad) => return Some(Err(RemoteError(bad.0))),
    };
    Some(listing::list(&address, rules, Some((base, query))))
}

/// [`list`], asked of the store now, whatever this process listed
/// before: for a process that outlives its queries (a SQL server, a
/// Ballista scheduler), whose listings must not be stale.
pub fn list_afresh(written: &str, rules: Rules) -> Option<Result<Vec<Listed>, RemoteError>> {
    let address = match Address::parse(written)? {
        Ok(address) => address,
        Err(bad) => return Some(Err(RemoteError(bad.0))),
    };
    Some(listing::list_now(&address, rules, None))
}

/// The object `url` (`s3://BUCKET/KEY`) as it was listed elsewhere: of
/// `size` bytes and ETag `e_tag`, modified at `modified`, with an index
/// object beside it or not (`indexed`; `None`: unknown). No request is
/// sent: every read of it then asks for that very object (its ETag), so
/// an object replaced since that listing is an error, never read.
pub fn object_at(
    url: &str,
    size: u64,
    e_tag: Option<String>,
    modified: std::time::SystemTime,
    indexed: Option<bool>,
) -> Result<RemoteObject, RemoteError> {
    let at = match Address::parse(url) {
        Some(Ok(at)) if at.kind == address::Kind::Object => at,
        Some(Err(bad)) => return Err(RemoteError(bad.0)),
        _ => return Err(RemoteError(format!("{url}: not the address of one object"))),
    };
    let store = stores::store(&at)?;
    let location = object_store::path::Path::from(at.key.as_str());
    let meta = object_store::ObjectMeta {
        location,
        last_modified: modified.into(),
        size,
        e_tag,
        version: None,
    };
    let object = RemoteObject::new(store, meta);
    Ok(match indexed {
        Some(indexed) => object.listed_with_index(indexed),
        None => object,
    })
}

/// Whether the path `path` names a remote prefix or a glob of several objects,
/// walked like a directory (a key with no object is taken for a prefix: asked
/// of the store, as a local path's kind is asked of the file system); `None`:
/// it is not a remote path. Asked by a search for `query()` whose block
/// indexes are kept under `base` (`list_searched`).
pub fn is_walked(path: &std::path::Path, base: &Path, query: &dyn Fn() -> Query) -> Option<bool> {
    let address = Address::parse(path.to_str()?)?;
    let Ok(address) = address else { return Some(false) };
    // A glob is named like the files a shell expands it to: one is named
    // alone (rg prints no name for it), several are walked.
    Some(match address.kind {
        address::Kind::Prefix => true,
        _ => match listing::list(&address, Rules::default(), Some((base, query))) {
            Ok(listed) => !matches!(&listed[..], [one] if one.explicit),
            Err(_) => false,
        },
    })
}

/// Objects up to this size are fetched whole ahead of their search, in
/// one request; a larger one's ends are fetched ahead, its frames by range.
/// Measured (`bench/s3_whole.py`, 24 packed objects a size under one
/// prefix, s3s-fs behind a proxy of 0 / 20 ms a request; BENCHMARKS.md):
/// fetched whole, objects of 82 KiB to 741 KiB are searched in 0.05-0.17 s
/// against 0.07-0.21 s at 0 ms, and in about half the time at 20 ms
/// (0.10-0.21 s against 0.16-0.31 s), for at most 12 % more bytes (what
/// a search reads first of a small container, its block index, is most
/// of it); at 1.8 MiB whole is even at 0 ms for twice the bytes, and at
/// 2.9 MiB it loses (0.60 s against 0.22-0.26 s, 6x the bytes).
const WHOLE_AHEAD: u64 = 1 << 20;

/// [`WHOLE_AHEAD`], or the bytes `TG_BENCH_WHOLE_AHEAD` says (a knob for
/// measuring it: `bench/s3_whole.py`).
fn whole_ahead() -> u64 {
    static WHOLE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *WHOLE.get_or_init(|| {
        let set = std::env::var("TG_BENCH_WHOLE_AHEAD").ok().and_then(|v| v.parse().ok());
        set.unwrap_or(WHOLE_AHEAD)
    })
}

/// What a search reads first of `object` (printed as `name`, its block
/// index kept under `base`), to be fetched ahead of it: the whole of a
/// small object (unless it is a packed one whose index is kept here);
/// else the ends of a packed one (`packed`: the door looks
/// for one; its header only when its block index is kept here, nothing
/// when parts of it are, with its header); else
/// nothing (its body is read as one stream).
pub(crate) fn first_reads(
    object: &RemoteObject,
    name: &str,
    base: &Path,
    packed: bool,
) -> Vec<Range<u64>> {
    let size = object.size();
    let kept = object.e_tag().map(|etag| kept::path(base, name, etag, size, "zstidx"));
    let whole_kept = kept.as_ref().is_some_and(|k| k.exists());
    let part_kept = kept.as_ref().is_some_and(|k| kept::part_of(k).exists());
    // A packed object whose block index (or parts of it) is kept here:
    // its header and frames cost less than the whole, in as many trips.
    let small = size <= whole_ahead() && !(packed && (whole_kept || part_kept));
    let [head, tail] = PackedFile::ends(size);
    match size {
        0 => Vec::new(),
        _ if small => std::iter::once(0..size).collect(),
        _ if !packed => Vec::new(),
        // The whole index kept (its header is fetched), or the parts of a
        // large one read by range (the header with them).
        _ if whole_kept => vec![head],
        _ if part_kept => Vec::new(),
        _ => vec![head, tail],
    }
}

/// Whether a search reads the index object beside the plain object
/// `object` (printed as `name`) first, to be fetched ahead of it: when
/// its listing showed one, none is kept under `base` for it, and it is
/// not fetched whole ahead (a search then reads it from memory).
pub(crate) fn index_first(object: &RemoteObject, name: &str, base: &Path) -> bool {
    let kept = object.e_tag().map(|e| kept::path(base, name, e, object.size(), "tgidx"));
    object.listed_index() == Some(true)
        && object.size() > whole_ahead()
        && !kept.is_some_and(|k| k.exists())
}

/// `object` (printed as `name`) as a packed file, read by ranges, its
/// block index kept under the index directory `base` by the object's ETag
/// and size (`None`: it is not a packed file; an error: a damaged tg
/// container, or a failed fetch).
pub fn open_packed(
    object: &RemoteObject,
    name: &str,
    base: &std::path::Path,
) -> Result<Option<PackedFile>, PackError> {
    let fetched = match object.e_tag() {
        Some(etag) => {
            let kept = kept::path(base, name, etag, object.size(), "zstidx");
            fetched::Fetched::keeping_index(object.clone(), kept)
        }
        None => fetched::Fetched::new(object.clone()),
    };
    PackedFile::open_store(Arc::new(fetched))
}
