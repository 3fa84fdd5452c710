//! The viewer on a terminal: keys and resizes read, actions applied, the
//! screen drawn when something changed; ticks between keys see growth,
//! the background count and the density bar. A long scan checks for Esc,
//! Ctrl-C or `q` every 50 ms; any other key typed meanwhile is kept and
//! handled after it, in order.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};

use super::app::App;
use super::keys::Action;
use super::{render, terminal};

/// Events read while a scan ran, handled next.
type Ahead = RefCell<VecDeque<Event>>;

/// The event loop on the terminal.
pub fn interactive(app: &mut App, color: bool) -> anyhow::Result<()> {
    let mut screen = terminal::Screen::enter()?;
    let ahead = Ahead::default();
    let mut dirty = true;
    // What the last screen drawn showed of work done in the background
    // (the line count, a density bar still counting): drawn again when
    // that changes, however quickly the work ended.
    let mut drawn = None;
    let progress =
        |app: &App| (app.lines.total(), app.density.as_ref().map(|d| (Arc::as_ptr(d), d.done())));
    while !app.quit && !screen.signalled() {
        if dirty {
            drawn = Some(progress(app));
            draw(&mut screen, app, color, &ahead)?;
            dirty = false;
        }
        let wait = Duration::from_millis(if app.follow { 200 } else { 100 });
        let next = ahead.borrow_mut().pop_front();
        let event = match next {
            Some(e) => e,
            None if event::poll(wait)? => event::read()?,
            None if screen.hung_up() => break,
            None => {
                let signalled = Arc::clone(&screen.signalled);
                let changed = app.tick(&mut |n| Interrupt::new(&signalled, &ahead).check(n));
                let density_busy = app.density.as_ref().is_some_and(|d| !d.done());
                dirty = changed || density_busy || drawn != Some(progress(app));
                continue;
            }
        };
        match event {
            Event::Key(k) if k.kind != KeyEventKind::Release => {
                if let Some(action) = app.keys.feed(k) {
                    if matches!(
                        action,
                        Action::Next
                            | Action::Previous
                            | Action::Search { .. }
                            | Action::Filter(_)
                            | Action::Bottom
                    ) {
                        app.message = Some("searching… (Esc stops)".into());
                        draw(&mut screen, app, color, &ahead)?;
                    }
                    let signalled = Arc::clone(&screen.signalled);
                    let mut interrupt = Interrupt::new(&signalled, &ahead);
                    app.apply(action, &mut |n| interrupt.check(n));
                    if interrupt.stopped {
                        app.message = Some("stopped".into());
                    }
                }
                dirty = true;
            }
            Event::Resize(..) => dirty = true,
            _ => {}
        }
    }
    Ok(())
}

/// Sizes `app` to the terminal and draws it.
fn draw(
    screen: &mut terminal::Screen,
    app: &mut App,
    color: bool,
    ahead: &Ahead,
) -> anyhow::Result<()> {
    let size = screen.terminal.size()?;
    app.rows = size.height.saturating_sub(1).max(1) as usize;
    app.width = size.width as usize;
    let signalled = Arc::clone(&screen.signalled);
    let mut interrupt = Interrupt::new(&signalled, ahead);
    let rows = app.screen(&mut |n| interrupt.check(n));
    screen.terminal.draw(|f| render::draw(f, app, &rows, color))?;
    Ok(())
}

/// A long scan's progress check: every 50 ms, stops on Esc, Ctrl-C, `q`
/// or a signal; other events are kept for later.
struct Interrupt<'a> {
    signalled: &'a AtomicBool,
    ahead: &'a Ahead,
    last: Instant,
    /// The user (or a signal) stopped the scan.
    stopped: bool,
}

impl<'a> Interrupt<'a> {
    fn new(signalled: &'a AtomicBool, ahead: &'a Ahead) -> Interrupt<'a> {
        Interrupt { signalled, ahead, last: Instant::now(), stopped: false }
    }

    /// Whether the scan goes on (it has read `_done` bytes).
    fn check(&mut self, _done: u64) -> bool {
        if self.stopped || self.signalled.load(Ordering::Relaxed) {
            self.stopped = true;
            return false;
        }
        if self.last.elapsed() < Duration::from_millis(50) {
            return true;
        }
        self.last = Instant::now();
        while event::poll(Duration::ZERO).unwrap_or(false) {
            let Ok(e) = event::read() else { break };
            if let Event::Key(k) = &e {
                let ctrl_c =
                    k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL);
                if ctrl_c || matches!(k.code, KeyCode::Esc | KeyCode::Char('q')) {
                    self.stopped = true;
                    return false;
                }
            }
            self.ahead.borrow_mut().push_back(e);
        }
        true
    }
}
