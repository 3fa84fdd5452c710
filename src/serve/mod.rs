//! `tg serve`: a long-lived process that watches an indexed tree so that
//! queries need not check it.
//!
//! A standalone query proves its index fresh by stat-ing every file of the
//! table (the sweep, [`crate::index::fresh`]). A server watches the tree
//! instead ([`watch`]: inotify, one watch per walked directory, a thread
//! that only drains events), keeps the paths touched since the build in an
//! [`overlay`] ([`apply`] turns events into touches), and tells each query
//! what may have changed ([`crate::index::fresh::changes::Touched`]); the
//! query then stats only those and reads everything else from the index, as
//! before. Before answering, the server makes sure every change made before
//! the question has been applied (a sync cookie, see [`watch`]), so an
//! answer never misses a write that finished before the query began.
//!
//! A query whose files can be listed from the table asks for more: the
//! server evaluates the query's trigrams against the index it holds open
//! and judges the table itself ([`answer`]), so the query process never
//! opens the index and only reads what it is told.
//!
//! The server rebuilds the index in the background when the overlay grows
//! ([`merge`]), answers over a Unix socket and optionally TCP ([`listen`],
//! [`protocol`], [`rendezvous`]); [`client`] is the query side.

pub mod answer;
pub mod apply;
pub mod client;
pub mod listen;
pub mod merge;
pub mod overlay;
pub mod protocol;
pub mod rendezvous;
pub mod watch;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::index::error::IndexError;
use crate::index::fresh::changes::Touched;
use crate::index::fresh::judge::TableSummary;
use crate::index::reader::IndexReader;
use overlay::Overlay;
use rendezvous::Rendezvous;
use watch::DirWatches;

/// How a server runs.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The root of the tree (canonical).
    pub root: PathBuf,
    /// The base directory of indexes.
    pub base: PathBuf,
    /// Also listen on this loopback TCP address, with a token.
    pub listen: Option<std::net::SocketAddr>,
    /// Exit after this long without a query (`None`: never).
    pub idle_timeout: Option<Duration>,
    /// The private memory (RssAnon) the server keeps under: above it, the
    /// overlay is merged into the index on disk.
    pub max_memory: u64,
    /// Rebuild the index when the overlay holds this many entries.
    pub merge_at: usize,
}

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
    /// Anything else: sockets, inotify, the runtime directory.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// What the server knows, behind one lock.
pub struct State {
    /// The index queries read (reopened after each rebuild).
    pub reader: Arc<IndexReader>,
    /// What changed since that index was built.
    pub overlay: Overlay,
    /// The watched directories.
    pub watches: DirWatches,
    /// Events applied so far (each event's sequence number).
    pub seq: u64,
    /// The highest sync cookie applied.
    pub cookie_seen: u64,
    /// Queue overflows applied (a cookie lost in one is not waited for:
    /// the overflow makes every query stat the whole tree).
    pub overflows_applied: u64,
    /// The first reconcile is done: answers can be trusted.
    pub ready: bool,
    /// A rebuild is running.
    pub merging: bool,
    /// An ignore file changed: rebuild soon (queries walk meanwhile).
    pub walk_changed: bool,
    /// Entries created since the last rebuild that the index does not know
    /// (queries find them by walking their directory).
    pub created: usize,
}

/// Counters for `tg status`.
#[derive(Default)]
pub struct Counters {
    /// Queries answered.
    pub queries: AtomicU64,
    /// Clients connected now.
    pub clients: AtomicUsize,
    /// Events applied.
    pub events: AtomicU64,
    /// Kernel queue overflows.
    pub overflows: AtomicU64,
    /// Reconciles run (start and overflows).
    pub reconciles: AtomicU64,
    /// Rebuilds published.
    pub merges: AtomicU64,
    /// The last rebuild's error, if it failed.
    pub merge_error: Mutex<Option<String>>,
}

/// A running server.
pub struct Server {
    /// How it runs.
    pub opts: ServeOptions,
    /// The index directory.
    pub index_dir: PathBuf,
    /// Its socket, token and cookie paths.
    pub rendezvous: Rendezvous,
    state: Mutex<State>,
    applied: Condvar,
    next_cookie: AtomicU64,
    /// What the drain thread took from the kernel's queue.
    drained: Arc<watch::Drained>,
    /// When it started.
    pub started: Instant,
    last_query: Mutex<Instant>,
    /// Counters for `tg status`.
    pub counters: Counters,
    /// Set when the server is to stop.
    pub stopping: AtomicBool,
    /// The summary of the table queries are judged against
    /// ([`answer`]), made by the first query after each rebuild.
    pub table_summary: Mutex<Option<Arc<TableSummary>>>,
}

impl Server {
    /// Locks the state.
    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wakes queries waiting for their cookie.
    pub fn notify_applied(&self) {
        self.applied.notify_all();
    }

    /// Waits until every change made before this call has been applied,
    /// then says what may have changed since the index was built, and
    /// which index that is; `None` when the server cannot vouch (still
    /// starting, or the watcher lags more than `patience`): the query then
    /// checks for itself.
    pub fn sync(&self, patience: Duration) -> Option<(Touched, Arc<IndexReader>)> {
        *self.last_query.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        self.counters.queries.fetch_add(1, Ordering::Relaxed);
        let deadline = Instant::now() + patience;
        let answer = |st: MutexGuard<'_, State>| {
            st.ready.then(|| (st.overlay.touched(), Arc::clone(&st.reader)))
        };
        if let Some(handed) = self.drained.quiet() {
            // Every earlier change was handed on: wait until it is applied.
            return self.wait_applied(deadline, |st| st.seq >= handed).and_then(answer);
        }
        let n = self.next_cookie.fetch_add(1, Ordering::SeqCst) + 1;
        let cookie = self.rendezvous.cookies.join(n.to_string());
        let overflows = self.state().overflows_applied;
        std::fs::File::create(&cookie).ok()?;
        let applied = self
            .wait_applied(deadline, |st| st.cookie_seen >= n || st.overflows_applied != overflows);
        // The lock is released before the cookie goes (also after a timeout).
        let answered = applied.and_then(answer);
        let _ = std::fs::remove_file(cookie);
        answered
    }

    /// The state once `done` holds for it, or `None` past `deadline`.
    fn wait_applied(
        &self,
        deadline: Instant,
        done: impl Fn(&State) -> bool,
    ) -> Option<MutexGuard<'_, State>> {
        let mut st = self.state();
        while !done(&st) {
            let left = deadline.checked_duration_since(Instant::now())?;
            st = self.applied.wait_timeout(st, left).unwrap_or_else(|e| e.into_inner()).0;
        }
        Some(st)
    }

    /// Time since the last query (or the start).
    pub fn idle_for(&self) -> Duration {
        self.last_query.lock().unwrap_or_else(|e| e.into_inner()).elapsed()
    }
}

/// Starts serving the tree at `opts.root`: builds its index if there is
/// none usable (missing, damaged, or from another version), starts watching, reconciles once, then answers on the socket
/// until stopped. `on_ready` is called once queries can be answered.
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
            merge::build_quietly(&opts)?;
            IndexReader::open(&index_dir)?
        }
    };
    let reader = Arc::new(reader);
    let _ = std::fs::remove_dir_all(&rendezvous.cookies);
    let (watches, inotify) = watch::start(&opts.root, &rendezvous.cookies)?;
    let drained = Arc::new(watch::Drained::of(&inotify));
    let server = Arc::new(Server {
        drained: Arc::clone(&drained),
        index_dir,
        rendezvous,
        state: Mutex::new(State {
            reader,
            overlay: Overlay::default(),
            watches,
            seq: 0,
            cookie_seen: 0,
            overflows_applied: 0,
            ready: false,
            merging: false,
            walk_changed: false,
            created: 0,
        }),
        applied: Condvar::new(),
        next_cookie: AtomicU64::new(0),
        started: Instant::now(),
        last_query: Mutex::new(Instant::now()),
        counters: Counters::default(),
        stopping: AtomicBool::new(false),
        table_summary: Mutex::new(None),
        opts,
    });
    merge::watch_table(&server);
    let (tx, rx) = crossbeam_channel::bounded(1 << 16);
    std::thread::Builder::new()
        .name("tg-drain".into())
        .spawn(move || watch::drain(inotify, tx, &drained))?;
    let s = Arc::clone(&server);
    std::thread::Builder::new().name("tg-apply".into()).spawn(move || apply::run(&s, &rx))?;
    // Everything changed before the watches were set is found by one look.
    merge::reconcile(&server, 0);
    server.state().ready = true;
    let listeners = listen::Listeners::bind(&server)?;
    on_ready(&server.rendezvous);
    let s = Arc::clone(&server);
    std::thread::Builder::new().name("tg-house".into()).spawn(move || merge::housekeeping(&s))?;
    let result = listeners.run(&server);
    server.rendezvous.withdraw();
    // Stopped while a merge writes its index: the process exits before
    // the merge drops its temporary file.
    crate::index::storage::FsStorage::new(&server.index_dir).remove_own_temp_files();
    result.map_err(ServeError::from)
}
