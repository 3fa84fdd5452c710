//! The overlay: what changed in the tree since its index was built.
//!
//! The on-disk index is never edited in place. Every path an event touched
//! (a file written, created, deleted, renamed; a directory whose entries
//! changed) is recorded here with the sequence number of its last event,
//! and queries stat exactly these paths instead of the whole table
//! ([`crate::index::fresh::changes`]): a touched file's indexed version is
//! a tombstone, and the file is read as it is now. A touched subtree (a
//! directory moved or deleted, or one the watcher could not watch) has
//! everything below it stat-ed. When the overlay grows, the server rebuilds
//! the index ([`super::reconcile`]) and forgets what the new index already holds.

use std::collections::HashMap;

use crate::index::fresh::changes::Touched;

/// Touched paths and subtrees, each with the sequence number of its last event.
#[derive(Debug, Default)]
pub(crate) struct Overlay {
    paths: HashMap<Vec<u8>, u64>,
    subtrees: Vec<(Vec<u8>, u64)>,
}

/// The sequence number of entries no rebuild forgets (unwatched directories).
pub(crate) const FOREVER: u64 = u64::MAX;

impl Overlay {
    /// Records that `rel` changed at event `seq`.
    pub fn touch(&mut self, rel: Vec<u8>, seq: u64) {
        let e = self.paths.entry(rel).or_insert(seq);
        *e = (*e).max(seq);
    }

    /// Records that anything below `rel` may have changed at event `seq`.
    pub(crate) fn touch_subtree(&mut self, rel: Vec<u8>, seq: u64) {
        match self.subtrees.iter_mut().find(|(p, _)| *p == rel) {
            Some((_, s)) => *s = (*s).max(seq),
            None => self.subtrees.push((rel, seq)),
        }
    }

    /// Drops the subtree mark on `rel` if it was last set at or before `seq`.
    pub(crate) fn clear_subtree(&mut self, rel: &[u8], seq: u64) {
        self.subtrees.retain(|(p, s)| p != rel || *s > seq);
    }

    /// Forgets every entry last touched before event `seq`: a rebuild that
    /// started after it holds what those events changed.
    pub(crate) fn forget_before(&mut self, seq: u64) {
        self.paths.retain(|_, s| *s >= seq);
        self.subtrees.retain(|(_, s)| *s >= seq);
    }

    /// What queries must stat now.
    pub fn touched(&self) -> Touched {
        Touched {
            paths: self.paths.keys().cloned().collect(),
            subtrees: self.subtrees.iter().map(|(p, _)| p.clone()).collect(),
        }
    }

    /// Touched paths plus subtrees.
    pub fn len(&self) -> usize {
        self.paths.len() + self.subtrees.len()
    }

    /// Whether nothing is touched.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Touched subtrees.
    #[cfg(test)]
    pub(crate) fn subtree_count(&self) -> usize {
        self.subtrees.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rebuild_forgets_only_what_it_saw() {
        let mut o = Overlay::default();
        o.touch(b"a".to_vec(), 1);
        o.touch(b"b".to_vec(), 5);
        o.touch(b"a".to_vec(), 7);
        o.touch_subtree(b"gone".to_vec(), 2);
        o.touch_subtree(b"unwatched".to_vec(), FOREVER);
        o.forget_before(6);
        let t = o.touched();
        assert!(t.paths.contains(b"a".as_slice()), "touched again after the rebuild began");
        assert!(!t.paths.contains(b"b".as_slice()));
        assert_eq!(t.subtrees, vec![b"unwatched".to_vec()]);
        assert_eq!(o.len(), 2);
    }

    #[test]
    fn subtree_marks_clear_only_when_not_renewed() {
        let mut o = Overlay::default();
        o.touch_subtree(Vec::new(), 3);
        o.clear_subtree(b"", 2);
        assert_eq!(o.subtree_count(), 1);
        o.clear_subtree(b"", 3);
        assert!(o.is_empty());
    }
}
