//! Drawing an [`App`] with ratatui: the lines (escaped, matches marked),
//! line numbers, the density bar on the right, the status line or the
//! prompt at the bottom, the key help. Colours only when allowed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use trigrep::logline::level::{Level, detect};

use super::app::App;
use super::density::Cell;
use super::escape::{Kind, escape};
use super::screen::Row;
use super::status;
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
  /!pattern ?!pattern      the same for lines that do not match
  n  N                     next / previous match (--wrap-search: wraps)
  ESC-u                    matches no longer marked (until the next search)
  &pattern  &!pattern  &   only lines matching / not matching / all again
  m<letter>  '<letter>     mark the top line / go back to it
  ''  '^  '$               back to where the last jump started / start / end
  @TIME                    first line at or after a time: @2026-01-03 10:00,
                           @10:00 (that day), @-5m (before the last line)
  e E  w W                 next / previous error, warning line
  H                        lines per time bucket (of the search, filter or
                           all); j k move, Enter goes there, q closes
  = Ctrl-G                 file, lines shown, byte offset, percentage
  s FILE                   write the lines shown (filtered) to a new FILE
  :n :p :x                 next / previous / first file named
  ]  [                     first match of the next / previous marked cell
                           of the density bar;  }  its densest cell
  F                        follow the end as the file grows (any key stops)
  +G +F +/pat +N, -p pat   on the command line: commands done at the start
  -i  -I                   smart case / ignore case (as less), toggled
  -S                       long lines chopped / wrapped (+-S: start wrapped)
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
pub fn draw(f: &mut Frame<'_>, app: &App, rows: &[Row], busy: Option<&Busy>, color: bool) {
    let area = f.area();
    if area.height == 0 || area.width == 0 {
        return;
    }
    let body = Rect { height: area.height - 1, ..area };
    let bar = app.density.as_ref().filter(|_| body.width > 10);
    // Wrapped, the bar's column is kept without a search (rows do not
    // change with one), and the numbers' width does not change with the
    // lines shown.
    let bar_column = bar.is_some() || (!app.chop && body.width > 10);
    let text_area = Rect { width: body.width - u16::from(bar_column), ..body };
    let gutter = match (app.numbers, app.chop) {
        (false, _) => 0,
        (true, true) => gutter_width(rows),
        (true, false) => app.wrap_gutter(),
    };
    let tags: Vec<&str> = app.merge.iter().flat_map(|m| m.sources()).map(|s| &*s.tag).collect();
    let tag_width = tags.first().map_or(0, |t| t.chars().count() + 1);
    let width = (text_area.width as usize).saturating_sub(gutter + tag_width);
    // Lines coloured by their level (read from their start: not when
    // shifted sideways).
    // A wrapped line's rows after its first take its colour.
    let shifted = app.chop && app.left > 0;
    let blank = " ".repeat(tag_width.saturating_sub(1));
    let mut above: Option<(u64, Option<Style>)> = None;
    let mut lines: Vec<Line<'_>> = rows
        .iter()
        .map(|r| {
            let style = match above {
                Some((start, style)) if r.part > 0 && start == r.start => style,
                _ if r.part > 0 || shifted || !color => None,
                _ => level_style(&r.bytes),
            };
            above = Some((r.start, style));
            let mut l = line(r, gutter, width, color, style);
            if let Some(i) = r.source.filter(|&i| i < tags.len()) {
                let t = if r.part > 0 { tag(&blank, 0, false) } else { tag(tags[i], i, color) };
                l.spans.insert(usize::from(gutter > 0), t);
            }
            l
        })
        .collect();
    if let Some(h) = &app.histogram {
        let chosen = Style::default().add_modifier(Modifier::REVERSED);
        let first = h.selected.saturating_sub(text_area.height as usize / 2);
        let rows = h.rows(text_area.width as usize).into_iter().enumerate().skip(first);
        lines = rows
            .map(|(i, r)| {
                let style = if i == h.selected { chosen } else { Style::default() };
                Line::from(Span::styled(r, style))
            })
            .collect();
    }
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
        None => (status::line(app, rows, busy), Style::default().add_modifier(Modifier::REVERSED)),
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

/// A merged line's tag (its file), in its file's colour.
fn tag(tag: &str, i: usize, color: bool) -> Span<'static> {
    const COLORS: [Color; 6] =
        [Color::Cyan, Color::Green, Color::Magenta, Color::Blue, Color::LightRed, Color::LightCyan];
    let style =
        if color { Style::default().fg(COLORS[i % COLORS.len()]) } else { Style::default() };
    Span::styled(format!("{tag} "), style)
}

/// The colour of a line of a level: errors red, warnings yellow.
fn level_style(line: &[u8]) -> Option<Style> {
    let fg = match detect(line)?.0 {
        Level::Error => Color::Red,
        Level::Warn => Color::Yellow,
        Level::Info | Level::Debug | Level::Trace => return None,
    };
    Some(Style::default().fg(fg))
}

/// One row: its number, then its escaped bytes with matches marked
/// (plain text in `level`'s colour, if any).
fn line(
    row: &Row,
    gutter: usize,
    width: usize,
    color: bool,
    level: Option<Style>,
) -> Line<'static> {
    let mut spans = Vec::new();
    if gutter > 0 {
        let n = row.line.filter(|_| row.part == 0).map_or_else(String::new, |n| n.to_string());
        let style = if color { Style::default().fg(Color::DarkGray) } else { Style::default() };
        spans.push(Span::styled(format!("{n:>w$} ", w = gutter - 1), style));
    }
    for (kind, s) in escape(&row.bytes, &row.matches, width) {
        let style = match (kind, level) {
            (Kind::Plain, Some(l)) => l,
            _ => style_of(kind, color),
        };
        spans.push(Span::styled(s, style));
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
