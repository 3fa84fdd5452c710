//! The rest of less's keys on an [`App`]: marks (`m`, `'`, `''`), the
//! highlight turned off (ESC-u), the lines shown written to a file
//! (`s FILE`), and the request to go to another file (`:n`, `:p`, `:x`),
//! which the caller, holding the list of files, carries out.

use std::io::Write;

use super::app::App;
use super::finder::Progress;
use super::keys::{Action, FileStep};
use super::nav;

impl App {
    /// Does what `action`, one of less's keys this file holds, asks.
    pub(super) fn apply_less(&mut self, action: Action, progress: Progress<'_>) {
        match action {
            Action::Mark(c) => {
                self.marks.insert(c, self.place());
                self.message = Some(format!("mark {c} set"));
            }
            Action::GotoMark(c) => self.goto_mark(c, progress),
            Action::Info => self.info = true,
            Action::HighlightOff => self.highlight = false,
            Action::Save(path) => self.save(&path, progress),
            Action::File(step) => self.step_file(step),
            _ => {}
        }
    }

    /// To mark `c`: a letter set with `m`, `'` (where the last jump
    /// started), `^` (the start) or `$` (the end).
    fn goto_mark(&mut self, c: char, progress: Progress<'_>) {
        match c {
            '^' => self.apply(Action::Top, progress),
            '$' => self.apply(Action::Bottom, progress),
            '\'' => match self.jumped_from {
                Some(at) => self.go_to_place(at),
                None => (self.top, self.part) = (0, 0),
            },
            _ => match self.marks.get(&c) {
                Some(&at) => self.go_to_place(at),
                None => self.message = Some(format!("mark {c} is not set")),
            },
        }
    }

    /// Asks for the file `step` goes to, or says there is none.
    fn step_file(&mut self, step: FileStep) {
        let (at, count) = self.files;
        let to = match step {
            FileStep::Next => Some(at + 1).filter(|&n| n < count),
            FileStep::Previous => at.checked_sub(1),
            FileStep::First => Some(0),
        };
        match to {
            Some(n) => self.switch_to = Some(n),
            None if step == FileStep::Next => self.message = Some("no next file".into()),
            None => self.message = Some("no previous file".into()),
        }
    }

    /// Writes the lines a screen would show, all of them (after the
    /// filter, if any), to a new file at `path` (an existing file is
    /// kept: less asks before it writes over one).
    fn save(&mut self, path: &str, progress: Progress<'_>) {
        let file = std::fs::OpenOptions::new().write(true).create_new(true).open(path);
        let mut out = match file {
            Ok(f) => std::io::BufWriter::new(f),
            Err(e) => {
                self.message = Some(format!("{path}: {e}"));
                return;
            }
        };
        let text = &*self.text;
        let (mut lines, mut failed) = (0u64, None);
        let mut write = |bytes: &[u8]| match out.write_all(bytes) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        };
        match self.filter.clone() {
            None => {
                let mut last = b'\n';
                nav::each_chunk(text, 0..text.len(), &mut |b| {
                    lines += memchr::memchr_iter(b'\n', b).count() as u64;
                    last = b.last().copied().unwrap_or(last);
                    write(b) && progress(b.len() as u64)
                });
                lines += u64::from(last != b'\n');
            }
            Some(f) => {
                let mut at = f.next_line(text, 0, progress);
                while let Some(start) = at {
                    let next = nav::next_line_start(text, start);
                    let end = next.unwrap_or(text.len());
                    let mut ok = true;
                    nav::each_chunk(text, start..end, &mut |b| {
                        ok = write(b);
                        ok
                    });
                    if !ok || !progress(end - start) {
                        break;
                    }
                    if next.is_none() && end > start {
                        write(b"\n");
                    }
                    lines += 1;
                    at = next.and_then(|n| f.next_line(text, n, progress));
                }
            }
        }
        let flushed = out.flush();
        self.message = Some(match failed.map_or(flushed, Err) {
            Ok(()) => format!("wrote {lines} lines to {path}"),
            Err(e) => format!("{path}: {e}"),
        });
    }
}
