//! Bytes of an object fetched before its reader asks for them: a search
//! of many objects starts the first reads of the objects it will search
//! next (`crate::search::remote`), many objects in flight, so that each
//! reader finds what it reads first already here instead of asking for
//! it in a round trip of its own, one after another.
//!
//! What is fetched ahead is only ever a copy of what a read would fetch
//! (the same requests, checked the same way); a reader that finds nothing
//! ahead, or a fetch ahead that failed, reads as if none was started, so
//! the answers and their errors are those of a reader without it.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use futures_util::future::{BoxFuture, FutureExt, Shared};
use tokio::sync::Semaphore;
use tokio::task::AbortHandle;

use super::client::{block_on, spawn};

/// Requests fetching ahead in flight at once, over all objects: enough to
/// hide a round trip of tens of milliseconds behind many objects, few
/// enough for any store's connection limits.
const IN_FLIGHT: usize = 64;

/// The permits of [`IN_FLIGHT`].
static PERMITS: Semaphore = Semaphore::const_new(IN_FLIGHT);

/// Waits for a permit to send one request ahead.
pub(crate) async fn permit() -> Option<tokio::sync::SemaphorePermit<'static>> {
    PERMITS.acquire().await.ok()
}

/// Pieces of one object: where each starts, and its bytes.
pub(crate) type Pieces = Arc<Vec<(u64, Vec<u8>)>>;

/// What is fetched ahead of one object's reader (shared by the clones of
/// a [`super::object::RemoteObject`]): pieces of it, or (`T`) what else a
/// reader reads first (its index object).
pub(crate) struct Ahead<T = Pieces>(Mutex<Slot<T>>);

impl<T> Default for Ahead<T> {
    fn default() -> Self {
        Ahead(Mutex::new(Slot::Idle))
    }
}

enum Slot<T> {
    /// Nothing started.
    Idle,
    /// Started: the pieces, once fetched (`None`: the fetch failed).
    Started(Shared<BoxFuture<'static, Option<T>>>, AbortHandle),
    /// Fetched already, with the object's first look (`super::probe`).
    Held(T),
}

impl<T: Clone + Send + Sync + 'static> Ahead<T> {
    /// Starts `fetch` in the background, unless one was started already.
    pub(crate) fn start<F>(&self, fetch: F)
    where
        F: Future<Output = Option<T>> + Send + 'static,
    {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Slot::Idle = *slot {
            let task = spawn(fetch);
            let abort = task.abort_handle();
            let pieces = async move { task.await.ok().flatten() }.boxed().shared();
            *slot = Slot::Started(pieces, abort);
        }
    }

    /// Holds `pieces`, fetched already, unless a fetch was started.
    pub(crate) fn hold(&self, pieces: T) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Slot::Idle = *slot {
            *slot = Slot::Held(pieces);
        }
    }

    /// The pieces fetched ahead, waited for when still under way (`None`:
    /// none were started, or their fetch failed).
    pub(crate) fn pieces(&self) -> Option<T> {
        let pieces = match &*self.0.lock().unwrap_or_else(|e| e.into_inner()) {
            Slot::Started(pieces, _) => pieces.clone(),
            Slot::Held(pieces) => return Some(pieces.clone()),
            Slot::Idle => return None,
        };
        block_on(pieces)
    }

    /// Drops what was fetched ahead (a fetch under way is abandoned).
    pub(crate) fn release(&self) {
        let old =
            std::mem::replace(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()), Slot::Idle);
        if let Slot::Started(_, abort) = old {
            abort.abort();
        }
    }
}

/// The bytes of `range` within `pieces`, when one piece holds all of it.
pub(crate) fn within(pieces: &[(u64, Vec<u8>)], range: &Range<u64>) -> Option<Vec<u8>> {
    pieces.iter().find_map(|(start, bytes)| {
        let end = start + bytes.len() as u64;
        let held = *start <= range.start && range.end <= end;
        held.then(|| bytes[(range.start - start) as usize..(range.end - start) as usize].to_vec())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_is_held_when_one_piece_holds_it() {
        let pieces = vec![(0, b"abcd".to_vec()), (10, b"klmn".to_vec())];
        assert_eq!(within(&pieces, &(1..3)), Some(b"bc".to_vec()));
        assert_eq!(within(&pieces, &(10..14)), Some(b"klmn".to_vec()));
        assert_eq!(within(&pieces, &(3..11)), None);
        assert_eq!(within(&pieces, &(12..15)), None);
    }
}
