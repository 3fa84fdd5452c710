//! The wire between `tg sql` and a warm SQL server (`tg sql serve`, in the
//! `trigrep-sql` crate): a query's command line goes over the door
//! ([`crate::sys::door`]) to a process whose DataFusion is already loaded,
//! and its output comes back, so that a short query costs what it reads,
//! not a cold start of a query engine.
//!
//! The server runs each query in the directory and with the index
//! directory of the client that sent it, and prints exactly what
//! `tg-sql` run in the client's place would print; nothing is kept
//! between queries but the warm process. A client whose environment
//! would change an answer ([`answer_env`]: where its ignore rules live)
//! is turned away, as is every client once the server's own program has
//! been replaced on disk: the server hangs up before any output and the
//! client runs the query itself ([`Asked::Declined`]).
//!
//! A request: [`MAGIC`], then a `u32` count and that many strings, each a
//! `u32` length and its bytes (little-endian): the door's token (empty
//! where none is needed), the client's directory, its index directory,
//! its [`answer_env`], then the arguments. A reply: frames of one tag byte — `o` and `e`
//! (standard output and error) with a `u32` length and the bytes, `x`
//! with the exit code in one byte, the last frame.

use std::io::{self, Read, Write};
use std::path::PathBuf;

/// What every request starts with (a version of the wire too: a server
/// that does not know it hangs up, and the client runs the query itself).
pub const MAGIC: &[u8; 7] = b"TGSQL2\n";

/// The strings of a request before its arguments.
const FIXED: u32 = 4;

/// The environment variables that can change a query's answer: where the
/// user's global ignore rules are found (`~/.config/git/ignore`, the
/// `core.excludesFile` of `~/.gitconfig`).
const ANSWER_ENV: [&str; 2] = ["HOME", "XDG_CONFIG_HOME"];

/// The most strings a request holds.
const MAX_STRINGS: u32 = 4096;

/// The longest string or output frame, in bytes.
const MAX_LEN: u32 = 16 << 20;

/// The SQL server's door in the per-user runtime directory.
pub fn socket() -> io::Result<PathBuf> {
    Ok(super::rendezvous::runtime_dir()?.join("sql.sock"))
}

/// A query sent to the server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// The door's token, where it needs one (else empty).
    pub token: Vec<u8>,
    /// The client's working directory.
    pub cwd: Vec<u8>,
    /// The client's index directory.
    pub index_dir: Vec<u8>,
    /// The client's [`answer_env`].
    pub env: Vec<u8>,
    /// The arguments after `tg sql`.
    pub args: Vec<Vec<u8>>,
}

impl Request {
    /// The request's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let fixed = [&self.token, &self.cwd, &self.index_dir, &self.env];
        let strings = fixed.into_iter().chain(&self.args);
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&(FIXED + self.args.len() as u32).to_le_bytes());
        for s in strings {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s);
        }
        out
    }

    /// Reads a request; `InvalidData` when the bytes are not one.
    pub fn read(r: &mut dyn Read) -> io::Result<Request> {
        let mut magic = [0; MAGIC.len()];
        r.read_exact(&mut magic)?;
        if &magic != MAGIC {
            return Err(invalid("not a tg sql request"));
        }
        let n = read_u32(r)?;
        if !(FIXED..=MAX_STRINGS).contains(&n) {
            return Err(invalid("a tg sql request holds 4 to 4096 strings"));
        }
        let mut strings = (0..n).map(|_| read_bytes(r)).collect::<io::Result<Vec<_>>>()?;
        let args = strings.split_off(FIXED as usize);
        let [token, cwd, index_dir, env] =
            <[Vec<u8>; FIXED as usize]>::try_from(strings).expect("the fixed strings");
        Ok(Request { token, cwd, index_dir, env, args })
    }
}

/// One frame of a reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Bytes for standard output.
    Stdout(Vec<u8>),
    /// Bytes for standard error.
    Stderr(Vec<u8>),
    /// The exit code; the reply's last frame.
    Exit(u8),
}

impl Reply {
    /// Writes this frame.
    pub fn write(&self, w: &mut dyn Write) -> io::Result<()> {
        match self {
            Reply::Stdout(b) => write_stdout(w, b),
            Reply::Stderr(b) => write_frame(w, b'e', b),
            Reply::Exit(code) => w.write_all(&[b'x', *code]),
        }
    }

    /// Reads a frame; `InvalidData` when the bytes are not one.
    pub fn read(r: &mut dyn Read) -> io::Result<Reply> {
        let mut tag = [0; 1];
        r.read_exact(&mut tag)?;
        match tag[0] {
            b'o' => Ok(Reply::Stdout(read_bytes(r)?)),
            b'e' => Ok(Reply::Stderr(read_bytes(r)?)),
            b'x' => {
                r.read_exact(&mut tag)?;
                Ok(Reply::Exit(tag[0]))
            }
            _ => Err(invalid("not a tg sql reply")),
        }
    }
}

/// Writes `bytes` as [`Reply::Stdout`] frames, without copying them first.
pub fn write_stdout(w: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    write_frame(w, b'o', bytes)
}

/// Writes `bytes` as output frames: as several when longer than one may
/// be, as none when empty.
fn write_frame(w: &mut dyn Write, tag: u8, bytes: &[u8]) -> io::Result<()> {
    for piece in bytes.chunks(MAX_LEN as usize) {
        w.write_all(&[tag])?;
        w.write_all(&(piece.len() as u32).to_le_bytes())?;
        w.write_all(piece)?;
    }
    Ok(())
}

fn read_u32(r: &mut dyn Read) -> io::Result<u32> {
    let mut b = [0; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

/// A length and that many bytes, the length at most [`MAX_LEN`].
fn read_bytes(r: &mut dyn Read) -> io::Result<Vec<u8>> {
    let len = read_u32(r)?;
    if len > MAX_LEN {
        return Err(invalid("a string of a tg sql message is longer than 16 MiB"));
    }
    let mut out = Vec::new();
    r.take(u64::from(len)).read_to_end(&mut out)?;
    if out.len() != len as usize {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(out)
}

fn invalid(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why)
}

/// This process's values of the environment variables that can change an
/// answer, as a request carries them: `NAME=value` and a NUL for each
/// one set.
pub fn answer_env() -> Vec<u8> {
    let mut out = Vec::new();
    for name in ANSWER_ENV {
        if let Some(value) = std::env::var_os(name) {
            out.extend_from_slice(name.as_bytes());
            out.push(b'=');
            out.extend_from_slice(value.as_encoded_bytes());
            out.push(0);
        }
    }
    out
}

/// What became of a query handed to the SQL server ([`ask`]).
#[derive(Debug)]
pub enum Asked {
    /// The server answered; the query's exit code.
    Answered(u8),
    /// The server was lost in the middle of its reply, part of which was
    /// printed; or printing it failed.
    Failed(io::Error),
    /// No server answers at the door.
    NoServer,
    /// A server took the query but hung up before any output (it turned
    /// the query away, or it died), or there can be no door: the caller
    /// runs the query itself.
    Declined,
}

/// Hands `args` to the SQL server, if one answers, and relays its reply
/// to this process's standard output and error.
pub fn ask(args: &[Vec<u8>], index_dir: &[u8]) -> Asked {
    // No door can be made (the runtime directory is not private): none
    // could be started either.
    let Ok(socket) = socket() else { return Asked::Declined };
    let Ok((mut stream, token)) = crate::sys::door::connect(&socket) else {
        return Asked::NoServer;
    };
    let Ok(cwd) = std::env::current_dir() else { return Asked::Declined };
    let request = Request {
        token: token.unwrap_or_default().into_bytes(),
        cwd: cwd.as_os_str().as_encoded_bytes().to_vec(),
        index_dir: index_dir.to_vec(),
        env: answer_env(),
        args: args.to_vec(),
    };
    if stream.write_all(&request.encode()).is_err() {
        return Asked::Declined;
    }
    let mut reader = io::BufReader::new(stream);
    let mut started = false;
    loop {
        let reply = match Reply::read(&mut reader) {
            Ok(reply) => reply,
            Err(_) if !started => return Asked::Declined,
            Err(e) => {
                let why = format!("the SQL server at {} stopped answering: {e}", socket.display());
                return Asked::Failed(io::Error::other(why));
            }
        };
        started = true;
        let (written, exit) = match reply {
            Reply::Stdout(b) => (io::stdout().write_all(&b), None),
            Reply::Stderr(b) => (io::stderr().write_all(&b), None),
            Reply::Exit(code) => (io::stdout().flush(), Some(code)),
        };
        match (written, exit) {
            // A closed pipe (`| head`) ends the query, as it ends tg-sql's.
            (Err(e), _) if e.kind() == io::ErrorKind::BrokenPipe => return Asked::Answered(0),
            (Err(e), _) => return Asked::Failed(e),
            (Ok(()), Some(code)) => return Asked::Answered(code),
            (Ok(()), None) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_replies_round_trip() {
        let req = Request {
            token: b"t".to_vec(),
            cwd: b"/home/x".to_vec(),
            index_dir: Vec::new(),
            env: b"HOME=/home/x\0".to_vec(),
            args: vec![b"--format".to_vec(), b"csv".to_vec(), b"SELECT 1".to_vec()],
        };
        assert_eq!(Request::read(&mut &req.encode()[..]).unwrap(), req);
        let mut bytes = Vec::new();
        for r in [Reply::Stdout(b"a\n".to_vec()), Reply::Stderr(Vec::new()), Reply::Exit(2)] {
            r.write(&mut bytes).unwrap();
        }
        // No bytes, no frame.
        let mut r = &bytes[..];
        assert_eq!(Reply::read(&mut r).unwrap(), Reply::Stdout(b"a\n".to_vec()));
        assert_eq!(Reply::read(&mut r).unwrap(), Reply::Exit(2));
        assert!(r.is_empty());
    }

    #[test]
    fn damaged_requests_are_refused_not_trusted() {
        let good = Request { args: vec![b"x".to_vec()], ..Request::default() }.encode();
        for cut in 0..good.len() {
            assert!(Request::read(&mut &good[..cut]).is_err(), "cut at {cut}");
        }
        let mut wrong = good.clone();
        wrong[0] = b'X';
        assert_eq!(Request::read(&mut &wrong[..]).unwrap_err().kind(), io::ErrorKind::InvalidData);
        let mut huge = MAGIC.to_vec();
        huge.extend_from_slice(&4u32.to_le_bytes());
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(Request::read(&mut &huge[..]).unwrap_err().kind(), io::ErrorKind::InvalidData);
        assert!(Reply::read(&mut &b"z"[..]).is_err());
    }
}
