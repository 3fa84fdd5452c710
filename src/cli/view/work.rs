//! Scans off the UI thread. An action that may read much of the text (a
//! search, `n`/`N`, a filter, any move or jump while filtered, a case
//! toggle that plans patterns again) runs as a [`Job`]: on a worker
//! thread, on a copy of the [`App`], which also computes a filtered
//! screen's rows.
//! Meanwhile the UI thread keeps answering keys: moves on the screen as it
//! is, `q`, Ctrl-C or Esc (which cancel the job), and the status line
//! says how far the job got. A new search or filter supersedes a running
//! job; other scanning keys wait in order behind it. When the job ends,
//! the UI takes its position, patterns and message, and its rows.
//!
//! [`Work`] holds the job, the keys waiting behind it and the filtered
//! screen last computed; the event loop and `--replay` both go through it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use super::app::App;
use super::keys::Action;
use super::screen::Row;

/// How long a new job is waited for before the screen is drawn without
/// it: a search through the index ends well within this.
const QUICK: Duration = Duration::from_millis(40);

/// What a filtered screen's rows were computed for: the top, the left
/// offset, the rows, the filter and marks (by address) and the length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowsKey(u64, u64, usize, usize, usize, u64);

impl RowsKey {
    /// The key of `app`'s screen now.
    pub fn of(app: &App) -> RowsKey {
        let addr =
            |f: Option<&Arc<super::search::Finder>>| f.map_or(0, |f| Arc::as_ptr(f) as usize);
        let marks = app.search.as_ref().map(|s| &s.0).or(app.filter.as_ref());
        RowsKey(app.top, app.left, app.rows, addr(app.filter.as_ref()), addr(marks), app.text.len())
    }
}

/// What a finished job hands back: the copy, and its rows with their key.
struct Done {
    app: App,
    key: RowsKey,
    rows: Vec<Row>,
}

/// Actions applied on a worker thread.
struct Job {
    cancel: Arc<AtomicBool>,
    read: Arc<AtomicU64>,
    total: u64,
    /// The job moves the screen (else it only computes rows).
    moves: bool,
    rx: Receiver<Done>,
}

impl Job {
    /// Applies `actions` to a copy of `app`, then computes its rows.
    fn start(app: &App, actions: Vec<Action>) -> Job {
        let (tx, rx) = mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let read = Arc::new(AtomicU64::new(0));
        let mut copy = app.clone();
        let moves = !actions.is_empty();
        let (stop, counter) = (Arc::clone(&cancel), Arc::clone(&read));
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
            // Rows are kept for a filtered screen only: the UI computes
            // any other screen itself, reading no more than it shows.
            let key = RowsKey::of(&copy);
            let rows = match copy.filter {
                Some(_) => copy.screen(&mut progress),
                None => Vec::new(),
            };
            if !stop.load(Ordering::Relaxed) {
                let _ = tx.send(Done { app: copy, key, rows });
            }
        });
        Job { cancel, read, total: app.text.len().max(1), moves, rx }
    }

    /// How much of the text it read, in percent (at most 99).
    fn percent(&self) -> u64 {
        (self.read.load(Ordering::Relaxed).saturating_mul(100) / self.total).min(99)
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// The UI's side of scanning: the running job, what waits behind it, the
/// filtered screen last computed.
#[derive(Default)]
pub struct Work {
    job: Option<Job>,
    queue: Vec<Action>,
    rows: Option<(RowsKey, Vec<Row>)>,
}

impl Work {
    /// Does what `action` asks: on the UI thread when it reads little,
    /// else as a job (superseding the running one for a new search or
    /// filter, behind it otherwise). Ctrl-C or Esc cancels a running job.
    pub fn act(&mut self, app: &mut App, action: Action) {
        if self.job.is_some() && action == Action::Cancel {
            self.job = None;
            self.queue.clear();
            app.message = Some("search stopped".into());
            // A filtered screen being filled stays as it is, not filled again.
            if let Some(rows) = &mut self.rows {
                rows.0 = RowsKey::of(app);
            } else if app.filter.is_some() {
                self.rows = Some((RowsKey::of(app), Vec::new()));
            }
            return;
        }
        // What the job takes over when it ends must not change meanwhile:
        // a toggle typed during a search waits behind it.
        let toggle = matches!(action, Action::Follow | Action::IgnoreCase | Action::SmartCase);
        let waits = toggle && self.job.is_some();
        if !waits && !scans(app, &action) {
            app.apply(action, &mut |_| true);
            app.sync_density();
            return;
        }
        // A new search supersedes what runs; so does any move of a screen
        // whose rows are being filled (they are filled again after it).
        let fill = self.job.as_ref().is_some_and(|j| !j.moves);
        if fill || matches!(action, Action::Search { .. } | Action::Filter(_)) {
            self.job = None;
            self.queue.clear();
        }
        if self.job.is_some() {
            self.queue.push(action);
            return;
        }
        self.job = Some(Job::start(app, vec![action]));
        self.settle(app, QUICK);
    }

    /// Takes a finished job's outcome into `app` (waiting at most
    /// `wait`), and starts what waited behind it. Whether anything changed.
    pub fn settle(&mut self, app: &mut App, wait: Duration) -> bool {
        let Some(job) = &self.job else { return false };
        let done = match job.rx.recv_timeout(wait) {
            Ok(done) => done,
            Err(RecvTimeoutError::Timeout) => return false,
            Err(RecvTimeoutError::Disconnected) => {
                self.job = None;
                self.queue.clear();
                app.message = Some("the search failed (an internal error)".into());
                return true;
            }
        };
        if job.moves {
            let d = done.app;
            (app.top, app.search, app.filter, app.case) = (d.top, d.search, d.filter, d.case);
            (app.follow, app.pending_line, app.message) = (d.follow, d.pending_line, d.message);
            app.sync_density();
        }
        if app.filter.is_some() {
            self.rows = Some((done.key, done.rows));
        }
        self.job = None;
        if !self.queue.is_empty() {
            self.job = Some(Job::start(app, std::mem::take(&mut self.queue)));
        }
        true
    }

    /// The rows to draw: computed here without a filter (a screen reads
    /// little); with one, the rows a job computed for this very screen,
    /// else the last ones while a job computes them.
    pub fn rows(&mut self, app: &mut App) -> Vec<Row> {
        if app.filter.is_none() {
            return app.screen(&mut |_| true);
        }
        let key = RowsKey::of(app);
        if self.rows.as_ref().is_none_or(|r| r.0 != key) && self.job.is_none() {
            self.job = Some(Job::start(app, Vec::new()));
            self.settle(app, QUICK);
        }
        let Some((_, rows)) = &mut self.rows else { return Vec::new() };
        for r in rows.iter_mut().filter(|r| r.line.is_none()) {
            r.line = app.lines.line_of(&*app.text, r.start);
        }
        rows.clone()
    }

    /// How far the running job got, in percent (`None`: no job).
    pub fn busy(&self) -> Option<u64> {
        self.job.as_ref().map(Job::percent)
    }

    /// Waits until no job runs (`--replay`).
    pub fn finish(&mut self, app: &mut App) {
        while self.job.is_some() {
            self.settle(app, Duration::from_secs(1));
        }
    }
}

/// An `n` or `N` whose search reads at most this much (its candidate
/// blocks, through the index) runs on the UI thread: a hand-over to a
/// worker and back costs more (1–4 ms on a loaded machine).
const INLINE: u64 = 4 << 20;

/// Whether `action` may read much of `app`'s text.
fn scans(app: &App, action: &Action) -> bool {
    use Action::*;
    let filtered = app.filter.is_some();
    let small = |f: &super::search::Finder| f.candidate_bytes().is_some_and(|n| n <= INLINE);
    match action {
        Next | Previous => filtered || !app.search.as_ref().is_some_and(|s| small(&s.0)),
        Search { .. } | Filter(_) => true,
        IgnoreCase | SmartCase => filtered || app.search.is_some(),
        // A long line whose end is looked for: a move may read all of it.
        Down(_) | Up(_) | PageDown(_) | PageUp(_) | HalfDown | HalfUp => {
            filtered || app.ends.looking()
        }
        Line(_) | Top | Bottom | Percent(_) | Follow | Region(_) => filtered || app.ends.looking(),
        Right | Left | LineNumbers | Help | Redraw | Cancel | Quit => false,
    }
}
