//! The terminal: raw mode and the alternate screen on the way in, and the
//! terminal as it was on every way out: a normal return, an error (the
//! guard's `Drop`), a panic (a hook restores before the message is
//! printed) and SIGTERM, SIGINT or SIGHUP (flags the event loop checks).

use std::io::{Stdout, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::cursor::{Hide, Show};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// Whether the terminal is set up (restored at most once).
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The terminal in the viewer's mode, restored when dropped.
pub struct Screen {
    /// What ratatui draws on.
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
    /// Set by SIGTERM, SIGINT or SIGHUP: leave now.
    pub signalled: Arc<AtomicBool>,
}

impl Screen {
    /// Puts the terminal in raw mode on the alternate screen, with the
    /// panic hook and signal flags that restore it.
    pub fn enter() -> anyhow::Result<Screen> {
        let signalled = Arc::new(AtomicBool::new(false));
        for sig in
            [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT, signal_hook::consts::SIGHUP]
        {
            signal_hook::flag::register(sig, Arc::clone(&signalled))?;
        }
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
        enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = std::io::stdout();
        if let Err(e) = crossterm::execute!(out, EnterAlternateScreen, Hide) {
            restore();
            return Err(e.into());
        }
        let terminal = Terminal::new(CrosstermBackend::new(out))?;
        Ok(Screen { terminal, signalled })
    }

    /// Whether a signal asked the viewer to leave.
    pub fn signalled(&self) -> bool {
        self.signalled.load(Ordering::Relaxed)
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        restore();
    }
}

/// Leaves the alternate screen, shows the cursor and ends raw mode, once.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let mut out = std::io::stdout();
        let _ = crossterm::execute!(out, LeaveAlternateScreen, Show);
        let _ = out.flush();
        let _ = disable_raw_mode();
    }
}
