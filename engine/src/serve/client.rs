//! The query side: find the server of an index, ask it what changed, ask
//! for its status, or stop it. Every failure (no server, a stale record, a
//! server still starting, a refusal) is an answer the caller falls back on.

use std::collections::HashMap;
use std::io::{self, BufReader, Write};
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use super::protocol::{self, Kind, PathKind};
use super::rendezvous::{self, Record};
use crate::index::fresh::Reads;
use crate::index::fresh::changes::Touched;
use crate::index::fresh::judge::Counts;
use crate::index::fresh::verdict::Verdict;
use crate::index::fresh::view::Admitted;
use crate::sys::door;

/// How long a client waits for any reply (a sync waits for the watcher
/// at most two seconds).
const REPLY_TIMEOUT: Duration = Duration::from_secs(5);

/// A connection to a server.
pub struct Client {
    r: BufReader<door::Stream>,
    w: door::Stream,
    /// The reply to the hello is still to be read: it is read after the
    /// first request is sent, so both travel in one round trip.
    greeting: bool,
    /// The server's record.
    pub record: Record,
}

/// Why no server answered.
#[derive(Debug, thiserror::Error)]
pub enum NoServer {
    /// No server runs for this index.
    #[error("no server runs for this tree")]
    Absent,
    /// The server is still starting (building its index, first reconcile).
    #[error("the server is still starting")]
    Starting,
    /// The server refused or failed.
    #[error("the server failed: {0}")]
    Failed(String),
}

impl From<io::Error> for NoServer {
    fn from(e: io::Error) -> NoServer {
        NoServer::Failed(e.to_string())
    }
}

impl Client {
    /// Connects to the server of the index in `index_dir`.
    pub fn connect(index_dir: &Path) -> Result<Client, NoServer> {
        let record = rendezvous::read_record(index_dir).ok_or(NoServer::Absent)?;
        let (w, token) = door::connect(&record.socket).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused => NoServer::Absent,
            _ => NoServer::Failed(e.to_string()),
        })?;
        w.set_read_timeout(Some(REPLY_TIMEOUT))?;
        w.set_write_timeout(Some(REPLY_TIMEOUT))?;
        let mut c = Client { r: BufReader::new(w.try_clone()?), w, greeting: true, record };
        let mut hello = json!({"protocol": protocol::VERSION});
        if let Some(token) = token {
            hello["token"] = token.into();
        }
        protocol::write_json(&mut c.w, Kind::Hello, &hello)?;
        Ok(c)
    }

    /// Sends a request (after the hello, whose reply is then read).
    fn request(&mut self, op: &str) -> Result<(), NoServer> {
        let mut message = Vec::new();
        protocol::write_json(&mut message, Kind::Request, &json!({ "op": op }))?;
        self.send(&message)
    }

    /// Sends `message` (frames) in one write, then reads the reply to the
    /// hello if it is still to be read: both travel in one round trip.
    fn send(&mut self, message: &[u8]) -> Result<(), NoServer> {
        self.w.write_all(message)?;
        if std::mem::take(&mut self.greeting) {
            self.reply()?;
        }
        Ok(())
    }

    /// Reads a reply; a refusal is an error.
    fn reply(&mut self) -> Result<Value, NoServer> {
        let v = self.reply_or_refusal()?;
        if v["ok"] == true {
            Ok(v)
        } else {
            Err(NoServer::Failed(v["error"].as_str().unwrap_or("refused").to_string()))
        }
    }

    /// Reads a reply, a refusal (`"ok": false`) included.
    fn reply_or_refusal(&mut self) -> Result<Value, NoServer> {
        match protocol::read_frame(&mut self.r, protocol::MAX_FRAME)? {
            Some((Kind::Reply, body)) => Ok(protocol::parse_json(&body)?),
            Some((k, _)) => Err(NoServer::Failed(format!("unexpected {k:?} frame"))),
            None => Err(NoServer::Failed("the server closed the connection".into())),
        }
    }

    /// Reads the `frames` path lists that follow a reply, each entry into `each`.
    fn paths(
        &mut self,
        frames: u64,
        mut each: impl FnMut(PathKind, &[u8]) -> io::Result<()>,
    ) -> Result<(), NoServer> {
        for _ in 0..frames {
            let Some((Kind::Paths, body)) = protocol::read_frame(&mut self.r, protocol::MAX_FRAME)?
            else {
                return Err(NoServer::Failed("a path list was cut short".into()));
            };
            protocol::for_each_path(&body, &mut each)?;
        }
        Ok(())
    }

    /// What may have changed in the tree since its index was built, and
    /// the identity of that index's table, once the server applied every
    /// change made before this call.
    pub fn sync(&mut self) -> Result<(Touched, u64), NoServer> {
        self.request("sync")?;
        let head = self.reply()?;
        if head["ready"] != true {
            return Err(NoServer::Starting);
        }
        let frames = head["frames"].as_u64().unwrap_or(0);
        let table = head["table"].as_u64().ok_or(NoServer::Failed("no table id".into()))?;
        let mut touched = Touched::default();
        self.paths(frames, |kind, p| {
            match kind {
                PathKind::Path => {
                    touched.paths.insert(p.to_vec());
                }
                PathKind::Subtree => touched.subtrees.push(p.to_vec()),
                _ => return Err(io::Error::other("a sync listed a verdict")),
            }
            Ok(())
        })?;
        Ok((touched, table))
    }

    /// Asks the server to judge the table for a query (see
    /// the server's `answer`): `query` is the planned query as
    /// [`crate::query::wire`] bytes, `scopes` the search paths as
    /// table paths. `Ok(None)`: the server declines (the table cannot stand
    /// in for a walk, or it does not answer `candidates`); the connection
    /// can still [`Client::sync`].
    pub fn candidates(
        &mut self,
        query: &[u8],
        scopes: &[Vec<u8>],
        rules: Rules<'_>,
    ) -> Result<Option<Served>, NoServer> {
        let mut request = json!({
            "op": "candidates", "binary_whole": rules.reads.binary_whole,
            "misses": rules.reads.misses, "out": rules.out, "no_parent": rules.no_parent,
            "zip": rules.reads.zip, "judged": rules.judged, "includes": rules.includes,
        });
        if let Some(g) = rules.globs {
            request["globs"] = json!(g.globs);
            request["iglobs"] = json!(g.iglobs);
            request["glob_ci"] = json!(g.case_insensitive);
        }
        let mut out = Vec::new();
        protocol::write_json(&mut out, Kind::Request, &request)?;
        protocol::write_frame(&mut out, Kind::Query, query)?;
        let paths =
            protocol::encode_paths(scopes.iter().map(|s| (PathKind::Path, &s[..])), usize::MAX);
        protocol::write_frame(&mut out, Kind::Paths, &paths[0])?;
        self.send(&out)?;
        let head = self.reply_or_refusal()?;
        if head["ok"] != true || head["walk"] == true {
            return Ok(None);
        }
        if head["ready"] != true {
            return Err(NoServer::Starting);
        }
        let num = |k: &str| head[k].as_u64().ok_or_else(|| NoServer::Failed(format!("no {k}")));
        let stores = serde_json::from_value(head["stores"].clone()).unwrap_or_default();
        let mut served = Served {
            admitted: Admitted { stores, ignores: head["ignores"] != false },
            outside_dirs: Vec::new(),
            paths: Vec::new(),
            listed: Vec::new(),
            globbed: head["globbed"] == true,
            known: HashMap::new(),
            counts: Counts {
                candidates: num("candidates")?,
                changed: num("changed")?,
                pruned: num("pruned")?,
            },
            files: num("files")? as u32,
            documents: num("documents")? as u32,
            candidate_documents: num("candidate_documents")?,
            server_time: Duration::from_micros(num("micros")?),
        };
        // The path lists read into one buffer, each entry a range of it
        // (the kernel's listing is 83k paths, 3.5 MB).
        let mut bytes = Vec::new();
        for _ in 0..num("frames")? {
            if protocol::read_frame_into(&mut self.r, protocol::MAX_FRAME, &mut bytes)?
                != Some(Kind::Paths)
            {
                return Err(NoServer::Failed("a path list was cut short".into()));
            }
        }
        let (base, listed) = (bytes.as_ptr() as usize, &mut served.listed);
        let known = &mut served.known;
        let (outside_dirs, mut outside) = (&mut served.outside_dirs, false);
        protocol::for_each_path(&bytes, |kind, p| {
            let verdict = match kind {
                PathKind::Read => Verdict::Candidate,
                PathKind::Unread => Verdict::Skip,
                PathKind::ChangedDir => Verdict::DirChanged,
                PathKind::KnownFile | PathKind::KnownDir => {
                    known.insert(p.to_vec(), kind == PathKind::KnownDir);
                    return Ok(());
                }
                PathKind::Outside => {
                    outside = true;
                    return Ok(());
                }
                PathKind::OutsideDir => {
                    outside_dirs.push(p.to_vec());
                    return Ok(());
                }
                PathKind::Path | PathKind::Subtree => {
                    return Err(io::Error::other("candidates listed a touched path"));
                }
            };
            let start = p.as_ptr() as usize - base;
            listed.push((start, p.len(), verdict, std::mem::take(&mut outside)));
            Ok(())
        })?;
        served.paths = bytes;
        Ok(Some(served))
    }

    /// The server's status (see docs/PROTOCOL.md).
    pub fn status(&mut self) -> Result<Value, NoServer> {
        self.request("status")?;
        self.reply()
    }

    /// Asks the server to stop.
    pub fn stop(&mut self) -> Result<(), NoServer> {
        self.request("stop")?;
        self.reply().map(|_| ())
    }
}

/// The rules of a query's sweep that a server must know to judge for it
/// (see [`crate::index::fresh::judge::Judge`]).
#[derive(Clone, Copy, Debug)]
pub struct Rules<'a> {
    /// Which files are read whatever their candidacy.
    pub reads: Reads,
    /// Entries flagged with any of these are left out by the search's walk.
    pub out: u32,
    /// The wider walk judged (`fresh::view::View::judged`): its entries
    /// outside the search's walk are marked [`PathKind::Outside`].
    pub judged: u32,
    /// The search has include globs: the directories outside its walk
    /// by their own name are listed too ([`PathKind::OutsideDir`]).
    pub includes: bool,
    /// `--no-ignore-parent`: the server declines when ignore files lie
    /// above the tree, or a search path is not the tree's root.
    pub no_parent: bool,
    /// The query's `-g`/`--iglob` globs, for the server to apply (when
    /// they are its only filters and every search path is `.`): then
    /// [`Served::globbed`] says whether it did.
    pub globs: Option<Globs<'a>>,
}

/// A query's `-g` and `--iglob` globs (`--glob-case-insensitive`).
#[derive(Clone, Copy, Debug)]
pub struct Globs<'a> {
    /// `-g` globs.
    pub globs: &'a [String],
    /// `--iglob` globs.
    pub iglobs: &'a [String],
    /// `--glob-case-insensitive`.
    pub case_insensitive: bool,
}

/// A server's answer to [`Client::candidates`].
#[derive(Debug)]
pub struct Served {
    /// The path lists as read ([`Served::entries`]).
    paths: Vec<u8>,
    /// Each entry listed: where its path starts in `paths` and its length,
    /// its verdict, and whether it stands outside the search's own walk.
    listed: Vec<(usize, usize, Verdict, bool)>,
    /// The server applied the query's globs ([`Rules::globs`]): every
    /// entry listed is one they admit.
    pub globbed: bool,
    /// The directories outside the search's own walk by their own name
    /// (asked with [`Rules::includes`]).
    pub outside_dirs: Vec<Vec<u8>>,
    /// The table's entries directly below each changed directory, with
    /// whether each is a directory.
    pub known: HashMap<Vec<u8>, bool>,
    /// How the server judged the table's files.
    pub counts: Counts,
    /// Entries of the index's file table.
    pub files: u32,
    /// Documents of the index.
    pub documents: u32,
    /// Candidate documents of the query.
    pub candidate_documents: u64,
    /// The server's time to find the candidates and judge the table.
    pub server_time: Duration,
    /// The repository stores below the search paths and whether ignore
    /// rules leave entries out of every recorded walk
    /// ([`crate::index::fresh::view::table_admits`]).
    pub admitted: Admitted,
}

impl Served {
    /// The table paths to list, in table order: [`Verdict::Candidate`] to
    /// read (a candidate or a changed file), [`Verdict::Skip`] listed
    /// without a match, [`Verdict::DirChanged`] to walk one level deep;
    /// each with whether it stands outside the search's own walk by its
    /// own name (`fresh::view::standing`).
    pub fn entries(&self) -> impl ExactSizeIterator<Item = (&[u8], Verdict, bool)> {
        let path = |start: usize, len: usize| &self.paths[start..start + len];
        self.listed.iter().map(move |&(start, len, v, outside)| (path(start, len), v, outside))
    }
}

/// The pid of the live server of the index in `index_dir`, if one answers.
pub fn live_server(index_dir: &Path) -> Option<u32> {
    Client::connect(index_dir).ok().map(|c| c.record.pid)
}

/// The process id of whatever listens on `socket`, as the kernel tells it
/// ([`door::peer_pid`]), whatever a record says: how `tg stop` makes sure
/// the process it would signal is the server.
pub fn peer_pid(socket: &Path) -> Option<u32> {
    door::peer_pid(socket)
}
