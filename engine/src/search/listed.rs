//! A list of subjects made ahead of the search (from an index's file table:
//! candidates and files changed since the build), as a [`Source`].

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::subject::{MakeVisit, Source, Subject, Visit};
use crate::error::Result;

/// Subjects listed in output order.
pub struct Listed {
    subjects: Vec<Subject>,
    found: bool,
}

impl Listed {
    /// `subjects` in output order; `found` says whether a walk would have
    /// found any file (the list holds only those to read).
    pub fn new(subjects: Vec<Subject>, found: bool) -> Listed {
        Listed { subjects, found }
    }
}

impl Source for Listed {
    fn visit(&self, visit: &mut Visit<'_>) -> Result<bool> {
        for subject in &self.subjects {
            if !visit(subject) {
                break;
            }
        }
        Ok(self.found)
    }

    fn visit_parallel(&self, threads: usize, make: &mut MakeVisit<'_>) -> Result<bool> {
        // A thread per subject at most; one is the calling thread.
        let threads = threads.min(self.subjects.len());
        if threads <= 1 {
            return self.visit(&mut make());
        }
        let (next, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
        std::thread::scope(|scope| {
            for _ in 0..threads {
                let (next, stop, list) = (&next, &stop, &self.subjects);
                let mut visit = make();
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let Some(subject) = list.get(next.fetch_add(1, Ordering::Relaxed)) else {
                            break;
                        };
                        if !visit(subject) {
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        Ok(self.found)
    }
}
