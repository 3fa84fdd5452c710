//! The objects a remote path names, walked as rg walks a directory: a key
//! that is a prefix (`KEY/…` objects exist: asked first, as s3s-fs answers
//! a HEAD of a "directory" with an error) is walked, else it names one
//! object (searched as a named file); a prefix (empty or ending in `/`) is
//! every object under it, in the order rg's `--sort path` walks a tree
//! (component by component), skipping hidden ones (a key component that
//! starts with `.`) unless asked; a glob is the objects its whole key
//! matches (`*` within one component, `**` across), named like files a
//! shell expanded. Index objects (`tg index s3://…`) are tg's, not texts:
//! a listing leaves them out and says which objects have one.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use globset::{GlobBuilder, GlobMatcher};
use object_store::ObjectStore;
use object_store::path::Path as Key;

use super::address::{Address, Kind};
use super::client::{RemoteError, block_on, count_request};
use super::object::{RemoteObject, probe};
use super::stores::{store, store_unretried};
use crate::kind::{index_object_name, is_index_object};
use crate::query::Query;
use futures_util::TryStreamExt;

/// One object to search.
#[derive(Clone, Debug)]
pub struct Listed {
    /// Its name as printed.
    pub name: String,
    /// The object.
    pub object: RemoteObject,
    /// Named by the path itself (or a glob), not found below a prefix.
    pub explicit: bool,
}

/// What a listing keeps.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rules {
    /// Hidden objects too (`--hidden`).
    pub hidden: bool,
}

/// The objects `address` names; an error when it names none. Asked of
/// the store once per process and address (the command line asks whether
/// a path is walked before the search lists it). `first`: a search's
/// index directory, where a first reader of a packed object is told
/// from one that kept parts of it, and its query, planned only when a
/// first look asks for it ([`first_look`]).
pub(crate) fn list(
    address: &Address,
    rules: Rules,
    first: Option<(&Path, &dyn Fn() -> Query)>,
) -> Result<Vec<Listed>, RemoteError> {
    type Known = Mutex<HashMap<(String, bool), Result<Vec<Listed>, RemoteError>>>;
    static KNOWN: OnceLock<Known> = OnceLock::new();
    let mut known = KNOWN.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let asked = (address.written.clone(), rules.hidden);
    if let Some(listed) = known.get(&asked) {
        return listed.clone();
    }
    let listed = list_now(address, rules, first);
    known.insert(asked, listed.clone());
    listed
}

/// [`list`], asked now.
pub(crate) fn list_now(
    address: &Address,
    rules: Rules,
    first: Option<(&Path, &dyn Fn() -> Query)>,
) -> Result<Vec<Listed>, RemoteError> {
    let store = store(address)?;
    let prefix = match &address.kind {
        Kind::Object => {
            // Whether it names a prefix, the object itself, and what a
            // first reader reads first of it, asked side by side: one
            // round trip, not two or three.
            let prefix = format!("{}/", address.key);
            let look = first.and_then(|(base, query)| first_look(base, &address.written, query));
            let guess = match look {
                Some(look) => Some((store_unretried(address)?, look)),
                None => None,
            };
            let (below, object, probe) = std::thread::scope(|s| {
                let head = s.spawn(|| RemoteObject::head(&store, &address.key));
                let probe = guess.as_ref().map(|(store, (head, tail, more))| {
                    s.spawn(move || probe(store, &address.key, *head, *tail, more))
                });
                let below = match address.may_be_prefix() {
                    true => under(address, &store, &prefix, None, rules),
                    false => Ok(Vec::new()),
                };
                (below, head.join(), probe.and_then(|p| p.join().ok().flatten()))
            });
            let below = below?;
            if !below.is_empty() {
                return Ok(below);
            }
            let object = object.map_err(|_| RemoteError("a request panicked".into()))?;
            return match object? {
                Some(object) => {
                    let name = address.written.clone();
                    let object = object.with_probe(probe);
                    Ok(vec![Listed { name, object, explicit: true }])
                }
                None => Err(RemoteError("no such object or prefix".into())),
            };
        }
        Kind::Prefix => address.key.clone(),
        Kind::Glob { prefix } => prefix.clone(),
    };
    let glob = match &address.kind {
        Kind::Glob { .. } => Some(glob(&address.key)?),
        _ => None,
    };
    let found = under(address, &store, &prefix, glob.as_ref(), rules)?;
    if found.is_empty() && glob.is_none() {
        return Err(RemoteError("no such object or prefix".into()));
    }
    Ok(found)
}

/// The objects under `prefix` (that `glob` matches), sorted as rg walks.
fn under(
    address: &Address,
    store: &Arc<dyn ObjectStore>,
    prefix: &str,
    glob: Option<&GlobMatcher>,
    rules: Rules,
) -> Result<Vec<Listed>, RemoteError> {
    count_request();
    let listing = store.list((!prefix.is_empty()).then(|| Key::from(prefix)).as_ref());
    let metas: Vec<_> = block_on(listing.try_collect()).map_err(|e: object_store::Error| {
        match address.scheme.is_web() {
            // A web server lists a directory only as WebDAV (PROPFIND).
            true => RemoteError(format!(
                "not listed: the server answers no WebDAV listing ({})",
                RemoteError::of(&e)
            )),
            false => RemoteError::of(&e),
        }
    })?;
    let keys: HashSet<&str> = metas.iter().map(|m| m.location.as_ref()).collect();
    let indexed: Vec<bool> =
        metas.iter().map(|m| keys.contains(&*index_object_name(m.location.as_ref()))).collect();
    let mut found: Vec<Listed> = metas
        .into_iter()
        .zip(indexed)
        .filter(|(m, _)| {
            let key: &str = m.location.as_ref();
            if is_index_object(key) {
                return false;
            }
            let below = key.strip_prefix(prefix).unwrap_or(key);
            match glob {
                Some(g) => g.is_match(key),
                None => rules.hidden || !below.split('/').any(|c| c.starts_with('.')),
            }
        })
        .map(|(meta, indexed)| {
            let name = address.name_of(meta.location.as_ref());
            let object = RemoteObject::new(Arc::clone(store), meta).listed_with_index(indexed);
            Listed { name, object, explicit: glob.is_some() }
        })
        .collect();
    found.sort_by(|a, b| a.object.key().split('/').cmp(b.object.key().split('/')));
    Ok(found)
}

/// The matcher of a glob over whole keys.
fn glob(pattern: &str) -> Result<GlobMatcher, RemoteError> {
    let glob = GlobBuilder::new(pattern).literal_separator(true).build();
    glob.map(|g| g.compile_matcher()).map_err(|e| RemoteError(e.to_string()))
}

/// The bytes of its tail a first reader of a packed object fetches with
/// its first look, before it knows the object's size: a tg container's
/// seek table, its block index's table of contents, the directory of its
/// trigram table and its small tables (of the 1 GiB log's 104 MB
/// container, the last 46 KB; of the 8 GiB log's 1 GB, 361 KB, its blocks'
/// table 262 KB of it), so that its next round trip fetches the parts of
/// the trigram table and the lists a query needs (with the first frame),
/// and the one after its frames (`crate::index::trigram_dir`).
const FIRST_TAIL: u64 = 256 << 10;

/// What a search's first reader of the object printed as `name` fetches
/// with its first look ([`list`]): its header, its tail, and the buckets
/// of a frame directory its `query` asks about (`crate::pack::directory`:
/// with them, a selective query's frames come in the next round trip, not
/// the one after); for an object named as a packed file of which nothing
/// is kept under `base` (a reader that kept parts of it fetches little
/// more than frames).
fn first_look(
    base: &Path,
    name: &str,
    query: &dyn Fn() -> Query,
) -> Option<(u64, u64, Vec<Range<u64>>)> {
    let first = crate::kind::maybe_packed(name.as_bytes()) && !super::kept::any(base, name);
    let buckets = || crate::pack::directory::first_ranges(&query());
    first.then(|| (crate::pack::format::BUCKETS_AT, FIRST_TAIL, buckets()))
}
