//! The viewer's state and what each [`Action`] does to it: where the
//! screen starts, the search, the filter, following, toggles, messages.
//! No terminal here: [`super::render`] draws an [`App`], and the event
//! loop in [`super`] feeds it keys and ticks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use trigrep::logline::level::Level;
use trigrep::options::Case;

use super::density::Density;
use super::finder::{Finder, Progress};
use super::keys::{Action, Keys, Region};
use super::line_ends::LineEnds;
use super::lines::LineMap;
use super::nav;
use super::screen::{Frame, Row};
use super::text::{Change, Text};

/// A pattern and case, and its finder in each text of a merge.
pub type MergedFinders = ((String, Case), Arc<Vec<super::finder::Finder>>);

/// The viewer's state. A scan runs on a copy (see [`super::work`]):
/// cloning shares the text, the line map, the finders and the density.
#[derive(Clone)]
pub struct App {
    /// The text shown.
    pub text: Arc<dyn Text>,
    /// Its name on the status line.
    pub name: String,
    /// Its line numbers.
    pub lines: Arc<LineMap>,
    /// The first shown line starts here.
    pub top: u64,
    /// Bytes skipped on the left of every line.
    pub left: u64,
    /// Long lines are chopped (else wrapped: `-S` toggles).
    pub chop: bool,
    /// Wrapped, bytes of the top line above the screen (its first rows).
    pub part: u64,
    /// Lines of text that fit on screen.
    pub rows: usize,
    /// Columns of the screen.
    pub width: usize,
    /// Line numbers shown.
    pub numbers: bool,
    /// How patterns treat case (`-i`, `-I`).
    pub case: Case,
    /// The last search, and whether it goes backward.
    pub search: Option<(Arc<Finder>, bool)>,
    /// Only lines matching this are shown.
    pub filter: Option<Arc<Finder>>,
    /// Where the matches of the search (or filter) are.
    pub density: Option<Arc<Density>>,
    /// Following the end as the text grows.
    pub follow: bool,
    /// `n` and `N` go round to the other end (else stop, as in less).
    pub wrap: bool,
    /// The key help is shown.
    pub help: bool,
    /// A message for the status line, until the next key.
    pub message: Option<String>,
    /// A line to jump to once it is counted.
    pub pending_line: Option<u64>,
    /// Keys typed so far.
    pub keys: Keys,
    /// The user asked to leave.
    pub quit: bool,
    /// The text holds a NUL byte in its first 64 KiB: shown as binary.
    pub binary: bool,
    /// Where the long lines seen so far end.
    pub ends: Arc<LineEnds>,
    /// Lines remembered under letters (`m`), by where they start.
    pub marks: HashMap<char, u64>,
    /// Where the top was before the last jump (`''`).
    pub jumped_from: Option<u64>,
    /// The search's matches are marked (ESC-u turns this off).
    pub highlight: bool,
    /// The status line says where the screen is in full (`=`).
    pub info: bool,
    /// How the text's lines write their time (`None`: they do not).
    pub time: Option<trigrep::logline::time::Format>,
    /// When the file last changed (ms since the epoch): a syslog time's year.
    pub modified: i64,
    /// The finders of `e`/`E` and `w`/`W`, planned once.
    pub levels: Arc<Mutex<HashMap<Level, Arc<Finder>>>>,
    /// The histogram shown (`H`), instead of the lines.
    pub histogram: Option<Arc<super::chart::Histogram>>,
    /// Which of the files named this is, and how many there are.
    pub files: (usize, usize),
    /// The file to go to (its place), asked by `:n`, `:p` or `:x`.
    pub switch_to: Option<usize>,
    /// The texts merged by time, when the text is their merge.
    pub merge: Option<Arc<super::merge::Merge>>,
    /// The search's finder in each merged text, for its pattern and case.
    pub merged_finders: Option<MergedFinders>,
    /// The text's length at the last tick.
    last_len: u64,
    /// The last change on disk reported.
    last_change: Change,
}

impl App {
    /// A viewer of `text` called `name`, its lines counted into `lines`.
    pub fn new(text: Arc<dyn Text>, name: String, lines: Arc<LineMap>) -> App {
        let mut head = vec![0; 64 << 10];
        let n = nav::read_full(&*text, 0, &mut head);
        let binary = memchr::memchr(0, &head[..n]).is_some();
        let last_len = text.len();
        App {
            text,
            name,
            lines,
            top: 0,
            left: 0,
            chop: true,
            part: 0,
            rows: 24,
            width: 80,
            numbers: true,
            case: Case::Sensitive,
            search: None,
            filter: None,
            density: None,
            follow: false,
            wrap: false,
            help: false,
            message: None,
            pending_line: None,
            keys: Keys::default(),
            quit: false,
            binary,
            ends: Arc::default(),
            marks: Default::default(),
            jumped_from: None,
            highlight: true,
            info: false,
            files: (0, 1),
            histogram: None,
            switch_to: None,
            merge: None,
            merged_finders: None,
            time: None,
            modified: 0,
            levels: Arc::default(),
            last_len,
            last_change: Change::None,
        }
    }

    /// The screen's frame.
    pub fn frame(&self) -> Frame<'_> {
        Frame {
            text: &self.text,
            lines: &self.lines,
            top: self.top,
            left: self.left,
            rows: self.rows,
            filter: self.filter.as_deref(),
            marks: self
                .search
                .as_ref()
                .filter(|_| self.highlight)
                .map(|s| &*s.0)
                .or(self.filter.as_deref()),
            ends: &self.ends,
            merge: self.merge.as_deref(),
            wrap: (!self.chop).then(|| self.wrap_columns()),
            part: self.part,
        }
    }

    /// The lines on screen.
    pub fn screen(&self, progress: Progress<'_>) -> Vec<Row> {
        self.frame().rows(progress).0
    }

    /// Does what `action` asks; long scans report to `progress`.
    pub fn apply(&mut self, action: Action, progress: Progress<'_>) {
        self.message = None;
        self.info = false;
        let (before, place) = (self.top, self.place());
        let jump = action.jumps();
        let by_rows = action.sets_part();
        if self.histogram_key(&action, progress) {
            if self.top != before {
                self.part = 0;
            }
            return;
        }
        if self.follow {
            self.follow = false;
            if action == Action::Cancel {
                return;
            }
        }
        match action {
            Action::Down(n) | Action::Enter(n) => self.down(n, progress),
            Action::Histogram => self.histogram(progress),
            Action::Up(n) => self.up(n, progress),
            Action::PageDown(n) => self.down(n * self.rows as u64, progress),
            Action::PageUp(n) => self.up(n * self.rows as u64, progress),
            Action::HalfDown => self.down((self.rows as u64 / 2).max(1), progress),
            Action::HalfUp => self.up((self.rows as u64 / 2).max(1), progress),
            Action::Right => self.left += (self.width as u64 / 2).max(1),
            Action::Left => self.left = self.left.saturating_sub((self.width as u64 / 2).max(1)),
            Action::Line(n) => self.goto_line(n, progress),
            Action::Top => self.top = 0,
            Action::Bottom => self.bottom(progress),
            Action::Percent(p) if p >= 100 => self.bottom(progress),
            Action::Percent(p) => {
                let at = (u128::from(self.text.len()) * u128::from(p) / 100) as u64;
                self.top = nav::line_start(&*self.text, at);
            }
            Action::Search { pattern, backward } => self.search(pattern, backward, progress),
            Action::Next => self.find(false, progress),
            Action::Previous => self.find(true, progress),
            Action::Filter(pattern) => self.set_filter(pattern),
            Action::Region(to) => self.region(to, progress),
            Action::Follow => {
                self.follow = true;
                self.bottom(progress);
            }
            Action::IgnoreCase => self.toggle_case(Case::Insensitive),
            Action::SmartCase => self.toggle_case(Case::Smart),
            Action::Chop => self.toggle_chop(),
            Action::LineNumbers => {
                // Wrapped, the rows change with the numbers' columns.
                self.numbers = !self.numbers;
                self.part = 0;
            }
            Action::Help => self.help = !self.help,
            Action::Redraw => {}
            Action::Cancel => {
                self.help = false;
                self.pending_line = None;
            }
            Action::Quit if self.help => self.help = false,
            Action::Quit => self.quit = true,
            Action::Time(spec) => self.goto_time(&spec, progress),
            Action::Level { level, backward } => self.goto_level(level, backward, progress),
            other => self.apply_less(other, progress),
        }
        if !by_rows && (jump || self.top != before) {
            self.part = 0;
        }
        if jump && self.place() != place {
            self.jumped_from = Some(place);
        }
        if self.message.is_none() {
            self.message = self.filter.as_ref().and_then(|f| f.trouble());
        }
    }

    /// Down `n` lines (matching lines when filtered), stopping with the last line at the bottom.
    fn down(&mut self, n: u64, progress: Progress<'_>) {
        if !self.chop {
            return self.down_rows(n, progress);
        }
        let text = &*self.text;
        if let Some(f) = self.filter.clone() {
            let mut top = f.next_line(text, self.top, progress).unwrap_or(self.top);
            for _ in 0..n {
                match nav::next_line_start(text, top).and_then(|s| f.next_line(text, s, progress)) {
                    Some(s) => top = s,
                    None => break,
                }
            }
            self.top = top.min(self.filtered_bottom(progress)).max(self.top);
            return;
        }
        let next = self.ends.skip(text, self.top, n).unwrap_or(u64::MAX);
        self.top = next.min(self.bottom_top()).max(self.top);
    }

    /// Up `n` lines (matching lines when filtered).
    fn up(&mut self, n: u64, progress: Progress<'_>) {
        if !self.chop {
            return self.up_rows(n, progress);
        }
        if let Some(f) = self.filter.clone() {
            for _ in 0..n {
                match f.prev_line(&*self.text, self.top, progress) {
                    Some(s) => self.top = s,
                    None => break,
                }
            }
            return;
        }
        self.top = self.ends.back(&*self.text, self.top, n);
    }

    /// Where the top is when the last line is at the bottom.
    fn bottom_top(&self) -> u64 {
        let len = self.text.len();
        if len == 0 {
            return 0;
        }
        let last = nav::line_start(&*self.text, len - 1);
        self.ends.back(&*self.text, last, self.rows.saturating_sub(1) as u64)
    }

    /// Where the top is when the last matching line is at the bottom.
    fn filtered_bottom(&self, progress: Progress<'_>) -> u64 {
        let Some(f) = &self.filter else { return self.bottom_top() };
        let mut top = self.text.len();
        for _ in 0..self.rows {
            match f.prev_line(&*self.text, top, progress) {
                Some(s) => top = s,
                None => break,
            }
        }
        top
    }

    /// The last screen.
    fn bottom(&mut self, progress: Progress<'_>) {
        if !self.chop {
            return (self.top, self.part) = self.bottom_rows(progress);
        }
        self.top =
            if self.filter.is_some() { self.filtered_bottom(progress) } else { self.bottom_top() };
    }

    /// To line `n`, or once it is counted.
    fn goto_line(&mut self, n: u64, progress: Progress<'_>) {
        match self.lines.offset_of_line(&*self.text, n) {
            Some(at) if at < self.text.len() || at == 0 => {
                self.pending_line = None;
                self.top = at;
                if let Some(f) = self.filter.clone() {
                    self.top = f.next_line(&*self.text, at, progress).unwrap_or(at);
                }
            }
            _ if self.counted() => self.bottom(progress),
            _ => {
                self.pending_line = Some(n);
                self.message = Some(format!("line {n}: counting lines…"));
            }
        }
    }

    /// Whether every line is counted.
    pub fn counted(&self) -> bool {
        self.lines.progress().0 >= self.text.len() && !self.text.arriving()
    }

    /// Makes the density bar show where the matches of the search (else
    /// the filter) are, counting them again when that pattern changed.
    /// Called on the UI's state, never on a scan's copy.
    pub fn sync_density(&mut self) {
        let marked = self.search.as_ref().map(|s| &s.0).or(self.filter.as_ref());
        let same = match (&self.density, marked) {
            (Some(d), Some(f)) => Arc::ptr_eq(d.finder(), f),
            (None, None) => true,
            _ => false,
        };
        if same {
            return;
        }
        if let Some(d) = self.density.take() {
            d.stop();
        }
        self.density = marked.map(|f| Density::start(Arc::clone(&self.text), Arc::clone(f)));
    }

    /// To the first match of the next (or previous, or densest) region of
    /// the density bar, as the screen's bar shows it.
    fn region(&mut self, to: Region, progress: Progress<'_>) {
        let Some(d) = &self.density else {
            self.message = Some("no search: the bar is empty (/pattern first)".into());
            return;
        };
        // Forward: past the top line, whose own match is where the screen is.
        let from = match to {
            Region::Next => nav::next_line_start(&*self.text, self.top).unwrap_or(u64::MAX),
            _ => self.top,
        };
        let Some(at) = d.target(self.rows, from, to) else {
            self.message = Some(
                match to {
                    Region::Next => "no marked region below",
                    Region::Previous => "no marked region above",
                    Region::Densest => "no match counted yet",
                }
                .into(),
            );
            return;
        };
        self.top = nav::line_start(&*self.text, at);
        if let Some(f) = self.filter.clone() {
            self.top = f.next_line(&*self.text, self.top, progress).unwrap_or(self.top);
        }
    }

    /// a file replaced or deleted, a pending line now counted. Whether the
    /// screen must be drawn again, and the move to make (following, or
    /// the pending line), through [`super::work::Work`]: it may scan.
    pub fn tick(&mut self) -> (bool, Option<Action>) {
        let len = self.text.len();
        let (mut dirty, mut scan) = (false, None);
        if len < self.last_len {
            self.message = Some(format!("{} was truncated to {len} bytes", self.name));
            self.ends.clear();
            self.top = self.top.min(nav::line_start(&*self.text, len.saturating_sub(1)));
            self.part = 0;
            dirty = true;
        }
        if len != self.last_len {
            self.last_len = len;
            dirty = true;
            // Text arriving (stdin, a spool): its times, once it has some.
            if self.time.is_none() && self.merge.is_none() && len <= 1 << 20 {
                self.detect_time(self.modified);
                dirty |= self.time.is_some();
            }
            if self.follow {
                scan = Some(Action::Follow);
            }
        }
        let change = self.text.check();
        if change != self.last_change {
            self.last_change = change;
            self.message = match change {
                Change::None => None,
                Change::Deleted => {
                    Some(format!("{} was deleted (showing the text still open)", self.name))
                }
                Change::Replaced => {
                    Some(format!("{} was replaced (showing the text still open)", self.name))
                }
            };
            dirty = true;
        }
        if let Some(n) = self.pending_line
            && self.lines.offset_of_line(&*self.text, n).is_some_and(|at| at < len) | self.counted()
        {
            dirty = true;
            scan = Some(Action::Line(n));
        }
        (dirty, scan)
    }
}
