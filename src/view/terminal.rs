//! The terminal: raw mode and the alternate screen on the way in, and the
//! terminal as it was on every way out: a normal return, an error (the
//! guard's `Drop`), a panic on any thread (a hook restores, prints one
//! `tg:` line and exits with 2, rather than leave a worker's panic to a
//! screen still drawn) and SIGTERM, SIGINT or SIGHUP (flags the event
//! loop checks); a terminal hung up without a signal ends the viewer too.

use std::io::{IsTerminal, Stdout, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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
        trigrep::sys::flag_on_stop(&signalled)?;
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !restore() {
                return previous(info);
            }
            let what = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            let at = info.location().map_or_else(String::new, |l| format!(" at {l}"));
            let what = what.lines().next().unwrap_or_default();
            eprintln!("tg: view: internal error: {what}{at} (please report it)");
            if std::env::var_os("RUST_BACKTRACE").is_some_and(|v| !v.is_empty() && v != "0") {
                previous(info);
            }
            std::process::exit(2);
        }));
        enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = std::io::stdout();
        if let Err(e) = crossterm::execute!(out, EnterAlternateScreen, Hide) {
            let _ = restore();
            return Err(e.into());
        }
        let terminal = Terminal::new(CrosstermBackend::new(out))?;
        watch(Arc::clone(&signalled));
        Ok(Screen { terminal, signalled })
    }

    /// Whether a signal asked the viewer to leave.
    pub fn signalled(&self) -> bool {
        self.signalled.load(Ordering::Relaxed)
    }

    /// Whether the terminal is gone (hung up), which a closed terminal
    /// window need not signal.
    pub fn hung_up(&self) -> bool {
        gone()
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = restore();
    }
}

/// Whether stdout is no longer a terminal (it was hung up).
fn gone() -> bool {
    !std::io::stdout().is_terminal()
}

/// Ends the process when the event loop cannot: a terminal hung up makes
/// crossterm 0.28's reader spin without returning (crossterm-rs/crossterm#793),
/// so neither the hang-up nor a later SIGTERM would reach the loop. A
/// thread checks every 200 ms; the terminal gone, or a signal not acted
/// on within a second, restores what can be restored and exits.
fn watch(signalled: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let mut since: Option<Instant> = None;
        while ACTIVE.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(200));
            let ignored = signalled.load(Ordering::Relaxed)
                && since.get_or_insert_with(Instant::now).elapsed() > Duration::from_secs(1);
            if ACTIVE.load(Ordering::SeqCst) && (gone() || ignored) {
                let _ = restore();
                std::process::exit(2);
            }
        }
    });
}

/// Leaves the alternate screen, shows the cursor and ends raw mode, once;
/// whether it did (the terminal was set up).
pub fn restore() -> bool {
    let active = ACTIVE.swap(false, Ordering::SeqCst);
    if active {
        let mut out = std::io::stdout();
        let _ = crossterm::execute!(out, LeaveAlternateScreen, Show);
        let _ = out.flush();
        let _ = disable_raw_mode();
    }
    active
}
