//! Answering `candidates` (docs/PROTOCOL.md): the server evaluates a
//! query's trigrams against the index it holds open and judges the file
//! table as the query's own sweep would ([`Judge`]), then sends the paths
//! to read. The query process then never opens the index: no mapping, no
//! checksums, no pass over the table.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

use serde_json::{Value, json};

use super::listings::{self, At, Judged};
use super::protocol::{self, Kind, PathKind};
use super::server::Server;
use crate::index::fresh::Reads;
use crate::index::fresh::changes::{Changes, children};
use crate::index::fresh::judge::{Judge, candidate_files};
use crate::index::fresh::verdict::Verdict;
use crate::index::fresh::view::{Decided, View, follows, outside_dirs, standing, table_admits};
use crate::index::recorded::under;
use crate::index::table::flags;
use crate::query::{Query, wire};

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
    let Some(synced) = server.sync() else {
        protocol::write_json(w, Kind::Reply, &json!({"ok": true, "ready": false}))?;
        return Ok(());
    };
    let started = Instant::now();
    let (touched, reader) = (synced.touched, synced.reader);
    let Some(admitted) = table_admits(&reader, server.root(), &scopes, out, no_parent) else {
        // The table does not hold what this walk yields: the query walks.
        protocol::write_json(w, Kind::Reply, &json!({"ok": true, "ready": true, "walk": true}))?;
        return Ok(());
    };
    let summary = server.table_summary(&reader);
    // A listing (every document may match) is sent again while nothing
    // it was judged from changed (`listings`); not while a subtree is
    // touched (one the watcher could not watch is stat-ed by every pass).
    let listing = (query == Query::All && touched.subtrees.is_empty()).then(|| {
        let at =
            At { table_id: reader.stats().table_id, seq: synced.seq, touched: touched.clone() };
        (listings::key(ask.request, ask.query, ask.scopes), at)
    });
    if let Some((key, at)) = &listing {
        let unwatched_now = || summary.unwatched_now(&reader, server.root());
        if let Some(kept) = server.listings().find(key, at, unwatched_now) {
            let mut head = kept.head.clone();
            head["micros"] = json!(started.elapsed().as_micros() as u64);
            head["kept"] = json!(true);
            server.listing_resent();
            let mut out = Vec::new();
            protocol::write_json(&mut out, Kind::Reply, &head)?;
            w.write_all(&out)?;
            return w.write_all(&kept.frames);
        }
    }
    // Stat-ed before the judgement, so that a change after it shows.
    let unwatched = listing.as_ref().and_then(|_| summary.unwatched_now(&reader, server.root()));
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
        summary: Some(&summary),
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
    // The query's globs, applied here when it sent them (`globs`).
    let globbed = globs_of(ask.request, out);
    let dotted: Vec<_> = scopes.iter().map(|p| (PathBuf::from("."), p.clone())).collect();
    let mut dirs = Decided::default();
    for (id, v) in &judged.kept {
        let Some(f) = reader.file(*id) else { continue };
        let Some(outside) = standing(&reader, &f, out, follows(out)) else { continue };
        if let Some(view) = &globbed {
            let Some(scope) = dotted.iter().find(|(_, p)| under(f.path, p)) else { continue };
            let is_dir = *v == Verdict::DirChanged;
            if !view.admits(scope, f.path, is_dir, outside, &mut dirs) {
                continue;
            }
        }
        if outside {
            entries.push((PathKind::Outside, &f.path[..0]));
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
        "pruned": judged.counts.pruned, "frames": frames.len(), "globbed": globbed.is_some(),
        "stores": admitted.stores, "ignores": admitted.ignores,
    });
    // The path lists in one buffer made once (grown, a `--files` answer
    // of the kernel's 83k paths was copied and faulted in again at each
    // doubling), written at once after the head.
    let mut framed = Vec::with_capacity(frames.iter().map(|f| f.len() + 16).sum::<usize>());
    for f in frames {
        protocol::write_frame(&mut framed, Kind::Paths, &f)?;
    }
    let mut out = Vec::new();
    let mut sent = head.clone();
    sent["micros"] = json!(started.elapsed().as_micros() as u64);
    protocol::write_json(&mut out, Kind::Reply, &sent)?;
    w.write_all(&out)?;
    w.write_all(&framed)?;
    if let (Some((key, at)), Some(unwatched)) = (listing, unwatched) {
        server.listings().keep(Judged { key, at, unwatched }, head, framed);
    }
    Ok(())
}

/// The view that applies the `-g`/`--iglob` globs a request sent (with
/// `glob_ci`) to the walk that leaves out entries flagged `out`; `None`
/// when it sent none, or ones this server cannot apply (the query then
/// applies them itself).
fn globs_of(request: &Value, out: u32) -> Option<View> {
    let strings = |v: &Value| -> Option<Vec<String>> {
        v.as_array()?.iter().map(|s| s.as_str().map(String::from)).collect()
    };
    let (globs, iglobs) = (strings(&request["globs"])?, strings(&request["iglobs"])?);
    View::of_globs(out, globs, iglobs, request["glob_ci"] == true)
}
