//! The object-store client: one `object_store` S3 store per bucket, built
//! from `Settings` once per process, driven from tg's threads on a small
//! tokio runtime of its own ([`block_on`]), and the counters `--stats`
//! prints (requests, bytes fetched).
//!
//! Every request is retried by `object_store` on a server error (5xx,
//! `SlowDown`) or a broken connection: 3 retries, the waits doubling from
//! 100 ms, 20 s in all at most; a connection is given 2 s, a request 30 s
//! without progress. What still fails is one [`RemoteError`] line.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use object_store::aws::AmazonS3Builder;
use object_store::client::{HttpClient, HttpConnector, ReqwestConnector};
use object_store::{BackoffConfig, ClientOptions, ObjectStore, RetryConfig};

use super::settings::{Process, Settings};

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
            _ => text.strip_prefix("Generic S3 error: ").unwrap_or(&text).to_string(),
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
fn causes(err: &dyn std::error::Error) -> String {
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

/// The store of `bucket`, built once per process from the AWS CLI's
/// settings (`Settings`).
pub fn store(bucket: &str) -> Result<Arc<dyn ObjectStore>, RemoteError> {
    stored(bucket, true)
}

/// The store of `bucket` for requests whose failure costs nothing but
/// the request (a first reader's guess at an object's tail: a store may
/// refuse a suffix longer than the object, as s3s-fs does with a 500),
/// never retried.
pub(crate) fn store_unretried(bucket: &str) -> Result<Arc<dyn ObjectStore>, RemoteError> {
    stored(bucket, false)
}

/// The store of `bucket`, its failed requests `retried` or not.
fn stored(bucket: &str, retried: bool) -> Result<Arc<dyn ObjectStore>, RemoteError> {
    type Stores = Mutex<HashMap<(String, bool), Arc<dyn ObjectStore>>>;
    static STORES: OnceLock<Stores> = OnceLock::new();
    static SETTINGS: OnceLock<Settings> = OnceLock::new();
    let mut stores = STORES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let key = (bucket.to_string(), retried);
    if let Some(store) = stores.get(&key) {
        return Ok(Arc::clone(store));
    }
    let settings = SETTINGS.get_or_init(|| Settings::read(&Process));
    let store = build(settings, bucket, retried)?;
    stores.insert(key, Arc::clone(&store));
    Ok(store)
}

/// One HTTP client for every store of the process (each built the same
/// way, retried or not): building one reads the system's root
/// certificates, tens of milliseconds before the first request.
#[derive(Debug)]
struct OneClient;

impl HttpConnector for OneClient {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        static CLIENT: OnceLock<HttpClient> = OnceLock::new();
        if let Some(client) = CLIENT.get() {
            return Ok(client.clone());
        }
        let client = ReqwestConnector::default().connect(options)?;
        Ok(CLIENT.get_or_init(|| client).clone())
    }
}

/// An S3 store of `bucket` with `settings`, its failed requests `retried`
/// (with backoff) or not.
fn build(
    settings: &Settings,
    bucket: &str,
    retried: bool,
) -> Result<Arc<dyn ObjectStore>, RemoteError> {
    let retry = RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
            base: 2.0,
        },
        max_retries: if retried { 3 } else { 0 },
        retry_timeout: Duration::from_secs(20),
    };
    let client = ClientOptions::new()
        .with_connect_timeout(Duration::from_secs(2))
        .with_timeout(Duration::from_secs(30));
    let mut b = AmazonS3Builder::new()
        .with_bucket_name(bucket)
        .with_region(&settings.region)
        .with_retry(retry)
        .with_client_options(client)
        .with_http_connector(OneClient);
    if let Some(endpoint) = &settings.endpoint {
        b = b.with_endpoint(endpoint).with_allow_http(endpoint.starts_with("http://"));
    }
    match &settings.credentials {
        Some(c) => {
            b = b.with_access_key_id(&c.key_id).with_secret_access_key(&c.secret);
            if let Some(token) = &c.token {
                b = b.with_token(token);
            }
        }
        None if !settings.metadata => {
            return Err(RemoteError(
                "no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or \
                 AWS_PROFILE with ~/.aws/credentials)"
                    .into(),
            ));
        }
        None => {}
    }
    let store = b.build().map_err(|e| RemoteError(causes(&e)))?;
    Ok(Arc::new(store))
}
