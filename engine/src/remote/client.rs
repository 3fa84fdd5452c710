//! The object-store client's machinery: the HTTP clients every store
//! shares (`OneClient`), a small tokio runtime of its own that tg's
//! threads drive ([`block_on`]), the counters `--stats` prints (requests,
//! bytes fetched), and [`RemoteError`]. The stores themselves: `stores`.
//!
//! Every request is retried by `object_store` on a server error (5xx,
//! `SlowDown`) or a broken connection: 3 retries, the waits doubling from
//! 100 ms, 20 s in all at most; a connection is given 2 s, a request 30 s
//! without progress. What still fails is one [`RemoteError`] line.

use std::future::Future;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use object_store::ClientOptions;
use object_store::client::{HttpClient, HttpConnector, ReqwestConnector};

/// A failed remote operation, worded for one `tg:` line.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{0}")]
pub struct RemoteError(pub String);

impl RemoteError {
    /// `err` from `object_store`, its chain of causes on one line.
    pub fn of(err: &object_store::Error) -> RemoteError {
        use object_store::Error as E;
        let text = causes(err);
        let what = match err {
            _ if text.contains("NoSuchBucket") => "no such bucket".to_string(),
            E::NotFound { .. } => "not found".to_string(),
            E::Precondition { .. } => {
                "the object changed while it was read (its ETag differs)".into()
            }
            // "Generic S3 error: ", "Generic GCS error: ", ...: the store
            // is the path's scheme.
            _ => match text.strip_prefix("Generic ").and_then(|t| t.split_once(" error: ")) {
                Some((_, rest)) => rest.to_string(),
                None => text.clone(),
            },
        };
        RemoteError(what)
    }
}

impl From<RemoteError> for std::io::Error {
    fn from(e: RemoteError) -> std::io::Error {
        std::io::Error::other(e.0)
    }
}

/// `err` and its sources, on one line, without repeats.
pub(super) fn causes(err: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(err);
    while let Some(e) = next {
        let text = e.to_string().split_whitespace().collect::<Vec<_>>().join(" ");
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = e.source();
    }
    let line = parts.join(": ");
    match line.char_indices().nth(400) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line,
    }
}

/// Requests sent and bytes fetched by this process (`--stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Traffic {
    /// Requests (a retried request counts once).
    pub requests: u64,
    /// Bytes of object bodies received.
    pub bytes: u64,
}

static REQUESTS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

/// What this process fetched so far.
pub(crate) fn traffic() -> Traffic {
    Traffic { requests: REQUESTS.load(Ordering::Relaxed), bytes: BYTES.load(Ordering::Relaxed) }
}

/// Counts one request.
pub(crate) fn count_request() {
    REQUESTS.fetch_add(1, Ordering::Relaxed);
}

/// Counts `n` bytes received.
pub(crate) fn count_bytes(n: u64) {
    BYTES.fetch_add(n, Ordering::Relaxed);
}

/// The client's runtime: two threads, started on first use.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("tg-remote")
            .enable_all()
            .build()
            .expect("a tokio runtime (threads and a timer)")
    })
}

/// Runs `future` to its end on the client's runtime, from any thread that
/// is not itself a runtime's.
pub fn block_on<F: Future>(future: F) -> F::Output {
    runtime().block_on(future)
}

/// Runs `future` on the client's runtime in the background.
pub(crate) fn spawn<F>(future: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    runtime().spawn(future)
}

/// A connection is given this long to open.
pub(super) const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// A request is given this long without progress.
pub(super) const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// One HTTP client for every store of the process that speaks TLS, and
/// one for those that speak only plain HTTP (`tls`: false), each built
/// the same way (`stores`' options). Building one the usual way reads
/// the system's root certificates: about 5 ms before the first request,
/// which the plain one skips.
#[derive(Debug)]
pub(super) struct OneClient {
    /// Whether the store's requests may need TLS.
    pub tls: bool,
}

impl HttpConnector for OneClient {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        static CLIENTS: [OnceLock<HttpClient>; 2] = [OnceLock::new(), OnceLock::new()];
        let slot = &CLIENTS[usize::from(self.tls)];
        if let Some(client) = slot.get() {
            return Ok(client.clone());
        }
        let client = match self.tls {
            true => ReqwestConnector::default().connect(options)?,
            false => HttpClient::new(plain_http()?),
        };
        Ok(slot.get_or_init(|| client).clone())
    }
}

/// A client for plain HTTP only, as `object_store` would build it from
/// `stores`' options (its timeouts; no compression, which would hide
/// bodies' lengths), without root certificates.
fn plain_http() -> object_store::Result<reqwest::Client> {
    let client = reqwest::Client::builder()
        .user_agent(concat!("trigrep/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(REQUEST_TIMEOUT)
        .no_gzip()
        .no_brotli()
        .no_zstd()
        .no_deflate()
        .tls_built_in_root_certs(false)
        .build();
    client.map_err(|e| object_store::Error::Generic { store: "HTTP", source: Box::new(e) })
}
