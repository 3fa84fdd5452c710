//! A text read under a meter: every byte read is counted, and reads are
//! refused once a budget is spent or a stop flag is set. The UI thread
//! tries a move on a metered copy of the text with a small budget (a
//! move that needs more, over a long line, goes to a job instead, see
//! [`super::work`]); a job reads through one so that its progress shows
//! and Ctrl-C stops it mid-line.
//!
//! A refused read is an error, which the line walkers ([`super::nav`])
//! take for the text's end: what they return after one is worthless, so
//! a caller looks at [`Metered::cut`] before it uses a result.

use std::fs::File;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use trigrep::options::MatchOptions;

use super::text::{Change, Text};

/// A text whose reads are counted and may be refused.
pub struct Metered {
    text: Arc<dyn Text>,
    /// Bytes read so far.
    read: Arc<AtomicU64>,
    /// Reads past this many bytes are refused.
    budget: u64,
    /// Set: every read is refused.
    stop: Arc<AtomicBool>,
    /// A read was refused.
    cut: AtomicBool,
}

impl Metered {
    /// `text`, read at most `budget` bytes, and not at all once `stop`
    /// is set; bytes read are added to `read`.
    pub fn new(
        text: Arc<dyn Text>,
        budget: u64,
        stop: Arc<AtomicBool>,
        read: Arc<AtomicU64>,
    ) -> Metered {
        Metered { text, read, budget, stop, cut: AtomicBool::new(false) }
    }

    /// `text` with a budget of `budget` bytes and nothing else.
    pub fn budget(text: Arc<dyn Text>, budget: u64) -> Metered {
        Metered::new(text, budget, Arc::default(), Arc::default())
    }

    /// Whether a read was refused (what was computed since is worthless).
    pub fn cut(&self) -> bool {
        self.cut.load(Ordering::Relaxed)
    }
}

impl Text for Metered {
    fn len(&self) -> u64 {
        self.text.len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.budget.saturating_sub(self.read.load(Ordering::Relaxed));
        if left == 0 || self.stop.load(Ordering::Relaxed) {
            self.cut.store(true, Ordering::Relaxed);
            return Err(std::io::Error::new(std::io::ErrorKind::Interrupted, "read budget spent"));
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = self.text.read_at(offset, &mut buf[..want])?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }

    fn block_map(&self) -> Vec<(u64, u64)> {
        self.text.block_map()
    }

    fn mapped_len(&self) -> u64 {
        self.text.mapped_len()
    }

    fn candidates(&self, m: &MatchOptions) -> Option<Vec<Range<u64>>> {
        self.text.candidates(m)
    }

    fn candidates_each(&self, m: &MatchOptions) -> Option<Vec<Vec<Range<u64>>>> {
        self.text.candidates_each(m)
    }

    fn place(&self, j: usize, r: Range<u64>) -> Option<Range<u64>> {
        self.text.place(j, r)
    }

    fn cursors(&self, at: u64) -> Option<Vec<u64>> {
        self.text.cursors(at)
    }

    fn file(&self) -> Option<&File> {
        self.text.file()
    }

    fn time_floor(&self, format: trigrep::logline::time::Format, target: i64) -> u64 {
        self.text.time_floor(format, target)
    }

    fn kind(&self) -> &str {
        self.text.kind()
    }

    fn check(&self) -> Change {
        self.text.check()
    }

    fn arriving(&self) -> bool {
        self.text.arriving()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::nav;
    use crate::view::text::Memory;

    #[test]
    fn a_spent_budget_cuts_the_walk() {
        let mut data = vec![b'x'; 300_000];
        data.extend_from_slice(b"\nend\n");
        let text: Arc<dyn Text> = Arc::new(Memory(data));
        let roomy = Metered::budget(Arc::clone(&text), 1 << 20);
        assert_eq!(nav::skip_lines(&roomy, 0, 1), Some(300_001));
        assert!(!roomy.cut());
        let tight = Metered::budget(text, 100_000);
        nav::skip_lines(&tight, 0, 1);
        assert!(tight.cut());
    }
}
