//! `tg sql serve`: a warm process that answers `tg sql` queries sent over
//! the door in the per-user runtime directory
//! ([`trigrep::serve::sql_wire`]), so that a short query does not pay for
//! starting DataFusion (see docs/SQL.md, "A warm server").
//!
//! Queries are answered one at a time, each in the client's directory
//! (relative paths mean what they mean to the client) with the client's
//! index directory, in a session of its own: nothing but the warm process
//! is kept between queries, so no answer is staler than a cold one. A
//! query that arrives while another is answered is turned away at once,
//! unanswered, so that it runs cold rather than waits behind a long one.
//!
//! The server leaves (taking its door with it) when asked ([`stop`]),
//! when signalled, after its idle timeout, when another server has taken
//! its door, and when its own program has been replaced on disk (a new
//! build): then the query that finds it so is turned away unanswered, and
//! its client runs it itself. A client whose environment would change an
//! answer is turned away too ([`sql_wire::answer_env`]), and so is a
//! query naming a remote path (`s3://…`), whose store, credentials and
//! endpoint the client's own environment says ([`remote::mentioned`]).

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use trigrep::serve::sql_wire::{self, Asked, Reply, Request};
use trigrep::sys::door::{self, Listener, Stream};

use crate::remote;

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
pub type Answer<'a> = dyn FnMut(Query, &mut dyn Write, &mut Vec<u8>) -> u8 + Send + 'a;

/// The arguments of a request to stop the server.
const STOP: &[u8] = b"stop";

/// How long a client may take to send its query.
const READ_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a write of output may wait for a client that does not read.
const WRITE_TIMEOUT: Duration = Duration::from_secs(60);

/// How often an idle server looks at the clock, its door and its program.
const TICK: Duration = Duration::from_millis(500);

/// How long `stop` waits for the server's process to exit.
const STOP_WAIT: Duration = Duration::from_secs(10);

/// Answers queries on the SQL door through `answer` until the server
/// leaves (see the module's documentation); `idle`: how long it waits for
/// a query before it leaves (`None`: for ever). An error only when the
/// door cannot be opened (another server answers there, say).
pub fn run(idle: Option<Duration>, answer: &mut Answer<'_>) -> io::Result<()> {
    let socket = sql_wire::socket()?;
    if door::connect(&socket).is_ok() {
        let why = format!("a SQL server already answers at {}", socket.display());
        return Err(io::Error::new(io::ErrorKind::AddrInUse, why));
    }
    let listener = Listener::bind(&socket)?;
    let server = Server {
        door: OnDisk::now(socket),
        program: OnDisk::now(std::env::current_exe()?),
        answerer: Mutex::new(answer),
        last: Mutex::new(Instant::now()),
        used: std::sync::atomic::AtomicBool::new(false),
    };
    let on_signal = server.door.clone();
    trigrep::sys::on_stop(move |sig| {
        on_signal.withdraw();
        std::process::exit(128 + sig);
    })?;
    log::info!("answering tg sql at {}", server.door.path.display());
    std::thread::scope(|scope| {
        scope.spawn(|| server.watch(idle));
        loop {
            match listener.accept() {
                Ok(stream) => {
                    let (server, listener) = (&server, &listener);
                    scope.spawn(move || {
                        if let Err(e) = server.serve_one(listener, stream) {
                            log::warn!("a client: {e}");
                        }
                    });
                }
                Err(e) => log::warn!("accepting a client: {e}"),
            }
        }
    })
}

/// Asks the server to stop and waits until its process has exited; `false`
/// (said on standard error) when none answers, so nothing was stopped.
pub fn stop() -> Result<bool, String> {
    let socket = sql_wire::socket().map_err(|e| e.to_string())?;
    let pid = door::peer_pid(&socket);
    let exit = pid.and_then(trigrep::sys::ExitWatch::new);
    match sql_wire::ask(&[STOP.to_vec()], b"") {
        Asked::Answered(_) => {}
        Asked::NoServer => {
            eprintln!("tg: sql: no SQL server answers at {} (nothing to stop)", socket.display());
            return Ok(false);
        }
        // One that does not take the request (of an older wire) is sent
        // the signal it leaves on, if the kernel says which process it is.
        Asked::Declined | Asked::Failed(_) => {
            let pid = pid.ok_or(format!(
                "the SQL server at {} did not take the request to stop",
                socket.display()
            ))?;
            trigrep::sys::terminate(pid).map_err(|e| format!("stopping pid {pid}: {e}"))?;
        }
    }
    if let (Some(exit), Some(pid)) = (exit, pid)
        && !exit.wait(STOP_WAIT)
    {
        return Err(format!("pid {pid} was asked to stop and still runs after {STOP_WAIT:?}"));
    }
    let who = pid.map(|p| format!(" (pid {p})")).unwrap_or_default();
    eprintln!("tg: stopped the SQL server at {}{who}", socket.display());
    Ok(true)
}

/// A running server: its door, its program, and the one answerer that
/// queries take in turn.
struct Server<'a, 'b> {
    door: OnDisk,
    program: OnDisk,
    /// Held while a query is answered (the answerer sets the process's
    /// working directory: one query at a time).
    answerer: Mutex<&'a mut Answer<'b>>,
    /// When the last client came or the last query ended.
    last: Mutex<Instant>,
    /// Whether a query ran since the heap was last given back.
    used: std::sync::atomic::AtomicBool,
}

impl Server<'_, '_> {
    /// Reads one request from `stream` and answers it, or turns it away
    /// unanswered (its client then runs it itself): when the client's
    /// environment would change the answer, when the server's program was
    /// replaced, and when another query is being answered, so that no
    /// query waits behind a long one.
    fn serve_one(&self, listener: &Listener, stream: Stream) -> io::Result<()> {
        *lock(&self.last) = Instant::now();
        stream.set_read_timeout(Some(READ_TIMEOUT))?;
        stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
        let request = Request::read(&mut io::BufReader::new(stream.try_clone()?))?;
        if listener.token().is_some_and(|t| t.as_bytes() != request.token.as_slice()) {
            return Err(io::Error::new(io::ErrorKind::PermissionDenied, "a wrong token"));
        }
        if request.args == [STOP] {
            // Once the query being answered, if any, is done.
            let _answerer = lock(&self.answerer);
            self.door.withdraw();
            log::info!("leaving: asked to stop");
            let mut stream = stream;
            let _ = Reply::Exit(0).write(&mut stream).and_then(|()| stream.flush());
            std::process::exit(0);
        }
        let turned_away = if request.env != sql_wire::answer_env() {
            "the client's HOME or XDG_CONFIG_HOME is not the server's"
        } else if remote::mentioned(&request.args) {
            "it reads remote objects (the settings of a store are the client's environment)"
        } else if self.program.replaced() {
            "the server's program was replaced (it leaves)"
        } else {
            match self.answerer.try_lock() {
                Ok(mut answerer) => return self.answer(&mut **answerer, request, stream),
                // A query panicked: a fresh server answers the next ones.
                Err(std::sync::TryLockError::Poisoned(_)) => self.leave("a query panicked"),
                Err(std::sync::TryLockError::WouldBlock) => "another query is running",
            }
        };
        log::info!("turned away a query: {turned_away}");
        Ok(())
    }

    /// Answers `request` through `answerer` and sends the reply.
    fn answer(
        &self,
        answerer: &mut Answer<'_>,
        request: Request,
        stream: Stream,
    ) -> io::Result<()> {
        let os = |b: Vec<u8>| trigrep::sys::os_string(b);
        let query = Query {
            cwd: PathBuf::from(os(request.cwd)),
            index_dir: PathBuf::from(os(request.index_dir)),
            args: request.args.into_iter().map(os).collect(),
        };
        let (started, cwd, args) = (Instant::now(), query.cwd.clone(), query.args.clone());
        let mut out = BufWriter::with_capacity(64 << 10, Frames(stream.try_clone()?));
        let mut err = Vec::new();
        let code = answerer(query, &mut out, &mut err);
        let flushed = out.flush();
        // Logged before the client has its exit code: a client that
        // reads the log after its query finds the query in it.
        log::info!("answered {args:?} in {} (exit {code}, {:?})", cwd.display(), started.elapsed());
        let sent = flushed.and_then(|()| {
            let mut stream = stream;
            if !err.is_empty() {
                Reply::Stderr(err).write(&mut stream)?;
            }
            Reply::Exit(code).write(&mut stream)?;
            stream.flush()
        });
        *lock(&self.last) = Instant::now();
        self.used.store(true, std::sync::atomic::Ordering::Relaxed);
        sent
    }

    /// Leaves, between queries, when the server has been idle for `idle`,
    /// its door is no longer its own or its program was replaced.
    fn watch(&self, idle: Option<Duration>) {
        loop {
            std::thread::sleep(TICK);
            // The heap a query left is given back once the server is idle,
            // not while a client waits, nor holding the answerer (a query
            // arriving then would be turned away).
            if lock(&self.last).elapsed() >= TICK
                && self.used.swap(false, std::sync::atomic::Ordering::Relaxed)
            {
                trigrep::sys::release_free_heap();
            }
            // Held until the process exits: no query starts meanwhile.
            let Ok(_answerer) = self.answerer.try_lock() else { continue };
            if !self.door.is_ours() {
                log::info!("leaving: another server took the door");
                std::process::exit(0);
            }
            if self.program.replaced() {
                self.leave("its program was replaced");
            }
            if idle.is_some_and(|idle| lock(&self.last).elapsed() >= idle) {
                self.leave("idle");
            }
        }
    }

    /// Takes the door away and exits, saying why.
    fn leave(&self, why: &str) -> ! {
        self.door.withdraw();
        log::info!("leaving: {why}");
        std::process::exit(0)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A file as it was when the server started: its door (which it removes
/// on leaving only while it is still its own) or its program (replaced by
/// a new build).
#[derive(Clone)]
struct OnDisk {
    path: PathBuf,
    id: Option<Identity>,
}

impl OnDisk {
    fn now(path: PathBuf) -> OnDisk {
        let id = Identity::of(&path);
        OnDisk { path, id }
    }

    /// Whether the file at the path is still the one seen at the start.
    fn is_ours(&self) -> bool {
        self.id.is_some() && Identity::of(&self.path) == self.id
    }

    /// Whether another file (or none) is at the path now.
    fn replaced(&self) -> bool {
        self.id.is_some() && !self.is_ours()
    }

    /// Removes the file, if it is still the one seen (the door).
    fn withdraw(&self) {
        if self.is_ours() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// What tells one file at a path from another put there later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Identity {
    file: trigrep::sys::FileId,
    len: u64,
    modified_ns: i64,
}

impl Identity {
    fn of(path: &Path) -> Option<Identity> {
        let md = std::fs::metadata(path).ok()?;
        let file = trigrep::sys::file_id(path, &md);
        Some(Identity { file, len: md.len(), modified_ns: trigrep::sys::modified_ns(&md) })
    }
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
