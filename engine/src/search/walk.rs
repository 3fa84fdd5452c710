//! The walk: ripgrep's directory traversal as a [`Source`], optionally
//! pruned by an index ([`IndexFilter`]: files it rules out are skipped
//! unread, the rest come out in the walk's own order).

use ignore::WalkState;
use std::sync::atomic::{AtomicBool, Ordering};

use super::subject::{MakeVisit, Source, Subject, Visit};
use crate::error::Result;
use crate::index::fresh::IndexFilter;
use crate::options::{SearchOptions, SortBy};
use crate::report::Messages;

/// Walks the search paths with the search's filters.
pub struct Walk<'a> {
    opts: &'a SearchOptions,
    msgs: &'a Messages,
    filter: Option<&'a IndexFilter>,
}

impl<'a> Walk<'a> {
    /// A walk of every file the filters let through.
    pub fn new(opts: &'a SearchOptions, msgs: &'a Messages) -> Walk<'a> {
        Walk { opts, msgs, filter: None }
    }

    /// A walk that skips files `filter` rules out.
    pub(crate) fn pruned_by(
        opts: &'a SearchOptions,
        msgs: &'a Messages,
        filter: &'a IndexFilter,
    ) -> Walk<'a> {
        Walk { opts, msgs, filter: Some(filter) }
    }

    /// `subject` as the search takes it: `None` when the index rules it
    /// out, marked as without a match when the output lists such files.
    fn admit(&self, subject: Subject) -> Option<Subject> {
        let (Some(f), Some(dent)) = (self.filter, subject.dir_entry()) else {
            return Some(subject);
        };
        if subject.is_stdin()
            || f.should_search(dent.path(), dent.metadata().ok(), subject.is_explicit())
        {
            Some(subject)
        } else if f.lists_misses() {
            Some(subject.without_match())
        } else {
            None
        }
    }

    /// Every walked subject on one thread, in walk or sorted order.
    pub fn subjects(&self) -> Result<Box<dyn Iterator<Item = Subject> + 'a>> {
        let (strip, msgs) = (self.opts.walk.implicit_path, self.msgs);
        let walk = self.opts.walk_builder()?.build();
        let notes = !self.opts.walk.filters.no_ignore_messages;
        let walk = walk.filter_map(move |r| Subject::from_walk(r, strip, notes, msgs));
        let Some(sort) = self.opts.walk.sort.filter(|s| !s.is_path_order()) else {
            // Unsorted, or sorted by path by the walker itself.
            return Ok(Box::new(walk));
        };
        let mut keyed: Vec<(Option<std::time::SystemTime>, Subject)> =
            walk.map(|s| (s.time(sort.by), s)).collect();
        if sort.by == SortBy::Path {
            keyed.sort_by(|a, b| b.1.path().cmp(a.1.path()));
        } else {
            keyed.sort_by(|a, b| {
                let o = match (a.0, b.0) {
                    (Some(x), Some(y)) => x.cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                };
                if sort.reverse { o.reverse() } else { o }
            });
        }
        Ok(Box::new(keyed.into_iter().map(|(_, s)| s)))
    }
}

impl Source for Walk<'_> {
    fn visit(&self, visit: &mut Visit<'_>) -> Result<bool> {
        let mut found = false;
        for subject in self.subjects()? {
            found = true;
            if let Some(subject) = self.admit(subject)
                && !visit(&subject)
            {
                break;
            }
        }
        Ok(found)
    }

    fn visit_parallel(&self, _threads: usize, make: &mut MakeVisit<'_>) -> Result<bool> {
        // The walker's own threads (`-j`, set in the builder) do the work.
        let found = AtomicBool::new(false);
        let (strip, msgs) = (self.opts.walk.implicit_path, self.msgs);
        let notes = !self.opts.walk.filters.no_ignore_messages;
        self.opts.walk_builder()?.build_parallel().run(|| {
            let (found, mut visit) = (&found, make());
            Box::new(move |result| {
                let Some(subject) = Subject::from_walk(result, strip, notes, msgs) else {
                    return WalkState::Continue;
                };
                found.store(true, Ordering::Relaxed);
                match self.admit(subject) {
                    Some(subject) if !visit(&subject) => WalkState::Quit,
                    _ => WalkState::Continue,
                }
            })
        });
        Ok(found.into_inner())
    }
}
