//! `H`: how many lines — of the search, else the filter, else the whole
//! text — fall in each time bucket, as a bar chart over the screen; the
//! bucket (a second to a week) is the smallest that fits the screen's
//! rows. `j`/`k` move over the bars, Enter goes to the first line of the
//! chosen bucket (as `@TIME`), `q` or Esc closes it. Matching lines are
//! found through the index (candidate blocks only, less those an earlier
//! scan found no match in), on two threads, a time read per matching
//! line; a line without a time counts in its continued line's bucket.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Adds to `counts` (bucket `at(t)` for time `t`) the time of each line
/// of `finder` (all lines: `None`) of `text` that has one (its own or its
/// continued line's). A finder's ranges are searched on two threads, a
/// time read only for a matching line.
fn each_time(
    text: &dyn Text,
    format: Format,
    finder: Option<&Finder>,
    progress: Progress<'_>,
    at: &(dyn Fn(i64) -> usize + Sync),
    counts: &mut [u64],
) {
    let Some(f) = finder else {
        return times::each_line_time(text, format, progress, &mut |t| counts[at(t)] += 1);
    };
    let (mine, theirs) = halves(text, f.ranges(text, 0).collect());
    let (stop, n) = (AtomicBool::new(false), counts.len());
    let count = |ranges: Vec<Range<u64>>, go_on: &mut dyn FnMut() -> bool| {
        let (mut counts, mut carried) = (vec![0u64; n], times::Carried::default());
        for r in ranges {
            let mut hit = |m| {
                // `m` is where the match starts: its line's time.
                if let Some(t) = carried.time(text, format, nav::line_start(text, m)) {
                    counts[at(t)] += 1;
                }
            };
            f.each_line(text, r, &mut hit, go_on);
            if !go_on() {
                break;
            }
        }
        counts
    };
    let other = std::thread::scope(|s| {
        let other = s.spawn(|| count(theirs, &mut || !stop.load(Ordering::Relaxed)));
        let own = count(mine, &mut || {
            let go = progress(0) && !stop.load(Ordering::Relaxed);
            stop.fetch_or(!go, Ordering::Relaxed);
            go
        });
        let other = other.join().unwrap_or_default();
        own.into_iter().zip(other).map(|(a, b)| a + b).collect::<Vec<u64>>()
    });
    for (c, n) in counts.iter_mut().zip(other) {
        *c += n;
    }
}

/// `ranges` cut in two of about as many bytes each, in order: a range
/// holding more than half is cut at a line start.
fn halves(text: &dyn Text, mut ranges: Vec<Range<u64>>) -> (Vec<Range<u64>>, Vec<Range<u64>>) {
    let half = ranges.iter().map(|r| r.end - r.start).sum::<u64>() / 2;
    let mut sum = 0;
    for i in 0..ranges.len() {
        let r = ranges[i].clone();
        if sum + (r.end - r.start) <= half {
            sum += r.end - r.start;
            continue;
        }
        let cut = nav::line_start(text, r.start + (half - sum)).max(r.start);
        let mut theirs = ranges.split_off(i + 1);
        theirs.insert(0, cut..r.end);
        ranges[i].end = cut;
        ranges.retain(|r| !r.is_empty());
        theirs.retain(|r| !r.is_empty());
        return (ranges, theirs);
    }
    (ranges, Vec::new())
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
    let at = |t| bucket(start, width, t).min(last);
    each_time(text, format, finder, progress, &at, &mut counts);
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
    let at = |t| bucket(start, width, t).min(top);
    for s in merge.sources() {
        let own = finder.and_then(|f| Finder::new(&*s.text, &f.pattern, case).ok());
        each_time(&*s.text, s.format, own.as_ref(), progress, &at, &mut counts);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::finder::tests::Listed;
    use crate::view::text::Memory;

    /// A log whose times go back and forth, with continuation lines (some
    /// the first lines of a block, some matching), cut into blocks of 37
    /// lines, every block a candidate; each line's time key.
    fn log() -> (Listed, Vec<i64>) {
        let (mut data, mut keys, mut starts) = (Vec::new(), Vec::new(), vec![0u64]);
        let base = 1_767_434_400_000; // 2026-01-03 10:00:00
        for i in 0..1200i64 {
            let secs = (i * 7919) % 3600;
            let line =
                format!("2026-01-03 10:{:02}:{:02}.000 INFO req {i}\n", secs / 60, secs % 60);
            for (k, line) in [line, format!("    at frame {i} needle\n")].into_iter().enumerate() {
                if k == 1 && i % 3 != 0 {
                    continue;
                }
                let needle = if i % 5 == 0 { " needle\n" } else { "\n" };
                data.extend_from_slice(line.replace('\n', needle).as_bytes());
                keys.push(base + secs * 1000);
                if keys.len() % 37 == 0 {
                    starts.push(data.len() as u64);
                }
            }
        }
        starts.push(data.len() as u64);
        let ranges = starts.windows(2).map(|w| w[0]..w[1]).filter(|r| !r.is_empty()).collect();
        (Listed { text: Memory(data), ranges, read: Default::default() }, keys)
    }

    #[test]
    fn counts_per_bucket_equal_the_lines_times_through_both_halves() {
        let (t, keys) = log();
        let format = trigrep::logline::time::detect(&t.text.0, 0).unwrap();
        let lines: Vec<&[u8]> = t.text.0.split(|&b| b == b'\n').collect();
        for pattern in ["needle", "req 1195 needle"] {
            let f = Finder::new(&t, pattern, Case::Sensitive).unwrap();
            let m = |l: &[u8]| l.windows(pattern.len()).any(|w| w == pattern.as_bytes());
            for searched_first in [false, true] {
                if searched_first {
                    // Ranges a search read whole and found nothing in are
                    // skipped by the count.
                    f.next_line(&t, t.text.0.len() as u64 / 2, &mut |_| true);
                }
                let got = count(&t, format, Some(&f), 20, &mut |_| true).unwrap();
                let (start, width, ref counts) = got;
                let mut want = vec![0u64; counts.len()];
                for (_, k) in lines.iter().zip(&keys).filter(|(l, _)| m(l)) {
                    want[bucket(start, width, *k).min(counts.len() - 1)] += 1;
                }
                assert_eq!(counts, &want, "{pattern}, searched first: {searched_first}");
                assert!(want.iter().sum::<u64>() > 0, "{pattern}");
            }
        }
        // Without an index: the whole text in two halves.
        let plain = Memory(t.text.0.clone());
        let f = Finder::new(&plain, "needle", Case::Sensitive).unwrap();
        let all = count(&plain, format, Some(&f), 20, &mut |_| true).unwrap();
        let indexed = Finder::new(&t, "needle", Case::Sensitive).unwrap();
        assert_eq!(all, count(&t, format, Some(&indexed), 20, &mut |_| true).unwrap());
    }

    #[test]
    fn a_continuation_far_below_its_time_is_counted() {
        // One stamped line, then 600 KiB of continuation lines, some of
        // them matching: every match carries the stamped line's time.
        let mut data = b"2026-01-03 10:00:00.000 ERROR boom\n".to_vec();
        let mut matches = 0u64;
        for i in 0..20_000 {
            let hit = i % 1000 == 999;
            matches += u64::from(hit);
            let tail = if hit { " needle" } else { "" };
            data.extend_from_slice(format!("    at frame {i:>08} of the stack{tail}\n").as_bytes());
        }
        data.extend_from_slice(b"2026-01-03 11:00:00.000 INFO later needle\n");
        assert!(data.len() > 600 << 10);
        let format = trigrep::logline::time::detect(&data, 0).unwrap();
        let plain = Memory(data);
        let f = Finder::new(&plain, "needle", Case::Sensitive).unwrap();
        let (_, _, counts) = count(&plain, format, Some(&f), 20, &mut |_| true).unwrap();
        assert_eq!(counts.iter().sum::<u64>(), matches + 1);
        assert_eq!((counts[0], *counts.last().unwrap()), (matches, 1));
    }
}
