//! Walking several texts as one timeline, a line at a time: each text's
//! next line waits at its cursor with its time (a line without one has
//! the time of the last line of its text before it), and the walk takes
//! the earliest, the lower-numbered text first among equal times, so that
//! lines of equal times keep their order within each text and the walk is
//! a stable sort of the texts' lines by time. Also where, in one text,
//! the lines at or after a time start (bisected, remembering probes).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use trigrep::logline::time::{self, Format};

use super::nav;
use super::text::Text;
use super::times;

/// Bytes of a line read for its time.
const HEAD: usize = trigrep::logline::time::LINE_HEAD;

/// Below this span, a bisection reads the lines in order.
const SPAN: u64 = 16 << 10;

/// One text of a merge.
pub struct Source {
    /// The text.
    pub text: Arc<dyn Text>,
    /// How its lines write their time.
    pub format: Format,
    /// Its length when the merge was made (a merge is of the texts then).
    pub len: u64,
    /// Its last line lacks a newline: the merge adds one.
    pub unended: bool,
    /// Its tag on screen.
    pub tag: String,
    /// Times seen at line starts: `time -> the first line start seen with it`.
    probes: Mutex<BTreeMap<i64, u64>>,
}

impl Source {
    /// `text` as it is now, read with `format`, tagged `tag`.
    pub fn new(text: Arc<dyn Text>, format: Format, tag: String) -> Source {
        let len = text.len();
        let mut last = [b'\n'];
        if len > 0 {
            nav::read_full(&*text, len - 1, &mut last);
        }
        let probes = Mutex::default();
        Source { text, format, len, unended: last[0] != b'\n', tag, probes }
    }

    /// Its length in the merge (a newline added to an unended last line).
    pub fn merged_len(&self) -> u64 {
        self.len + u64::from(self.unended)
    }

    /// The time of the line starting at `at`: its own or the last before
    /// it (`i64::MIN`: none before).
    pub fn key_at(&self, at: u64) -> i64 {
        times::time_at(&*self.text, self.format, at).unwrap_or(i64::MIN)
    }

    /// The first line with a time in `from..end` (a line start): its
    /// start and time.
    fn first_stamped(&self, from: u64, end: u64) -> Option<(u64, i64)> {
        let mut found = None;
        times::each_time(&*self.text, self.format, from..end, &mut |s, t| {
            found = t.map(|t| (s, t));
            found.is_none()
        });
        found
    }

    /// Where the first line with a time at or after `t` starts (the
    /// length: none), the times being in order: bisected over the
    /// bytes within the bounds earlier probes give, then read in order.
    pub fn at_time(&self, t: i64) -> u64 {
        if t == i64::MIN {
            return 0;
        }
        // `hi`: a line known to be at or after `t` (or the end); `end`:
        // where one may still be found before it.
        let (mut lo, hi) = {
            let p = self.probes.lock().unwrap_or_else(|e| e.into_inner());
            let lo = p.range(..t).next_back().map_or(0, |(_, &o)| o);
            let hi = p.range(t..).next().map_or(self.len, |(_, &o)| o);
            (lo, hi.max(lo))
        };
        let (mut hi, mut end) = (hi, hi);
        while end - lo > SPAN {
            let mid = lo + (end - lo) / 2;
            let Some(s) = nav::next_line_start(&*self.text, mid).filter(|&s| s < end) else {
                end = mid;
                continue;
            };
            match self.first_stamped(s, end) {
                Some((p, pt)) => {
                    self.remember(pt, p);
                    if pt < t {
                        lo = p;
                    } else {
                        (hi, end) = (p, p);
                    }
                }
                None => end = mid,
            }
        }
        match self.first_stamped_from(lo, end, t) {
            Some(p) => p,
            None => hi,
        }
    }

    /// The first line in `from..end` with a time at or after `t`.
    fn first_stamped_from(&self, from: u64, end: u64, t: i64) -> Option<u64> {
        let mut found = None;
        times::each_time(&*self.text, self.format, from..end, &mut |s, pt| {
            if let Some(pt) = pt.filter(|&pt| pt >= t) {
                found = Some(s);
                self.remember(pt, s);
            }
            found.is_none()
        });
        found
    }

    /// Keeps `(time, line start)` for later bisections (the earliest
    /// start seen for a time).
    fn remember(&self, t: i64, at: u64) {
        let mut p = self.probes.lock().unwrap_or_else(|e| e.into_inner());
        if p.len() > 1 << 16 {
            p.clear();
        }
        let e = p.entry(t).or_insert(at);
        *e = (*e).min(at);
    }
}

/// Cursors over the sources of a merge, the next line of each waiting
/// with its time.
pub struct Walk<'a> {
    sources: &'a [Source],
    /// Where each source's next line starts.
    pub at: Vec<u64>,
    /// The time of each source's next line (`None`: at its end).
    keys: Vec<Option<i64>>,
    /// Bytes of each source read ahead: `(from, bytes)`.
    windows: Vec<(u64, Vec<u8>)>,
}

impl<'a> Walk<'a> {
    /// A walk from `at` (a line start in each source).
    pub fn new(sources: &'a [Source], at: Vec<u64>) -> Walk<'a> {
        let keys = sources
            .iter()
            .zip(&at)
            .map(|(s, &a)| (a < s.merged_len()).then(|| s.key_at(a)))
            .collect();
        let windows = vec![(0, Vec::new()); sources.len()];
        Walk { sources, at, keys, windows }
    }

    /// Where the walk is in the merge: the bytes of the lines before it.
    pub fn offset(&self) -> u64 {
        self.at.iter().sum()
    }

    /// The source of the next line.
    pub fn peek(&self) -> Option<usize> {
        (0..self.sources.len()).filter(|&i| self.keys[i].is_some()).min_by_key(|&i| self.keys[i])
    }

    /// The time of the next line (`None`: none, or before any time).
    pub fn time(&self) -> Option<i64> {
        self.keys[self.peek()?].filter(|&t| t != i64::MIN)
    }

    /// The next line, the walk staying before it: its source, start and
    /// end (past its newline; an added newline counts).
    pub fn line(&mut self) -> Option<(usize, u64, u64)> {
        let i = self.peek()?;
        Some((i, self.at[i], self.line_end(i)))
    }

    /// Moves past `line`, the one [`Walk::line`] gave.
    pub fn pass(&mut self, (i, _, end): (usize, u64, u64)) {
        self.at[i] = end;
        let sources = self.sources;
        let s = &sources[i];
        let own = (end < s.merged_len()).then(|| {
            let head = self.bytes(i, end, HEAD);
            let head = &head[..head.len().min(HEAD)];
            time::parse(s.format, &head[..memchr::memchr(b'\n', head).unwrap_or(head.len())])
        });
        self.keys[i] = own.map(|t| t.or(self.keys[i]).unwrap_or(i64::MIN));
    }

    /// Where source `i`'s line at its cursor ends.
    fn line_end(&mut self, i: usize) -> u64 {
        let sources = self.sources;
        let (at, s) = (self.at[i], &sources[i]);
        for want in [1, 64 << 10] {
            let got = self.bytes(i, at, want);
            if let Some(n) = memchr::memchr(b'\n', got) {
                return at + n as u64 + 1;
            }
            if at + got.len() as u64 >= s.len {
                return s.merged_len();
            }
        }
        nav::next_line_start(&*s.text, at).map_or(s.merged_len(), |e| e.min(s.len))
    }

    /// Source `i`'s bytes from `at` to the end of its window, at least
    /// `want` of them (fewer at its end): the window is read again from
    /// `at` when it holds fewer.
    fn bytes(&mut self, i: usize, at: u64, want: usize) -> &[u8] {
        let len = self.sources[i].len;
        let want = want.min(len.saturating_sub(at) as usize);
        let (from, buf) = &self.windows[i];
        let inside = at >= *from && at + want as u64 <= from + buf.len() as u64;
        if !inside {
            let size = want.max(16 << 10).min(len.saturating_sub(at) as usize);
            let mut buf = vec![0; size];
            let n = nav::read_full(&*self.sources[i].text, at, &mut buf);
            buf.truncate(n);
            self.windows[i] = (at, buf);
        }
        let (from, buf) = &self.windows[i];
        &buf[((at - from) as usize).min(buf.len())..]
    }

    /// Copies `start + skip .. end` of source `i` (a line, an added
    /// newline included) into `out`, as far as it holds, through the
    /// source's window; the count copied.
    pub fn copy(&mut self, i: usize, (start, end): (u64, u64), skip: u64, out: &mut [u8]) -> usize {
        let len = self.sources[i].len;
        let from = start + skip;
        let want = (end.saturating_sub(from) as usize).min(out.len());
        let real = (len.saturating_sub(from) as usize).min(want);
        let got = self.bytes(i, from, real);
        let n = got.len().min(real);
        out[..n].copy_from_slice(&got[..n]);
        if n == real && real < want {
            out[real] = b'\n';
            return real + 1;
        }
        n
    }
}
