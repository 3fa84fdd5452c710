//! Line numbers of a text: where its lines are known to start, from its
//! block map, and from a count made in the background for the rest.
//!
//! A [`LineMap`] holds checkpoints `(offset, newlines before it)`, from
//! the text's block map (exact from the start) and from [`count`], which
//! counts newlines past it (a plain file: mapped, on every core, in
//! 16 MiB chunks, checkpointed every 256 KiB; other texts: read in order)
//! and keeps counting as the text grows. The line of any offset, or the
//! offset of any line, is then one checkpoint plus at most one interval
//! read.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::line_ends::LONG;
use super::nav;
use super::text::Text;

/// Checkpoints are this far apart in counted text.
const PIECE: u64 = 256 << 10;

/// A counting thread takes this much text at a time.
const CHUNK: u64 = 16 << 20;

/// Where lines are known to start.
#[derive(Default)]
pub struct LineMap {
    inner: Mutex<Known>,
}

/// What is counted so far.
#[derive(Clone, Default)]
struct Known {
    /// `(offset, newlines before offset)`, in offset order, within `0..end`.
    points: Vec<(u64, u64)>,
    /// Lines are known up to here.
    end: u64,
    /// Newlines before `end`.
    newlines: u64,
    /// Bytes counted beyond `end` by threads still working (progress).
    ahead: u64,
}

impl LineMap {
    /// A map holding what `text`'s block map says.
    pub fn new(text: &dyn Text) -> LineMap {
        let mut known = Known { points: vec![(0, 0)], ..Known::default() };
        let blocks = text.block_map();
        if !blocks.is_empty() {
            // In place (the same layout): 131 K blocks for 8 GiB, 2 MiB.
            known.points =
                blocks.into_iter().map(|(o, line)| (o, line.saturating_sub(1))).collect();
            let last = *known.points.last().unwrap_or(&(0, 0));
            // The last block's lines are counted here, unless it is
            // long (a line of a gigabyte): then by [`count`], after the
            // first screen.
            (known.end, known.newlines) = match text.mapped_len() {
                end if end.saturating_sub(last.0) > LONG => last,
                end => (end, count_between(text, last, end)),
            };
        }
        LineMap { inner: Mutex::new(known) }
    }

    fn known(&self) -> std::sync::MutexGuard<'_, Known> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes whose lines are known, and bytes counted so far.
    pub fn progress(&self) -> (u64, u64) {
        let k = self.known();
        (k.end, k.end + k.ahead)
    }

    /// Newlines before the known end, and that end.
    pub fn total(&self) -> (u64, u64) {
        let k = self.known();
        (k.newlines, k.end)
    }

    /// The 1-based line number of the line holding `offset` (`None`: not counted yet).
    pub fn line_of(&self, text: &dyn Text, offset: u64) -> Option<u64> {
        let (point, end) = {
            let k = self.known();
            let i = k.points.partition_point(|p| p.0 <= offset);
            (k.points[i.max(1) - 1], k.end)
        };
        (offset <= end).then(|| count_between(text, point, offset) + 1)
    }

    /// Where line `n` (1-based) starts (`None`: not counted that far, or
    /// the text has fewer lines).
    pub fn offset_of_line(&self, text: &dyn Text, n: u64) -> Option<u64> {
        let want = n.max(1) - 1;
        let (point, k_end, k_newlines) = {
            let k = self.known();
            let i = k.points.partition_point(|p| p.1 < want);
            (k.points[i.max(1) - 1], k.end, k.newlines)
        };
        if want == 0 {
            return Some(0);
        }
        if want > k_newlines {
            return None;
        }
        let at = nav::skip_lines(text, point.0, want - point.1)?;
        (at <= k_end.max(text.len())).then_some(at)
    }

    /// Forgets everything past `len` (the text was truncated): counting starts again.
    pub fn reset(&self) {
        *self.known() = Known { points: vec![(0, 0)], ..Known::default() };
    }

    /// Appends counted pieces `(offset, newlines in the piece)`, in order from
    /// the known end, which becomes `end`.
    fn extend(&self, pieces: &[(u64, u64)], end: u64) {
        let mut k = self.known();
        for &(offset, n) in pieces {
            let before = k.newlines;
            k.points.push((offset, before));
            k.newlines += n;
        }
        k.end = end;
    }
}

/// Newlines in `from.0..to`, plus `from.1`.
fn count_between(text: &dyn Text, from: (u64, u64), to: u64) -> u64 {
    let mut n = from.1;
    nav::each_chunk(text, from.0..to, &mut |bytes| {
        n += memchr::memchr_iter(b'\n', bytes).count() as u64;
        true
    });
    n
}

/// Counts the lines of `text` past what `map` knows, on `threads` threads,
/// then follows its growth, until `stop` is set.
pub fn count(text: Arc<dyn Text>, map: Arc<LineMap>, threads: usize, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        let (start, len) = (map.progress().0, text.len());
        if len < start {
            map.reset();
            continue;
        }
        if len == start {
            std::thread::sleep(Duration::from_millis(100));
            continue;
        }
        match text.file().and_then(|f| {
            // SAFETY: a read-only map; a file truncated meanwhile may
            // raise SIGBUS, as for any reader of mapped files (rg too).
            unsafe { memmap2::Mmap::map(f) }.ok()
        }) {
            Some(map_bytes) if map_bytes.len() as u64 >= len => {
                count_mapped(&map_bytes[..len as usize], start, &map, threads, &stop)
            }
            _ => count_read(&*text, start..len, &map, &stop),
        }
    }
}

/// A chunk's counted pieces: `(offset, newlines in the piece)`.
type Pieces = Vec<(u64, u64)>;

/// Counts `bytes[start..]` on `threads` threads, chunk by chunk, each
/// chunk's pieces published once every chunk before it is.
fn count_mapped(bytes: &[u8], start: u64, map: &LineMap, threads: usize, stop: &AtomicBool) {
    let chunks: Vec<Range<u64>> = (start..bytes.len() as u64)
        .step_by(CHUNK as usize)
        .map(|s| s..(s + CHUNK).min(bytes.len() as u64))
        .collect();
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Pieces>>> = Mutex::new(vec![None; chunks.len()]);
    let published = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= chunks.len() || stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let c = &chunks[i];
                    let pieces: Vec<(u64, u64)> = (c.start..c.end)
                        .step_by(PIECE as usize)
                        .map(|p| {
                            let e = (p + PIECE).min(c.end);
                            let n = memchr::memchr_iter(b'\n', &bytes[p as usize..e as usize]);
                            (p, n.count() as u64)
                        })
                        .collect();
                    let mut done = done.lock().unwrap_or_else(|e| e.into_inner());
                    done[i] = Some(pieces);
                    map.known().ahead += c.end - c.start;
                    let mut j = published.load(Ordering::Relaxed);
                    while let Some(p) = done.get_mut(j).and_then(Option::take) {
                        let end = chunks[j].end;
                        map.extend(&p, end);
                        map.known().ahead -= chunks[j].end - chunks[j].start;
                        j += 1;
                    }
                    published.store(j, Ordering::Relaxed);
                }
            });
        }
    });
}

/// Counts `range` of `text` read in order (texts that are not files).
fn count_read(text: &dyn Text, range: Range<u64>, map: &LineMap, stop: &AtomicBool) {
    let mut at = range.start;
    nav::each_chunk(text, range.clone(), &mut |bytes| {
        let n = memchr::memchr_iter(b'\n', bytes).count() as u64;
        at += bytes.len() as u64;
        map.extend(&[(at - bytes.len() as u64, n)], at);
        !stop.load(Ordering::Relaxed)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::text::Memory;

    fn counted(data: &[u8]) -> (Arc<dyn Text>, Arc<LineMap>) {
        let text: Arc<dyn Text> = Arc::new(Memory(data.to_vec()));
        let map = Arc::new(LineMap::new(&*text));
        count_read(&*text, 0..text.len(), &map, &AtomicBool::new(false));
        (text, map)
    }

    #[test]
    fn lines_and_offsets_agree() {
        let data: Vec<u8> = (0..5000).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
        let (text, map) = counted(&data);
        for n in [1, 2, 999, 4321, 5000] {
            let at = map.offset_of_line(&*text, n).unwrap();
            assert!(data[at as usize..].starts_with(format!("line {}\n", n - 1).as_bytes()));
            assert_eq!(map.line_of(&*text, at), Some(n));
            assert_eq!(map.line_of(&*text, at + 3), Some(n));
        }
        assert_eq!(map.offset_of_line(&*text, 5001), Some(data.len() as u64));
        assert_eq!(map.offset_of_line(&*text, 5002), None);
    }

    #[test]
    fn mapped_counting_matches_reading() {
        let data: Vec<u8> = (0..200_000).flat_map(|i| format!("{i}\n").into_bytes()).collect();
        let map = LineMap::default();
        map.reset();
        count_mapped(&data, 0, &map, 2, &AtomicBool::new(false));
        let text = Memory(data.clone());
        assert_eq!(map.total(), (200_000, data.len() as u64));
        let at = map.offset_of_line(&text, 123_457).unwrap();
        assert!(data[at as usize..].starts_with(b"123456\n"));
    }
}
