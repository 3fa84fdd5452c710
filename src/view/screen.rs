//! The screen model: given a text, where the screen starts and what is
//! filtered, which lines to draw. Pure of any terminal: the renderer
//! draws [`Row`]s, the unit tests read them.

use std::ops::Range;
use std::sync::Arc;

use super::finder::{Finder, Progress};
use super::line_ends::{End, LONG, LineEnds};
use super::lines::LineMap;
use super::nav::{self, Reach};
use super::text::Text;
use super::wrap::Folder;

/// The most bytes of one line read for the screen.
pub const SHOWN: usize = 16 << 10;

/// Bytes read either side of what is shown, so that matches near its
/// edges are found as in the whole line.
const CONTEXT: u64 = 4 << 10;

/// One line on screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Where the line starts.
    pub start: u64,
    /// Its 1-based number (`None`: not counted yet).
    pub line: Option<u64>,
    /// Its bytes from the horizontal offset on, at most [`SHOWN`].
    pub bytes: Vec<u8>,
    /// Matches in `bytes` to mark.
    pub matches: Vec<Range<usize>>,
    /// Which of the texts merged it is from (`None`: not a merge).
    pub source: Option<usize>,
    /// Wrapped: bytes of its line before it (0: the line's first row).
    pub part: u64,
    /// Wrapped: the line goes on in the next row.
    pub more: bool,
}

/// What the screen shows.
pub struct Frame<'a> {
    /// The text.
    pub text: &'a Arc<dyn Text>,
    /// Its line numbers.
    pub lines: &'a LineMap,
    /// The first line shown starts here.
    pub top: u64,
    /// Bytes of every line skipped on the left.
    pub left: u64,
    /// How many lines fit.
    pub rows: usize,
    /// Only lines matching this are shown.
    pub filter: Option<&'a Finder>,
    /// Matches of this are marked.
    pub marks: Option<&'a Finder>,
    /// Where long lines end.
    pub ends: &'a Arc<LineEnds>,
    /// The texts merged, when the text is their merge.
    pub merge: Option<&'a super::merge::Merge>,
    /// Long lines wrapped into rows of this many columns (else chopped).
    pub wrap: Option<usize>,
    /// Wrapped, bytes of the top line above the screen.
    pub part: u64,
}

impl Frame<'_> {
    /// The lines to draw, and where the line after them starts (`None`:
    /// the end, or a long line's end is not known yet).
    pub fn rows(&self, progress: Progress<'_>) -> (Vec<Row>, Option<u64>) {
        let text = &**self.text;
        let mut rows = Vec::with_capacity(self.rows);
        let mut at = Some(self.top);
        let first_line = self.lines.line_of(text, self.top);
        let mut shown = 0;
        while rows.len() < self.rows {
            let Some(start) = at else { break };
            let start = match self.filter {
                Some(f) => match f.next_line(text, start, progress) {
                    Some(s) => s,
                    None => {
                        at = None;
                        break;
                    }
                },
                None => start,
            };
            if start >= text.len() {
                at = None;
                break;
            }
            let line = match self.filter {
                Some(_) => self.lines.line_of(text, start),
                None => first_line.map(|n| n + shown),
            };
            shown += 1;
            if let Some(width) = self.wrap {
                let part = if rows.is_empty() && start == self.top { self.part } else { 0 };
                let room = self.rows - rows.len();
                let (wrapped, next) = self.wrapped(start, part, line, room, width);
                rows.extend(wrapped);
                at = next;
                continue;
            }
            let (row, next) = self.row(start, line);
            rows.push(row);
            at = next;
        }
        (rows, at)
    }

    /// The line starting at `start`, cut to the screen, with its matches;
    /// where the next line starts (`None`: the end, or not known yet).
    fn row(&self, start: u64, line: Option<u64>) -> (Row, Option<u64>) {
        let text = &**self.text;
        let from = self.left.saturating_sub(CONTEXT);
        let max = (self.left - from) as usize + SHOWN + CONTEXT as usize;
        let (bytes, end) = match self.ends.get(start, text.len()) {
            Some(end) => {
                let past = matches!(end, End::Next(n) if start + from >= n);
                let bytes =
                    if past { Vec::new() } else { nav::read_window(text, start, from, max) };
                (bytes, end)
            }
            None => {
                // A filtered screen is computed off the UI thread (a
                // job): it reads the whole line. The UI reads at most
                // LONG bytes and leaves the rest to a thread.
                let limit = if self.filter.is_some() { u64::MAX } else { LONG };
                let (bytes, reach) = nav::read_line(text, start, from, max, limit);
                let end = match reach {
                    Reach::Next(n) => {
                        if n - start >= LONG {
                            self.ends.put(start, n);
                        }
                        End::Next(n)
                    }
                    Reach::Last => End::Last,
                    Reach::Beyond(at) => {
                        self.ends.look_for(self.text, start, at);
                        End::Unknown
                    }
                };
                (bytes, end)
            }
        };
        let next = match end {
            End::Next(n) => Some(n),
            End::Last | End::Unknown => None,
        };
        let skip = ((self.left - from) as usize).min(bytes.len());
        let shown_len = (bytes.len() - skip).min(SHOWN);
        let matches = self.marks.map_or_else(Vec::new, |f| {
            f.matches_in(&bytes)
                .into_iter()
                .filter(|m| m.end > skip && m.start < skip + shown_len)
                .map(|m| m.start.max(skip) - skip..m.end.min(skip + shown_len) - skip)
                .collect()
        });
        let shown = bytes[skip..skip + shown_len].to_vec();
        let source = self.merge.and_then(|m| m.source_of(start));
        (Row { start, line, bytes: shown, matches, source, part: 0, more: false }, next)
    }

    /// At most `room` rows of the line starting at `start`, from the row
    /// `part` bytes into it, folded into `width` columns, with their
    /// matches (found in what the rows show and [`CONTEXT`] either side);
    /// where the next line starts (`None`: the end, or not reached).
    fn wrapped(
        &self,
        start: u64,
        part: u64,
        line: Option<u64>,
        room: usize,
        width: usize,
    ) -> (Vec<Row>, Option<u64>) {
        let text = &**self.text;
        let folded = Folder { text, width }.forward(start, part, room);
        let (Some(first), Some(last)) = (folded.rows.first(), folded.rows.last()) else {
            return (Vec::new(), None);
        };
        let from = first.0.saturating_sub(CONTEXT);
        let to = last.0 + last.1 as u64 + CONTEXT;
        let bytes = nav::read_window(text, start, from, (to - from) as usize);
        let matches = self.marks.map_or_else(Vec::new, |f| f.matches_in(&bytes));
        let source = self.merge.and_then(|m| m.source_of(start));
        let count = folded.rows.len();
        let rows = folded.rows.iter().enumerate().map(|(i, &(at, len))| {
            let skip = ((at - from) as usize).min(bytes.len());
            let end = (skip + len).min(bytes.len());
            let matches = matches
                .iter()
                .filter(|m| m.end > skip && m.start < end)
                .map(|m| m.start.max(skip) - skip..m.end.min(end) - skip)
                .collect();
            let more = i + 1 < count || folded.end.is_none();
            let bytes = bytes[skip..end].to_vec();
            Row { start, line, bytes, matches, source, part: at, more }
        });
        (rows.collect(), folded.end.flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::text::Memory;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use trigrep::options::Case;

    /// A text that counts the bytes read from it.
    struct Counting(Memory, AtomicU64);

    impl Text for Counting {
        fn len(&self) -> u64 {
            self.0.len()
        }

        fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.read_at(offset, buf)?;
            self.1.fetch_add(n as u64, Ordering::Relaxed);
            Ok(n)
        }

        fn kind(&self) -> &str {
            "counting"
        }
    }

    /// Once a long line is drawn, moving over it, either way, from it or
    /// from a line before it, and to the bottom reads no more of it (a
    /// 1 GiB line took 120-350 ms a key).
    #[test]
    fn moves_over_a_drawn_long_line_do_not_read_it_again() {
        use crate::view::{app::App, keys::Action};
        let mut data = b"first\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', 4 << 20));
        data.extend_from_slice(b"\nnext\nlast\n");
        let text = Arc::new(Counting(Memory(data), AtomicU64::new(0)));
        let read = Arc::clone(&text);
        let lines = Arc::new(LineMap::new(&*text));
        let mut app = App::new(text, "t".into(), lines);
        app.rows = 2;
        let go = &mut |_| true;
        app.apply(Action::Down(1), go);
        assert_eq!(app.top, 6);
        // The screen shows the long line's start; a thread finds its end.
        assert_eq!(app.screen(go).len(), 1);
        wait_found(&app.ends);
        assert_eq!(app.screen(go).len(), 2);
        read.1.store(0, Ordering::Relaxed);
        app.apply(Action::Down(1), go);
        assert_eq!(app.top, 6 + (4 << 20) + 1);
        app.apply(Action::Up(1), go);
        assert_eq!(app.top, 6);
        app.apply(Action::Bottom, go);
        assert_eq!(app.top, 6 + (4 << 20) + 1);
        // From the line above it: the walk stops at it and steps over.
        app.top = 0;
        app.apply(Action::Down(2), go);
        assert_eq!(app.top, 6 + (4 << 20) + 1);
        let n = read.1.load(Ordering::Relaxed);
        assert!(n < 1 << 20, "{n} bytes read to move over a remembered line");
    }

    fn numbered(n: usize) -> Arc<dyn Text> {
        Arc::new(Memory((1..=n).flat_map(|i| format!("line {i}\n").into_bytes()).collect()))
    }

    /// Waits until a thread found a long line's end.
    fn wait_found(ends: &LineEnds) {
        let t = std::time::Instant::now();
        while ends.found() == 0 {
            assert!(t.elapsed().as_secs() < 10, "the line's end not found");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    #[test]
    fn rows_from_the_top_with_numbers() {
        let text = numbered(100);
        let lines = LineMap::new(&*text);
        let top = nav::skip_lines(&*text, 0, 9).unwrap();
        let frame = Frame {
            text: &text,
            lines: &lines,
            top,
            left: 0,
            rows: 3,
            filter: None,
            marks: None,
            ends: &Arc::default(),
            merge: None,
            wrap: None,
            part: 0,
        };
        let (rows, next) = frame.rows(&mut |_| true);
        assert_eq!(rows[0].bytes, b"line 10");
        assert_eq!(rows[2].bytes, b"line 12");
        assert_eq!(next, nav::skip_lines(&*text, 0, 12));
    }

    #[test]
    fn filter_shows_matching_lines_and_marks() {
        let text = numbered(100);
        let lines = LineMap::new(&*text);
        let f = Finder::new(&*text, "7", Case::Sensitive).unwrap();
        let frame = Frame {
            text: &text,
            lines: &lines,
            top: 0,
            left: 0,
            rows: 4,
            filter: Some(&f),
            marks: Some(&f),
            ends: &Arc::default(),
            merge: None,
            wrap: None,
            part: 0,
        };
        let (rows, _) = frame.rows(&mut |_| true);
        let shown: Vec<&[u8]> = rows.iter().map(|r| &r.bytes[..]).collect();
        assert_eq!(shown, vec![&b"line 7"[..], b"line 17", b"line 27", b"line 37"]);
        assert_eq!(rows[1].matches, vec![6..7]);
    }

    #[test]
    fn horizontal_offset_cuts_the_left() {
        let text: Arc<dyn Text> = Arc::new(Memory(b"0123456789abcdef\nxy\n".to_vec()));
        let lines = LineMap::new(&*text);
        let f = Finder::new(&*text, "9a", Case::Sensitive).unwrap();
        let frame = Frame {
            text: &text,
            lines: &lines,
            top: 0,
            left: 10,
            rows: 5,
            filter: None,
            marks: Some(&f),
            ends: &Arc::default(),
            merge: None,
            wrap: None,
            part: 0,
        };
        let (rows, next) = frame.rows(&mut |_| true);
        assert_eq!(rows[0].bytes, b"abcdef");
        assert_eq!(rows[0].matches, vec![0..1]);
        assert_eq!(rows[1].bytes, b"");
        assert_eq!(rows.len(), 2);
        assert_eq!(next, None);
    }

    /// A line longer than [`LONG`] is shown from its start at once; the
    /// rows below wait for a thread to find its end, then show.
    #[test]
    fn long_line_ends_are_found_in_the_background() {
        let mut data = vec![b'a'; 2 << 20];
        data.extend_from_slice(b"\nnext\n");
        let text: Arc<dyn Text> = Arc::new(Memory(data));
        let lines = LineMap::new(&*text);
        let ends = Arc::default();
        let frame = Frame {
            text: &text,
            lines: &lines,
            top: 0,
            left: 5,
            rows: 2,
            filter: None,
            marks: None,
            ends: &ends,
            merge: None,
            wrap: None,
            part: 0,
        };
        let (first, next) = frame.rows(&mut |_| true);
        assert_eq!((first.len(), next), (1, None));
        assert_eq!(first[0].bytes.len(), SHOWN);
        wait_found(&ends);
        let len = text.len();
        assert_eq!(ends.get(0, len), Some(End::Next((2 << 20) + 1)));
        let (again, _) = frame.rows(&mut |_| true);
        assert_eq!(again[0], first[0]);
        assert_eq!(again[1].bytes, b"");
        // Moves step over the remembered line, either way.
        let next = (2 << 20) + 1;
        assert_eq!(ends.skip(&*text, 0, 1), Some(next));
        assert_eq!(ends.skip(&*text, 0, 2), Some(next + 5));
        assert_eq!(ends.back(&*text, next, 1), 0);
        assert_eq!(ends.back(&*text, next + 5, 2), 0);
    }
}
