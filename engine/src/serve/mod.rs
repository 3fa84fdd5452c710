//! `tg serve`: a long-lived process that watches an indexed tree so that
//! queries need not check it.
//!
//! A standalone query proves its index fresh by stat-ing every file of the
//! table (the sweep, [`crate::index::fresh`]). A server watches the tree
//! instead ([`crate::sys::watch`]: on Linux inotify, one watch per walked
//! directory, a thread that only drains events; elsewhere one recursive
//! watch through `notify`, see there), keeps the paths touched since the build in an
//! `overlay` (`apply` turns events into touches), and tells each query
//! what may have changed ([`crate::index::fresh::changes::Touched`]); the
//! query then stats only those and reads everything else from the index, as
//! before. Before answering, the server makes sure every change made before
//! the question has been applied (a sync cookie, see `watch`), so an
//! answer never misses a write that finished before the query began.
//!
//! A query whose files can be listed from the table asks for more: the
//! server evaluates the query's trigrams against the index it holds open
//! and judges the table itself (`answer`), so the query process never
//! opens the index and only reads what it is told.
//!
//! The server rebuilds the index in the background when the overlay grows
//! (`reconcile`), answers over a Unix socket and optionally TCP (`listen`,
//! [`protocol`], and `rendezvous`: where a server is found, [`Rendezvous`]);
//! [`client`] is the query side.
//!
//! **One owner.** This file owns the server: it makes the shared
//! `server::Server` (whose fields are private, and whose `State` changes
//! only through named operations) and hands it to each thread it starts —
//! the drain and apply threads, the reconcile, the housekeeping and the
//! listeners. No file of this folder imports this one: what a child needs
//! comes down as arguments, and imports between the children run one way
//! (`listen` → `answer` → `server` → `state` → `overlay`; `answer` and
//! `server` → `listings`).

mod answer;
mod apply;
pub mod client;
mod listen;
mod listings;
mod overlay;
pub mod protocol;
mod reconcile;
mod rendezvous;
mod server;
pub mod sql_wire;
mod state;

use std::sync::Arc;

use crate::index::error::IndexError;
use crate::index::reader::IndexReader;
use crate::sys::watch;
pub use rendezvous::{Record, Rendezvous, auto_start, parse_record, read_record, set_auto_start};
pub use server::ServeOptions;
use server::Server;
use state::State;

/// Why a server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Another server already answers for this tree (or is starting).
    #[error("{root} is already served or a server is starting (pid {pid})")]
    AlreadyServed {
        /// The tree.
        root: String,
        /// The other server's process.
        pid: u32,
    },
    /// Building or opening the index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Anything else: sockets, the watcher, the runtime directory.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Starts serving the tree at `opts.root`: builds its index if there is
/// none usable (missing, damaged, or from another version), starts
/// watching, reconciles once, then answers on the socket until stopped.
/// `on_ready` is called once queries can be answered.
pub fn serve(opts: ServeOptions, on_ready: impl FnOnce(&Rendezvous)) -> Result<(), ServeError> {
    let index_dir = crate::index::location::index_dir_for(&opts.base, &opts.root);
    let rendezvous = Rendezvous::for_index(&index_dir)?;
    let Some(_lock) = rendezvous.lock()? else {
        let pid = rendezvous::read_record(&index_dir).map_or(0, |r| r.pid);
        return Err(ServeError::AlreadyServed { root: opts.root.display().to_string(), pid });
    };
    // No index, one from another version, or a damaged one: build it first.
    let reader = match IndexReader::open(&index_dir) {
        // Clients plan for an index with edges (protocol version 2).
        Ok(r) if !r.needs_reindex() && r.has_edges() => r,
        _ => {
            reconcile::build_quietly(&opts)?;
            IndexReader::open(&index_dir)?
        }
    };
    let reader = Arc::new(reader);
    let _ = std::fs::remove_dir_all(&rendezvous.cookies);
    let (watches, watcher) = watch::start(&opts.root, &rendezvous.cookies)?;
    let drained = Arc::new(watch::Drained::of(&watcher, &rendezvous.cookies));
    let mut state = State::new(reader, watches);
    state.watch_table();
    let server = Arc::new(Server::new(opts, index_dir, rendezvous, state, Arc::clone(&drained)));
    let (tx, rx) = crossbeam_channel::bounded(1 << 16);
    std::thread::Builder::new()
        .name("tg-drain".into())
        .spawn(move || watch::drain(watcher, tx, &drained))?;
    let s = Arc::clone(&server);
    std::thread::Builder::new().name("tg-apply".into()).spawn(move || apply::run(&s, &rx))?;
    // Everything changed before the watches were set is found by one look.
    reconcile::reconcile(&server, 0);
    server.state().set_ready();
    let listeners = listen::Listeners::bind(&server)?;
    on_ready(server.rendezvous());
    let s = Arc::clone(&server);
    std::thread::Builder::new()
        .name("tg-house".into())
        .spawn(move || reconcile::housekeeping(&s))?;
    let result = listeners.run(&server);
    server.rendezvous().withdraw();
    // Stopped while a merge writes its index: the process exits before
    // the merge drops its temporary file.
    crate::index::storage::FsStorage::new(server.index_dir()).remove_own_temp_files();
    result.map_err(ServeError::from)
}
