//! The wire between `tg sql` and a warm SQL server (`tg sql serve`, in the
//! `trigrep-sql` crate): a query's command line goes over the door
//! ([`crate::sys::door`]) to a process whose DataFusion is already loaded,
//! and its output comes back, so that a short query costs what it reads,
//! not a cold start of a query engine.
//!
//! The server runs each query in the directory and with the index
//! directory of the client that sent it, and prints exactly what
//! `tg-sql` run in the client's place would print; nothing is kept
//! between queries but the warm process.
//!
//! A request: [`MAGIC`], then a `u32` count and that many strings, each a
//! `u32` length and its bytes (little-endian): the door's token (empty
//! where none is needed), the client's directory, its index directory,
//! then the arguments. A reply: frames of one tag byte — `o` and `e`
//! (standard output and error) with a `u32` length and the bytes, `x`
//! with the exit code in one byte, the last frame.

use std::io::{self, Read, Write};
use std::path::PathBuf;

/// What every request starts with (a version of the wire too: a server
/// that does not know it hangs up, and the client runs the query itself).
pub const MAGIC: &[u8; 7] = b"TGSQL1\n";

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
    /// The arguments after `tg sql`.
    pub args: Vec<Vec<u8>>,
}

impl Request {
    /// The request's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let strings = [&self.token, &self.cwd, &self.index_dir].into_iter().chain(&self.args);
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&(3 + self.args.len() as u32).to_le_bytes());
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
        if !(3..=MAX_STRINGS).contains(&n) {
            return Err(invalid("a tg sql request holds 3 to 4096 strings"));
        }
        let mut strings = (0..n).map(|_| read_bytes(r)).collect::<io::Result<Vec<_>>>()?;
        let args = strings.split_off(3);
        let [token, cwd, index_dir] = <[Vec<u8>; 3]>::try_from(strings).expect("three strings");
        Ok(Request { token, cwd, index_dir, args })
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

/// Hands `args` to the SQL server, if one answers, and relays its reply
/// to this process's standard output and error: the exit code, or `None`
/// when no server took the query before any output (none listens, or it
/// hung up first), so the caller runs it itself. A server lost in the
/// middle of a reply is an error: part of the output was printed.
pub fn ask(args: &[Vec<u8>], index_dir: &[u8]) -> Option<io::Result<u8>> {
    let socket = socket().ok()?;
    let (mut stream, token) = crate::sys::door::connect(&socket).ok()?;
    let cwd = std::env::current_dir().ok()?;
    let request = Request {
        token: token.unwrap_or_default().into_bytes(),
        cwd: cwd.as_os_str().as_encoded_bytes().to_vec(),
        index_dir: index_dir.to_vec(),
        args: args.to_vec(),
    };
    stream.write_all(&request.encode()).ok()?;
    let mut reader = io::BufReader::new(stream);
    let mut started = false;
    loop {
        let reply = match Reply::read(&mut reader) {
            Ok(reply) => reply,
            Err(_) if !started => return None,
            Err(e) => {
                let why = format!("the SQL server at {} stopped answering: {e}", socket.display());
                return Some(Err(io::Error::other(why)));
            }
        };
        started = true;
        let written = match reply {
            Reply::Stdout(b) => io::stdout().write_all(&b),
            Reply::Stderr(b) => io::stderr().write_all(&b),
            Reply::Exit(code) => return Some(io::stdout().flush().map(|()| code)),
        };
        match written {
            // A closed pipe (`| head`) ends the query, as it ends tg-sql's.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Some(Ok(0)),
            Err(e) => return Some(Err(e)),
            Ok(()) => {}
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
        huge.extend_from_slice(&3u32.to_le_bytes());
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(Request::read(&mut &huge[..]).unwrap_err().kind(), io::ErrorKind::InvalidData);
        assert!(Reply::read(&mut &b"z"[..]).is_err());
    }
}
