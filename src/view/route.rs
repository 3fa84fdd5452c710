//! Where an action runs: on the UI thread when it reads little, on a
//! worker ([`super::job`]) when it may read much. A plain move reads
//! little unless it crosses a long line whose ends are not known yet
//! (`N%` landing in a line of a gigabyte, `k` or `G` over one): it is
//! tried on the UI thread with a budget of [`BUDGET`] bytes read, and
//! runs as a job only when that is not enough.

use std::sync::Arc;

use super::app::App;
use super::finder::Finder;
use super::job::Doing;
use super::keys::Action;
use super::line_ends::LONG;
use super::metered::Metered;

/// The most a move reads on the UI thread: what the screen reads of a
/// line at most (its start; past this, the end is looked for by a thread).
pub const BUDGET: u64 = LONG;

/// An `n` or `N` whose search reads at most this much (its candidate
/// blocks, through the index) runs on the UI thread: a hand-over to a
/// worker and back costs more (1–4 ms on a loaded machine).
const INLINE: u64 = 4 << 20;

/// Where an action runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// On the UI thread: it reads nothing, or little.
    Now,
    /// On the UI thread if [`BUDGET`] bytes read are enough, else as a
    /// job doing this.
    Try(Doing),
    /// As a job.
    Job(Doing),
}

/// Where `action` runs, on `app` as it is.
pub fn route(app: &App, action: &Action) -> Route {
    use Action::*;
    let filtered = app.filter.is_some();
    let small = |f: &Finder| f.candidate_bytes().is_some_and(|n| n <= INLINE);
    let search = |scans: bool| if scans { Route::Job(Doing::Search) } else { Route::Now };
    let ends = "finding where a long line ends…";
    let back = "reading back over a long line…";
    match action {
        Enter(_) | Histogram if app.histogram.is_some() => Route::Job(Doing::Search),
        Histogram => Route::Job(Doing::Search),
        Next | Previous => search(filtered || !app.search.as_ref().is_some_and(|s| small(&s.0))),
        Search { .. } | Filter(_) => Route::Job(Doing::Search),
        IgnoreCase | SmartCase => search(filtered || app.search.is_some()),
        _ if filtered && moves(action) => Route::Job(Doing::Search),
        Down(_) | Enter(_) | PageDown(_) | HalfDown | Line(_) => Route::Try(Doing::Move(ends)),
        Up(_) | PageUp(_) | HalfUp | Bottom | Follow => Route::Try(Doing::Move(back)),
        Percent(p) if *p >= 100 => Route::Try(Doing::Move(back)),
        Percent(_) | Region(_) => Route::Try(Doing::Move("finding where a long line starts…")),
        Save(_) | Time(_) | Level { .. } => Route::Job(Doing::Search),
        GotoMark(_) => Route::Try(Doing::Move(back)),
        Top | Right | Left | LineNumbers | Chop | Help | Redraw | Cancel | Quit => Route::Now,
        Mark(_) | Info | HighlightOff | File(_) => Route::Now,
    }
}

/// Whether `action` moves the screen by lines (so, filtered, by matching lines).
fn moves(action: &Action) -> bool {
    use Action::*;
    matches!(
        action,
        Down(_)
            | Enter(_)
            | Up(_)
            | PageDown(_)
            | PageUp(_)
            | HalfDown
            | HalfUp
            | Line(_)
            | Top
            | Bottom
            | Percent(_)
            | Follow
            | Region(_)
            | GotoMark(_)
            | Time(_)
    )
}

/// Applies `action` to `app` if it reads at most `budget` bytes; else
/// leaves `app` as it was. Whether it was applied.
pub fn within(app: &mut App, action: &Action, budget: u64) -> bool {
    let meter = Arc::new(Metered::budget(Arc::clone(&app.text), budget));
    let mut probe = app.clone();
    probe.text = Arc::clone(&meter) as _;
    probe.apply(action.clone(), &mut |_| true);
    if meter.cut() {
        return false;
    }
    probe.text = Arc::clone(&app.text);
    *app = probe;
    true
}
