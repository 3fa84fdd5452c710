//! Remote objects (`s3://…`, [`crate::remote`]) as subjects of a search:
//! [`RemoteSource`] lists what each search path names, in the order rg
//! walks a tree. The door tells what each object is, as it tells a file
//! (`super::reading`): a packed container is read by range through its
//! block index (the packed search, [`super::packed`]), a compressed one
//! with `-z` through the same decoders as a local file ([`transformed`]),
//! anything else through its index object or as a stream of its body
//! ([`super::fetched`]).
//!
//! Many objects are in flight at once: as each object's search starts,
//! what the next ones read first is fetched in the background
//! ([`Window`]: up to [`AHEAD_OBJECTS`] objects and [`AHEAD_BYTES`]
//! ahead, `crate::remote::first_reads`; a plain object's index object,
//! `crate::remote::index_first`), so a search of many small objects costs
//! a few round trips, not a few per object; a parallel
//! search takes [`SIDE_BY_SIDE`] objects at once at least, so that their
//! remaining round trips overlap too. The objects are still searched,
//! and printed, as before.

use std::io::{self, Read};
use std::ops::Range;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::decode::{Format, Transform};
use super::subject::{MakeVisit, Source, Subject, Visit};
use crate::error::Result;
use crate::kind::Door;
use crate::options::{MmapRule, SearchOptions};
use crate::remote::object::RemoteObject;
use crate::remote::{self, Rules};
use crate::report::Messages;

/// Whether any of `opts`'s search paths is a remote one.
pub(crate) fn any_remote(opts: &SearchOptions) -> bool {
    opts.walk.paths.iter().any(|p| remote::is_remote(p.as_os_str().as_encoded_bytes()))
}

/// Objects whose first reads are fetched ahead of their search at most.
const AHEAD_OBJECTS: usize = 64;

/// Bytes fetched ahead of their search at most (objects fetched whole,
/// packed objects' ends).
const AHEAD_BYTES: u64 = 64 << 20;

/// Objects searched side by side at least, on a parallel search: each
/// waits a round trip or two for its frames, which others overlap.
const SIDE_BY_SIDE: usize = 8;

/// The objects a search's remote paths name.
pub(crate) struct RemoteSource {
    subjects: Vec<Subject>,
    /// rg would map the local copies (at most 10 paths, all files).
    mapped: bool,
    /// What each subject reads first (fetched ahead of its search).
    first: Vec<Vec<Range<u64>>>,
    /// Whether each subject reads its index object first (fetched ahead
    /// of its search, with its `HEAD` when its listing gave no ETag).
    index_first: Vec<bool>,
    window: Mutex<Window>,
}

/// The subjects whose first reads are fetched ahead.
#[derive(Default)]
struct Window {
    /// The first subject not looked at yet.
    next: usize,
    /// Bytes fetched ahead of subjects not searched yet.
    bytes: u64,
    /// The subjects whose first reads were fetched ahead, until searched.
    started: Vec<bool>,
}

impl RemoteSource {
    /// Lists the objects of `opts`'s paths (every one remote), reporting
    /// a path that names none through `msgs`.
    pub fn list(opts: &SearchOptions, msgs: &Messages) -> RemoteSource {
        let rules = Rules { hidden: opts.walk.filters.hidden };
        let query = || crate::query::search_plan::query_for(&opts.matcher, false);
        let mut listed = Vec::new();
        for path in &opts.walk.paths {
            let written = path.to_string_lossy();
            match remote::list_searched(&written, rules, &opts.index.base, &query) {
                Some(Ok(objects)) => listed.extend(objects),
                Some(Err(e)) => msgs.error(format!("{written}: {e}")),
                None => msgs.error(format!(
                    "{written}: local and remote paths cannot be searched together (yet)"
                )),
            }
        }
        // As rg maps a file named on the command line (at most 10 paths,
        // all files), an object named so is read whole.
        let named = opts.walk.paths.len() <= 10 && listed.iter().all(|l| l.explicit);
        let mapped = match opts.read.mmap {
            MmapRule::Always => true,
            MmapRule::Never => false,
            MmapRule::Auto => named && listed.len() == opts.walk.paths.len(),
        };
        let door =
            Door::Search { zip: opts.read.search_zip, pre: opts.read.preprocessor.is_some() };
        let first: Vec<Vec<Range<u64>>> = listed
            .iter()
            .map(|l| {
                let packed = door.opening(Path::new(&l.name)).packed;
                match opts.read.preprocessor {
                    Some(_) => Vec::new(),
                    None => remote::first_reads(&l.object, &l.name, &opts.index.base, packed),
                }
            })
            .collect();
        // A plain object read through its index object: that, ahead.
        let index_first = listed
            .iter()
            .zip(&first)
            .map(|(l, first)| {
                let opening = door.opening(Path::new(&l.name));
                let plain = !opening.packed && opening.decompress.is_none();
                plain
                    && first.is_empty()
                    && remote::index_first(&l.object, &l.name, &opts.index.base)
            })
            .collect();
        let subjects: Vec<Subject> =
            listed.into_iter().map(|l| Subject::remote(l.name, l.object, l.explicit)).collect();
        let window = Window { started: vec![false; subjects.len()], ..Window::default() };
        RemoteSource { subjects, mapped, first, index_first, window: Mutex::new(window) }
    }

    /// Starts fetching ahead what the subjects from the `at`th on read
    /// first, within the window's bounds.
    fn ahead(&self, at: usize) {
        let mut window = self.window.lock().unwrap_or_else(|e| e.into_inner());
        window.next = window.next.max(at);
        let end = self.subjects.len().min(at + AHEAD_OBJECTS);
        while window.next < end {
            let i = window.next;
            let bytes: u64 = self.first[i].iter().map(|r| r.end - r.start).sum();
            if window.bytes > 0 && window.bytes + bytes > AHEAD_BYTES {
                break;
            }
            if let Some(object) = self.subjects[i].remote_object().filter(|_| bytes > 0) {
                object.fetch_ahead(self.first[i].clone());
                window.bytes += bytes;
                window.started[i] = true;
            }
            if let Some(object) = self.subjects[i].remote_object().filter(|_| self.index_first[i]) {
                object.fetch_index_ahead();
            }
            window.next += 1;
        }
    }

    /// Searches the `at`th subject with `visit`, what the next ones read
    /// first fetched ahead meanwhile.
    fn visit_one(&self, at: usize, visit: &mut Visit<'_>) -> bool {
        self.ahead(at);
        let subject = &self.subjects[at];
        let go_on = visit(subject);
        if let Some(object) = subject.remote_object() {
            object.release_ahead();
        }
        let mut window = self.window.lock().unwrap_or_else(|e| e.into_inner());
        if std::mem::take(&mut window.started[at]) {
            window.bytes -= self.first[at].iter().map(|r| r.end - r.start).sum::<u64>();
        }
        go_on
    }

    /// `opts` with the read rule rg would apply to local copies of these
    /// objects (map or read: binary detection, packed files' chunks),
    /// which `MmapRule::Auto` cannot tell from remote paths.
    pub fn options(&self, opts: &SearchOptions) -> SearchOptions {
        let mut opts = opts.clone();
        opts.read.mmap = if self.mapped { MmapRule::Always } else { MmapRule::Never };
        opts
    }
}

impl Source for RemoteSource {
    fn visit(&self, visit: &mut Visit<'_>) -> Result<bool> {
        for at in 0..self.subjects.len() {
            if !self.visit_one(at, visit) {
                break;
            }
        }
        Ok(!self.subjects.is_empty())
    }

    fn visit_parallel(&self, threads: usize, make: &mut MakeVisit<'_>) -> Result<bool> {
        let (next, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
        let side_by_side = threads.max(SIDE_BY_SIDE.min(self.subjects.len())).max(1);
        let visitors: Vec<Box<Visit<'_>>> = (0..side_by_side).map(|_| make()).collect();
        std::thread::scope(|scope| {
            for mut visit in visitors {
                let (next, stop) = (&next, &stop);
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let at = next.fetch_add(1, Ordering::Relaxed);
                        if at >= self.subjects.len() {
                            break;
                        }
                        if !self.visit_one(at, &mut *visit) {
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        Ok(!self.subjects.is_empty())
    }
}

/// The text `transform` makes of the remote object `object` (named `path`
/// in errors), as a stream: its body through the same decoders as a local
/// file's.
pub(crate) fn transformed(
    transform: &Transform,
    path: &Path,
    object: &RemoteObject,
) -> io::Result<Box<dyn Read + Send>> {
    match transform {
        Transform::Decompress(format) if *format != Format::Compress => {
            Transform::decode(*format, path, Box::new(object.reader()?))
        }
        _ => Err(io::Error::other(
            "a preprocessor (--pre) or `uncompress` cannot read a remote object",
        )),
    }
}
