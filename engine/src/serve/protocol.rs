//! The server's wire protocol (docs/PROTOCOL.md): framed messages, or JSON
//! lines for editors.
//!
//! A frame is a little-endian `u32` length, then that many bytes: one kind
//! byte and the body. Control messages ([`Kind::Hello`], [`Kind::Request`],
//! [`Kind::Reply`]) carry one JSON object; [`Kind::Paths`] carries a list
//! of paths in binary (`encode_paths`). A connection whose first byte is
//! `{` speaks JSON lines instead: one JSON object per line each way.
//! Every parser here treats its input as hostile: lengths are bounded, and
//! bad bytes are an error for that connection, never a panic.

use std::io::{self, BufRead, Read, Write};

use serde_json::Value;

/// The protocol version this build speaks.
///
/// - 2: queries require the trigrams of line and word boundaries, which
///   only an index of feature version 3 holds
///   ([`crate::index::format::FEATURE_VERSION`]); a server of version 1
///   could miss files.
/// - 3: `candidates` asks for the entries of a recorded walk (`out`,
///   `no_parent`) and for `-z` (`zip`), which only an index of feature
///   version 4 holds; a server of version 2 would list the default walk's.
/// - 4: `candidates` judges a wider recorded walk (`judged`) for a
///   search whose globs or types may admit entries its own walk leaves
///   out, marks those ([`PathKind::Outside`]), lists the directories
///   outside it (`includes`, [`PathKind::OutsideDir`]) and says whether
///   ignore rules leave entries out of every walk (`ignores`); a server
///   of version 3 would list them as in the walk.
pub const VERSION: u64 = 4;

/// The largest frame a client accepts (a path list is split into frames
/// below it).
pub(crate) const MAX_FRAME: usize = 4 << 20;

/// The largest message the server accepts from a client, framed or as a
/// JSON line: hellos and requests are tiny, and every connection may hold
/// this much, so the 256 connections a server takes at once stay far below the
/// server's memory budget.
pub const MAX_REQUEST: usize = 64 << 10;

/// What a frame holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Client → server, first: `{"protocol": 1, "token": "…"}`.
    Hello = 1,
    /// Client → server: `{"op": "sync" | "status" | "stop"}`.
    Request = 2,
    /// Server → client: `{"ok": true, …}` or `{"ok": false, "error": "…"}`.
    Reply = 3,
    /// Paths, binary (`encode_paths`): server → client, or client →
    /// server after a `candidates` request (the search paths).
    Paths = 4,
    /// Client → server after a `candidates` request: the planned query
    /// ([`crate::query::wire`]).
    Query = 5,
}

impl Kind {
    fn from_byte(b: u8) -> Option<Kind> {
        Some(match b {
            1 => Kind::Hello,
            2 => Kind::Request,
            3 => Kind::Reply,
            4 => Kind::Paths,
            5 => Kind::Query,
            _ => return None,
        })
    }
}

/// A protocol violation: the connection is closed.
fn bad(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

/// Writes one frame.
pub(crate) fn write_frame(w: &mut impl Write, kind: Kind, body: &[u8]) -> io::Result<()> {
    let len = u32::try_from(body.len() + 1).map_err(|_| bad("frame too large"))?;
    // One write per frame: one system call, one message on a socket.
    let mut frame = Vec::with_capacity(body.len() + 5);
    frame.extend_from_slice(&len.to_le_bytes());
    frame.push(kind as u8);
    frame.extend_from_slice(body);
    w.write_all(&frame)
}

/// Writes a JSON control frame.
pub(crate) fn write_json(w: &mut impl Write, kind: Kind, v: &Value) -> io::Result<()> {
    write_frame(w, kind, v.to_string().as_bytes())
}

/// Reads one frame of at most `max` bytes; `Ok(None)` at a clean end of
/// stream.
pub fn read_frame(r: &mut impl Read, max: usize) -> io::Result<Option<(Kind, Vec<u8>)>> {
    let mut body = Vec::new();
    Ok(read_frame_into(r, max, &mut body)?.map(|kind| (kind, body)))
}

/// Reads one frame of at most `max` bytes, its body appended to `body`
/// (path lists read one after another form one list); `Ok(None)` at a
/// clean end of stream.
pub(crate) fn read_frame_into(
    r: &mut impl Read,
    max: usize,
    body: &mut Vec<u8>,
) -> io::Result<Option<Kind>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        other => other?,
    }
    let len = u32::from_le_bytes(len) as usize;
    if len == 0 || len > max {
        return Err(bad(format!("frame length {len} out of range")));
    }
    let mut kind = [0u8];
    r.read_exact(&mut kind)?;
    let kind =
        Kind::from_byte(kind[0]).ok_or_else(|| bad(format!("unknown frame kind {}", kind[0])))?;
    let start = body.len();
    body.resize(start + len - 1, 0);
    r.read_exact(&mut body[start..])?;
    Ok(Some(kind))
}

/// Parses a control frame's body: a JSON object.
pub fn parse_json(body: &[u8]) -> io::Result<Value> {
    let v: Value = serde_json::from_slice(body).map_err(|e| bad(format!("bad JSON: {e}")))?;
    if !v.is_object() {
        return Err(bad("a message must be a JSON object"));
    }
    Ok(v)
}

/// Reads one JSON line of at most [`MAX_REQUEST`] bytes (without its
/// newline); `Ok(None)` at end of stream.
pub fn read_json_line(r: &mut impl BufRead) -> io::Result<Option<Value>> {
    let mut line = Vec::new();
    let n = r.take(MAX_REQUEST as u64 + 1).read_until(b'\n', &mut line)?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        return Err(bad(if n > MAX_REQUEST { "line too long" } else { "truncated line" }));
    }
    parse_json(&line[..line.len() - 1]).map(Some)
}

/// What a path list entry says of its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathKind {
    /// One path (a sync: touched; a `candidates` request: a search path).
    Path = 0,
    /// A sync: a directory below which anything may differ.
    Subtree = 1,
    /// A `candidates` answer: a file to read.
    Read = 2,
    /// A `candidates` answer: a file known without a match (listed, not read).
    Unread = 3,
    /// A `candidates` answer: a directory whose entries changed (the
    /// query walks it one level deep); the table's entries directly below
    /// it follow ([`PathKind::KnownFile`], [`PathKind::KnownDir`]).
    ChangedDir = 4,
    /// A table entry below the last [`PathKind::ChangedDir`]: a file.
    KnownFile = 5,
    /// A table entry below the last [`PathKind::ChangedDir`]: a directory.
    KnownDir = 6,
    /// A `candidates` answer: the next entry listed stands outside the
    /// search's own walk by its own name (its filters may admit it;
    /// `fresh::view::standing`).
    Outside = 7,
    /// A `candidates` answer asked with `includes`: a directory below the
    /// search paths outside the search's own walk by its own name.
    OutsideDir = 8,
}

impl PathKind {
    fn from_byte(b: u8) -> Option<PathKind> {
        use PathKind::*;
        [Path, Subtree, Read, Unread, ChangedDir, KnownFile, KnownDir, Outside, OutsideDir]
            .get(usize::from(b))
            .copied()
    }
}

/// Appends `path` to a [`Kind::Paths`] body: kind byte, `u32` length, bytes.
pub fn encode_path(out: &mut Vec<u8>, kind: PathKind, path: &[u8]) {
    out.push(kind as u8);
    out.extend_from_slice(&(path.len() as u32).to_le_bytes());
    out.extend_from_slice(path);
}

/// Encodes `paths` as [`Kind::Paths`] bodies of at most about `limit` bytes each.
pub(crate) fn encode_paths<'a>(
    paths: impl IntoIterator<Item = (PathKind, &'a [u8])>,
    limit: usize,
) -> Vec<Vec<u8>> {
    let mut frames = vec![Vec::new()];
    for (kind, p) in paths {
        let last = frames.last_mut().expect("one frame at least");
        if !last.is_empty() && last.len() + p.len() + 5 > limit {
            frames.push(Vec::new());
        }
        encode_path(frames.last_mut().expect("one frame at least"), kind, p);
    }
    frames
}

/// Decodes a [`Kind::Paths`] body.
pub fn decode_paths(body: &[u8]) -> io::Result<Vec<(PathKind, Vec<u8>)>> {
    let mut out = Vec::new();
    for_each_path(body, |kind, p| {
        out.push((kind, p.to_vec()));
        Ok(())
    })?;
    Ok(out)
}

/// Hands each entry of a [`Kind::Paths`] body to `each`, in order,
/// borrowed from the body; stops at the first error `each` returns.
pub(crate) fn for_each_path(
    mut body: &[u8],
    mut each: impl FnMut(PathKind, &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    while !body.is_empty() {
        if body.len() < 5 {
            return Err(bad("truncated path entry"));
        }
        let kind = PathKind::from_byte(body[0])
            .ok_or_else(|| bad(format!("unknown path kind {}", body[0])))?;
        let len = u32::from_le_bytes([body[1], body[2], body[3], body[4]]) as usize;
        let rest = &body[5..];
        if len > rest.len() {
            return Err(bad("path entry longer than its frame"));
        }
        each(kind, &rest[..len])?;
        body = &rest[len..];
    }
    Ok(())
}

/// A path for JSON: a string when it is UTF-8, else `{"bytes": [..]}`.
pub(crate) fn path_json(p: &[u8]) -> Value {
    match std::str::from_utf8(p) {
        Ok(s) => Value::String(s.to_string()),
        Err(_) => serde_json::json!({ "bytes": p }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip() {
        let mut buf = Vec::new();
        write_json(&mut buf, Kind::Request, &serde_json::json!({"op": "sync"})).unwrap();
        let bodies = encode_paths(
            [(PathKind::Path, &b"a/b"[..]), (PathKind::Subtree, &b"\xffx"[..])],
            1 << 20,
        );
        write_frame(&mut buf, Kind::Paths, &bodies[0]).unwrap();
        let mut r = &buf[..];
        let (k, body) = read_frame(&mut r, MAX_FRAME).unwrap().unwrap();
        assert_eq!(k, Kind::Request);
        assert_eq!(parse_json(&body).unwrap()["op"], "sync");
        let (k, body) = read_frame(&mut r, MAX_FRAME).unwrap().unwrap();
        assert_eq!(k, Kind::Paths);
        let paths = decode_paths(&body).unwrap();
        assert_eq!(paths[1], (PathKind::Subtree, b"\xffx".to_vec()));
        assert!(read_frame(&mut r, MAX_FRAME).unwrap().is_none());
    }

    #[test]
    fn bad_frames_are_errors() {
        assert!(read_frame(&mut &[0u8, 0, 0, 0][..], MAX_FRAME).is_err());
        assert!(read_frame(&mut &[2u8, 0, 0, 0, 9, b'x'][..], MAX_FRAME).is_err());
        assert!(read_frame(&mut &[255u8, 255, 255, 255][..], MAX_FRAME).is_err());
        assert!(read_frame(&mut &[5u8, 0, 0, 0, 2][..], MAX_FRAME).is_err());
        assert!(decode_paths(&[0, 9, 0, 0, 0, b'a']).is_err());
        assert!(decode_paths(&[9, 0, 0, 0, 0]).is_err());
        assert_eq!(decode_paths(&[6, 0, 0, 0, 0]).unwrap(), vec![(PathKind::KnownDir, vec![])]);
        assert_eq!(decode_paths(&[8, 0, 0, 0, 0]).unwrap(), vec![(PathKind::OutsideDir, vec![])]);
        assert!(parse_json(b"[1]").is_err());
        assert!(read_json_line(&mut &b"{\"op\":1}"[..]).is_err());
    }

    #[test]
    fn large_lists_split_into_frames() {
        let p = [b'x'; 100];
        let frames = encode_paths((0..100).map(|_| (PathKind::Path, &p[..])), 1000);
        assert!(frames.len() >= 10);
        let n: usize = frames.iter().map(|f| decode_paths(f).unwrap().len()).sum();
        assert_eq!(n, 100);
    }
}
