//! Moves by rows when long lines are wrapped (`-S` typed in the viewer,
//! or `+-S` on the command line), as in less: `j`, `k`, pages and half
//! pages go by screen rows, the screen starting `part` bytes into its top
//! line; `G` puts the last row at the bottom. Filtered, the rows are
//! those of the matching lines. The rows are [`super::wrap`]'s.

use super::app::App;
use super::finder::Progress;
use super::nav;
use super::wrap::Folder;

/// Rows read forward at a time by a move.
const BATCH: u64 = 1024;

impl App {
    /// The columns of the line numbers when long lines are wrapped: as
    /// many digits as the text's length has (at least 4) and a space,
    /// whatever lines are shown, so that rows do not change as the screen
    /// moves.
    pub fn wrap_gutter(&self) -> usize {
        if self.numbers { self.text.len().to_string().len().max(4) + 1 } else { 0 }
    }

    /// The columns a wrapped row holds: the screen's width less the line
    /// numbers, a merge's tags and the density bar's column (kept when
    /// there is no search, so that a search does not fold the lines
    /// again).
    pub fn wrap_columns(&self) -> usize {
        let tags = self.merge.as_ref().and_then(|m| m.sources().first());
        let tag = tags.map_or(0, |s| s.tag.chars().count() + 1);
        let bar = usize::from(self.width > 10);
        self.width.saturating_sub(self.wrap_gutter() + tag + bar).max(1)
    }

    /// Where the screen starts: its top row's first byte.
    pub fn place(&self) -> u64 {
        self.top + self.part
    }

    /// To the row holding the place `at` (a line's start when chopped).
    pub(super) fn go_to_place(&mut self, at: u64) {
        self.top = nav::line_start(&*self.text, at.min(self.text.len()));
        let folder = Folder { text: &*self.text, width: self.wrap_columns() };
        self.part = if self.chop { 0 } else { folder.row_of(self.top, at - self.top) };
    }

    /// The screen is `width` columns wide now: wrapped, the top row is
    /// then the row holding its first byte at that width.
    pub fn resize(&mut self, width: usize) {
        if width == self.width {
            return;
        }
        self.width = width;
        if !self.chop && self.part > 0 {
            let folder = Folder { text: &*self.text, width: self.wrap_columns() };
            self.part = folder.row_of(self.top, self.part);
        }
    }

    /// `-S`: long lines chopped (as less with `-S`) or wrapped.
    pub(super) fn toggle_chop(&mut self) {
        self.chop = !self.chop;
        self.part = 0;
        self.message = Some(if self.chop { "Chop long lines" } else { "Fold long lines" }.into());
    }

    /// The line starting at `line`'s length, without its newline.
    fn line_len(&self, line: u64) -> u64 {
        match self.ends.skip(&*self.text, line, 1) {
            Some(next) if next > line => next - 1 - line,
            _ => self.text.len() - line,
        }
    }

    /// The line shown before the one at `line` (the matching one when
    /// filtered), and its length.
    fn line_before(&self, line: u64, progress: Progress<'_>) -> Option<(u64, u64)> {
        let text = &*self.text;
        match &self.filter {
            Some(f) => f.prev_line(text, line, progress).map(|s| (s, self.line_len(s))),
            None if line == 0 => None,
            None => {
                let s = self.ends.back(text, line, 1);
                Some((s, line - 1 - s))
            }
        }
    }

    /// The line shown first at or after `at` (a line start).
    fn line_from(&self, at: u64, progress: Progress<'_>) -> Option<u64> {
        match &self.filter {
            Some(f) => f.next_line(&*self.text, at, progress),
            None => Some(at).filter(|&s| s < self.text.len()),
        }
    }

    /// Down `n` rows, stopping with the last row at the bottom.
    pub(super) fn down_rows(&mut self, n: u64, progress: Progress<'_>) {
        let (line, part) = (self.top, self.part);
        let from = match self.line_from(line, progress) {
            Some(s) if s != line => (s, 0),
            Some(_) => (line, part),
            None => return,
        };
        let (mut to, _) = self.walk(from, n, progress);
        // Fewer rows than a screen's after it: the last screen.
        let below = self.rows.saturating_sub(1) as u64;
        if self.walk(to, below, progress).1 < below {
            to = self.bottom_rows(progress);
        }
        if to.0 + to.1 >= self.place() {
            (self.top, self.part) = to;
        }
    }

    /// The row `n` rows after the row `(line, part)` (of a line shown),
    /// or the last row; how many rows that is.
    fn walk(
        &self,
        (mut line, mut part): (u64, u64),
        n: u64,
        progress: Progress<'_>,
    ) -> ((u64, u64), u64) {
        let folder = Folder { text: &*self.text, width: self.wrap_columns() };
        let mut left = n;
        while left > 0 {
            let got = folder.forward(line, part, left.min(BATCH) as usize + 1);
            let Some(k) = got.rows.len().checked_sub(1) else { break };
            if k as u64 >= left {
                return ((line, got.rows[left as usize].0), n);
            }
            let last = got.rows[k].0;
            match got.end {
                None => (part, left) = (last, left - k as u64),
                Some(next) => match next.and_then(|s| self.line_from(s, progress)) {
                    Some(s) => (line, part, left) = (s, 0, left - k as u64 - 1),
                    None => return ((line, last), n - left + k as u64),
                },
            }
        }
        ((line, part), n - left)
    }

    /// Up `n` rows.
    pub(super) fn up_rows(&mut self, n: u64, progress: Progress<'_>) {
        let folder = Folder { text: &*self.text, width: self.wrap_columns() };
        let mut prev = |l| self.line_before(l, progress);
        (self.top, self.part) = folder.back((self.top, self.part), false, n, &mut prev);
    }

    /// Where the screen starts when the last row is at the bottom.
    pub(super) fn bottom_rows(&self, progress: Progress<'_>) -> (u64, u64) {
        let text = &*self.text;
        let len = text.len();
        let last = match &self.filter {
            _ if len == 0 => return (0, 0),
            Some(f) => match f.prev_line(text, len, progress) {
                Some(s) => s,
                None => return (self.top, self.part),
            },
            None => nav::line_start(text, len - 1),
        };
        let end = (last, self.line_len(last));
        let folder = Folder { text, width: self.wrap_columns() };
        let mut prev = |l| self.line_before(l, progress);
        folder.back(end, true, self.rows.max(1) as u64, &mut prev)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::view::app::App;
    use crate::view::keys::Action;
    use crate::view::lines::LineMap;
    use crate::view::text::{Memory, Text};
    use crate::view::wrap::Folder;

    /// Every row of `text` folded at `width`, as `(line, part)`.
    fn all_rows(text: &dyn Text, width: usize) -> Vec<(u64, u64)> {
        let folder = Folder { text, width };
        let (mut out, mut line) = (Vec::new(), Some(0));
        while let Some(l) = line {
            let got = folder.forward(l, 0, 1 << 20);
            out.extend(got.rows.iter().map(|r| (l, r.0)));
            line = got.end.unwrap();
        }
        out
    }

    /// `j`, pages, `k`, `G` and marks go by rows, and the screen shows the
    /// rows from the top one.
    #[test]
    fn moves_go_by_rows() {
        let data: Vec<u8> = (0..60u8)
            .flat_map(|i| {
                let mut l = vec![b'a' + i % 26; usize::from(i) * 7 % 50];
                l.push(b'\n');
                l
            })
            .collect();
        let text: Arc<dyn Text> = Arc::new(Memory(data));
        let lines = Arc::new(LineMap::new(&*text));
        let mut app = App::new(Arc::clone(&text), "t".into(), lines);
        (app.rows, app.width, app.numbers) = (5, 21, false);
        let go = &mut |_| true;
        app.apply(Action::Chop, go);
        assert_eq!(app.wrap_columns(), 20, "the bar's column kept");
        let rows = all_rows(&*text, 20);
        let n = rows.len();
        assert!(n > 80, "{n} rows");
        let at = |app: &App| (app.top, app.part);
        for (action, want) in [
            (Action::Down(3), 3),
            (Action::PageDown(1), 8),
            (Action::Up(4), 4),
            (Action::HalfDown, 6),
            (Action::Bottom, n - 5),
            (Action::Down(1), n - 5),
            (Action::Up(1000), 0),
            (Action::Down(7), 7),
        ] {
            app.apply(action.clone(), go);
            assert_eq!(at(&app), rows[want], "{action:?}");
        }
        let screen: Vec<(u64, u64)> = app.screen(go).iter().map(|r| (r.start, r.part)).collect();
        assert_eq!(screen, rows[7..12]);
        app.apply(Action::Mark('a'), go);
        app.apply(Action::Top, go);
        app.apply(Action::GotoMark('a'), go);
        assert_eq!(at(&app), rows[7]);
        // Wider: the top row is the one holding the same byte.
        app.apply(Action::Down(1), go);
        let (line, part) = at(&app);
        assert!(part > 0, "a line's second row");
        app.resize(31);
        let wide = all_rows(&*text, 30);
        let holding = wide.iter().rev().find(|r| r.0 == line && r.1 <= part).unwrap();
        assert_eq!(at(&app), *holding, "resized");
        app.apply(Action::Chop, go);
        assert_eq!(at(&app), (line, 0), "chopped: the line's start");
    }
}
