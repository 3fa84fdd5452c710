//! What the threads of a running server share ([`Server`]): how it runs,
//! where it meets clients, the [`State`] behind its lock, and its counters.
//! [`super::serve`] makes it and hands it to each thread; every field is
//! private, and each thread acts through the operations below.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::listings::Listings;
use super::rendezvous::Rendezvous;
use super::state::{Progress, State, Synced};
use crate::index::fresh::judge::TableSummary;
use crate::index::reader::IndexReader;
use crate::sys::watch::Drained;

/// How long a query waits for the watcher to catch up before it checks
/// the tree itself.
pub(crate) const SYNC_PATIENCE: Duration = Duration::from_secs(2);

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

/// Counters for `tg status`.
#[derive(Default)]
struct Counters {
    queries: AtomicU64,
    clients: AtomicUsize,
    events: AtomicU64,
    overflows: AtomicU64,
    reconciles: AtomicU64,
    merges: AtomicU64,
    /// Listings sent again, unchanged (`listings`).
    resent: AtomicU64,
    /// The last rebuild's error, if it failed.
    merge_error: Mutex<Option<String>>,
}

/// A running server, shared by its threads.
pub struct Server {
    opts: ServeOptions,
    /// The index directory of the tree.
    index_dir: PathBuf,
    rendezvous: Rendezvous,
    state: Mutex<State>,
    applied: Condvar,
    next_cookie: AtomicU64,
    /// What the drain thread took from the kernel's queue.
    drained: Arc<Drained>,
    started: Instant,
    last_query: Mutex<Instant>,
    counters: Counters,
    stopping: AtomicBool,
    /// The summary of the table queries are judged against, made by the
    /// first query after each rebuild.
    table_summary: Mutex<Option<Arc<TableSummary>>>,
    /// The listings sent last, sent again while nothing changed.
    listings: Listings,
}

/// Locks `m`, whoever panicked while holding it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Server {
    /// A server for `opts`, its index in `index_dir`, meeting clients at
    /// `rendezvous`, knowing `state`, told by `drained` what the drain
    /// thread took.
    pub fn new(
        opts: ServeOptions,
        index_dir: PathBuf,
        rendezvous: Rendezvous,
        state: State,
        drained: Arc<Drained>,
    ) -> Server {
        Server {
            opts,
            index_dir,
            rendezvous,
            state: Mutex::new(state),
            applied: Condvar::new(),
            next_cookie: AtomicU64::new(0),
            drained,
            started: Instant::now(),
            last_query: Mutex::new(Instant::now()),
            counters: Counters::default(),
            stopping: AtomicBool::new(false),
            table_summary: Mutex::new(None),
            listings: Listings::default(),
        }
    }

    /// How it runs.
    pub fn opts(&self) -> &ServeOptions {
        &self.opts
    }

    /// The root of the tree.
    pub fn root(&self) -> &Path {
        &self.opts.root
    }

    /// The index directory of the tree.
    pub fn index_dir(&self) -> &Path {
        &self.index_dir
    }

    /// Where it meets its clients.
    pub(crate) fn rendezvous(&self) -> &Rendezvous {
        &self.rendezvous
    }

    /// Locks the state.
    pub fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Wakes queries waiting for their cookie (after events were applied).
    pub(crate) fn notify_applied(&self) {
        self.applied.notify_all();
    }

    /// Waits until every change made before this call has been applied,
    /// then says what may have changed since the index was built, and
    /// which index that is; `None` when the server cannot vouch (still
    /// starting, or the watcher lags more than [`SYNC_PATIENCE`]): the
    /// query then checks for itself.
    pub fn sync(&self) -> Option<Synced> {
        *lock(&self.last_query) = Instant::now();
        self.counters.queries.fetch_add(1, Ordering::Relaxed);
        let deadline = Instant::now() + SYNC_PATIENCE;
        if let Some(handed) = self.drained.quiet() {
            // Every earlier change was handed on: wait until it is applied.
            return self.wait_applied(deadline, |p| p.seq >= handed).and_then(|st| st.answer());
        }
        let n = self.next_cookie.fetch_add(1, Ordering::SeqCst) + 1;
        let cookie = self.drained.cookie(n);
        let overflows = self.state().progress().overflows;
        std::fs::File::create(&cookie).ok()?;
        let applied =
            self.wait_applied(deadline, |p| p.cookie_seen >= n || p.overflows != overflows);
        // The lock is released before the cookie goes (also after a timeout).
        let answered = applied.and_then(|st| st.answer());
        let _ = std::fs::remove_file(cookie);
        answered
    }

    /// The state once `done` holds for its progress, or `None` past `deadline`.
    fn wait_applied(
        &self,
        deadline: Instant,
        done: impl Fn(Progress) -> bool,
    ) -> Option<MutexGuard<'_, State>> {
        let mut st = self.state();
        while !done(st.progress()) {
            let left = deadline.checked_duration_since(Instant::now())?;
            st = self.applied.wait_timeout(st, left).unwrap_or_else(|e| e.into_inner()).0;
        }
        Some(st)
    }

    /// Time since the last query (or the start).
    pub(crate) fn idle_for(&self) -> Duration {
        lock(&self.last_query).elapsed()
    }

    /// The summary of `reader`'s table, computed once per index.
    pub(crate) fn table_summary(&self, reader: &IndexReader) -> Arc<TableSummary> {
        let mut cached = lock(&self.table_summary);
        match &*cached {
            Some(s) if s.table_id == reader.stats().table_id => Arc::clone(s),
            _ => {
                let s = Arc::new(TableSummary::of(reader, self.root()));
                *cached = Some(Arc::clone(&s));
                s
            }
        }
    }

    /// The listings sent last.
    pub fn listings(&self) -> &Listings {
        &self.listings
    }

    /// Counts a listing sent again.
    pub(crate) fn listing_resent(&self) {
        self.counters.resent.fetch_add(1, Ordering::Relaxed);
    }

    /// Asks the server to stop and wakes its accept loop.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        let _ = crate::sys::door::connect(&self.rendezvous.socket);
    }

    /// Whether the server is to stop.
    pub fn stopping(&self) -> bool {
        self.stopping.load(Ordering::Relaxed)
    }

    /// A client connected; how many were connected before it.
    pub(crate) fn client_came(&self) -> usize {
        self.counters.clients.fetch_add(1, Ordering::SeqCst)
    }

    /// A client left.
    pub(crate) fn client_left(&self) {
        self.counters.clients.fetch_sub(1, Ordering::SeqCst);
    }

    /// Whether no client is connected.
    pub(crate) fn no_clients(&self) -> bool {
        self.counters.clients.load(Ordering::Relaxed) == 0
    }

    /// Counts `n` events applied.
    pub(crate) fn events_applied(&self, n: u64) {
        self.counters.events.fetch_add(n, Ordering::Relaxed);
    }

    /// Counts a kernel queue overflow.
    pub fn overflowed(&self) {
        self.counters.overflows.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a reconcile.
    pub fn reconciled(&self) {
        self.counters.reconciles.fetch_add(1, Ordering::Relaxed);
    }

    /// Records how a rebuild ended: `None` when it published its index,
    /// else its error, kept for `tg status`.
    pub fn rebuilt(&self, error: Option<String>) {
        let published = error.is_none();
        // The error is cleared before the count shows the merge, so a
        // status never shows both.
        *lock(&self.counters.merge_error) = error;
        if published {
            self.counters.merges.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Whether the last rebuild failed.
    pub(crate) fn rebuild_failed(&self) -> bool {
        lock(&self.counters.merge_error).is_some()
    }

    /// What `tg status` shows of the server.
    pub fn status(&self) -> Value {
        let c = &self.counters;
        let mut out = Map::new();
        self.state().status(&mut out);
        let more = json!({
            "ok": true,
            "pid": std::process::id(),
            "root": self.opts.root.to_string_lossy(),
            "index": self.index_dir.to_string_lossy(),
            "uptime_s": self.started.elapsed().as_secs_f64(),
            "private_bytes": crate::sys::private_bytes(),
            "max_memory": self.opts.max_memory,
            "queries": c.queries.load(Ordering::Relaxed),
            "clients": c.clients.load(Ordering::Relaxed).saturating_sub(1),
            "events": c.events.load(Ordering::Relaxed),
            "overflows": c.overflows.load(Ordering::Relaxed),
            "reconciles": c.reconciles.load(Ordering::Relaxed),
            "merges": c.merges.load(Ordering::Relaxed),
            "listings_resent": c.resent.load(Ordering::Relaxed),
            "merge_error": lock(&c.merge_error).clone(),
            "idle_s": self.idle_for().as_secs_f64(),
        });
        if let Value::Object(more) = more {
            out.extend(more);
        }
        Value::Object(out)
    }
}
