//! `H`: how many lines — of the search, else the filter, else the whole
//! text — fall in each time bucket, as a bar chart over the screen; the
//! bucket (a second to a week) is the smallest that fits the screen's
//! rows. `j`/`k` move over the bars, Enter goes to the first line of the
//! chosen bucket (as `@TIME`), `q` or Esc closes it. Matching lines are
//! found through the index (candidate blocks only); a line without a time
//! counts in its continued line's bucket.

use std::sync::Arc;

use trigrep::logline::time::Format;
use trigrep::options::Case;

use super::app::App;
use super::chart::Histogram;
use super::finder::{Finder, Progress};
use super::keys::Action;
use super::merge::Merge;
use super::nav;
use super::text::Text;
use super::times;

/// Bucket widths tried, in milliseconds: 1 s to 7 days.
const WIDTHS: [i64; 15] = [
    1_000,
    5_000,
    10_000,
    30_000,
    60_000,
    300_000,
    600_000,
    1_800_000,
    3_600_000,
    10_800_000,
    21_600_000,
    43_200_000,
    86_400_000,
    259_200_000,
    604_800_000,
];

/// The bucket index of `t`.
fn bucket(start: i64, width: i64, t: i64) -> usize {
    ((t - start).max(0) / width) as usize
}

/// The buckets for times `first..=last` in at most `rows`: their
/// start, width and a zero count for each.
fn buckets(first: i64, last: i64, rows: usize) -> (i64, i64, Vec<u64>) {
    let last = last.max(first);
    let rows = rows.max(1) as i64;
    let width = WIDTHS.iter().copied().find(|w| (last - first) / w < rows).unwrap_or(WIDTHS[14]);
    let start = first - first.rem_euclid(width);
    (start, width, vec![0u64; bucket(start, width, last) + 1])
}

/// Calls `add` with the time of each line of `finder` (all lines:
/// `None`) of `text` that has one (its own or its continued line's).
fn each_time(
    text: &dyn Text,
    format: Format,
    finder: Option<&Finder>,
    progress: Progress<'_>,
    add: &mut dyn FnMut(i64),
) {
    let Some(f) = finder else {
        return times::each_line_time(text, format, progress, add);
    };
    for r in f.ranges(text, 0) {
        let mut go_on = || progress(0);
        f.each_line(
            text,
            r,
            &mut |at| {
                // `at` is where the match starts: its line's time.
                let line = nav::line_start(text, at);
                if let Some(t) = times::time_at(text, format, line) {
                    add(t);
                }
            },
            &mut go_on,
        );
    }
}

/// Counts the lines of `finder` (all lines: `None`) of `text` per bucket,
/// at most `rows` buckets.
fn count(
    text: &dyn Text,
    format: Format,
    finder: Option<&Finder>,
    rows: usize,
    progress: Progress<'_>,
) -> Option<(i64, i64, Vec<u64>)> {
    let first = times::first_time(text, format, progress)?;
    let last = times::last_time(text, format, progress)?;
    let (start, width, mut counts) = buckets(first, last, rows);
    let last = counts.len() - 1;
    each_time(text, format, finder, progress, &mut |t| {
        counts[bucket(start, width, t).min(last)] += 1;
    });
    Some((start, width, counts))
}

/// [`count`] over the texts of a merge, each searched alone (through its
/// own index) for `finder`'s pattern with `case`, the counts added.
fn count_merged(
    merge: &Merge,
    finder: Option<&Finder>,
    case: Case,
    rows: usize,
    progress: Progress<'_>,
) -> (i64, i64, Vec<u64>) {
    let (first, last) = merge.span();
    let (start, width, mut counts) = buckets(first, last, rows);
    let top = counts.len() - 1;
    for s in merge.sources() {
        let own = finder.and_then(|f| Finder::new(&*s.text, &f.pattern, case).ok());
        each_time(&*s.text, s.format, own.as_ref(), progress, &mut |t| {
            counts[bucket(start, width, t).min(top)] += 1;
        });
    }
    (start, width, counts)
}

impl App {
    /// `H`: counts the lines of the search, filter or text per bucket.
    pub(super) fn histogram(&mut self, progress: Progress<'_>) {
        // Times of a text still arriving (stdin) may be known only now.
        if self.time.is_none() && self.merge.is_none() {
            self.detect_time(self.modified);
        }
        let format = self.time;
        if format.is_none() && self.merge.is_none() {
            self.message = Some("no timestamps found".into());
            return;
        };
        let finder = self.search.as_ref().map(|s| &s.0).or(self.filter.as_ref()).cloned();
        let what = match (&self.search, &self.filter) {
            (Some((f, _)), _) => format!("/{}", f.pattern),
            (None, Some(f)) => format!("&{}", f.pattern),
            (None, None) => "all lines".into(),
        };
        let text = &*self.text;
        let counted = match (&self.merge, format) {
            (Some(m), _) => {
                Some(count_merged(m, finder.as_deref(), self.case, self.rows, progress))
            }
            (None, Some(format)) => count(text, format, finder.as_deref(), self.rows, progress),
            (None, None) => None,
        };
        let Some((start, width, counts)) = counted else {
            self.message = Some("no timestamps found".into());
            return;
        };
        let top = self.top_time().unwrap_or(start);
        let selected = bucket(start, width, top).min(counts.len() - 1);
        self.histogram = Some(Arc::new(Histogram { start, width, counts, selected, what }));
    }

    /// A key while the chart is shown: `j`/`k` move, Enter goes, `q`/Esc
    /// close; whether it was taken.
    pub(super) fn histogram_key(&mut self, action: &Action, progress: Progress<'_>) -> bool {
        let Some(h) = self.histogram.clone() else { return false };
        let last = h.counts.len() - 1;
        let moved = match action {
            Action::Down(n) => h.selected.saturating_add(*n as usize).min(last),
            Action::Up(n) => h.selected.saturating_sub(*n as usize),
            Action::Top => 0,
            Action::Bottom => last,
            Action::Enter(_) => {
                self.histogram = None;
                let at = h.start + h.selected as i64 * h.width;
                self.jump_to_time(at, progress);
                return true;
            }
            Action::Cancel | Action::Quit | Action::Histogram => {
                self.histogram = None;
                return true;
            }
            _ => return false,
        };
        self.histogram = Some(Arc::new(Histogram { selected: moved, ..(*h).clone() }));
        true
    }
}
