//! Drawing an [`App`] with ratatui: the lines (escaped, matches marked),
//! line numbers, the density bar on the right, the status line or the
//! prompt at the bottom, the key help. Colours only when allowed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use trigrep::options::Case;

use super::app::App;
use super::density::Cell;
use super::escape::{Kind, escape};
use super::screen::Row;
use super::work::Busy;

/// The keys, as `h` shows them.
const HELP: &str = "\
tg view: keys as in less                         (q, Esc or h closes this)

  j k  Down Up  Enter      one line down / up   (N j: N lines)
  Space f PgDn / b PgUp    one screen down / up
  d u                      half a screen down / up
  Right Left               half a screen right / left (long lines)
  g  G                     first line / last line
  N g   N G   :N           line N
  N %                      N percent into the text
  /pattern  ?pattern       search forward / backward (rg's regex syntax)
  n  N                     next / previous match (wraps)
  &pattern   &             only lines matching / all lines again
  ]  [                     first match of the next / previous marked cell
                           of the density bar;  }  its densest cell
  F                        follow the end as the file grows (any key stops)
  -i  -S                   ignore case / smart case (as rg's flags), toggled
  -N                       line numbers on / off
  r  Ctrl-L                redraw
  q  :q                    quit

The bar on the right shows where the matches of the search (or filter)
are in the whole text: light dots are candidate blocks not checked yet.
Searches, and moves over lines too long to read at once, run in the
background: keys typed meanwhile wait and are done after, in order
(q leaves at once, Ctrl-C stops the search or move).";

/// Draws `app` with `rows` on `f`, and what a job running does (`busy`);
/// `color`: colours allowed.
pub fn draw(f: &mut Frame<'_>, app: &App, rows: &[Row], busy: Option<Busy>, color: bool) {
    let area = f.area();
    if area.height == 0 || area.width == 0 {
        return;
    }
    let body = Rect { height: area.height - 1, ..area };
    let bar = app.density.as_ref().filter(|_| body.width > 10);
    let text_area = Rect { width: body.width - u16::from(bar.is_some()), ..body };
    let gutter = if app.numbers { gutter_width(rows) } else { 0 };
    let width = (text_area.width as usize).saturating_sub(gutter);
    let lines: Vec<Line<'_>> = rows.iter().map(|r| line(r, gutter, width, color)).collect();
    f.render_widget(Paragraph::new(lines), text_area);
    if let Some(d) = bar {
        let cells = d.cells(body.height as usize);
        let bar_lines: Vec<Line<'_>> = cells.iter().map(|c| density_cell(*c, color)).collect();
        let x = body.x + body.width - 1;
        f.render_widget(Paragraph::new(bar_lines), Rect { x, width: 1, ..body });
    }
    let bottom = Rect { y: area.y + area.height - 1, height: 1, ..area };
    let (text, style) = match app.keys.prompt() {
        Some(p) => (format!("{}{}", p.kind, p.text), Style::default()),
        None => (status_line(app, rows, busy), Style::default().add_modifier(Modifier::REVERSED)),
    };
    f.render_widget(Paragraph::new(Line::from(Span::styled(text, style))), bottom);
    if app.help {
        f.render_widget(Clear, body);
        f.render_widget(Paragraph::new(HELP), body);
    }
}

/// Columns taken by line numbers and the space after them.
fn gutter_width(rows: &[Row]) -> usize {
    let most = rows.iter().filter_map(|r| r.line).max().unwrap_or(1);
    most.to_string().len().max(4) + 1
}

/// One row: its number, then its escaped bytes with matches marked.
fn line(row: &Row, gutter: usize, width: usize, color: bool) -> Line<'static> {
    let mut spans = Vec::new();
    if gutter > 0 {
        let n = row.line.map_or_else(String::new, |n| n.to_string());
        let style = if color { Style::default().fg(Color::DarkGray) } else { Style::default() };
        spans.push(Span::styled(format!("{n:>w$} ", w = gutter - 1), style));
    }
    for (kind, s) in escape(&row.bytes, &row.matches, width) {
        spans.push(Span::styled(s, style_of(kind, color)));
    }
    Line::from(spans)
}

/// How a piece of a line looks.
fn style_of(kind: Kind, color: bool) -> Style {
    let s = Style::default();
    match (kind, color) {
        (Kind::Plain, _) => s,
        (Kind::Match | Kind::MatchEscape, false) => s.add_modifier(Modifier::REVERSED),
        (Kind::Escape, false) => s,
        (Kind::Match, true) => s.fg(Color::Black).bg(Color::Yellow),
        (Kind::MatchEscape, true) => s.fg(Color::Magenta).bg(Color::Yellow),
        (Kind::Escape, true) => s.fg(Color::Magenta),
    }
}

/// One cell of the density bar.
fn density_cell(cell: Cell, color: bool) -> Line<'static> {
    const BARS: [&str; 8] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
    let (s, style) = match cell {
        Cell::Empty => (" ", Style::default()),
        Cell::Maybe => ("·", Style::default()),
        Cell::Hits(n, most) => {
            let i = ((n * 8).div_ceil(most.max(1)) as usize).clamp(1, 8) - 1;
            let style = if color { Style::default().fg(Color::Red) } else { Style::default() };
            (BARS[i], style)
        }
    };
    Line::from(Span::styled(s, style))
}

/// The status line: name, kind, position, modes, what a job does, message.
pub fn status_line(app: &App, rows: &[Row], busy: Option<Busy>) -> String {
    let len = app.text.len();
    let mut parts = vec![format!("{} ({})", app.name, app.text.kind())];
    let (counted, _) = app.lines.progress();
    let first = rows.first().and_then(|r| r.line);
    let last = rows.last().and_then(|r| r.line);
    match (first, last) {
        (Some(a), Some(b)) if app.counted() => {
            let (newlines, _) = app.lines.total();
            let total = newlines + u64::from(!ends_in_newline(app));
            parts.push(format!("lines {a}-{b}/{total}"));
        }
        (Some(a), Some(b)) => parts.push(format!("lines {a}-{b}")),
        _ => parts.push(format!("byte {}/{len}", app.top)),
    }
    if !app.counted() {
        let pct = (counted * 100).checked_div(len).unwrap_or(100);
        parts.push(format!("counting lines {pct}%"));
    }
    if len > 0 {
        parts.push(format!("{}%", rows.last().map_or(100, |r| r.start * 100 / len)));
    }
    if let Some(f) = &app.filter {
        parts.push(format!("&{}", f.pattern));
    }
    if let Some((f, backward)) = &app.search {
        parts.push(format!("{}{}", if *backward { '?' } else { '/' }, f.pattern));
    }
    match app.case {
        Case::Insensitive => parts.push("-i".into()),
        Case::Smart => parts.push("-S".into()),
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

/// Whether the text ends with a newline (its last line is then complete).
fn ends_in_newline(app: &App) -> bool {
    let len = app.text.len();
    let mut last = [0];
    len == 0 || (app.text.read_at(len - 1, &mut last).is_ok() && last[0] == b'\n')
}
