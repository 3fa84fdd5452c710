//! Searching and filtering on an [`App`]: a new search, `n` and `N`
//! (stopping at either end, or wrapping when asked), the filter, and the
//! case toggles that plan the patterns again.

use std::sync::Arc;

use trigrep::options::Case;

use super::app::App;
use super::finder::{Finder, Progress};
use super::merge::Merge;
use super::nav;
use super::wrap::{Folder, PIECE};

impl App {
    /// A new search for `pattern` (empty: the last one again).
    pub(super) fn search(&mut self, pattern: String, backward: bool, progress: Progress<'_>) {
        if pattern.is_empty() {
            match &mut self.search {
                Some(s) => s.1 = backward,
                None => {
                    self.message = Some("no previous search".into());
                    return;
                }
            }
        } else {
            self.highlight = true;
            match Finder::new(&*self.text, &pattern, self.case) {
                Ok(f) => self.search = Some((Arc::new(f), backward)),
                Err(e) => {
                    self.message = Some(one_line(&e));
                    return;
                }
            }
        }
        self.find(false, progress);
    }

    /// To the next match in the search's direction (`reverse`: the other
    /// way); at the end, "Pattern not found" as in less, or round to the
    /// other end when wrapping (`--wrap-search`).
    pub(super) fn find(&mut self, reverse: bool, progress: Progress<'_>) {
        let Some((f, backward)) = self.search.clone() else {
            self.message = Some("no previous search".into());
            return;
        };
        let text = &*self.text;
        let wrap = self.wrap;
        if let Some(m) = self.merge.clone() {
            return self.find_merged(&m, &f, backward != reverse, progress);
        }
        let found = if backward != reverse {
            f.prev_line(text, self.top, progress).map(|s| (s, false)).or_else(|| {
                wrap.then(|| f.prev_line(text, text.len(), progress))?
                    .filter(|&s| s >= self.top)
                    .map(|s| (s, true))
            })
        } else {
            let from = nav::next_line_start(text, self.top).unwrap_or(text.len());
            f.next_line(text, from, progress).map(|s| (s, false)).or_else(|| {
                wrap.then(|| f.next_line(text, 0, progress))?
                    .filter(|&s| s <= self.top)
                    .map(|s| (s, true))
            })
        };
        match found {
            Some((at, wrapped)) => {
                self.top = at;
                self.show_match(&f);
                if wrapped {
                    let end = if backward != reverse {
                        "top, continuing at bottom"
                    } else {
                        "bottom, continuing at top"
                    };
                    self.message = Some(format!("search hit {end}"));
                }
            }
            None => {
                let not_found = || format!("Pattern not found: {}", f.pattern);
                self.message = Some(f.trouble().unwrap_or_else(not_found));
            }
        }
    }

    /// `n`/`N` on a merge: each file searched through its own index
    /// from its place in the merge, the earliest match taken.
    fn find_merged(&mut self, m: &Merge, f: &Finder, back: bool, progress: Progress<'_>) {
        let finders =
            match self.merged_finders.as_ref().filter(|c| c.0 == (f.pattern.clone(), self.case)) {
                Some(c) => Arc::clone(&c.1),
                None => match m.finders(&f.pattern, self.case) {
                    Ok(v) => {
                        let v = Arc::new(v);
                        self.merged_finders =
                            Some(((f.pattern.clone(), self.case), Arc::clone(&v)));
                        v
                    }
                    Err(e) => return self.message = Some(one_line(&e)),
                },
            };
        let (top, len, wrap) = (self.top, self.text.len(), self.wrap);
        let found = if back {
            m.prev_match(top, &finders, progress).map(|s| (s, false)).or_else(|| {
                let s = wrap.then(|| m.prev_match(len, &finders, progress))??;
                (s >= top).then_some((s, true))
            })
        } else {
            let from = nav::next_line_start(&*self.text, top).unwrap_or(len);
            m.next_match(from, &finders, progress).map(|s| (s, false)).or_else(|| {
                let s = wrap.then(|| m.next_match(0, &finders, progress))??;
                (s <= top).then_some((s, true))
            })
        };
        match found {
            Some((at, wrapped)) => {
                self.top = at;
                self.show_match(f);
                if wrapped {
                    let end = if back {
                        "top, continuing at bottom"
                    } else {
                        "bottom, continuing at top"
                    };
                    self.message = Some(format!("search hit {end}"));
                }
            }
            None => self.message = Some(format!("Pattern not found: {}", f.pattern)),
        }
    }

    /// Wrapped, the top line (a match's) from the row holding its first
    /// match, when that is below the screen's rows of the line (looked
    /// for in its first 256 KiB); else from its first row.
    fn show_match(&mut self, f: &Finder) {
        self.part = 0;
        if self.chop {
            return;
        }
        let line = nav::read_window(&*self.text, self.top, 0, PIECE as usize);
        let Some(m) = f.matches_in(&line).first().map(|m| m.start as u64) else { return };
        let folder = Folder { text: &*self.text, width: self.wrap_columns() };
        let shown = folder.forward(self.top, 0, self.rows);
        if shown.end.is_none() && shown.rows.last().is_some_and(|r| r.0 + r.1 as u64 <= m) {
            self.part = folder.row_of(self.top, m);
        }
    }

    /// Shows only lines matching `pattern` (empty: every line).
    pub(super) fn set_filter(&mut self, pattern: String) {
        if pattern.is_empty() {
            self.filter = None;
            return;
        }
        match Finder::new(&*self.text, &pattern, self.case) {
            Ok(f) => self.filter = Some(Arc::new(f)),
            Err(e) => self.message = Some(one_line(&e)),
        }
    }

    /// Toggles `case` against case-sensitive, and plans the patterns again.
    pub(super) fn toggle_case(&mut self, case: Case) {
        self.case = if self.case == case { Case::Sensitive } else { case };
        self.message = Some(
            match self.case {
                Case::Sensitive => "case-sensitive search",
                Case::Insensitive => "case-insensitive search (-I)",
                Case::Smart => "smart case search (-i)",
            }
            .into(),
        );
        let replan =
            |f: &Arc<Finder>| Finder::new(&*self.text, &f.pattern, self.case).ok().map(Arc::new);
        let search = self.search.as_ref().and_then(|(f, b)| Some((replan(f)?, *b)));
        let filter = self.filter.as_ref().and_then(replan);
        self.search = search;
        self.filter = filter;
    }
}

/// The first line of a multi-line message (rg's pattern errors).
fn one_line(e: &str) -> String {
    let lines: Vec<&str> = e.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    lines.last().map_or_else(String::new, |l| l.to_string())
}
