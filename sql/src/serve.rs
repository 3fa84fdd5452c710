//! `tg sql serve`: a warm process that answers `tg sql` queries sent over
//! the door in the per-user runtime directory
//! ([`trigrep::serve::sql_wire`]), so that a short query does not pay for
//! starting DataFusion (see docs/SQL.md, "A warm server").
//!
//! Queries are answered one at a time, each in the client's directory
//! (relative paths mean what they mean to the client) with the client's
//! index directory, in a session of its own: nothing but the warm process
//! is kept between queries, so no answer is staler than a cold one.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use trigrep::serve::sql_wire::{self, Reply, Request};
use trigrep::sys::door::{self, Listener, Stream};

/// A query as the server hands it to its answerer.
pub struct Query {
    /// The client's working directory.
    pub cwd: PathBuf,
    /// The client's index directory.
    pub index_dir: PathBuf,
    /// The arguments after `tg sql`.
    pub args: Vec<std::ffi::OsString>,
}

/// What answers one query: writes its output to the first writer and its
/// errors to the second, and returns its exit code.
pub type Answer<'a> = dyn FnMut(Query, &mut dyn Write, &mut Vec<u8>) -> u8 + 'a;

/// How long a client may take to send its query.
const READ_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a write of output may wait for a client that does not read.
const WRITE_TIMEOUT: Duration = Duration::from_secs(60);

/// Answers queries on the SQL door until the process is stopped, each
/// through `answer`. An error only when the door cannot be opened
/// (another server answers there, say).
pub fn run(answer: &mut Answer<'_>) -> io::Result<()> {
    let socket = sql_wire::socket()?;
    if door::connect(&socket).is_ok() {
        let why = format!("a SQL server already answers at {}", socket.display());
        return Err(io::Error::new(io::ErrorKind::AddrInUse, why));
    }
    let listener = Listener::bind(&socket)?;
    log::info!("answering tg sql at {}", socket.display());
    loop {
        let stream = match listener.accept() {
            Ok(s) => s,
            Err(e) => {
                log::warn!("accepting a client: {e}");
                continue;
            }
        };
        if let Err(e) = serve_one(&listener, stream, answer) {
            log::warn!("a client: {e}");
        }
    }
}

/// Reads one query from `stream`, answers it and sends the reply.
fn serve_one(listener: &Listener, stream: Stream, answer: &mut Answer<'_>) -> io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
    let mut reader = io::BufReader::new(stream.try_clone()?);
    let request = Request::read(&mut reader)?;
    if listener.token().is_some_and(|t| t.as_bytes() != request.token.as_slice()) {
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, "a wrong token"));
    }
    let os = |b: Vec<u8>| trigrep::sys::os_string(b);
    let query = Query {
        cwd: PathBuf::from(os(request.cwd)),
        index_dir: PathBuf::from(os(request.index_dir)),
        args: request.args.into_iter().map(os).collect(),
    };
    let (started, cwd, args) = (Instant::now(), query.cwd.clone(), query.args.clone());
    let mut out = BufWriter::with_capacity(64 << 10, Frames(stream.try_clone()?));
    let mut err = Vec::new();
    let code = answer(query, &mut out, &mut err);
    out.flush()?;
    log::info!("answered {args:?} in {} (exit {code}, {:?})", cwd.display(), started.elapsed());
    let mut stream = stream;
    if !err.is_empty() {
        Reply::Stderr(err).write(&mut stream)?;
    }
    Reply::Exit(code).write(&mut stream)?;
    stream.flush()
}

/// Standard output as reply frames.
struct Frames(Stream);

impl Write for Frames {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        sql_wire::write_stdout(&mut self.0, buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}
