//! Finding matching lines through a text's candidate ranges: the next and
//! previous matching line, and the matches inside a line (what `tg -o`
//! marks), with the matcher `tg` builds from the same options.
//!
//! A [`Finder`] plans its pattern once: with a block index, only the
//! candidate blocks (plus a grown tail) are read; without one, the whole
//! text, in pieces cut at line ends. A line longer than a piece is searched
//! whole, mapped rather than read into memory ([`LongLine`]). A long scan
//! reports its progress and stops when asked.

use std::ops::{Deref, Range};
use std::sync::Mutex;

use grep_matcher::Matcher;
use grep_regex::RegexMatcher;
use trigrep::options::{Case, MatchOptions};

use super::long_line::LongLine;
use super::nav;
use super::placed::Placed;
use super::text::Text;
use super::unmatched::Unmatched;

/// How much of a text is searched at a time.
const PIECE: usize = 1 << 20;

/// A merge's candidate ranges up to this many are placed at once for the
/// density bar's picture of them.
const FEW: usize = 64;

/// What a search reads of a text.
enum Ranges {
    /// Everything (no index, or lines that do not match).
    All,
    /// These ranges, in order (an index's candidates), and those a
    /// scan found no match in.
    Listed(Vec<Range<u64>>, Unmatched),
    /// A merge's texts' candidate ranges, placed as they are reached.
    Placed(Placed),
}

/// Told the bytes a scan read since the last call; false stops the scan.
pub type Progress<'a> = &'a mut dyn FnMut(u64) -> bool;

/// A pattern, compiled and planned against one text. A pattern that
/// starts with `!` finds the lines that do not match the rest, as in
/// less (`/!pattern`, `&!pattern`): every line is read, none is marked.
pub struct Finder {
    /// What was asked, as typed.
    pub pattern: String,
    matcher: RegexMatcher,
    /// Lines that do not match (`!`).
    invert: bool,
    /// What is read.
    ranges: Ranges,
    /// Why the last scan stopped short (a long line it could not map).
    trouble: Mutex<Option<String>>,
}

impl Finder {
    /// `pattern` (rg's syntax) with `case`, planned against `text`; an
    /// invalid pattern is rg's message.
    pub fn new(text: &dyn Text, pattern: &str, case: Case) -> Result<Finder, String> {
        let (invert, regex) = match pattern.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, pattern),
        };
        let mut opts = MatchOptions::new(vec![regex.to_string()]);
        opts.case = case;
        let matcher = opts.matcher(false).map_err(|e| e.to_string())?;
        let ranges = match (invert, text.candidates_each(&opts)) {
            (true, _) => Ranges::All,
            (false, Some(each)) => Ranges::Placed(Placed::new(each)),
            (false, None) => text.candidates(&opts).map_or(Ranges::All, |r| {
                let known = Unmatched::new(r.len());
                Ranges::Listed(r, known)
            }),
        };
        let trouble = Mutex::new(None);
        Ok(Finder { pattern: pattern.to_string(), matcher, invert, ranges, trouble })
    }

    /// The byte ranges of `text` searched that end after `from`, in
    /// order: candidates (a merge's placed as the iteration reaches
    /// them), or `from..` its end.
    pub fn ranges<'a>(
        &'a self,
        text: &'a dyn Text,
        from: u64,
    ) -> impl Iterator<Item = Range<u64>> + 'a {
        let mut at = from;
        std::iter::from_fn(move || {
            let r = match &self.ranges {
                Ranges::All => Some(at..text.len()).filter(|r| !r.is_empty()),
                Ranges::Listed(r, u) => {
                    r.get(u.skip_forward(r.partition_point(|r| r.end <= at))).cloned()
                }
                Ranges::Placed(p) => p.next(text, at),
            }?;
            at = r.end;
            Some(r)
        })
    }

    /// The byte ranges searched that start before `before`, last first.
    fn ranges_back<'a>(
        &'a self,
        text: &'a dyn Text,
        before: u64,
    ) -> impl Iterator<Item = Range<u64>> + 'a {
        let mut at = before;
        std::iter::from_fn(move || {
            let r = match &self.ranges {
                Ranges::All => Some(0..at).filter(|r| !r.is_empty()),
                Ranges::Listed(r, u) => {
                    u.skip_back(r.partition_point(|r| r.start < at)).map(|i| r[i].clone())
                }
                Ranges::Placed(p) => p.prev(text, at),
            }?;
            at = r.start;
            Some(r)
        })
    }

    /// Every candidate range when they are few enough to place at once
    /// (at most [`FEW`]; `None`: no index, or more).
    pub fn few_ranges(&self, text: &dyn Text) -> Option<Vec<Range<u64>>> {
        match &self.ranges {
            Ranges::All => None,
            Ranges::Listed(r, _) => Some(r.clone()),
            Ranges::Placed(p) if p.count() <= FEW => Some(self.ranges(text, 0).collect()),
            Ranges::Placed(_) => None,
        }
    }

    /// The most bytes a search of the whole text reads: its candidate
    /// ranges' length (a merge's: its texts' ranges; `None`: everything,
    /// no index).
    pub fn candidate_bytes(&self) -> Option<u64> {
        match &self.ranges {
            Ranges::All => None,
            Ranges::Listed(r, _) => Some(r.iter().map(|r| r.end - r.start).sum()),
            Ranges::Placed(p) => Some(p.bytes()),
        }
    }

    /// Why a scan stopped short, once: a line it could not search. Until
    /// this is taken, every scan finds nothing (a wrapped search does not
    /// go on past the line it could not search).
    pub fn trouble(&self) -> Option<String> {
        self.trouble_now().take()
    }

    /// The trouble kept.
    fn trouble_now(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.trouble.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `e` for [`Finder::trouble`].
    fn failed(&self, e: String) {
        *self.trouble_now() = Some(e);
    }

    /// The non-empty matches in `line` (one line, without its newline).
    pub fn matches_in(&self, line: &[u8]) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        if self.invert {
            return out;
        }
        let _ = self.matcher.find_iter(line, |m| {
            if !m.is_empty() {
                out.push(m.start()..m.end());
            }
            true
        });
        out
    }

    /// Where the first matching line at or after `from` (a line start)
    /// starts; `None`: none before the end, or stopped.
    pub fn next_line(&self, text: &dyn Text, from: u64, progress: Progress<'_>) -> Option<u64> {
        if self.trouble_now().is_some() {
            return None;
        }
        for r in self.ranges(text, from) {
            let mut found = None;
            let start = r.start.max(from);
            let read = pieces(text, start..r.end, &mut |at, piece| {
                if let Some(m) = self.first_in(piece, 0) {
                    found = Some(start_of(text, at, piece, m));
                    return false;
                }
                progress(piece.len() as u64)
            });
            match read {
                Err(e) => {
                    self.failed(e);
                    return None;
                }
                Ok(_) if found.is_some() => return found,
                Ok(whole) if whole && start == r.start => self.unmatched(&r),
                Ok(_) => {}
            }
            if !progress(0) {
                return None;
            }
        }
        None
    }

    /// Where the last matching line starting before `before` starts.
    pub fn prev_line(&self, text: &dyn Text, before: u64, progress: Progress<'_>) -> Option<u64> {
        if self.trouble_now().is_some() {
            return None;
        }
        for r in self.ranges_back(text, before) {
            let end = r.end.min(before);
            let mut piece_end = end;
            while piece_end > r.start {
                let (at, piece) = match piece_before(text, r.start, piece_end) {
                    Ok(p) => p,
                    Err(e) => {
                        self.failed(e);
                        return None;
                    }
                };
                let mut last = None;
                let mut pos = 0;
                while let Some(m) = self.first_in(&piece, pos) {
                    last = Some(m);
                    pos = memchr::memchr(b'\n', &piece[m..]).map_or(piece.len(), |i| m + i + 1);
                }
                if let Some(m) = last {
                    return Some(start_of(text, at, &piece, m));
                }
                if !progress(piece.len() as u64) || at == piece_end {
                    return None;
                }
                piece_end = at;
            }
        }
        None
    }

    /// Counts matching lines in `range` (line starts at its edges), calling
    /// `hit` with each one's offset, while `go_on` says so.
    pub fn each_line(
        &self,
        text: &dyn Text,
        range: Range<u64>,
        hit: &mut dyn FnMut(u64),
        go_on: &mut dyn FnMut() -> bool,
    ) {
        let mut hits = 0;
        let read = pieces(text, range.clone(), &mut |at, piece| {
            let mut pos = 0;
            while let Some(m) = self.first_in(piece, pos) {
                hit(at + m as u64);
                hits += 1;
                pos = memchr::memchr(b'\n', &piece[m..]).map_or(piece.len(), |i| m + i + 1);
            }
            go_on()
        });
        match read {
            Err(e) => self.failed(e),
            Ok(true) if hits == 0 => self.unmatched(&range),
            Ok(_) => {}
        }
    }

    /// Notes that `r`, read whole, holds no matching line (when it is
    /// one of the candidate ranges: later scans skip it).
    fn unmatched(&self, r: &Range<u64>) {
        if let Ranges::Listed(ranges, known) = &self.ranges {
            known.mark(ranges, r);
        }
    }

    /// Where the first match in `piece` at or after `pos` starts
    /// (inverted: the first line starting there that does not match).
    fn first_in(&self, piece: &[u8], pos: usize) -> Option<usize> {
        if pos >= piece.len() && !piece.is_empty() {
            return None;
        }
        if self.invert {
            return self.first_unmatched(piece, pos);
        }
        self.matcher.find_at(piece, pos).ok().flatten().map(|m| m.start())
    }
}

impl Finder {
    /// Where the first line at or after `pos` (a line start) that does
    /// not match starts.
    fn first_unmatched(&self, piece: &[u8], pos: usize) -> Option<usize> {
        let mut at = pos;
        while at < piece.len() {
            let end = memchr::memchr(b'\n', &piece[at..]).map_or(piece.len(), |i| at + i);
            if !self.matcher.is_match(&piece[at..end]).unwrap_or(true) {
                return Some(at);
            }
            at = end + 1;
        }
        None
    }
}

/// The start of the line holding byte `m` of `piece` (which starts at `at`).
fn start_of(text: &dyn Text, at: u64, piece: &[u8], m: usize) -> u64 {
    match memchr::memrchr(b'\n', &piece[..m]) {
        Some(i) => at + i as u64 + 1,
        None => nav::line_start(text, at + m as u64),
    }
}

/// Reads `range` in pieces of about [`PIECE`] bytes, each cut after its
/// last newline, while `f` says go on; whether it read to the range's
/// end (not stopped, no read refused or short). A line longer than a
/// piece is searched whole, as rg's line buffer holds it (a match is
/// never cut in two, and `^` never matches in a line's middle), but
/// mapped, not read into memory: an error says why it could not be.
fn pieces(
    text: &dyn Text,
    range: Range<u64>,
    f: &mut dyn FnMut(u64, &[u8]) -> bool,
) -> Result<bool, String> {
    thread_local! {
        /// The piece buffer, kept: a scan of many small ranges allocates
        /// and zeroes none.
        static BUF: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
    }
    let mut buf = BUF.take();
    let size = range.end.saturating_sub(range.start).min(PIECE as u64) as usize;
    if buf.len() < size {
        buf.resize(size, 0);
    }
    let whole = read_pieces(text, range, &mut buf, f);
    BUF.set(buf);
    whole
}

/// [`pieces`] with a buffer of at least a piece or the range's length.
fn read_pieces(
    text: &dyn Text,
    range: Range<u64>,
    buf: &mut [u8],
    f: &mut dyn FnMut(u64, &[u8]) -> bool,
) -> Result<bool, String> {
    let mut at = range.start;
    while at < range.end {
        let want = PIECE.min((range.end - at) as usize);
        let n = nav::read_full(text, at, &mut buf[..want]);
        if n == 0 {
            return Ok(false);
        }
        let go_on = if at + (n as u64) >= range.end || n < want {
            at += n as u64;
            f(at - n as u64, &buf[..n])
        } else if let Some(i) = memchr::memrchr(b'\n', &buf[..n]) {
            at += i as u64 + 1;
            f(at - i as u64 - 1, &buf[..=i])
        } else {
            let line = LongLine::of(text, at, range.end)?;
            at += line.len() as u64;
            f(at - line.len() as u64, &line)
        };
        if !go_on {
            return Ok(false);
        }
    }
    Ok(at >= range.end)
}

/// A piece a backward scan searches: read, or a long line mapped.
enum Piece {
    /// Lines read into memory.
    Read(Vec<u8>),
    /// One line too long for a piece.
    Long(LongLine),
}

impl Deref for Piece {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Piece::Read(v) => v,
            Piece::Long(l) => l,
        }
    }
}

/// The piece of about [`PIECE`] bytes ending at `end`, starting at a line
/// start (or at `floor`): its offset and bytes. A line that reaches over
/// the whole piece is taken from its start, mapped.
fn piece_before(text: &dyn Text, floor: u64, end: u64) -> Result<(u64, Piece), String> {
    let start = end.saturating_sub(PIECE as u64).max(floor);
    let mut buf = vec![0; (end - start) as usize];
    let n = nav::read_full(text, start, &mut buf);
    buf.truncate(n);
    if start > floor {
        if let Some(i) = memchr::memchr(b'\n', &buf)
            && i + 1 < buf.len()
        {
            buf.drain(..=i);
            return Ok((start + i as u64 + 1, Piece::Read(buf)));
        }
        let line = nav::line_start(text, start).max(floor);
        return Ok((line, Piece::Long(LongLine::of(text, line, end)?)));
    }
    Ok((start, Piece::Read(buf)))
}

#[cfg(test)]
#[path = "finder_tests.rs"]
pub(crate) mod tests;
