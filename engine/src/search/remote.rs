//! Remote objects (`s3://…`, [`crate::remote`]) as subjects of a search:
//! [`RemoteSource`] lists what each search path names, in the order rg
//! walks a tree. The door tells what each object is, as it tells a file
//! (`super::reading`): a packed container is read by range through its
//! block index (the packed search, [`super::packed`]), a compressed one
//! with `-z` through the same decoders as a local file ([`transformed`]),
//! anything else through its index object or as a stream of its body
//! ([`super::fetched`]).

use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::decode::{Format, Transform};
use super::subject::{MakeVisit, Source, Subject, Visit};
use crate::error::Result;
use crate::options::{MmapRule, SearchOptions};
use crate::remote::object::RemoteObject;
use crate::remote::{self, Rules};
use crate::report::Messages;

/// Whether any of `opts`'s search paths is a remote one.
pub(crate) fn any_remote(opts: &SearchOptions) -> bool {
    opts.walk.paths.iter().any(|p| remote::is_remote(p.as_os_str().as_encoded_bytes()))
}

/// The objects a search's remote paths name.
pub(crate) struct RemoteSource {
    subjects: Vec<Subject>,
    /// rg would map the local copies (at most 10 paths, all files).
    mapped: bool,
}

impl RemoteSource {
    /// Lists the objects of `opts`'s paths (every one remote), reporting
    /// a path that names none through `msgs`.
    pub fn list(opts: &SearchOptions, msgs: &Messages) -> RemoteSource {
        let rules = Rules { hidden: opts.walk.filters.hidden };
        let mut listed = Vec::new();
        for path in &opts.walk.paths {
            let written = path.to_string_lossy();
            match remote::list(&written, rules) {
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
        let subjects =
            listed.into_iter().map(|l| Subject::remote(l.name, l.object, l.explicit)).collect();
        RemoteSource { subjects, mapped }
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
        for subject in &self.subjects {
            if !visit(subject) {
                break;
            }
        }
        Ok(!self.subjects.is_empty())
    }

    fn visit_parallel(&self, threads: usize, make: &mut MakeVisit<'_>) -> Result<bool> {
        let (next, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
        let visitors: Vec<Box<Visit<'_>>> = (0..threads.max(1)).map(|_| make()).collect();
        std::thread::scope(|scope| {
            for mut visit in visitors {
                let (next, stop) = (&next, &stop);
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let Some(subject) = self.subjects.get(next.fetch_add(1, Ordering::Relaxed))
                        else {
                            break;
                        };
                        if !visit(subject) {
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
