//! Read-ahead in file order for a file searched in chunks.
//!
//! Workers search chunks of one file at two or more places at once. The
//! kernel's read-ahead follows one sequential stream per open file, and
//! several workers faulting (or `pread`ing) at several places defeat it: a
//! cold chunked search ran 1.6–1.8x slower than rg's single stream (see
//! docs/IO.md). A [`Prefetcher`] runs on its own thread and reads the file
//! in order, from the chunk being searched up to a window past it, into the
//! page cache: `sendfile` to `/dev/null` from its own file description with
//! `POSIX_FADV_SEQUENTIAL`, so the kernel sees one sequential reader (its
//! read-ahead keeps reads in flight and fills the cache with large folios)
//! and no byte is copied (Linux; on other systems, which have neither, the
//! prefetcher gives no advice and the workers' own reads fetch the bytes). The workers then find the bytes resident. Until
//! the first step that is not resident (a few pages probed with `mincore`),
//! resident steps are skipped, so a hot file costs a few syscalls per step. Where `sendfile` fails, the step is
//! advised with `POSIX_FADV_WILLNEED` instead (which reads in small folios,
//! making later page faults dearer).
//!
//! The workers report how far they have got through a [`Front`]; the
//! prefetcher never runs more than its window ahead of it, so it never
//! evicts what the workers still need unless memory is very short.
//!
//! For a walked file, whose search quits at its first NUL as ripgrep's does
//! ([`Prefetcher::stopping_at_nul`]), the prefetcher also looks for NUL
//! bytes in what it has loaded, in steps that start small and double, and
//! stops at the first: workers are never let past it ([`Front::wait_loaded`]
//! says so), so no more of the file is read than about twice what ripgrep
//! reads before it quits (a tree of 100 MB files, text then
//! binary, was read whole).

use std::fs::File;
use std::sync::{Condvar, Mutex};

/// How far the workers have got through a file, shared with the prefetcher.
#[derive(Default)]
pub(crate) struct Front {
    state: Mutex<FrontState>,
    cv: Condvar,
}

#[derive(Default)]
struct FrontState {
    /// Where the workers are (the start of the last chunk claimed).
    at: u64,
    /// The search ended.
    done: bool,
    /// The prefetcher sleeps until `at` reaches this (`None`: not sleeping).
    wake_at: Option<u64>,
    /// The prefetcher has read (or skipped as resident) everything before this.
    loaded: u64,
    /// Workers are waiting for `loaded` to grow.
    waiting: usize,
    /// The offset of the file's first NUL byte, once the prefetcher found it.
    nul: Option<u64>,
}

impl Front {
    /// Records that the workers have reached `offset`.
    pub fn advance(&self, offset: u64) {
        let mut st = self.state.lock().unwrap();
        st.at = st.at.max(offset);
        // Wake the prefetcher only when it has work again: one wake-up per
        // step, not per chunk.
        if st.wake_at.is_some_and(|w| st.at >= w) {
            st.wake_at = None;
            self.cv.notify_all();
        }
    }

    /// Waits until the prefetcher has passed `end`, so that a worker never
    /// faults in bytes the prefetcher is about to read: a second reader at
    /// another place makes the kernel read small folios (docs/IO.md).
    /// False when the prefetcher found a NUL byte before `end`: the bytes
    /// are not to be read.
    pub(crate) fn wait_loaded(&self, end: u64) -> bool {
        let mut st = self.state.lock().unwrap();
        while !st.done && st.loaded < end && st.nul.is_none() {
            st.waiting += 1;
            st = self.cv.wait(st).unwrap();
            st.waiting -= 1;
        }
        st.nul.is_none_or(|nul| nul >= end)
    }

    /// The prefetcher found the file's first NUL byte at `pos`.
    fn set_nul(&self, pos: u64) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.nul = Some(pos);
        st.loaded = pos;
        self.cv.notify_all();
    }

    /// The prefetcher has passed `pos` (`u64::MAX`: it stopped).
    fn set_loaded(&self, pos: u64) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.loaded = pos;
        if st.waiting > 0 {
            self.cv.notify_all();
        }
    }

    /// Records that the search ended (done, stopped or failed).
    pub fn finish(&self) {
        self.state.lock().unwrap().done = true;
        self.cv.notify_all();
    }

    /// Waits until `pos` is less than `window` bytes past the front;
    /// returns the front, or `None` once the search ended.
    fn wait_within(&self, pos: u64, window: u64) -> Option<u64> {
        let mut st = self.state.lock().unwrap();
        let wake = (pos + 1).saturating_sub(window);
        while !st.done && st.at < wake {
            st.wake_at = Some(wake);
            st = self.cv.wait(st).unwrap();
        }
        if st.done { None } else { Some(st.at) }
    }
}

/// What a [`Prefetcher`] did.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Prefetched {
    /// Bytes it read into the page cache (or advised, where `sendfile` failed).
    pub loaded: u64,
    /// Bytes it skipped because they were already resident.
    pub resident: u64,
}

/// Issues read-ahead for one file in file order; see the module docs.
pub(crate) struct Prefetcher<'a> {
    file: &'a File,
    /// The prefetcher's own file description (read-ahead state) and `/dev/null`.
    stream: Option<(File, File)>,
    /// A map of the whole file, used only to ask `mincore` what is resident.
    probe: Option<&'a [u8]>,
    size: u64,
    window: u64,
    step: u64,
    /// Stop at the first NUL byte (see the module docs).
    find_nul: bool,
}

/// The first step of a prefetcher that stops at a NUL (then doubling).
const FIRST_NUL_STEP: u64 = 256 << 10;

impl<'a> Prefetcher<'a> {
    /// A prefetcher for `file` (`size` bytes) keeping `window` bytes ahead
    /// of the front, advised `step` bytes at a time (rounded to pages).
    /// `probe`, a map of the file, lets it skip resident ranges.
    pub fn new(
        file: &'a File,
        probe: Option<&'a [u8]>,
        size: u64,
        window: u64,
        step: u64,
    ) -> Prefetcher<'a> {
        let page = page_size();
        let step = step.max(page).div_ceil(page) * page;
        let stream = crate::sys::reopen(file).and_then(|own| {
            super::strategy::advise_sequential(&own);
            Some((own, File::options().write(true).open("/dev/null").ok()?))
        });
        Prefetcher { file, stream, probe, size, window: window.max(step), step, find_nul: false }
    }

    /// Makes the prefetcher look for NUL bytes and stop at the first (see
    /// the module docs); without a probe map it cannot, and reads on.
    pub(crate) fn stopping_at_nul(self) -> Prefetcher<'a> {
        Prefetcher { find_nul: self.probe.is_some(), ..self }
    }

    /// Runs until the whole file was loaded or `front` finishes.
    pub fn run(&self, front: &Front) -> Prefetched {
        // Release waiting workers however this ends, even by a panic.
        let _release = Release(front);
        let mut done = Prefetched::default();
        let mut pos = 0;
        // Once a step had to be read, every later step is read too, even if
        // it looks resident (the kernel's own read-ahead got there first):
        // skipping would look like a seek to the kernel, which then restarts
        // its read-ahead with small folios, and page faults on small folios
        // made later hot searches 3x slower here.
        let mut streaming = false;
        let page = page_size();
        let mut step = if self.find_nul { FIRST_NUL_STEP.div_ceil(page) * page } else { self.step };
        while pos < self.size {
            let Some(at) = front.wait_within(pos, self.window) else { break };
            // Never advise what the workers have passed already (looking
            // for a NUL, the workers pass nothing unseen).
            if !self.find_nul {
                pos = pos.max(at / self.step * self.step);
            }
            let target = at.saturating_add(self.window).min(self.size);
            while pos < target {
                let len = step.min(self.size - pos);
                if !streaming && self.resident(pos, len) {
                    done.resident += len;
                } else {
                    self.load(pos, len);
                    done.loaded += len;
                    streaming = true;
                }
                if let Some(nul) = self.find_nul(pos, len) {
                    front.set_nul(nul);
                    return done;
                }
                pos += len;
                front.set_loaded(pos);
                step = (step * 2).min(self.step.max(step));
            }
        }
        done
    }

    /// The offset of the first NUL byte in `[pos, pos + len)`, when looking
    /// for one.
    fn find_nul(&self, pos: u64, len: u64) -> Option<u64> {
        let map = self.probe.filter(|_| self.find_nul)?;
        let end = (pos + len).min(map.len() as u64) as usize;
        let at = memchr::memchr(0, map.get(pos as usize..end)?)?;
        Some(pos + at as u64)
    }

    /// Brings `[pos, pos + len)` into the page cache.
    fn load(&self, pos: u64, len: u64) {
        if let Some((own, null)) = &self.stream
            && crate::sys::send_to_null(own, null, pos, len)
        {
            return;
        }
        super::strategy::advise_willneed(self.file, pos, len);
    }

    /// Whether the first, middle and last pages of `[pos, pos + len)` are
    /// in the page cache (false when unknown).
    fn resident(&self, pos: u64, len: u64) -> bool {
        let Some(map) = self.probe else { return false };
        let page = page_size();
        let last = (pos + len - 1) / page * page;
        let mid = (pos + len / 2) / page * page;
        [pos, mid, last].iter().all(|&off| crate::sys::page_resident(map, off as usize))
    }
}

/// Marks the prefetcher as stopped when dropped.
struct Release<'a>(&'a Front);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.0.set_loaded(u64::MAX);
    }
}

/// The page size.
pub fn page_size() -> u64 {
    crate::sys::page_size()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn runs_to_the_end_and_stops_on_finish() {
        let mut f = tempfile_in_target();
        f.write_all(&vec![b'x'; 1 << 20]).unwrap();
        let front = Front::default();
        let p = Prefetcher::new(&f, None, 1 << 20, 256 << 10, 64 << 10);
        let done = std::thread::scope(|s| {
            let h = s.spawn(|| p.run(&front));
            // Like the workers: claim a chunk, wait for the prefetcher to pass it.
            for off in (0..1u64 << 20).step_by(128 << 10) {
                front.advance(off);
                front.wait_loaded(off + (128 << 10));
            }
            front.finish();
            h.join().unwrap()
        });
        assert_eq!(done.loaded + done.resident, 1 << 20);
        assert_eq!(done.loaded, 1 << 20, "nothing is resident without a probe map");
        let front = Front::default();
        front.finish();
        // Would block forever past the window if finish were ignored.
        Prefetcher::new(&f, None, 1 << 30, 4096, 4096).run(&front);
    }

    #[test]
    fn stops_at_the_first_nul_when_asked() {
        let mut f = tempfile_in_target();
        let mut bytes = vec![b'x'; 4 << 20];
        bytes[3 << 19] = 0;
        f.write_all(&bytes).unwrap();
        // SAFETY: a private temporary file nobody else changes.
        let map = unsafe { memmap2::Mmap::map(&f) }.unwrap();
        let front = Front::default();
        let p = Prefetcher::new(&f, Some(&map), 4 << 20, 64 << 20, 8 << 20).stopping_at_nul();
        let done = std::thread::scope(|s| {
            let h = s.spawn(|| p.run(&front));
            front.advance(0);
            assert!(front.wait_loaded(1 << 20), "before the NUL");
            assert!(!front.wait_loaded(2 << 20), "past the NUL");
            front.finish();
            h.join().unwrap()
        });
        // Steps of 256 KiB, 512 KiB, 1 MiB: the third holds the NUL.
        assert_eq!(done.loaded + done.resident, 7 << 18);
    }

    fn tempfile_in_target() -> File {
        let dir = std::env::temp_dir();
        let path = dir.join(format!("tg-prefetch-test-{}", std::process::id()));
        let f = File::options().read(true).write(true).create(true).truncate(true).open(&path);
        let f = f.unwrap();
        let _ = std::fs::remove_file(&path);
        f
    }
}
