//! Answering `candidates` (docs/PROTOCOL.md): the server evaluates a
//! query's trigrams against the index it holds open and judges the file
//! table as the query's own sweep would ([`Judge`]), then sends the paths
//! to read. The query process then never opens the index: no mapping, no
//! checksums, no pass over the table.

use std::io::{self, Write};
use std::time::Instant;

use serde_json::{Value, json};

use super::protocol::{self, Kind, PathKind};
use super::server::Server;
use crate::index::fresh::Reads;
use crate::index::fresh::changes::{Changes, children};
use crate::index::fresh::judge::{Judge, candidate_files};
use crate::index::fresh::verdict::Verdict;
use crate::index::fresh::view::{follows, outside_dirs, standing, table_admits};
use crate::index::table::flags;
use crate::query::wire;

/// What a query asks for: its planned trigram query, the table paths of
/// its search paths, and the rules of its sweep.
pub struct Ask<'a> {
    /// The request: `binary_whole`, `misses`, `out`, `judged`,
    /// `includes`, `no_parent` and `zip` (see [`Judge`], [`table_admits`]
    /// and `fresh::view::View`).
    pub request: &'a Value,
    /// The query, as [`wire`] bytes.
    pub query: &'a [u8],
    /// A [`Kind::Paths`] body: the search paths, relative to the root.
    pub scopes: &'a [u8],
}

/// A refusal: the connection stays open.
fn refuse(w: &mut impl Write, error: String) -> io::Result<()> {
    protocol::write_json(w, Kind::Reply, &json!({"ok": false, "error": error}))
}

/// Answers one `candidates` request on `w`.
pub fn candidates(server: &Server, ask: &Ask<'_>, w: &mut impl Write) -> io::Result<()> {
    let query = match wire::decode(ask.query) {
        Ok(q) => q,
        Err(e) => return refuse(w, e.to_string()),
    };
    let scopes = match protocol::decode_paths(ask.scopes) {
        Ok(s) if s.iter().all(|(k, _)| *k == PathKind::Path) => {
            s.into_iter().map(|(_, p)| p).collect::<Vec<_>>()
        }
        _ => return refuse(w, "bad search paths".into()),
    };
    let out = ask.request["out"].as_u64().and_then(|n| u32::try_from(n).ok());
    let (out, no_parent) = (out.unwrap_or(flags::OUT_OF_PLAIN), ask.request["no_parent"] == true);
    let judged_out =
        ask.request["judged"].as_u64().and_then(|n| u32::try_from(n).ok()).unwrap_or(out);
    let Some((touched, reader)) = server.sync() else {
        protocol::write_json(w, Kind::Reply, &json!({"ok": true, "ready": false}))?;
        return Ok(());
    };
    let started = Instant::now();
    let Some(admitted) = table_admits(&reader, &scopes, out, no_parent) else {
        // The table does not hold what this walk yields: the query walks.
        protocol::write_json(w, Kind::Reply, &json!({"ok": true, "ready": true, "walk": true}))?;
        return Ok(());
    };
    let found = match reader.candidates(&query) {
        Ok(c) => c,
        Err(e) => return refuse(w, format!("the index failed: {e}")),
    };
    let bits = candidate_files(&reader, found.as_slice());
    let n = reader.stats().files;
    let may_differ = Changes::Watched(touched).may_differ(n, |id| reader.path(id));
    let judge = Judge {
        reader: &reader,
        root: server.root(),
        candidate_files: &bits,
        reads: Reads {
            binary_whole: ask.request["binary_whole"] == true,
            misses: ask.request["misses"] == true,
            zip: ask.request["zip"] == true,
        },
        out: judged_out,
        summary: Some(&server.table_summary(&reader)),
    };
    let judged = judge.table(&scopes, &may_differ);
    let Some(judged) = judged.filter(|j| j.kept.iter().all(|(_, v)| *v != Verdict::GiveUp)) else {
        // The table cannot stand in for a walk: the query walks.
        protocol::write_json(w, Kind::Reply, &json!({"ok": true, "ready": true, "walk": true}))?;
        return Ok(());
    };
    let mut entries = Vec::with_capacity(judged.kept.len());
    if ask.request["includes"] == true {
        let dirs = outside_dirs(&reader, &scopes, out, judged_out);
        entries.extend(dirs.into_iter().map(|d| (PathKind::OutsideDir, d)));
    }
    for (id, v) in &judged.kept {
        let Some(f) = reader.file(*id) else { continue };
        match standing(&reader, &f, out, follows(out)) {
            None => continue,
            Some(true) => entries.push((PathKind::Outside, &f.path[..0])),
            Some(false) => {}
        }
        match v {
            Verdict::Candidate | Verdict::Changed => entries.push((PathKind::Read, f.path)),
            Verdict::Skip => entries.push((PathKind::Unread, f.path)),
            Verdict::DirChanged => {
                entries.push((PathKind::ChangedDir, f.path));
                for (child, is_dir) in children(&reader, f.path) {
                    entries.push((
                        if is_dir { PathKind::KnownDir } else { PathKind::KnownFile },
                        child,
                    ));
                }
            }
            Verdict::GiveUp => {}
        }
    }
    let frames = protocol::encode_paths(entries, 1 << 20);
    let st = reader.stats();
    let head = json!({
        "ok": true, "ready": true, "table": st.table_id, "files": st.files,
        "documents": st.documents, "candidate_documents": found.len(),
        "candidates": judged.counts.candidates, "changed": judged.counts.changed,
        "pruned": judged.counts.pruned, "micros": started.elapsed().as_micros() as u64,
        "frames": frames.len(), "stores": admitted.stores, "ignores": admitted.ignores,
    });
    // One write for the whole answer: one system call, one wake-up; its
    // buffer made once (grown, a `--files` answer of the kernel's 83k
    // paths was copied and faulted in again at each doubling).
    let mut out = Vec::with_capacity(frames.iter().map(|f| f.len() + 16).sum::<usize>() + 4096);
    protocol::write_json(&mut out, Kind::Reply, &head)?;
    for f in frames {
        protocol::write_frame(&mut out, Kind::Paths, &f)?;
    }
    w.write_all(&out)
}
