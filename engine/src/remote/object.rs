//! One remote object as listed (bucket, key, size, ETag), and its bytes:
//! ranges fetched side by side (`RemoteObject::get_ranges`) or the whole
//! body as a stream ([`RemoteObject::reader`]), either served from what
//! was fetched ahead of its reader when that holds them (`super::ahead`).
//!
//! Every read asks for the object as it was listed: the request carries
//! its ETag (`If-Match`), and the answer's ETag and length are checked
//! too (a server that ignores `If-Match`), so an object replaced between
//! the listing and a read is an error, never a mix of two objects; a body
//! shorter than asked (a connection cut) is an error, never a short text.

use std::io::{self, Read};
use std::ops::Range;
use std::sync::Arc;

use futures_util::stream::{BoxStream, StreamExt, TryStreamExt};
use object_store::path::Path as Key;
use object_store::{GetOptions, GetRange, ObjectMeta, ObjectStore, ObjectStoreExt};

use super::ahead::{self, Ahead, Pieces};
use super::client::{RemoteError, block_on, count_bytes, count_request};
use crate::kind::index_object_name;

/// Ranged requests in flight at once for one object: as many as a
/// first reader of a packed object sends in one round trip (the parts of
/// the trigram table and their lists, `crate::pack::partial`, and the
/// first frame).
const IN_FLIGHT: usize = 32;

/// An object to read.
#[derive(Clone)]
pub struct RemoteObject {
    store: Arc<dyn ObjectStore>,
    meta: ObjectMeta,
    /// Whether its listing held an index object beside it (`None`: it was
    /// not listed with its neighbours).
    indexed: Option<bool>,
    /// What is fetched ahead of its reader (shared by its clones).
    ahead: Arc<Ahead>,
    /// Its index object fetched ahead of its reader, with its `HEAD`
    /// when its listing gave no ETag (shared by its clones).
    beside: Arc<Ahead<Beside>>,
    /// How many bytes of it a reader holds at most (`None`: all it fetched).
    holding: Option<u64>,
}

impl std::fmt::Debug for RemoteObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RemoteObject({}, {} bytes)", self.meta.location, self.meta.size)
    }
}

impl RemoteObject {
    /// The object `meta` describes, in `store`.
    pub fn new(store: Arc<dyn ObjectStore>, meta: ObjectMeta) -> RemoteObject {
        let (ahead, beside) = (Arc::default(), Arc::default());
        RemoteObject { store, meta: quoted(meta), indexed: None, ahead, beside, holding: None }
    }

    /// The same object, known (from its listing) to have an index object
    /// beside it or not.
    pub(crate) fn listed_with_index(self, indexed: bool) -> RemoteObject {
        RemoteObject { indexed: Some(indexed), ..self }
    }

    /// Whether an index object may lie beside it (`false`: its listing
    /// showed none).
    pub(crate) fn may_be_indexed(&self) -> bool {
        self.indexed != Some(false)
    }

    /// Whether its listing held an index object beside it (`None`: it
    /// was not listed with its neighbours).
    pub fn listed_index(&self) -> Option<bool> {
        self.indexed
    }

    /// The same object, read by readers that hold at most `bytes` of what
    /// they fetched of it (the least recently used piece dropped first,
    /// fetched again when read again): a viewer scrolling through a huge
    /// object, where a search holds what it fetched until it ends.
    pub fn holding_at_most(self, bytes: u64) -> RemoteObject {
        RemoteObject { holding: Some(bytes), ..self }
    }

    /// How many bytes of it a reader holds at most (`None`: all).
    pub(crate) fn holding(&self) -> Option<u64> {
        self.holding
    }

    /// Starts fetching `ranges` of it in the background (each within it),
    /// for its reader to find here ([`super::ahead`]); nothing when a
    /// fetch ahead was started already.
    pub(crate) fn fetch_ahead(&self, ranges: Vec<Range<u64>>) {
        let me = RemoteObject { ahead: Arc::default(), beside: Arc::default(), ..self.clone() };
        self.ahead.start(async move {
            let fetches = ranges.into_iter().map(|r| {
                let me = &me;
                async move {
                    let _permit = ahead::permit().await;
                    me.fetch(r.clone()).await.map(|bytes| (r.start, bytes))
                }
            });
            let pieces = futures_util::future::try_join_all(fetches).await.ok()?;
            Some(Arc::new(pieces))
        });
    }

    /// The same object, holding what `probe` fetched of it when that was
    /// read of this very object (the same ETag and size as its `HEAD`'s;
    /// else it is dropped, and every read asks for the object as listed).
    pub(crate) fn with_probe(self, probe: Option<Probe>) -> RemoteObject {
        if let Some(probe) = probe
            && probe.meta.e_tag.is_some()
            && (&probe.meta.e_tag, probe.meta.size) == (&self.meta.e_tag, self.meta.size)
        {
            self.ahead.hold(Arc::new(probe.pieces));
        }
        self
    }

    /// Whether what was fetched ahead of its reader holds `range` (one
    /// piece holds all of it; waited for when under way).
    pub(crate) fn holds_ahead(&self, range: &Range<u64>) -> bool {
        self.ahead.pieces().is_some_and(|p| ahead::within(&p, range).is_some())
    }

    /// Starts fetching its index object in the background (and its
    /// `HEAD` when its listing gave no ETag, which the index object is
    /// checked against), for its reader to find here
    /// ([`RemoteObject::neighbour`], [`RemoteObject::with_e_tag_ahead`]);
    /// nothing when started already.
    pub(crate) fn fetch_index_ahead(&self) {
        let me = RemoteObject { ahead: Arc::default(), beside: Arc::default(), ..self.clone() };
        self.beside.start(async move {
            let _permit = ahead::permit().await;
            let key = Key::from(index_object_name(me.key()));
            let index = async {
                count_request();
                match me.store.get(&key).await {
                    Ok(got) => {
                        let bytes = got.bytes().await.ok()?;
                        count_bytes(bytes.len() as u64);
                        Some(Some(bytes.to_vec()))
                    }
                    Err(object_store::Error::NotFound { .. }) => Some(None),
                    Err(_) => None,
                }
            };
            let head = async {
                if me.meta.e_tag.is_some() {
                    return Some(None);
                }
                count_request();
                let options = GetOptions { head: true, ..GetOptions::default() };
                me.store.get_opts(&me.meta.location, options).await.ok().map(|got| Some(got.meta))
            };
            let (index, head) = futures_util::future::join(index, head).await;
            Some(Arc::new((head?, index?)))
        });
    }

    /// The same object with the ETag of its `HEAD` fetched ahead of its
    /// reader when its listing gave none (and the size is the listed one).
    pub(crate) fn with_e_tag_ahead(&self) -> RemoteObject {
        let beside = match self.meta.e_tag {
            None => self.beside.pieces(),
            Some(_) => None,
        };
        match beside.as_deref() {
            Some((Some(meta), _)) if meta.e_tag.is_some() && meta.size == self.meta.size => {
                RemoteObject { meta: quoted(meta.clone()), ..self.clone() }
            }
            _ => self.clone(),
        }
    }

    /// Drops what was fetched ahead of its reader.
    pub(crate) fn release_ahead(&self) {
        self.ahead.release();
        self.beside.release();
    }

    /// Whether the whole of it was fetched ahead (waited for when under way).
    pub(crate) fn held_whole(&self) -> bool {
        let size = self.size();
        self.ahead
            .pieces()
            .is_some_and(|p| p.iter().any(|(at, b)| *at == 0 && b.len() as u64 == size))
    }

    /// Its ETag, as listed (`None`: the store gave none).
    pub fn e_tag(&self) -> Option<&str> {
        self.meta.e_tag.as_deref()
    }

    /// The same object with an ETag: asked of the store (a `HEAD`) when
    /// its listing gave none (s3s-fs lists none), so that a reader
    /// elsewhere can ask for this very object.
    pub fn with_e_tag(self) -> Result<RemoteObject, RemoteError> {
        if self.meta.e_tag.is_some() {
            return Ok(self);
        }
        match RemoteObject::head(&self.store, self.key())? {
            Some(now) => Ok(RemoteObject { meta: now.meta, ..self }),
            None => Err(RemoteError("not found".into())),
        }
    }

    /// When it was last modified, as listed.
    pub fn modified(&self) -> std::time::SystemTime {
        self.meta.last_modified.into()
    }

    /// The whole of the object `key` beside it, in the same bucket
    /// (`None`: there is none).
    pub(crate) fn neighbour(&self, key: &str) -> Result<Option<Vec<u8>>, RemoteError> {
        if key == index_object_name(self.key())
            && let Some(beside) = self.beside.pieces()
        {
            return Ok(beside.1.clone());
        }
        count_request();
        let got = match block_on(self.store.get(&Key::from(key))) {
            Ok(got) => got,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(RemoteError::of(&e)),
        };
        let bytes = block_on(got.bytes()).map_err(|e| RemoteError::of(&e))?;
        count_bytes(bytes.len() as u64);
        Ok(Some(bytes.to_vec()))
    }

    /// Writes `bytes` as the object `key` beside it, in the same bucket.
    pub(crate) fn put_neighbour(&self, key: &str, bytes: Vec<u8>) -> Result<(), RemoteError> {
        count_request();
        let key = Key::from(key);
        block_on(self.store.put(&key, bytes.into())).map(|_| ()).map_err(|e| RemoteError::of(&e))
    }

    /// The object at `key` in `store` as it is now (`None`: there is none).
    pub fn head(
        store: &Arc<dyn ObjectStore>,
        key: &str,
    ) -> Result<Option<RemoteObject>, RemoteError> {
        count_request();
        let location = Key::from(key);
        let options = GetOptions { head: true, ..GetOptions::default() };
        match block_on(store.get_opts(&location, options)) {
            Ok(got) => Ok(Some(RemoteObject::new(Arc::clone(store), got.meta))),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(RemoteError::of(&e)),
        }
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.meta.size
    }

    /// Its key.
    pub fn key(&self) -> &str {
        self.meta.location.as_ref()
    }

    /// The request for `range` (`None`: all) of the object as listed.
    fn options(&self, range: Option<Range<u64>>) -> GetOptions {
        GetOptions {
            if_match: self.meta.e_tag.clone(),
            range: range.map(GetRange::Bounded),
            ..GetOptions::default()
        }
    }

    /// Checks that an answer's object is the listed one.
    fn same(&self, meta: &ObjectMeta) -> Result<(), RemoteError> {
        match (&self.meta.e_tag, quoted(meta.clone()).e_tag) {
            (Some(listed), Some(now)) if *listed != now => {
                Err(RemoteError("the object changed since it was listed (its ETag differs)".into()))
            }
            _ if meta.size != self.meta.size => Err(RemoteError(format!(
                "the object changed since it was listed ({} bytes, now {})",
                self.meta.size, meta.size
            ))),
            _ => Ok(()),
        }
    }

    /// Fetches `range`, checked complete.
    async fn fetch(&self, range: Range<u64>) -> Result<Vec<u8>, RemoteError> {
        count_request();
        let want = range.end - range.start;
        let options = self.options(Some(range.clone()));
        let got = self.store.get_opts(&self.meta.location, options).await;
        let got = got.map_err(|e| RemoteError::of(&e))?;
        self.same(&got.meta)?;
        let mut stream = got.into_stream();
        let mut bytes = Vec::with_capacity(want as usize);
        while let Some(piece) = stream.next().await {
            let piece = piece.map_err(|e| RemoteError::of(&e))?;
            count_bytes(piece.len() as u64);
            bytes.extend_from_slice(&piece);
        }
        if bytes.len() as u64 != want {
            return Err(short(range, bytes.len() as u64));
        }
        Ok(bytes)
    }

    /// Fetches `ranges` (each within the object), several requests in
    /// flight at once, unless fetched ahead; the answers come in the
    /// ranges' order.
    pub(crate) fn get_ranges(&self, ranges: &[Range<u64>]) -> Result<Vec<Vec<u8>>, RemoteError> {
        let held = self.ahead.pieces();
        let fetches = ranges.iter().map(|r| {
            let got = held.as_deref().and_then(|pieces| ahead::within(pieces, r));
            async move {
                match got {
                    Some(bytes) => Ok(bytes),
                    None => self.fetch(r.clone()).await,
                }
            }
        });
        block_on(futures_util::stream::iter(fetches).buffered(IN_FLIGHT).try_collect())
    }

    /// The whole body as a stream, checked complete at its end (from
    /// memory when it was fetched ahead).
    pub fn reader(&self) -> Result<BodyReader, RemoteError> {
        if let Some(body) = self.ahead.pieces().and_then(|p| whole(&p, self.size())) {
            let stream = futures_util::stream::empty().boxed();
            let size = self.meta.size;
            return Ok(BodyReader { stream, piece: body, at: 0, read: size, size });
        }
        count_request();
        let got = block_on(self.store.get_opts(&self.meta.location, self.options(None)));
        let got = got.map_err(|e| RemoteError::of(&e))?;
        self.same(&got.meta)?;
        let stream = got.into_stream();
        Ok(BodyReader { stream, piece: Vec::new(), at: 0, read: 0, size: self.meta.size })
    }
}

/// An object's index object fetched ahead of its reader (`None`: there is
/// none), with the object's `HEAD` when its listing gave no ETag.
pub(crate) type Beside = Arc<(Option<ObjectMeta>, Option<Vec<u8>>)>;

/// What a first reader fetches of an object with its first look, before
/// it knows the object's size or ETag ([`probe`]), and the object it was
/// read of (size and ETag, from the answers' headers).
pub(crate) struct Probe {
    meta: ObjectMeta,
    pieces: Vec<(u64, Vec<u8>)>,
}

/// The first `head` bytes and the last `tail` bytes of the object at `key`
/// in `store`, and its ranges `more` (each dropped when it fails: it may
/// lie past the object's end), asked side by side (`None`: the head or
/// the tail failed, or they were read of two objects: the object is then
/// read as if nothing was fetched).
pub(crate) fn probe(
    store: &Arc<dyn ObjectStore>,
    key: &str,
    head: u64,
    tail: u64,
    more: &[Range<u64>],
) -> Option<Probe> {
    let key = Key::from(key);
    let get = |range: GetRange| async {
        count_request();
        let options = GetOptions { range: Some(range), ..GetOptions::default() };
        let got = store.get_opts(&key, options).await.ok()?;
        let (meta, range) = (got.meta.clone(), got.range.clone());
        let bytes = got.bytes().await.ok()?;
        count_bytes(bytes.len() as u64);
        (bytes.len() as u64 == range.end - range.start)
            .then(|| (meta, (range.start, bytes.to_vec())))
    };
    let more = more.iter().map(|r| get(GetRange::Bounded(r.clone())));
    let ((first, last), more) = block_on(futures_util::future::join(
        futures_util::future::join(get(GetRange::Bounded(0..head)), get(GetRange::Suffix(tail))),
        futures_util::future::join_all(more),
    ));
    let ((a, first), (b, last)) = (first?, last?);
    let same = |m: &ObjectMeta| m.e_tag.is_some() && (&m.e_tag, m.size) == (&b.e_tag, b.size);
    if !same(&a) {
        return None;
    }
    let mut pieces = vec![first, last];
    pieces.extend(more.into_iter().flatten().filter(|(m, _)| same(m)).map(|(_, p)| p));
    Some(Probe { meta: quoted(b), pieces })
}

/// The whole of an object of `size` bytes, when `pieces` hold it.
fn whole(pieces: &Pieces, size: u64) -> Option<Vec<u8>> {
    ahead::within(pieces, &(0..size)).filter(|_| size > 0)
}

/// The error of a body that ended `got` bytes into `range`.
fn short(range: Range<u64>, got: u64) -> RemoteError {
    RemoteError(format!(
        "the body ended after {got} of the {} bytes asked for (bytes {}..{})",
        range.end - range.start,
        range.start,
        range.end
    ))
}

/// A whole object's body, read as it arrives.
pub struct BodyReader {
    stream: BoxStream<'static, object_store::Result<bytes::Bytes>>,
    piece: Vec<u8>,
    at: usize,
    read: u64,
    size: u64,
}

impl Read for BodyReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at == self.piece.len() {
            match block_on(self.stream.next()) {
                Some(Ok(piece)) => {
                    count_bytes(piece.len() as u64);
                    self.read += piece.len() as u64;
                    (self.piece, self.at) = (piece.to_vec(), 0);
                }
                Some(Err(e)) => return Err(RemoteError::of(&e).into()),
                None if self.read != self.size => return Err(short(0..self.size, self.read).into()),
                None => return Ok(0),
            }
        }
        let n = out.len().min(self.piece.len() - self.at);
        out[..n].copy_from_slice(&self.piece[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// `meta` with its ETag as HTTP quotes it: Azure lists its ETags bare
/// but answers with them quoted, so a tag is kept, sent and compared
/// quoted (every object's meta passes here as it comes from the store).
fn quoted(meta: ObjectMeta) -> ObjectMeta {
    let bare = |t: &String| !t.starts_with('"') && !t.starts_with("W/\"");
    let e_tag = meta.e_tag.map(|t| if bare(&t) { format!("\"{t}\"") } else { t });
    ObjectMeta { e_tag, ..meta }
}
