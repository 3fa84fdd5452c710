//! Asking a server (`tg serve`) about an indexed tree: which files to read
//! ([`list`]: the server evaluates the query against the index it holds
//! open and judges the file table, so this process never opens the index),
//! or, when it cannot say that, what changed since the build ([`ask`]: the
//! freshness sweep then stats only that, [`Changes::Watched`]).

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::listed::Listed;
use crate::index::fresh::changes::{Changes, Touched};
use crate::index::fresh::sweep::{self, Swept};
use crate::index::fresh::view::{View, any_admitted};
use crate::index::fresh::{IndexReport, Located, Rules as FreshRules, roots_for};
use crate::index::reader::IndexReader;
use crate::query::wire;
use crate::report::Messages;
use crate::serve::auto_start;
use crate::serve::client::{Client, Globs, NoServer, Rules};
use crate::serve::protocol::MAX_REQUEST;

/// A server's answer, or why there was none.
pub struct Answer {
    /// What the sweep must stat.
    pub changes: Changes,
    /// The server's pid, or why no server told (for `--stats`).
    pub from: Result<u32, String>,
    /// The identity of the index table the server's account is about.
    pub table: Option<u64>,
    /// No server ran, and the index asks for one on demand.
    pub start_one: bool,
}

/// The files a server says the search at `found` must read, whether a
/// walk would have found any file ([`listed`] makes them a source), with
/// what the index did for `--stats`; when the server cannot list
/// them (none runs, it is starting, the search's filters or paths are not
/// the index's, the table cannot stand in for a walk), what it said
/// changed instead, for the search to check for itself.
pub fn list(
    search: &FreshRules<'_>,
    msgs: &Messages,
    found: &Located,
) -> Result<(Vec<Swept>, bool, IndexReport), Answer> {
    let started = Instant::now();
    let scopes = sweep::scopes_for(search, &roots_for(search.walk, &found.root));
    // The query, the search paths and the request fit in one message.
    let query = wire::encode(&found.query).filter(|q| q.len() < MAX_REQUEST / 2);
    let (Some(scopes), Some(query), Some(view)) = (scopes, query, View::of(search.filters()))
    else {
        return Err(ask(&found.dir));
    };
    let mut client = Client::connect(&found.dir).map_err(|why| answer(Err(why), &found.dir))?;
    let pid = client.record.pid;
    // What changed, asked on the same connection when the server cannot list.
    let said_instead = |c: &mut Client| answer(c.sync().map(|s| (s, pid)), &found.dir);
    let prefixes: Vec<Vec<u8>> = scopes.iter().map(|(_, p)| p.clone()).collect();
    // Globs the server can apply (the paths it matches are the walker's).
    let dot = |(given, _): &(PathBuf, Vec<u8>)| {
        matches!(given.as_os_str().as_encoded_bytes(), b"." | b"./")
    };
    let f = search.filters();
    let globs = (view.globs_only() && scopes.iter().all(dot)).then_some(Globs {
        globs: &f.globs,
        iglobs: &f.iglobs,
        case_insensitive: f.glob_case_insensitive,
    });
    let rules = Rules {
        reads: search.reads,
        out: view.out,
        judged: view.judged,
        includes: view.includes,
        no_parent: view.no_parent,
        globs,
    };
    let served = match client.candidates(&query, &prefixes, rules) {
        Ok(Some(served)) => served,
        Ok(None) => return Err(said_instead(&mut client)),
        Err(why) => return Err(answer(Err(why), &found.dir)),
    };
    if !view.answers(&scopes, &served.admitted, &served.outside_dirs) {
        // Its walk would enter a repository's store or a directory the
        // table does not describe, or its include globs what no walk holds.
        return Err(said_instead(&mut client));
    }
    let asked = started.elapsed();
    let started = Instant::now();
    let entries = served.entries();
    let known = |rel: &[u8]| served.known.get(rel).copied();
    let listing = sweep::Listing { view: &view, scopes: &scopes, admitted: served.globbed };
    let swept = sweep::list(search, msgs, &listing, &found.root, entries, &known);
    let Some((files, unknown)) = swept else {
        // An ignore file appeared in a changed directory: the query walks.
        return Err(said_instead(&mut client));
    };
    // Files the server did not list may all be ones the filters leave
    // out: the table says whether a walk would find any (rg says so).
    let any_file = !files.is_empty()
        || served.counts.pruned > 0
            && (!view.has_filters()
                || match IndexReader::open(&found.dir) {
                    Ok(reader) => any_admitted(&reader, &found.root, &view, &scopes),
                    Err(_) => return Err(said_instead(&mut client)),
                });
    let report = IndexReport {
        dir: found.dir.clone(),
        files: served.files,
        documents: served.documents,
        plan_time: found.plan_time,
        open_time: asked,
        sweep_time: Some(started.elapsed()),
        candidate_documents: served.candidate_documents,
        read_as_candidates: served.counts.candidates,
        not_read: served.counts.pruned,
        changed: served.counts.changed,
        unknown,
        served: Some(Ok(pid)),
        server_time: Some(served.server_time),
    };
    Ok((files, any_file, report))
}

/// The files of a sweep as a source.
pub fn listed(files: Vec<Swept>, any_file: bool) -> Listed {
    let subjects = files.into_iter().map(|f| {
        let subject = super::subject::Subject::listed(f.path);
        if f.known_without_match { subject.without_match() } else { subject }
    });
    Listed::new(subjects.collect(), any_file)
}

/// Asks the server of the index in `index_dir` what changed; with none,
/// or one that cannot vouch, every entry may have changed.
pub fn ask(index_dir: &Path) -> Answer {
    answer(Client::connect(index_dir).and_then(|mut c| Ok((c.sync()?, c.record.pid))), index_dir)
}

/// What a server's reply to a sync (or its absence) tells the sweep.
fn answer(reply: Result<((Touched, u64), u32), NoServer>, index_dir: &Path) -> Answer {
    match reply {
        Ok(((touched, table), pid)) => Answer {
            changes: Changes::Watched(touched),
            from: Ok(pid),
            table: Some(table),
            start_one: false,
        },
        Err(why) => Answer {
            start_one: matches!(why, NoServer::Absent) && auto_start(index_dir),
            changes: Changes::Unknown,
            from: Err(why.to_string()),
            table: None,
        },
    }
}

impl Answer {
    /// The answer for a query that opened the index with table `table_id`:
    /// a server's account of another index (one published since, by the
    /// server's rebuild or by `tg index`) is not used.
    pub(crate) fn for_table(self, table_id: u64) -> Answer {
        match self.table {
            Some(t) if t != table_id => Answer {
                changes: Changes::Unknown,
                from: Err("the server tracks another build of the index".into()),
                ..self
            },
            _ => self,
        }
    }
}
