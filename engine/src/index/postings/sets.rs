//! Intersection and union of sorted sets of document ids.

use crate::index::table::DocId;

/// The intersection of a sorted set with a sorted stream, in order.
pub fn intersect(a: &[DocId], b: impl Iterator<Item = DocId>) -> Vec<DocId> {
    let mut out = Vec::with_capacity(a.len());
    let mut i = 0;
    for d in b {
        while i < a.len() && a[i] < d {
            i += 1;
        }
        if i == a.len() {
            break;
        }
        if a[i] == d {
            out.push(d);
            i += 1;
        }
    }
    out
}

/// The union of two sorted sets, sorted and without duplicates.
pub fn union(a: &[DocId], b: &[DocId]) -> Vec<DocId> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The ids of a sorted stream of `(rank, id)` that the sorted set `a`
/// holds, with their ranks, in order.
pub(super) fn intersect_ranked(
    a: &[DocId],
    b: impl Iterator<Item = (usize, DocId)>,
) -> Vec<(usize, DocId)> {
    let mut out = Vec::new();
    let mut i = 0;
    for (k, d) in b {
        while i < a.len() && a[i] < d {
            i += 1;
        }
        if i == a.len() {
            break;
        }
        if a[i] == d {
            out.push((k, d));
            i += 1;
        }
    }
    out
}
