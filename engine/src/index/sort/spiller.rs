//! A full buffer sorted and written as a run on a thread of its own,
//! while the next buffer fills.
//!
//! Without it the thread pushing pairs (a tree build's writer) stops for
//! each run's sort and write, the extraction threads fill their window of
//! files read ahead and wait, and a core idles. [`Spiller::send`] hands
//! the full buffer to a new thread and returns at once; the next `send`
//! (or [`Spiller::take`]) first takes the previous run, and its emptied
//! buffer back for the next fill, so at most one run is being written.
//! That takes a third buffer; under a small budget the buffers would be
//! too small for it to pay, and a spiller made without a thread sorts and
//! writes on the caller's.

use std::io;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::radix;
use super::run::Run;

/// What one spill gives back: its run, the buffer emptied, the radix
/// sort's scratch, and the time it took to sort and to write.
struct Spilled {
    run: Run,
    buf: Vec<u64>,
    aux: Vec<u64>,
    sorting: Duration,
    spilling: Duration,
}

/// Sorts and writes full buffers into runs in `dir`, one at a time, on a
/// thread of its own or on the caller's (see the module docs).
#[derive(Debug)]
pub(super) struct Spiller {
    dir: PathBuf,
    background: bool,
    aux: Vec<u64>,
    pending: Option<JoinHandle<io::Result<Spilled>>>,
}

/// A finished run, the buffer it came from (emptied, for reuse) and the
/// time its sort and write took.
pub(super) struct Taken {
    /// The run written.
    pub(super) run: Run,
    /// The buffer, empty, its capacity kept.
    pub(super) buf: Vec<u64>,
    /// Time sorting it.
    pub(super) sorting: Duration,
    /// Time encoding and writing it.
    pub(super) spilling: Duration,
}

impl Spiller {
    /// A spiller writing runs into `dir`, on a thread of its own or not.
    pub(super) fn new(dir: PathBuf, background: bool) -> Self {
        Spiller { dir, background, aux: Vec::new(), pending: None }
    }

    /// Starts sorting and writing `buf` (pairs of increasing documents,
    /// each after the previous buffer's), after taking the run before it:
    /// that run, if there was one, is returned. Without a thread, `buf`'s
    /// own run is written and returned.
    pub(super) fn send(&mut self, buf: Vec<u64>) -> io::Result<Option<Taken>> {
        let before = self.take()?;
        let (dir, aux) = (self.dir.clone(), std::mem::take(&mut self.aux));
        if !self.background {
            let spilled = spill(&dir, buf, aux)?;
            return Ok(Some(self.keep_scratch(spilled)));
        }
        self.pending = Some(std::thread::spawn(move || spill(&dir, buf, aux)));
        Ok(before)
    }

    /// Waits for the run being written, if any, and returns it.
    pub(super) fn take(&mut self) -> io::Result<Option<Taken>> {
        let Some(pending) = self.pending.take() else { return Ok(None) };
        let spilled = pending
            .join()
            .map_err(|_| io::Error::other("the thread writing a sorted run stopped"))??;
        Ok(Some(self.keep_scratch(spilled)))
    }

    /// Frees the scratch buffer once no more runs are to be written (the
    /// merge that follows needs the memory).
    pub(super) fn release(&mut self) {
        self.aux = Vec::new();
    }

    /// Keeps a spill's scratch buffer for the next and returns the rest.
    fn keep_scratch(&mut self, spilled: Spilled) -> Taken {
        self.aux = spilled.aux;
        let Spilled { run, buf, sorting, spilling, .. } = spilled;
        Taken { run, buf, sorting, spilling }
    }
}

/// Sorts `buf` (with `aux` as scratch) and writes it as a run in `dir`.
fn spill(dir: &Path, mut buf: Vec<u64>, mut aux: Vec<u64>) -> io::Result<Spilled> {
    let started = Instant::now();
    radix::sort_by_trigram(&mut buf, &mut aux);
    let sorting = started.elapsed();
    let started = Instant::now();
    let run = Run::in_file(dir, |enc| enc.push_keys(&buf))?;
    buf.clear();
    Ok(Spilled { run, buf, aux, sorting, spilling: started.elapsed() })
}
