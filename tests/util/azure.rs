//! An Azure Blob Storage server over a directory, for the tests of
//! `az://` paths: no Azure emulator installs from the registries this
//! project's CI reaches (Azurite is an npm package), so the tests run
//! this one, on 127.0.0.1 on a free port, on a thread of the test process;
//! tg, a process of its own, talks HTTP to it as to Azurite (`env`: the
//! emulator's settings). It answers what a reader and an uploader send:
//! Get Blob Properties (HEAD), Get Blob (with `Range` or `x-ms-range`, and
//! `If-Match`), List Blobs (`restype=container&comp=list`, `prefix`, one
//! page), Put Blob, Put Block and Put Block List (its blocks `Latest` or
//! `Uncommitted`). It checks no signature.
//! A container is a directory of its data, a blob a file.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The emulator's account, in every request's path.
const ACCOUNT: &str = "devstoreaccount1";

/// A server of the blobs under its data directory, stopped with the test.
pub struct AzureServer {
    port: u16,
    data: tempfile::TempDir,
}

/// Blocks put and not yet listed, by blob path and block id.
type Blocks = Arc<Mutex<HashMap<(PathBuf, String), Vec<u8>>>>;

impl AzureServer {
    /// Starts a server with an empty data directory.
    pub fn start() -> AzureServer {
        let data = tempfile::Builder::new().prefix("tg-azure-").tempdir().unwrap();
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let root = data.path().to_path_buf();
        let blocks = Blocks::default();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (root, blocks) = (root.clone(), Arc::clone(&blocks));
                std::thread::spawn(move || serve(stream, &root, &blocks));
            }
        });
        AzureServer { port, data }
    }

    /// The environment that points tg at this server: the Azure emulator's
    /// settings (its account and key, here never checked).
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AZURE_STORAGE_USE_EMULATOR", "true".into()),
            ("AZURITE_BLOB_STORAGE_URL", format!("http://127.0.0.1:{}", self.port)),
        ]
    }

    /// Writes `bytes` as the blob `key` of `container`.
    pub fn put(&self, container: &str, key: &str, bytes: &[u8]) {
        let path = self.data.path().join(container).join(key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    /// The blob `key` of `container`, if there is one.
    pub fn get(&self, container: &str, key: &str) -> Option<Vec<u8>> {
        std::fs::read(self.data.path().join(container).join(key)).ok()
    }
}

/// A request: its method, path below the account, query and headers
/// (names lower-cased), and body.
struct Request {
    method: String,
    path: String,
    query: HashMap<String, String>,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

/// Answers the requests of one connection until it closes.
fn serve(stream: TcpStream, root: &Path, blocks: &Blocks) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    while let Some(request) = read_request(&mut reader) {
        let (status, headers, body, head) = answer(&request, root, blocks);
        let mut text = format!("HTTP/1.1 {status}\r\n");
        for (k, v) in &headers {
            text.push_str(&format!("{k}: {v}\r\n"));
        }
        text.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
        let mut bytes = text.into_bytes();
        if !head {
            bytes.extend_from_slice(&body);
        }
        if out.write_all(&bytes).is_err() {
            return;
        }
    }
}

/// The next request of a connection (`None`: it closed).
fn read_request(reader: &mut impl BufRead) -> Option<Request> {
    let mut line = String::new();
    reader.read_line(&mut line).ok().filter(|n| *n > 0)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next()?.to_string(), parts.next()?);
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let query = query
        .split('&')
        .filter_map(|p| p.split_once('=').or(Some((p, ""))))
        .map(|(k, v)| (k.to_string(), unescape(v)))
        .collect();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let len = headers.get("content-length").and_then(|l: &String| l.parse().ok()).unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    let path = unescape(path.strip_prefix(&format!("/{ACCOUNT}/"))?);
    Some(Request { method, path, query, headers, body })
}

/// `text` with its `%XX` escapes decoded.
fn unescape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = (bytes[i] == b'%').then(|| text.get(i + 1..i + 3)).flatten();
        match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(b) => (out.push(b), i += 3).1,
            None => (out.push(bytes[i]), i += 1).1,
        };
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A blob's ETag: a hash of its bytes.
fn etag(bytes: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    format!("\"0x{:016X}\"", h.finish())
}

/// Every blob's modification time (the tests' blobs need no other).
const MODIFIED: &str = "Sun, 06 Dec 2026 00:00:00 GMT";

type Answer = (&'static str, Vec<(String, String)>, Vec<u8>, bool);

/// The answer to `r`: status, headers, body, and whether the body is left
/// out (a HEAD's).
fn answer(r: &Request, root: &Path, blocks: &Blocks) -> Answer {
    let error = |status, code: &str| {
        let body = format!("<?xml version=\"1.0\"?><Error><Code>{code}</Code></Error>");
        (status, Vec::new(), body.into_bytes(), r.method == "HEAD")
    };
    let (container, blob) = r.path.split_once('/').unwrap_or((&r.path, ""));
    let path = root.join(container).join(blob);
    match r.method.as_str() {
        "GET" if r.query.get("comp").map(String::as_str) == Some("list") => {
            list(root, container, r.query.get("prefix").map_or("", String::as_str))
        }
        "GET" | "HEAD" => {
            let Ok(bytes) = std::fs::read(&path) else {
                return error("404 Not Found", "BlobNotFound");
            };
            let tag = etag(&bytes);
            // Azure lists an ETag without its quotes and takes it so.
            let unquoted = |t: &str| t.trim_matches('"').to_string();
            if r.headers.get("if-match").is_some_and(|m| unquoted(m) != unquoted(&tag) && m != "*")
            {
                return error("412 Precondition Failed", "ConditionNotMet");
            }
            let mut headers = vec![
                ("etag".to_string(), tag),
                ("last-modified".into(), MODIFIED.into()),
                ("x-ms-blob-type".into(), "BlockBlob".into()),
                ("content-type".into(), "application/octet-stream".into()),
            ];
            let range = r.headers.get("x-ms-range").or(r.headers.get("range"));
            let Some(range) = range.and_then(|v| v.strip_prefix("bytes=")) else {
                return ("200 OK", headers, bytes, r.method == "HEAD");
            };
            let (from, to) = range.split_once('-').unwrap_or((range, ""));
            let len = bytes.len() as u64;
            let (from, to) = match (from.parse::<u64>(), to.parse::<u64>()) {
                (Ok(f), Ok(t)) => (f, t.min(len.saturating_sub(1))),
                (Ok(f), Err(_)) => (f, len.saturating_sub(1)),
                _ => return error("416 Range Not Satisfiable", "InvalidRange"),
            };
            if from >= len || from > to {
                return error("416 Range Not Satisfiable", "InvalidRange");
            }
            headers.push(("content-range".into(), format!("bytes {from}-{to}/{len}")));
            let part = bytes[from as usize..=to as usize].to_vec();
            ("206 Partial Content", headers, part, r.method == "HEAD")
        }
        "PUT" => {
            let created = ("201 Created", vec![("etag".into(), etag(&r.body))], Vec::new(), false);
            let mut blocks = blocks.lock().unwrap();
            match r.query.get("comp").map(String::as_str) {
                Some("block") => {
                    let id = r.query.get("blockid").cloned().unwrap_or_default();
                    blocks.insert((path, id), r.body.clone());
                    created
                }
                Some("blocklist") => {
                    let text = String::from_utf8_lossy(&r.body).into_owned();
                    let mut whole = Vec::new();
                    let ids = text.split('<').filter_map(|piece| {
                        piece.strip_prefix("Latest>").or(piece.strip_prefix("Uncommitted>"))
                    });
                    for id in ids {
                        match blocks.remove(&(path.clone(), id.to_string())) {
                            Some(block) => whole.extend(block),
                            None => return error("400 Bad Request", "InvalidBlockList"),
                        }
                    }
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::write(&path, &whole).unwrap();
                    ("201 Created", vec![("etag".into(), etag(&whole))], Vec::new(), false)
                }
                _ => {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::write(&path, &r.body).unwrap();
                    created
                }
            }
        }
        _ => error("405 Method Not Allowed", "UnsupportedHttpVerb"),
    }
}

/// List Blobs of `container` under `prefix`: one page, names sorted.
fn list(root: &Path, container: &str, prefix: &str) -> Answer {
    let dir = root.join(container);
    let mut names = Vec::new();
    let mut pending = vec![dir.clone()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let name = path.strip_prefix(&dir).unwrap().to_string_lossy().into_owned();
                names.extend(Some(name).filter(|n| n.starts_with(prefix)));
            }
        }
    }
    names.sort();
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><EnumerationResults ContainerName=\"{container}\"><Prefix>{prefix}</Prefix><Blobs>"
    );
    for name in names {
        let bytes = std::fs::read(dir.join(&name)).unwrap();
        xml.push_str(&format!(
            "<Blob><Name>{name}</Name><Properties><Last-Modified>{MODIFIED}</Last-Modified><Etag>{}</Etag><Content-Length>{}</Content-Length><Content-Type>application/octet-stream</Content-Type><BlobType>BlockBlob</BlobType></Properties></Blob>",
            etag(&bytes).trim_matches('"'),
            bytes.len()
        ));
    }
    xml.push_str("</Blobs></EnumerationResults>");
    let headers = vec![("content-type".into(), "application/xml".into())];
    ("200 OK", headers, xml.into_bytes(), false)
}
