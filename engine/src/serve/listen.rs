//! Answering clients: the local door ([`crate::sys::door`]: a Unix socket,
//! mode 0600 in the private runtime directory; on Windows loopback TCP
//! with a token) and, when asked, a loopback TCP port whose clients must
//! present the token from a 0600 file. One thread per connection, at most
//! [`MAX_CLIENTS`] at once; a connection that takes more than [`IDLE`] to
//! send a message or to take a reply, or sends a malformed message, is
//! closed, and only that connection.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::answer;
use super::protocol::{self, Kind, PathKind};
use super::rendezvous::Record;
use super::server::Server;
use crate::sys::door;

/// Connections served at once; more are closed unanswered.
pub(crate) const MAX_CLIENTS: usize = 256;

/// A connection that takes this long to send a message (or is silent this
/// long), or to take a reply, is closed.
pub(crate) const IDLE: Duration = Duration::from_secs(30);

/// The server's listening sockets.
pub(crate) struct Listeners {
    local: door::Listener,
    tcp: Option<(TcpListener, String)>,
}

impl Listeners {
    /// Opens the local door (replacing a stale one) and the TCP port, and
    /// publishes the server's record.
    pub fn bind(server: &Server) -> io::Result<Listeners> {
        let rv = server.rendezvous();
        let local = door::Listener::bind(&rv.socket)?;
        let tcp = match server.opts().listen {
            Some(addr) if !addr.ip().is_loopback() => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("--listen {addr}: only loopback addresses are served"),
                ));
            }
            Some(addr) => Some((TcpListener::bind(addr)?, rv.new_token()?)),
            None => None,
        };
        let listen = tcp.as_ref().and_then(|(l, _)| l.local_addr().ok()).map(|a| a.to_string());
        rv.publish(&Record { pid: std::process::id(), socket: rv.socket.clone(), listen })?;
        Ok(Listeners { local, tcp })
    }

    /// Accepts connections until the server stops.
    pub fn run(self, server: &Arc<Server>) -> io::Result<()> {
        if let Some((tcp, token)) = self.tcp {
            let s = Arc::clone(server);
            std::thread::Builder::new().name("tg-tcp".into()).spawn(move || {
                for conn in tcp.incoming() {
                    if s.stopping() {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let token = token.clone();
                    spawn_client(&s, move |s| serve_tcp(s, conn, &token));
                }
            })?;
        }
        let token = self.local.token().map(str::to_string);
        loop {
            let conn = self.local.accept();
            if server.stopping() {
                break;
            }
            let Ok(conn) = conn else { continue };
            let token = token.clone();
            spawn_client(server, move |s| serve_local(s, conn, token.as_deref()));
        }
        Ok(())
    }
}

/// Runs `f` for one connection on its own thread, within [`MAX_CLIENTS`].
fn spawn_client(server: &Arc<Server>, f: impl FnOnce(&Server) -> io::Result<()> + Send + 'static) {
    let n = server.client_came();
    let s = Arc::clone(server);
    let run = move || {
        if n < MAX_CLIENTS {
            let _ = f(&s);
        }
        s.client_left();
    };
    if std::thread::Builder::new().name("tg-client".into()).spawn(run).is_err() {
        server.client_left();
    }
}

fn serve_local(server: &Server, conn: door::Stream, token: Option<&str>) -> io::Result<()> {
    let w = conn.try_clone()?;
    converse(server, conn, w, token)
}

fn serve_tcp(server: &Server, conn: TcpStream, token: &str) -> io::Result<()> {
    conn.set_nodelay(true)?;
    let w = conn.try_clone()?;
    converse(server, conn, w, Some(token))
}

/// A connection whose blocking reads and writes can be given time limits.
trait Timed: Read + Write {
    fn read_limit(&self, left: Duration) -> io::Result<()>;
    fn write_limit(&self, left: Duration) -> io::Result<()>;
}

impl Timed for door::Stream {
    fn read_limit(&self, left: Duration) -> io::Result<()> {
        self.set_read_timeout(Some(left))
    }
    fn write_limit(&self, left: Duration) -> io::Result<()> {
        self.set_write_timeout(Some(left))
    }
}

impl Timed for TcpStream {
    fn read_limit(&self, left: Duration) -> io::Result<()> {
        self.set_read_timeout(Some(left))
    }
    fn write_limit(&self, left: Duration) -> io::Result<()> {
        self.set_write_timeout(Some(left))
    }
}

/// One half of a connection on a clock: each message must arrive, and
/// each reply be taken, within [`IDLE`] in all. A per-call timeout alone
/// never fires on a client that sends or reads a few bytes now and then.
struct OnTime<S> {
    s: S,
    until: Instant,
}

impl<S: Timed> OnTime<S> {
    fn new(s: S) -> Self {
        OnTime { s, until: Instant::now() + IDLE }
    }

    /// Starts the clock for the next message.
    fn restart(&mut self) {
        self.until = Instant::now() + IDLE;
    }

    /// What is left of the time, or an error when nothing is.
    fn left(&self) -> io::Result<Duration> {
        match self.until.checked_duration_since(Instant::now()) {
            Some(left) if !left.is_zero() => Ok(left),
            _ => Err(io::Error::new(io::ErrorKind::TimedOut, "the client took too long")),
        }
    }
}

impl<S: Timed> Read for OnTime<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.s.read_limit(self.left()?)?;
        self.s.read(buf)
    }
}

impl<S: Timed> Write for OnTime<S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.s.write_limit(self.left()?)?;
        self.s.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.s.flush()
    }
}

/// One conversation: a hello (with the token when one is required), then
/// requests until the client leaves. Framed or JSON lines, by first byte.
fn converse<S: Timed>(server: &Server, conn: S, w: S, token: Option<&str>) -> io::Result<()> {
    let mut r = BufReader::new(OnTime::new(conn));
    let mut w = OnTime::new(w);
    let json_lines = r.fill_buf()?.first() == Some(&b'{');
    let mut hello_done = false;
    loop {
        let msg = if json_lines {
            protocol::read_json_line(&mut r)?
        } else {
            match protocol::read_frame(&mut r, protocol::MAX_REQUEST)? {
                None => None,
                Some((Kind::Hello | Kind::Request, body)) => Some(protocol::parse_json(&body)?),
                Some((k, _)) => return Err(io::Error::other(format!("unexpected {k:?} frame"))),
            }
        };
        r.get_mut().restart();
        w.restart();
        let Some(msg) = msg else { return Ok(()) };
        if !hello_done {
            let reply = hello(&msg, token);
            let ok = reply["ok"] == true;
            send(&mut w, json_lines, &reply)?;
            if !ok {
                return Ok(());
            }
            hello_done = true;
            continue;
        }
        match msg["op"].as_str() {
            Some("sync") => sync(server, &mut w, json_lines)?,
            Some("candidates") if !json_lines => {
                // The query and the search paths follow, in two frames.
                let query = expect_frame(&mut r, Kind::Query)?;
                let scopes = expect_frame(&mut r, Kind::Paths)?;
                let ask = answer::Ask { request: &msg, query: &query, scopes: &scopes };
                answer::candidates(server, &ask, &mut w)?;
            }
            Some("candidates") => {
                let error = "candidates needs framed messages";
                send(&mut w, true, &json!({"ok": false, "error": error}))?;
            }
            Some("status") => send(&mut w, json_lines, &server.status())?,
            Some("stop") => {
                send(&mut w, json_lines, &json!({"ok": true}))?;
                server.stop();
                return Ok(());
            }
            other => {
                let error =
                    format!("unknown op {}", other.map_or("(none)".into(), |o| format!("{o:?}")));
                send(&mut w, json_lines, &json!({"ok": false, "error": error}))?;
            }
        }
        w.flush()?;
    }
}

/// Reads the next frame, which must be of kind `want`.
fn expect_frame(r: &mut impl Read, want: Kind) -> io::Result<Vec<u8>> {
    match protocol::read_frame(r, protocol::MAX_REQUEST)? {
        Some((kind, body)) if kind == want => Ok(body),
        _ => Err(io::Error::other(format!("expected a {want:?} frame"))),
    }
}

/// The answer to a hello: the protocol version must match, and the token
/// when one is required (compared in constant time; never logged).
fn hello(msg: &Value, token: Option<&str>) -> Value {
    if msg["protocol"].as_u64() != Some(protocol::VERSION) {
        // Only a number is echoed: a refusal never repeats what a client sent.
        let asked = msg["protocol"].as_u64().map_or_else(|| "(none)".into(), |v| v.to_string());
        let error = format!(
            "protocol version {asked} not spoken here (this server speaks {})",
            protocol::VERSION
        );
        return json!({"ok": false, "error": error});
    }
    if let Some(want) = token {
        let given = msg["token"].as_str().unwrap_or("").as_bytes();
        let same = given.len() == want.len()
            && given.iter().zip(want.as_bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
        if !same {
            return json!({"ok": false, "error": "a valid token is required"});
        }
    }
    json!({"ok": true, "protocol": protocol::VERSION, "server": concat!("trigrep ", env!("CARGO_PKG_VERSION"))})
}

/// Replies to `sync`: what queries must stat, once the watcher caught up.
fn sync(server: &Server, w: &mut impl Write, json_lines: bool) -> io::Result<()> {
    let Some(synced) = server.sync() else {
        return send(w, json_lines, &json!({"ok": true, "ready": false}));
    };
    let (t, table) = (synced.touched, synced.reader.stats().table_id);
    let paths = t.paths.iter().map(|p| (PathKind::Path, p.as_slice()));
    let subtrees = t.subtrees.iter().map(|p| (PathKind::Subtree, p.as_slice()));
    if json_lines {
        let to_json = |v: &Vec<u8>| protocol::path_json(v);
        let reply = json!({
            "ok": true, "ready": true, "table": table,
            "paths": t.paths.iter().map(to_json).collect::<Vec<_>>(),
            "subtrees": t.subtrees.iter().map(to_json).collect::<Vec<_>>(),
        });
        return send(w, true, &reply);
    }
    let frames = protocol::encode_paths(paths.chain(subtrees), 1 << 20);
    let head = json!({"ok": true, "ready": true, "table": table, "frames": frames.len()});
    protocol::write_json(w, Kind::Reply, &head)?;
    for f in frames {
        protocol::write_frame(w, Kind::Paths, &f)?;
    }
    Ok(())
}

/// Sends a control message: one frame, or one JSON line.
fn send(w: &mut impl Write, json_lines: bool, v: &Value) -> io::Result<()> {
    if json_lines {
        let mut line = v.to_string();
        line.push('\n');
        w.write_all(line.as_bytes())
    } else {
        protocol::write_json(w, Kind::Reply, v)
    }
}
