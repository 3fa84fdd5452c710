//! The listings a server sent last, sent again while nothing they were
//! judged from changed ([`Listings`]).
//!
//! A listing is the answer to a query every document may match: `--files`
//! (VS Code's quick-open sends one on every keystroke), or a pattern the
//! index cannot narrow. Its answer is the judgement of the whole file
//! table (on the kernel, 89,544 entries for 83,689 paths, 3.5 MB). That
//! judgement depends on the table, on what the watcher saw touched since
//! the build, on the stats of the touched entries, and on the stats of
//! the entries no watcher reports on (ignore files above the tree, links
//! leading out of it), which every pass takes anew. So a listing is sent
//! again, byte for byte, when the table is the same, no event was applied
//! since (the watcher saw nothing change, so no touched entry changed), the
//! touched paths are the same, and a stat of each unwatched entry finds
//! what it found before the listing was judged. While a subtree is touched
//! (a directory moved, or one the watcher could not watch, whose entries
//! every pass stats) nothing is kept: `super::answer` judges anew.

use std::sync::{Arc, Mutex};

use crate::index::fresh::changes::Touched;
use crate::sys::dirstat::Meta;

/// The listings kept, newest first, at most [`KEPT`] of them and
/// [`KEPT_BYTES`] in all.
#[derive(Default)]
pub(crate) struct Listings {
    kept: Mutex<Vec<Arc<Listing>>>,
}

/// Listings kept at most (one per request: walk rules, globs, scopes).
const KEPT: usize = 8;

/// Bytes of listings kept at most.
const KEPT_BYTES: usize = 64 << 20;

/// The moment a listing is judged at: one table, with the watcher's
/// account of what changed since its build.
#[derive(Debug, PartialEq, Eq)]
pub struct At {
    /// The table judged.
    pub table_id: u64,
    /// The events applied.
    pub seq: u64,
    /// The paths touched since the build.
    pub touched: Touched,
}

/// What a listing was judged from.
#[derive(Debug)]
pub struct Judged {
    /// The request, query and search paths ([`key`]).
    pub key: Vec<u8>,
    /// When.
    pub at: At,
    /// What a stat of the unwatched entries found, before it was judged.
    pub unwatched: Vec<Option<Meta>>,
}

/// One listing kept.
pub struct Listing {
    /// What it was judged from.
    judged: Judged,
    /// The reply's head, without the time taken.
    pub head: serde_json::Value,
    /// The framed path lists that follow the head.
    pub frames: Vec<u8>,
}

/// The key of a request: its JSON, its query and its search paths (the
/// [`super::protocol`] bodies), each after its length.
pub fn key(request: &serde_json::Value, query: &[u8], scopes: &[u8]) -> Vec<u8> {
    let request = request.to_string();
    let mut key = Vec::with_capacity(request.len() + query.len() + scopes.len() + 24);
    for part in [request.as_bytes(), query, scopes] {
        key.extend_from_slice(&(part.len() as u64).to_le_bytes());
        key.extend_from_slice(part);
    }
    key
}

impl Listings {
    /// The listing for the request `key` judged `at` this moment, if one
    /// is kept and `unwatched_now()` (a stat of the unwatched entries now)
    /// finds them as they were.
    pub fn find(
        &self,
        key: &[u8],
        at: &At,
        unwatched_now: impl FnOnce() -> Option<Vec<Option<Meta>>>,
    ) -> Option<Arc<Listing>> {
        let found = {
            let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
            let same = |l: &&Arc<Listing>| l.judged.key == key && l.judged.at == *at;
            kept.iter().find(same).cloned()?
        };
        (unwatched_now()? == found.judged.unwatched).then_some(found)
    }

    /// Keeps a listing judged from `judged`, its reply `head` and `frames`,
    /// in place of one with the same request.
    pub fn keep(&self, judged: Judged, head: serde_json::Value, frames: Vec<u8>) {
        if frames.len() > KEPT_BYTES {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|l| l.judged.key != judged.key);
        kept.insert(0, Arc::new(Listing { judged, head, frames }));
        let mut bytes = 0;
        kept.retain(|l| {
            bytes += l.frames.len();
            bytes <= KEPT_BYTES
        });
        kept.truncate(KEPT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seq: u64) -> At {
        At { table_id: 7, seq, touched: Touched::default() }
    }

    fn judged(key: &[u8], seq: u64) -> Judged {
        Judged { key: key.to_vec(), at: at(seq), unwatched: vec![Some(M)] }
    }

    const M: Meta = Meta { is_file: true, is_dir: false, size: 3, changed_ns: 9 };

    #[test]
    fn a_listing_is_found_only_while_nothing_it_was_judged_from_changed() {
        let l = Listings::default();
        l.keep(judged(b"a", 5), serde_json::json!({}), b"frames".to_vec());
        let same = || Some(vec![Some(M)]);
        assert!(l.find(b"a", &at(5), same).is_some());
        // An event applied since, another request, another table, touched
        // paths, or an unwatched entry that changed: judged anew.
        assert!(l.find(b"a", &at(6), same).is_none());
        assert!(l.find(b"b", &at(5), same).is_none());
        assert!(l.find(b"a", &At { table_id: 8, ..at(5) }, same).is_none());
        let mut touched = at(5);
        touched.touched.paths.insert(b"x".to_vec());
        assert!(l.find(b"a", &touched, same).is_none());
        let changed = Meta { size: 4, ..M };
        assert!(l.find(b"a", &at(5), || Some(vec![Some(changed)])).is_none());
        assert!(l.find(b"a", &at(5), || Some(vec![None])).is_none());
        assert!(l.find(b"a", &at(5), || None).is_none());
    }

    #[test]
    fn a_few_listings_are_kept_one_per_request() {
        let l = Listings::default();
        for i in 0..10u64 {
            l.keep(judged(&i.to_le_bytes(), i), serde_json::json!({}), vec![0; 8]);
        }
        l.keep(judged(&9u64.to_le_bytes(), 10), serde_json::json!({}), vec![0; 8]);
        let kept = l.kept.lock().unwrap();
        assert_eq!(kept.len(), KEPT);
        assert_eq!(kept[0].judged.at.seq, 10);
        assert_eq!(kept[1].judged.at.seq, 8);
    }
}
