//! Levels in the viewer: `e`/`E` to the next/previous error, `w`/`W`
//! to the next/previous warning, as lnav's keys. Each level's spellings
//! make one pattern ([`Level::pattern`]), planned once against the text:
//! through its index, only the blocks holding a spelling are read; each
//! line found is then read as [`trigrep::logline::level::detect`] reads
//! it (a level word later in a message is not the line's level).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use trigrep::logline::level::{self, Level};
use trigrep::options::Case;

use super::app::App;
use super::finder::{Finder, Progress};
use super::nav;
use super::text::Text;

/// How much of a line is read to see its level.
const HEAD: usize = 1024;

/// The finder of `level`'s lines in `text`, planned once (kept in `planned`).
fn finder(
    planned: &Mutex<HashMap<Level, Arc<Finder>>>,
    text: &dyn Text,
    level: Level,
) -> Option<Arc<Finder>> {
    let mut map = planned.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(f) = map.get(&level) {
        return Some(Arc::clone(f));
    }
    let f = Arc::new(Finder::new(text, &level.pattern(), Case::Sensitive).ok()?);
    map.insert(level, Arc::clone(&f));
    Some(f)
}

/// The level of the line starting at `at`.
fn level_at(text: &dyn Text, at: u64) -> Option<Level> {
    let line = nav::read_window(text, at, 0, HEAD);
    level::detect(&line).map(|l| l.0)
}

impl App {
    /// To the next (or previous) line of `level` from the top.
    pub(super) fn goto_level(&mut self, level: Level, backward: bool, progress: Progress<'_>) {
        let text = &*self.text;
        let Some(f) = finder(&self.levels, text, level) else { return };
        let mut found = None;
        if backward {
            let mut before = self.top;
            while let Some(at) = f.prev_line(text, before, progress) {
                if level_at(text, at) == Some(level) {
                    found = Some(at);
                    break;
                }
                before = at;
            }
        } else {
            // Each piece is read once: its matches are checked in order.
            let from = nav::next_line_start(text, self.top).unwrap_or(text.len());
            let first = std::cell::Cell::new(None);
            for r in f.ranges(text, from) {
                let range = r.start.max(from)..r.end;
                let mut hit = |at: u64| {
                    let line = nav::line_start(text, at);
                    if first.get().is_none() && level_at(text, line) == Some(level) {
                        first.set(Some(line));
                    }
                };
                let mut go_on = || first.get().is_none() && progress(0);
                f.each_line(text, range, &mut hit, &mut go_on);
                if first.get().is_some() || !progress(0) {
                    break;
                }
            }
            found = first.get();
        }
        let name = level.name();
        match found {
            Some(at) => self.top = at,
            None if backward => self.message = Some(format!("no {name} line above")),
            None => self.message = Some(format!("no {name} line below")),
        }
    }
}
