//! The pieces of a text read through its block index that the viewer
//! keeps ([`Pieces`]): the few read last, the one used least recently
//! dropped first, so that memory stays a few pieces however far one
//! scrolls; and, for a text fetched from an object store, the pieces
//! after a read (before it, reading back), read in the background as a
//! read nears its piece's end, so that scrolling on finds them here (and
//! their frames fetched) instead of waiting for a round trip.

use std::io;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Text is read in pieces this long, at multiples of it (one inflate from
/// an access point, or a frame or two, then copies).
pub const PIECE: u64 = 256 << 10;

/// Pieces kept at most (2 MiB of text).
const KEPT: usize = 8;

/// Reads a text's bytes from an offset, filling the buffer (a text's
/// `read_at`).
pub type ReadAt = Arc<dyn Fn(u64, &mut [u8]) -> io::Result<()> + Send + Sync>;

/// A text's pieces, kept and read ahead.
pub struct Pieces {
    /// The text's length.
    len: u64,
    read: ReadAt,
    /// Read ahead (a text fetched by range), or only when asked.
    ahead: bool,
    state: Arc<(Mutex<State>, Condvar)>,
}

#[derive(Default)]
struct State {
    /// Pieces kept: where each starts, its text, when it was last used.
    kept: Vec<(u64, Arc<Vec<u8>>, u64)>,
    /// Pieces being read (by a reader or in the background).
    reading: Vec<u64>,
    /// Ticks at each use.
    tick: u64,
    /// Where the last read started, and whether reading went backwards to it.
    last: u64,
    backwards: bool,
}

impl State {
    /// The kept piece at `start`, marked used.
    fn kept(&mut self, start: u64) -> Option<Arc<Vec<u8>>> {
        self.tick += 1;
        let tick = self.tick;
        let kept = self.kept.iter_mut().find(|k| k.0 == start)?;
        kept.2 = tick;
        Some(Arc::clone(&kept.1))
    }

    /// Keeps `text` at `start`, dropping the piece used least recently
    /// when more than [`KEPT`] are kept.
    fn keep(&mut self, start: u64, text: Arc<Vec<u8>>) {
        self.tick += 1;
        self.kept.retain(|k| k.0 != start);
        self.kept.push((start, text, self.tick));
        if self.kept.len() > KEPT
            && let Some(oldest) =
                self.kept.iter().enumerate().min_by_key(|(_, k)| k.2).map(|(i, _)| i)
        {
            self.kept.swap_remove(oldest);
        }
    }
}

impl Pieces {
    /// The pieces of a text of `len` bytes that `read` reads, read ahead
    /// in the background when `ahead`.
    pub fn new(len: u64, read: ReadAt, ahead: bool) -> Pieces {
        Pieces { len, read, ahead, state: Arc::default() }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The piece from `start` (a multiple of [`PIECE`] within the text):
    /// kept, or being read in the background (waited for), or read now.
    pub fn get(&self, start: u64) -> io::Result<Arc<Vec<u8>>> {
        let mut state = self.lock();
        loop {
            if let Some(text) = state.kept(start) {
                return Ok(text);
            }
            if !state.reading.contains(&start) {
                break;
            }
            state = self.state.1.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.reading.push(start);
        drop(state);
        read(self.len, &self.read, &self.state, start)
    }

    /// Copies into `buf` at most `n` bytes from `offset` (below the text's
    /// end), from the piece holding it ([`Pieces::get`]), and reads ahead
    /// of them: how many were copied (no further than that piece's end).
    pub fn read_at(&self, offset: u64, n: usize, buf: &mut [u8]) -> io::Result<usize> {
        let start = offset / PIECE * PIECE;
        let text = self.get(start)?;
        let from = (offset - start) as usize;
        let n = n.min(text.len() - from);
        buf[..n].copy_from_slice(&text[from..from + n]);
        self.read_ahead(offset, n);
        Ok(n)
    }

    /// Says that `len` bytes were read from `offset`: reading on, the
    /// piece holding the byte after them, and the next one too once that
    /// byte is past the middle of its piece; reading back, the piece
    /// before, once `offset` is in the first half of its piece. Each is
    /// read in the background, unless kept or being read.
    pub fn read_ahead(&self, offset: u64, len: usize) {
        if !self.ahead {
            return;
        }
        let mut state = self.lock();
        if offset != state.last {
            state.backwards = offset < state.last;
            state.last = offset;
        }
        let wanted = if state.backwards {
            let start = offset / PIECE * PIECE;
            let before = start.checked_sub(PIECE).filter(|_| offset < start + PIECE / 2);
            [before, None]
        } else {
            let end = offset + len as u64;
            let at = end / PIECE * PIECE;
            [Some(at), Some(at + PIECE).filter(|_| end > at + PIECE / 2)]
        };
        for next in wanted.into_iter().flatten().filter(|&next| next < self.len) {
            if state.reading.contains(&next) || state.kept.iter().any(|k| k.0 == next) {
                continue;
            }
            state.reading.push(next);
            let (len, reader, shared) = (self.len, Arc::clone(&self.read), Arc::clone(&self.state));
            std::thread::spawn(move || {
                // A failed read ahead leaves the piece to be read when asked.
                let _ = read(len, &reader, &shared, next);
            });
        }
    }

    /// The starts of the pieces kept.
    #[cfg(test)]
    fn kept(&self) -> Vec<u64> {
        self.lock().kept.iter().map(|k| k.0).collect()
    }
}

/// Reads the piece from `start` of a text of `len` bytes with `reader`
/// (marked as being read in `shared`), keeps it, and wakes whoever waits
/// for it.
fn read(
    len: u64,
    reader: &ReadAt,
    shared: &(Mutex<State>, Condvar),
    start: u64,
) -> io::Result<Arc<Vec<u8>>> {
    let mut piece = vec![0; PIECE.min(len.saturating_sub(start)) as usize];
    let read = reader(start, &mut piece).map(|()| Arc::new(piece));
    let mut state = shared.0.lock().unwrap_or_else(|e| e.into_inner());
    state.reading.retain(|&s| s != start);
    if let Ok(piece) = &read {
        state.keep(start, Arc::clone(piece));
    }
    shared.1.notify_all();
    read
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    /// A text of `len` bytes (each its offset's low byte), counting reads.
    fn text(len: u64, ahead: bool) -> (Pieces, Arc<AtomicUsize>) {
        let reads = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&reads);
        let read: ReadAt = Arc::new(move |offset: u64, buf: &mut [u8]| -> io::Result<()> {
            counted.fetch_add(1, Ordering::SeqCst);
            buf.iter_mut().enumerate().for_each(|(i, b)| *b = (offset + i as u64) as u8);
            Ok(())
        });
        (Pieces::new(len, read, ahead), reads)
    }

    /// Waits until `reads` is `n`.
    fn until(reads: &AtomicUsize, n: usize) {
        let started = Instant::now();
        while reads.load(Ordering::SeqCst) < n && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(reads.load(Ordering::SeqCst), n);
    }

    #[test]
    fn at_most_a_few_pieces_are_kept_the_last_used() {
        let (pieces, reads) = text(100 * PIECE, false);
        for i in 0..40 {
            assert_eq!(pieces.get(i * PIECE).unwrap()[1], (i * PIECE + 1) as u8);
            assert!(pieces.kept().len() <= KEPT, "{} pieces kept", pieces.kept().len());
        }
        assert_eq!(reads.load(Ordering::SeqCst), 40);
        let mut kept = pieces.kept();
        kept.sort();
        assert_eq!(kept, (32..40).map(|i| i * PIECE).collect::<Vec<_>>());
        // A kept piece costs no read; it is then the last used.
        pieces.get(32 * PIECE).unwrap();
        pieces.get(50 * PIECE).unwrap();
        assert_eq!(reads.load(Ordering::SeqCst), 41);
        assert!(pieces.kept().contains(&(32 * PIECE)) && !pieces.kept().contains(&(33 * PIECE)));
    }

    #[test]
    fn the_next_piece_is_read_ahead_past_the_middle_of_one() {
        let (pieces, reads) = text(10 * PIECE + 7, true);
        pieces.get(0).unwrap();
        pieces.read_ahead(100, 4096);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(reads.load(Ordering::SeqCst), 1, "read ahead before the middle");
        pieces.read_ahead(PIECE / 2, 4096);
        until(&reads, 2);
        pieces.get(PIECE).unwrap();
        assert_eq!(reads.load(Ordering::SeqCst), 2, "the piece read ahead was read again");
        // Backwards: the piece before, once in the first half of one.
        pieces.get(5 * PIECE).unwrap();
        pieces.read_ahead(5 * PIECE + 10, 4096);
        pieces.get(4 * PIECE).unwrap();
        pieces.read_ahead(4 * PIECE + PIECE / 4, 4096);
        until(&reads, 5);
        pieces.get(3 * PIECE).unwrap();
        assert_eq!(reads.load(Ordering::SeqCst), 5, "the piece before was read again");
        // The last piece: nothing after it.
        pieces.get(10 * PIECE).unwrap();
        pieces.read_ahead(10 * PIECE, 7);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(reads.load(Ordering::SeqCst), 6);
        assert_eq!(pieces.get(10 * PIECE).unwrap().len(), 7);
    }

    #[test]
    fn a_text_read_only_when_asked_is_never_read_ahead() {
        let (pieces, reads) = text(4 * PIECE, false);
        pieces.get(0).unwrap();
        pieces.read_ahead(PIECE - 10, 10);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(reads.load(Ordering::SeqCst), 1);
    }
}
