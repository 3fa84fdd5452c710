//! `tg view --replay KEYS`: the viewer without a terminal, for timing.
//! Each key is fed to the [`App`] through [`Work`], as on a terminal
//! (a scan on a worker thread, waited for), and the screen drawn on ratatui's
//! in-memory backend; the time from key to drawn screen is printed, one
//! line per key (`key<TAB>ms<TAB>RssAnon KiB<TAB>ui ms`), then the last
//! screen. The last figure is the time until the UI thread was free for
//! the next key: the first screen drawn, a job still running (the
//! same as the first without a job).
//! `{count}` waits for the line count, `{density}` for the density bar,
//! `{right}` and `{left}` are the arrows,
//! `{wait}` prints `{wait}` and waits for a line on stdin (the bench drops
//! the page cache meanwhile, so that the next key is timed cold), `\n` is
//! Enter. bench/view.py reads this.

use std::io::Write;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::app::App;
use super::render;
use super::work::Work;

/// One step of a replay.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// A key.
    Key(KeyCode),
    /// Wait until every line is counted.
    Count,
    /// Wait until the density bar is complete.
    Density,
    /// Wait for a line on stdin.
    Wait,
}

/// Runs `keys` on `app` on a `size` screen (`COLUMNSxROWS`), printing
/// timings; `drawn` is called once the first screen is drawn.
pub fn run(app: &mut App, keys: &str, size: &str, drawn: &mut dyn FnMut()) -> anyhow::Result<()> {
    let (w, h) = size
        .split_once('x')
        .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
        .ok_or_else(|| anyhow::anyhow!("--size: expected COLUMNSxROWS, got {size}"))?;
    let mut terminal = Terminal::new(TestBackend::new(w, h))?;
    app.rows = usize::from(h.saturating_sub(1).max(1));
    app.width = usize::from(w);
    let mut out = std::io::stdout().lock();
    let mut work = Work::default();
    let started = Instant::now();
    draw(&mut terminal, app, &mut work, true)?;
    let open = ms(started.elapsed());
    writeln!(out, "open\t{open:.3}\t{}\t{open:.3}", rss_anon_kib())?;
    drawn();
    for (label, step) in parse(keys) {
        let t = Instant::now();
        let mut ui = None;
        match step {
            Step::Key(code) => {
                if let Some(action) = app.keys.feed(KeyEvent::new(code, KeyModifiers::NONE)) {
                    work.act(app, action);
                    if work.busy().is_some() {
                        draw(&mut terminal, app, &mut work, false)?;
                        ui = Some(ms(t.elapsed()));
                    }
                    work.finish(app);
                }
            }
            Step::Count => {
                while !app.counted() {
                    std::thread::sleep(Duration::from_micros(200));
                }
                if let (_, Some(action)) = app.tick() {
                    work.act(app, action);
                    work.finish(app);
                }
            }
            Step::Density => {
                while app.density.as_ref().is_some_and(|d| !d.done()) {
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
            Step::Wait => {
                writeln!(out, "{{wait}}")?;
                out.flush()?;
                std::io::stdin().read_line(&mut String::new())?;
                continue;
            }
        }
        draw(&mut terminal, app, &mut work, true)?;
        let all = ms(t.elapsed());
        writeln!(out, "{label}\t{all:.3}\t{}\t{:.3}", rss_anon_kib(), ui.unwrap_or(all))?;
    }
    let buffer = terminal.backend().buffer();
    for y in 0..buffer.area.height {
        let row: String =
            (0..buffer.area.width).map(|x| buffer[(x, y)].symbol().to_string()).collect();
        writeln!(out, "{}", row.trim_end())?;
    }
    Ok(())
}

/// Draws `app` on the in-memory terminal, once its jobs end (`settled`)
/// or as it is.
fn draw(
    terminal: &mut Terminal<TestBackend>,
    app: &mut App,
    work: &mut Work,
    settled: bool,
) -> anyhow::Result<()> {
    let mut rows = work.rows(app);
    if settled && work.busy().is_some() {
        work.finish(app);
        rows = work.rows(app);
    }
    let busy = work.busy();
    terminal.draw(|f| render::draw(f, app, &rows, busy.as_ref(), false))?;
    Ok(())
}

/// Milliseconds in `d`.
fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// This process's private resident memory now, in KiB (0: unknown).
fn rss_anon_kib() -> u64 {
    trigrep::sys::private_bytes() / 1024
}

/// The steps of `keys`, each with the text it came from.
fn parse(keys: &str) -> Vec<(String, Step)> {
    let mut steps = Vec::new();
    let mut rest = keys;
    while let Some(c) = rest.chars().next() {
        let (token, step) = if rest.starts_with("{count}") {
            ("{count}".len(), Step::Count)
        } else if rest.starts_with("{density}") {
            ("{density}".len(), Step::Density)
        } else if rest.starts_with("{wait}") {
            ("{wait}".len(), Step::Wait)
        } else if rest.starts_with("{right}") {
            ("{right}".len(), Step::Key(KeyCode::Right))
        } else if rest.starts_with("{left}") {
            ("{left}".len(), Step::Key(KeyCode::Left))
        } else if c == '\n' {
            (1, Step::Key(KeyCode::Enter))
        } else {
            (c.len_utf8(), Step::Key(KeyCode::Char(c)))
        };
        steps.push((rest[..token].escape_default().to_string(), step));
        rest = &rest[token..];
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_keys() {
        let steps: Vec<Step> =
            parse("12G{count}/a\n{wait}{right}").into_iter().map(|s| s.1).collect();
        assert_eq!(
            steps,
            vec![
                Step::Key(KeyCode::Char('1')),
                Step::Key(KeyCode::Char('2')),
                Step::Key(KeyCode::Char('G')),
                Step::Count,
                Step::Key(KeyCode::Char('/')),
                Step::Key(KeyCode::Char('a')),
                Step::Key(KeyCode::Enter),
                Step::Wait,
                Step::Key(KeyCode::Right),
            ]
        );
    }
}
