//! Scans off the UI thread. An action that may read much of the text (a
//! search, `n`/`N`, a filter, any move or jump while filtered, a case
//! toggle that plans patterns again, a move over a long line whose ends
//! are not known) runs as a [`Job`] ([`super::route`] says which): on a
//! worker thread, on a copy of the [`App`], which also computes a
//! filtered screen's rows.
//! Meanwhile the UI thread keeps answering keys, and the status line says
//! what the job does and how far it got. Keys typed during a job wait
//! behind it and are applied in order, after it, to its outcome; `q` acts
//! at once, Ctrl-C or Esc cancels the job and what waits. A new search or
//! filter supersedes a running search; a move supersedes the filling of a
//! filtered screen (filled again after it). When the job ends, the UI
//! takes its position, patterns and message, and its rows.
//!
//! [`Work`] holds the job, the actions waiting behind it and the filtered
//! screen last computed; the event loop and `--replay` both go through it.

use std::collections::VecDeque;
use std::time::Duration;

use super::app::App;
use super::job::{Doing, Job, Outcome, RowsKey};
use super::keys::Action;
use super::route::{self, BUDGET, Route};
use super::screen::Row;

/// How long a new job is waited for before the screen is drawn without
/// it: a search through the index ends well within this.
const QUICK: Duration = Duration::from_millis(40);

/// The same for a move over a long line: the screen says what it does
/// within this, and keys are read again.
const QUICK_MOVE: Duration = Duration::from_millis(10);

/// What the status line says of a running job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Busy {
    /// What it does.
    pub what: &'static str,
    /// How much of the text it read, in percent.
    pub percent: u64,
    /// Actions typed since, waiting behind it.
    pub waiting: usize,
    /// The pattern it searches for or filters by, as typed (`/p`, `?p`, `&p`).
    pub asked: Option<String>,
}

/// The UI's side of scanning: the running job, what waits behind it, the
/// filtered screen last computed.
#[derive(Default)]
pub struct Work {
    job: Option<Job>,
    queue: VecDeque<Action>,
    rows: Option<(RowsKey, Vec<Row>)>,
}

impl Work {
    /// Does what `action` asks, or queues it behind the running job.
    pub fn act(&mut self, app: &mut App, action: Action) {
        if let Some(job) = &self.job {
            let search = job.doing == Doing::Search;
            match action {
                Action::Cancel => return self.cancel(app),
                // q leaves at once (or closes the help).
                Action::Quit => return app.apply(action, &mut |_| true),
                // A move of a screen whose rows are being filled
                // supersedes the filling: its own job fills them again.
                _ if job.doing == Doing::Fill => self.job = None,
                // A new search supersedes one that runs, with what waits behind it.
                Action::Search { .. } | Action::Filter(_) if search => {
                    self.job = None;
                    self.queue.clear();
                }
                _ => return self.queue.push_back(action),
            }
        }
        self.run(app, action);
        // A move over a long line is waited for less: it needs more than
        // the budget the UI thread tried.
        let wait = match self.job.as_ref().map(|j| j.doing) {
            None => return,
            Some(Doing::Move(_)) => QUICK_MOVE,
            Some(_) => QUICK,
        };
        self.settle(app, wait);
    }

    /// Ctrl-C or Esc during a job: it stops; the keys typed behind it
    /// are then done, in order, as less does with keys typed ahead.
    fn cancel(&mut self, app: &mut App) {
        let what = self.job.take().map_or("search", |j| match j.doing {
            Doing::Move(_) => "move",
            Doing::Search | Doing::Fill => "search",
        });
        app.message = Some(format!("{what} stopped"));
        // A filtered screen being filled stays as it is, not filled again.
        if let Some(rows) = &mut self.rows {
            rows.0 = RowsKey::of(app);
        } else if app.filter.is_some() {
            self.rows = Some((RowsKey::of(app), Vec::new()));
        }
        let stopped = app.message.clone();
        while self.job.is_none()
            && let Some(action) = self.queue.pop_front()
        {
            self.run(app, action);
        }
        app.message = app.message.take().or(stopped);
    }

    /// Applies `action` on this thread when it reads little, else starts its job.
    fn run(&mut self, app: &mut App, action: Action) {
        let doing = match route::route(app, &action) {
            Route::Now => {
                app.apply(action, &mut |_| true);
                app.sync_density();
                return;
            }
            Route::Try(_) if route::within(app, &action, BUDGET) => {
                app.sync_density();
                return;
            }
            Route::Try(doing) | Route::Job(doing) => doing,
        };
        self.job = Some(Job::start(app, vec![action], doing));
    }

    /// Takes a finished job's outcome into `app` (waiting at most
    /// `wait`), then applies what waited behind it, in order, until one
    /// starts a job of its own. Whether anything changed.
    pub fn settle(&mut self, app: &mut App, wait: Duration) -> bool {
        let Some(job) = &self.job else { return false };
        let done = match job.outcome(wait) {
            Outcome::Done(done) => done,
            Outcome::Running => return false,
            Outcome::Failed => {
                self.job = None;
                self.queue.clear();
                app.message = Some("the search failed (an internal error)".into());
                return true;
            }
        };
        if job.doing != Doing::Fill {
            let d = done.app;
            (app.top, app.search, app.filter, app.case) = (d.top, d.search, d.filter, d.case);
            app.part = d.part;
            (app.follow, app.pending_line, app.message) = (d.follow, d.pending_line, d.message);
            (app.jumped_from, app.highlight) = (d.jumped_from, d.highlight);
            app.histogram = d.histogram;
            app.sync_density();
        }
        if app.filter.is_some() {
            self.rows = Some((done.key, done.rows));
        }
        self.job = None;
        while self.job.is_none()
            && let Some(action) = self.queue.pop_front()
        {
            self.run(app, action);
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
            self.job = Some(Job::start(app, Vec::new(), Doing::Fill));
            self.settle(app, QUICK);
        }
        let Some((_, rows)) = &mut self.rows else { return Vec::new() };
        for r in rows.iter_mut().filter(|r| r.line.is_none()) {
            r.line = app.lines.line_of(&*app.text, r.start);
        }
        rows.clone()
    }

    /// What the running job does and how far it got (`None`: no job).
    pub fn busy(&self) -> Option<Busy> {
        let job = self.job.as_ref()?;
        Some(Busy {
            what: job.doing.label(),
            percent: job.percent(),
            waiting: self.queue.len(),
            asked: job.asked.clone(),
        })
    }

    /// Waits until no job runs (`--replay`).
    pub fn finish(&mut self, app: &mut App) {
        while self.job.is_some() {
            self.settle(app, Duration::from_secs(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::lines::LineMap;
    use crate::view::text::{Memory, Text};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::thread::ThreadId;

    /// A text that other threads than its owner's (a job's worker) read
    /// only once the gate is open: a job runs as long as a test wants.
    struct Gated {
        text: Memory,
        owner: ThreadId,
        open: AtomicBool,
    }

    impl Text for Gated {
        fn len(&self) -> u64 {
            self.text.len()
        }

        fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
            while std::thread::current().id() != self.owner && !self.open.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(1));
            }
            self.text.read_at(offset, buf)
        }

        fn kind(&self) -> &str {
            "gated"
        }
    }

    /// 100 short lines, a 3 MiB line (line 101), 100 short lines; a
    /// viewer of it, 5 rows high, and its gate.
    fn viewer() -> (App, Arc<Gated>, u64) {
        let mut data: Vec<u8> =
            (1..=100).flat_map(|i| format!("before {i}\n").into_bytes()).collect();
        let long = data.len() as u64;
        data.extend(std::iter::repeat_n(b'x', 3 << 20));
        data.push(b'\n');
        data.extend((1..=100).flat_map(|i| format!("after {i}\n").into_bytes()));
        let owner = std::thread::current().id();
        let text = Arc::new(Gated { text: Memory(data), owner, open: AtomicBool::new(false) });
        let lines = Arc::new(LineMap::new(&*text));
        let mut app = App::new(Arc::clone(&text) as _, "t".into(), lines);
        app.rows = 5;
        (app, text, long)
    }

    /// `50%` lands in the long line: more than the UI thread may read,
    /// so a job finds the line's start; `j`, `j` and Right typed during
    /// it wait, then apply in order to where it went.
    #[test]
    fn keys_typed_during_a_move_apply_after_it_in_order() {
        let (mut app, text, long) = viewer();
        let mut work = Work::default();
        work.act(&mut app, Action::Percent(50));
        let busy = work.busy().expect("a job: the line's start is 1.5 MiB back");
        assert_eq!(busy.what, "finding where a long line starts…");
        for action in [Action::Down(1), Action::Right, Action::Down(1)] {
            work.act(&mut app, action);
        }
        assert_eq!(work.busy().map(|b| b.waiting), Some(3));
        assert_eq!((app.top, app.left), (0, 0), "nothing moved before the job ends");
        text.open.store(true, Ordering::Relaxed);
        work.finish(&mut app);
        let after = long + (3 << 20) + 1;
        assert_eq!(app.top, after + "after 1\n".len() as u64, "the long line, then two down");
        assert_eq!(app.left, (app.width as u64 / 2).max(1));
        assert!(work.busy().is_none());
    }

    /// `k` from the line after the long one, and `G`, cross it backward:
    /// a job each; the moves behind it wait; Ctrl-C stops the job, then
    /// does what waits; `q` leaves at once.
    #[test]
    fn cancel_and_quit_act_at_once() {
        let (mut app, text, long) = viewer();
        let mut work = Work::default();
        let after = long + (3 << 20) + 1;
        app.top = after;
        work.act(&mut app, Action::Up(1));
        assert_eq!(work.busy().map(|b| b.what), Some("reading back over a long line…"));
        work.act(&mut app, Action::Down(3));
        work.act(&mut app, Action::Cancel);
        assert!(work.busy().is_none());
        assert_eq!(app.top, after + 24, "stopped where it was, then the 3 lines down typed");
        assert_eq!(app.message.as_deref(), Some("move stopped"));
        app.top = after;
        app.rows = 120;
        work.act(&mut app, Action::Bottom);
        assert!(work.busy().is_some(), "G crosses the long line: a job");
        app.rows = 5;
        work.act(&mut app, Action::Quit);
        assert!(app.quit, "q acts during the job");
        text.open.store(true, Ordering::Relaxed);
        work.act(&mut app, Action::Cancel);
        // Once its end is known, the long line is crossed on the UI thread.
        app.top = after;
        app.quit = false;
        text.open.store(true, Ordering::Relaxed);
        work.act(&mut app, Action::Up(1));
        work.finish(&mut app);
        assert_eq!(app.top, long);
        text.open.store(false, Ordering::Relaxed);
        work.act(&mut app, Action::Down(1));
        assert!(work.busy().is_none(), "remembered: no job");
        assert_eq!(app.top, after);
        app.rows = 120;
        work.act(&mut app, Action::Bottom);
        assert!(work.busy().is_none(), "G steps back over the remembered line: no job");
        assert_eq!(app.top, crate::view::nav::lines_back(&*text, long, 19, &mut |_, _| true));
    }
}
