//! One [`Job`]: actions applied to a copy of the [`App`] on a worker
//! thread, then the copy's rows computed when it is filtered. The copy
//! reads its text through a [`Metered`] one, so that its progress shows
//! and Ctrl-C (dropping the job) stops it, in a search as in a walk over
//! a long line. [`super::work`] decides what runs as a job and takes its
//! outcome.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use super::app::App;
use super::keys::Action;
use super::metered::Metered;
use super::screen::Row;

/// What a job does, for the status line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Doing {
    /// Searches (a search, `n`/`N`, a filter, a move while filtered).
    Search,
    /// Computes a filtered screen's rows; moves nothing.
    Fill,
    /// A move over a long line: what it looks for.
    Move(&'static str),
}

impl Doing {
    /// What the status line says while it runs.
    pub fn label(self) -> &'static str {
        match self {
            Doing::Search | Doing::Fill => "searching…",
            Doing::Move(what) => what,
        }
    }
}

/// What a filtered screen's rows were computed for: the top, the left
/// offset, the rows, the filter and marks (by address), the length, and
/// the wrapped rows' columns with the bytes above the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowsKey(u64, u64, usize, usize, usize, u64, Option<usize>, u64);

impl RowsKey {
    /// The key of `app`'s screen now.
    pub fn of(app: &App) -> RowsKey {
        let addr =
            |f: Option<&Arc<super::finder::Finder>>| f.map_or(0, |f| Arc::as_ptr(f) as usize);
        let marks = app.search.as_ref().map(|s| &s.0).or(app.filter.as_ref());
        let (filter, len) = (addr(app.filter.as_ref()), app.text.len());
        let wrap = (!app.chop).then(|| app.wrap_columns());
        RowsKey(app.top, app.left, app.rows, filter, addr(marks), len, wrap, app.part)
    }
}

/// What a finished job hands back: the copy, and its rows with their key
/// (rows only for a filtered screen: the UI computes any other itself).
pub struct Done {
    /// The copy, the actions applied.
    pub app: App,
    /// What the rows were computed for.
    pub key: RowsKey,
    /// The copy's filtered screen.
    pub rows: Vec<Row>,
}

/// Actions applied on a worker thread.
pub struct Job {
    cancel: Arc<AtomicBool>,
    /// Bytes a search reported, and bytes read through the meter.
    searched: Arc<AtomicU64>,
    read: Arc<AtomicU64>,
    total: u64,
    /// What it does.
    pub doing: Doing,
    /// The pattern of the search or filter it makes, as typed.
    pub asked: Option<String>,
    rx: Receiver<Done>,
}

impl Job {
    /// Applies `actions` to a copy of `app`, then computes its rows.
    pub fn start(app: &App, actions: Vec<Action>, doing: Doing) -> Job {
        let asked = actions.first().and_then(asked);
        let (tx, rx) = mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let (searched, read): (Arc<AtomicU64>, Arc<AtomicU64>) = (Arc::default(), Arc::default());
        let mut copy = app.clone();
        let text = Arc::clone(&app.text);
        copy.text = Arc::new(Metered::new(text, u64::MAX, Arc::clone(&cancel), Arc::clone(&read)));
        let (stop, counter) = (Arc::clone(&cancel), Arc::clone(&searched));
        // Test hooks (tests/view_work.rs): a panic in the worker, and a
        // scan slowed to 200 ms per piece read, to type keys during it.
        let test = std::env::var("TG_VIEW_TEST_PANIC").ok();
        let slow = std::env::var_os("TG_VIEW_TEST_SLOW").is_some();
        std::thread::spawn(move || {
            assert!(test.as_deref() != Some("job"), "TG_VIEW_TEST_PANIC=job: a panic in a search");
            let mut progress = |n: u64| {
                if slow && n > 0 {
                    std::thread::sleep(Duration::from_millis(200));
                }
                counter.fetch_add(n, Ordering::Relaxed);
                !stop.load(Ordering::Relaxed)
            };
            for action in actions {
                copy.apply(action, &mut progress);
            }
            let key = RowsKey::of(&copy);
            let rows = match copy.filter {
                Some(_) => copy.screen(&mut progress),
                None => Vec::new(),
            };
            if !stop.load(Ordering::Relaxed) {
                let _ = tx.send(Done { app: copy, key, rows });
            }
        });
        Job { cancel, searched, read, total: app.text.len().max(1), doing, asked, rx }
    }

    /// How much of the text it read, in percent (at most 99).
    pub fn percent(&self) -> u64 {
        let n = self.read.load(Ordering::Relaxed).max(self.searched.load(Ordering::Relaxed));
        (n.saturating_mul(100) / self.total).min(99)
    }

    /// Its outcome, waiting at most `wait`.
    pub fn outcome(&self, wait: Duration) -> Outcome {
        match self.rx.recv_timeout(wait) {
            Ok(done) => Outcome::Done(Box::new(done)),
            Err(RecvTimeoutError::Timeout) => Outcome::Running,
            Err(RecvTimeoutError::Disconnected) => Outcome::Failed,
        }
    }
}

/// The new pattern `action` asks for, as typed (`/p`, `?p`, `&p`).
fn asked(action: &Action) -> Option<String> {
    match action {
        Action::Search { pattern, backward } if !pattern.is_empty() => {
            Some(format!("{}{pattern}", if *backward { '?' } else { '/' }))
        }
        Action::Filter(pattern) if !pattern.is_empty() => Some(format!("&{pattern}")),
        _ => None,
    }
}

/// How a job stands.
pub enum Outcome {
    /// It ended.
    Done(Box<Done>),
    /// It still runs.
    Running,
    /// Its worker died (a panic).
    Failed,
}

impl Drop for Job {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}
