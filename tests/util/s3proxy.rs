//! A small fault-injecting HTTP proxy in front of the test S3 server
//! (`util/s3.rs`): one request per connection (it asks the server to
//! close after answering), each passed through or spoiled as its
//! [`Fault`] says: answered `503 SlowDown`, reset, its body cut short,
//! its `ETag` changed, a byte of a ranged answer damaged or cut before,
//! or a hook run before it is forwarded (to replace the object it reads,
//! say). Counts the requests it saw and the bytes
//! it answered.
// Each test binary that includes this file uses part of it.
#![allow(dead_code)]

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// What the proxy does to a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Pass it through.
    None,
    /// Answer `503 SlowDown` to the next this many requests.
    SlowDown(usize),
    /// Reset every connection once its request is read.
    Reset,
    /// Pass the answer on, but only its first this many bytes, then reset.
    Truncate(usize),
    /// Answer a GET of an object's bytes with another `ETag`.
    OtherEtag,
    /// Flip the bits of the object's byte at this offset in every answer
    /// of a ranged GET that holds it (the server's answer damaged).
    Flip(u64),
    /// Cut every answer of a ranged GET that holds the object's byte at
    /// this offset just before it, then reset.
    CutAt(u64),
    /// Pass it through without its `Authorization` header: a server of
    /// public objects behind a client that sends a token it cannot read
    /// (Google Cloud Storage's client, set as for an emulator).
    Unsigned,
}

/// Called with each request's first line before it is forwarded (on the
/// request's own thread: a hook may wait while others run).
pub type Hook = Box<dyn Fn(&str) + Send + Sync>;

struct Shared {
    fault: Mutex<Fault>,
    hook: Mutex<Option<Arc<Hook>>>,
    requests: AtomicUsize,
    answered: AtomicUsize,
    stop: AtomicBool,
}

/// A running proxy.
pub struct FaultProxy {
    port: u16,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl FaultProxy {
    /// A proxy on a free port of 127.0.0.1 forwarding to `upstream` (a port).
    pub fn start(upstream: u16) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            fault: Mutex::new(Fault::None),
            hook: Mutex::new(None),
            requests: AtomicUsize::new(0),
            answered: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        });
        let s = Arc::clone(&shared);
        let accept = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let s = Arc::clone(&s);
                std::thread::spawn(move || {
                    let _ = serve(conn, upstream, &s);
                });
            }
        });
        FaultProxy { port, shared, accept: Some(accept) }
    }

    /// Its endpoint URL.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Sets what it does from now on.
    pub fn set(&self, fault: Fault) {
        *self.shared.fault.lock().unwrap() = fault;
    }

    /// Runs `hook` on every request from now on.
    pub fn hook(&self, hook: Hook) {
        *self.shared.hook.lock().unwrap() = Some(Arc::new(hook));
    }

    /// Requests seen so far.
    pub fn requests(&self) -> usize {
        self.shared.requests.load(Ordering::SeqCst)
    }

    /// Bytes of the server's answers (heads and bodies) passed on so far.
    pub fn answered(&self) -> usize {
        self.shared.answered.load(Ordering::SeqCst)
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
    }
}

/// Resets `conn` (SO_LINGER 0, then close).
fn reset(conn: TcpStream) {
    use std::os::fd::AsRawFd;
    let linger = libc::linger { l_onoff: 1, l_linger: 0 };
    // SAFETY: a valid socket and a `linger` of the size passed.
    unsafe {
        libc::setsockopt(
            conn.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
    drop(conn);
}

/// Reads one request (head and `Content-Length` body) from `conn`.
fn read_request(conn: &mut TcpStream) -> io::Result<(String, Vec<u8>)> {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = conn.read(&mut buf)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        bytes.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let length = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_string())
        })
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(0);
    while bytes.len() < head_end + length {
        let n = conn.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buf[..n]);
    }
    let body = bytes[head_end..].to_vec();
    Ok((head, body))
}

fn serve(mut conn: TcpStream, upstream: u16, s: &Shared) -> io::Result<()> {
    let (head, body) = read_request(&mut conn)?;
    s.requests.fetch_add(1, Ordering::SeqCst);
    let first = head.lines().next().unwrap_or("").to_string();
    let hook = s.hook.lock().unwrap().clone();
    if let Some(hook) = hook {
        hook(&first);
    }
    let fault = {
        let mut f = s.fault.lock().unwrap();
        let now = *f;
        if let Fault::SlowDown(n) = now {
            *f = if n > 1 { Fault::SlowDown(n - 1) } else { Fault::None };
        }
        now
    };
    match fault {
        Fault::SlowDown(_) => {
            let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
            let answer = format!(
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{xml}",
                xml.len()
            );
            conn.write_all(answer.as_bytes())?;
            return conn.shutdown(Shutdown::Both);
        }
        Fault::Reset => {
            reset(conn);
            return Ok(());
        }
        _ => {}
    }
    // Forward with `Connection: close`, so the answer ends where the server closes.
    let mut up = TcpStream::connect(("127.0.0.1", upstream))?;
    let unsigned = *s.fault.lock().unwrap() == Fault::Unsigned;
    let dropped = |l: &str| {
        let l = l.to_ascii_lowercase();
        l.starts_with("connection:") || (unsigned && l.starts_with("authorization:"))
    };
    let head: String = head.split("\r\n").filter(|l| !dropped(l)).collect::<Vec<_>>().join("\r\n");
    let head = head.trim_end_matches("\r\n").to_string() + "\r\nConnection: close\r\n\r\n";
    up.write_all(head.as_bytes())?;
    up.write_all(&body)?;
    let mut answer = Vec::new();
    up.read_to_end(&mut answer)?;
    s.answered.fetch_add(answer.len(), Ordering::SeqCst);
    let at = |x: u64| -> Option<usize> {
        let start = ranged_start(&head)?;
        let body = answer.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
        let i = body + usize::try_from(x.checked_sub(start)?).ok()?;
        (i < answer.len() && answer.starts_with(b"HTTP/1.1 206")).then_some(i)
    };
    match fault {
        Fault::Flip(x) if at(x).is_some() => {
            let i = at(x).unwrap();
            answer[i] ^= 0xFF;
            conn.write_all(&answer)
        }
        Fault::CutAt(x) if at(x).is_some() => {
            conn.write_all(&answer[..at(x).unwrap()])?;
            conn.flush()?;
            reset(conn);
            Ok(())
        }
        Fault::Truncate(n) if answer.len() > n => {
            conn.write_all(&answer[..n])?;
            conn.flush()?;
            reset(conn);
            Ok(())
        }
        Fault::OtherEtag if first.starts_with("GET ") && !first.contains("list-type") => {
            let text = String::from_utf8_lossy(&answer).into_owned();
            let at = text.to_ascii_lowercase().find("\r\netag: \"");
            if let Some(at) = at {
                // The ETag's first hex digit, changed.
                let digit = at + "\r\netag: \"".len();
                answer[digit] = if answer[digit] == b'0' { b'1' } else { b'0' };
            }
            conn.write_all(&answer)
        }
        _ => conn.write_all(&answer),
    }
}

/// The first byte a ranged request (`Range: bytes=A-B`) asks for.
fn ranged_start(head: &str) -> Option<u64> {
    let line = head.lines().find(|l| l.to_ascii_lowercase().starts_with("range:"))?;
    let spec = line.split_once('=')?.1.trim();
    spec.split_once('-')?.0.trim().parse().ok()
}
