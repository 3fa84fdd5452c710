//! A real S3 server for the remote tests: `s3s-fs` (an S3 server over a
//! directory, crates.io; `.ci/run` installs the pinned version) started on
//! 127.0.0.1 on a free port with its own temporary data directory and
//! credentials, stopped (killed) when dropped. Buckets are directories of
//! its data (s3s-fs keeps a bucket as one); objects are uploaded through
//! the S3 API by `object_store`, the client tg reads with. The SQL
//! crate's remote tests start theirs with this file too
//! (`sql/tests/s3.rs`).
#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use object_store::aws::AmazonS3Builder;
use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

/// Where `.ci/run` installs s3s-fs.
pub const PINNED_S3S_FS: &str = "/root/.cache/trigrep-ci/s3s-fs-0.14.1/bin/s3s-fs";

/// The test server's access key and secret.
pub const KEY_ID: &str = "tgtestkey";
/// See [`KEY_ID`].
pub const SECRET: &str = "tgtestsecret";

/// The s3s-fs binary: `TG_TEST_S3S_FS`, else the pinned CI build. Fails
/// the test when missing: a remote suite must never pass without a server.
pub fn s3s_fs_bin() -> PathBuf {
    let path = match std::env::var_os("TG_TEST_S3S_FS") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(PINNED_S3S_FS),
    };
    assert!(path.is_file(), "no s3s-fs at {} (run .ci/run, or set TG_TEST_S3S_FS)", path.display());
    path
}

/// A running S3 server with its own data.
pub struct S3Server {
    /// Whether it asks for no credentials (and answers signed requests
    /// with an error): a server of public objects.
    open: bool,
    child: Option<Child>,
    port: u16,
    data: tempfile::TempDir,
}

/// A port free on 127.0.0.1 now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Waits until something accepts connections on `port`.
pub fn wait_listening(port: u16) {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(20), "nothing listens on port {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl S3Server {
    /// Starts a server with an empty data directory.
    pub fn start() -> S3Server {
        let data = tempfile::Builder::new().prefix("tg-s3-").tempdir().unwrap();
        let mut server = S3Server { open: false, child: None, port: free_port(), data };
        server.restart();
        server
    }

    /// Starts a server of public objects (no credentials), with an empty
    /// data directory: what a web server's or a Google Cloud Storage
    /// reader's tests read through (its XML API is S3's).
    pub fn start_open() -> S3Server {
        let data = tempfile::Builder::new().prefix("tg-s3-").tempdir().unwrap();
        let mut server = S3Server { open: true, child: None, port: free_port(), data };
        server.restart();
        server
    }

    /// Starts the server again (after [`S3Server::stop`]) on the same port
    /// and data.
    pub fn restart(&mut self) {
        let child = Command::new(s3s_fs_bin())
            .args(["--host", "127.0.0.1", "--port", &self.port.to_string()])
            .args(if self.open {
                &[][..]
            } else {
                &["--access-key", KEY_ID, "--secret-key", SECRET]
            })
            .arg(self.data.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("s3s-fs starts");
        self.child = Some(child);
        wait_listening(self.port);
    }

    /// Stops the server (SIGKILL), keeping its data.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The server process's id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("a running server").id()
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its endpoint URL.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Its data directory (a bucket is a directory in it).
    pub fn data(&self) -> &Path {
        self.data.path()
    }

    /// Creates the bucket `name`.
    pub fn create_bucket(&self, name: &str) {
        std::fs::create_dir_all(self.data.path().join(name)).unwrap();
    }

    /// A client of `bucket` through `endpoint` (this server's, or a proxy's).
    pub fn client_via(&self, bucket: &str, endpoint: &str) -> Arc<dyn ObjectStore> {
        let store = AmazonS3Builder::new()
            .with_bucket_name(bucket)
            .with_region("us-east-1")
            .with_endpoint(endpoint)
            .with_allow_http(true)
            .with_access_key_id(KEY_ID)
            .with_secret_access_key(SECRET)
            .with_skip_signature(self.open)
            .build()
            .unwrap();
        Arc::new(store)
    }

    /// Uploads `bytes` as `bucket`/`key`, through the S3 API.
    pub fn put(&self, bucket: &str, key: &str, bytes: &[u8]) {
        let client = self.client_via(bucket, &self.endpoint());
        let payload = PutPayload::from(bytes.to_vec());
        runtime().block_on(client.put(&Key::from(key), payload)).unwrap();
    }

    /// Uploads every file under `dir` to `bucket`, under `prefix`.
    pub fn put_tree(&self, bucket: &str, prefix: &str, dir: &Path) {
        for entry in walk(dir) {
            let rel = entry.strip_prefix(dir).unwrap().to_str().unwrap().to_string();
            self.put(bucket, &format!("{prefix}{rel}"), &std::fs::read(&entry).unwrap());
        }
    }

    /// The environment that points tg at this server (with `endpoint`),
    /// as the AWS CLI takes it; the metadata service is never asked.
    pub fn env_via(&self, endpoint: &str) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", KEY_ID.into()),
            ("AWS_SECRET_ACCESS_KEY", SECRET.into()),
            ("AWS_REGION", "us-east-1".into()),
            ("AWS_ENDPOINT_URL", endpoint.into()),
            ("AWS_EC2_METADATA_DISABLED", "true".into()),
        ]
    }

    /// [`S3Server::env_via`] this server's own endpoint.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        self.env_via(&self.endpoint())
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Every file under `dir`, sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// The tests' tokio runtime.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap()
    })
}
