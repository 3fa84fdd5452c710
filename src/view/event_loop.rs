//! The viewer on a terminal: keys and resizes read, actions handed to
//! [`Work`] (which runs scans off this thread), the screen drawn when
//! something changed, and every 100 ms while a scan runs (its progress);
//! ticks between keys see growth, the background count and the density
//! bar. This thread never reads more than a screen's lines, so every key
//! is answered at once, `q` and Ctrl-C included.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{self, Event, KeyEventKind};

use super::app::App;
use super::keys::Action;
use super::work::Work;
use super::{render, terminal};

/// At most this many events already waiting are handled before a draw
/// (keys held down still show).
const BATCH: usize = 64;

/// The event loop on the terminal `screen`, `start` done first, until
/// the user leaves or asks for another file; `drawn` is called after
/// each screen drawn (the first starts the background work).
pub fn interactive(
    app: &mut App,
    screen: &mut terminal::Screen,
    start: &[Action],
    color: bool,
    drawn: &mut dyn FnMut(),
) -> anyhow::Result<()> {
    let mut work = Work::default();
    // The start-up commands (`+G`) need the screen's size.
    let size = screen.terminal.size()?;
    app.rows = size.height.saturating_sub(1).max(1) as usize;
    app.width = size.width as usize;
    for action in start {
        work.act(app, action.clone());
    }
    let test_panic = std::env::var_os("TG_VIEW_TEST_PANIC").is_some_and(|v| v == "1");
    let mut dirty = true;
    let mut last_draw = Instant::now();
    // What the last screen drawn showed of work done in the background
    // (the line count, a density bar still counting): drawn again when
    // that changes, however quickly the work ended.
    let mut shown = None;
    let progress = |app: &App| {
        let density = app.density.as_ref().map(|d| (Arc::as_ptr(d), d.done()));
        (app.lines.total(), density, app.ends.found())
    };
    while !app.quit && app.switch_to.is_none() && !screen.signalled() {
        dirty |= work.settle(app, Duration::ZERO);
        let busy = work.busy();
        if dirty || (busy.is_some() && last_draw.elapsed() >= Duration::from_millis(100)) {
            shown = Some(progress(app));
            let size = screen.terminal.size()?;
            app.rows = size.height.saturating_sub(1).max(1) as usize;
            app.resize(size.width as usize);
            let rows = work.rows(app);
            let busy = work.busy();
            screen.terminal.draw(|f| render::draw(f, app, &rows, busy.as_ref(), color))?;
            drawn();
            assert!(!test_panic, "TG_VIEW_TEST_PANIC=1: a panic after drawing");
            last_draw = Instant::now();
            dirty = false;
        }
        // A scan, or a long line's end looked for: its outcome is drawn soon.
        let wait = match (work.busy().is_some() || app.ends.looking(), app.follow) {
            (true, _) => 5,
            (false, true) => 200,
            (false, false) => 100,
        };
        if event::poll(Duration::from_millis(wait))? {
            // Every key already typed is handled before the next draw: a
            // line number typed at once (`69426744G`) is drawn once, not
            // nine times (each draw costs the UI thread ~1 ms and tmux
            // more; on a loaded machine, each a wait for a CPU).
            for _ in 0..BATCH {
                match event::read()? {
                    Event::Key(k) if k.kind != KeyEventKind::Release => {
                        // Any key stops following (and then does what it does).
                        app.follow = false;
                        if let Some(action) = app.keys.feed(k) {
                            work.act(app, action);
                        }
                        dirty = true;
                    }
                    Event::Resize(..) => dirty = true,
                    _ => {}
                }
                // Keys typed after `:n` are the next file's.
                if app.quit || app.switch_to.is_some() || !event::poll(Duration::ZERO)? {
                    break;
                }
            }
        } else if screen.hung_up() {
            break;
        } else if work.busy().is_none() {
            let (changed, scan) = app.tick();
            if let Some(action) = scan {
                work.act(app, action);
            }
            let density_busy = app.density.as_ref().is_some_and(|d| !d.done());
            dirty = changed || density_busy || shown != Some(progress(app));
        }
    }
    Ok(())
}
