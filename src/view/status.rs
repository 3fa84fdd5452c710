//! The status line: the text's name and kind, where the screen is (its
//! lines, a percentage or `(END)`), the patterns, the modes, what a job
//! does, the message.

use trigrep::logline::time;
use trigrep::options::Case;

use super::app::App;
use super::screen::Row;
use super::work::Busy;

/// The status line of `app` showing `rows`, with the running job (`busy`).
pub fn line(app: &App, rows: &[Row], busy: Option<&Busy>) -> String {
    let len = app.text.len();
    let mut parts = vec![format!("{} ({})", app.name, app.text.kind())];
    if let Some(h) = &app.histogram {
        let w = h.width / 1000;
        let each = match w {
            _ if w % 86_400 == 0 => format!("{}d", w / 86_400),
            _ if w % 3_600 == 0 => format!("{}h", w / 3_600),
            _ if w % 60 == 0 => format!("{}m", w / 60),
            _ => format!("{w}s"),
        };
        let what = format!("histogram of {} per {each}: j k move, Enter goes, q closes", h.what);
        return format!("{}  {what}", parts[0]);
    }
    let (counted, _) = app.lines.progress();
    let first = rows.first().and_then(|r| r.line);
    let last = rows.last().and_then(|r| r.line);
    let total = app.counted().then(|| {
        let (newlines, _) = app.lines.total();
        newlines + u64::from(!ends_in_newline(app))
    });
    match (first, last, total) {
        (Some(a), Some(b), Some(total)) => parts.push(format!("lines {a}-{b}/{total}")),
        (Some(a), Some(b), None) => parts.push(format!("lines {a}-{b}")),
        _ if len == 0 && !app.text.arriving() => parts.push("empty".into()),
        _ => parts.push(format!("byte {}/{len}", app.top)),
    }
    if !app.counted() {
        let pct = (counted * 100).checked_div(len).unwrap_or(100);
        parts.push(format!("counting lines {pct}%"));
    }
    if app.info {
        parts.push(format!("byte {}/{len}", bottom_end(app, rows)));
    }
    if let Some(t) = app.top_time() {
        parts.push(format!("@{}", time::format(t)));
    }
    if at_end(app, rows, last, total) {
        parts.push("(END)".into());
    } else if len > 0 {
        let at = |r: &Row| (r.start + r.part) * 100 / len;
        parts.push(format!("{}%", rows.last().map_or(100, at)));
    }
    // A search or filter being made shows its pattern, not the last one's.
    let asked = busy.and_then(|b| b.asked.as_deref());
    if let Some(f) = &app.filter
        && !asked.is_some_and(|a| a.starts_with('&'))
    {
        parts.push(format!("&{}", f.pattern));
    }
    match (&app.search, asked) {
        (_, Some(a)) => parts.push(a.to_string()),
        (Some((f, backward)), None) => {
            parts.push(format!("{}{}", if *backward { '?' } else { '/' }, f.pattern))
        }
        (None, None) => {}
    }
    match app.case {
        Case::Insensitive => parts.push("-I".into()),
        Case::Smart => parts.push("-i".into()),
        Case::Sensitive => {}
    }
    if app.follow {
        parts.push("following (any key stops)".into());
    }
    if app.binary {
        parts.push("binary file: NULs shown as ^@".into());
    }
    if let Some(n) = app.keys.count() {
        parts.push(n.to_string());
    }
    let looking = "finding where a long line ends…";
    if app.ends.looking() && busy.is_none_or(|b| b.what != looking) {
        parts.push(looking.into());
    }
    if let Some(b) = busy {
        parts.push(format!("{} {}% (Ctrl-C stops)", b.what, b.percent));
        if b.waiting > 0 {
            parts.push(format!("{} waiting", b.waiting));
        }
    }
    if let Some(m) = &app.message {
        parts.push(m.clone());
    }
    parts.join("  ")
}

/// Whether the screen shows the text's last line (or the last matching
/// one), as less's `(END)` says: the screen is not full, or its last row
/// is the last line counted. A screen cut short by a long line whose end
/// is looked for is not at the end.
fn at_end(app: &App, rows: &[Row], last: Option<u64>, total: Option<u64>) -> bool {
    if app.text.arriving() {
        return false;
    }
    let short = rows.len() < app.rows && !app.ends.looking();
    let whole = rows.last().is_none_or(|r| !r.more);
    let last_line = app.filter.is_none() && last.is_some() && last == total && whole;
    short || last_line
}

/// Where the last line shown ends (`=`): past its newline when the
/// screen holds it whole, else where it starts.
fn bottom_end(app: &App, rows: &[Row]) -> u64 {
    let len = app.text.len();
    match rows.last() {
        Some(r) if !app.chop => {
            let end = r.start + r.part + r.bytes.len() as u64;
            (end + u64::from(!r.more)).min(len)
        }
        Some(r) if app.left == 0 && r.bytes.len() < super::screen::SHOWN => {
            (r.start + r.bytes.len() as u64 + 1).min(len)
        }
        Some(r) => r.start,
        None => len,
    }
}

/// Whether the text ends with a newline (its last line is then complete).
fn ends_in_newline(app: &App) -> bool {
    let len = app.text.len();
    let mut last = [0];
    len == 0 || (app.text.read_at(len - 1, &mut last).is_ok() && last[0] == b'\n')
}
