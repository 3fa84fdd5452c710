//! What a scan reads: the files of its paths, found with `tg`'s (and
//! `rg`'s) default walk rules ([`tree`]: listed from a tree index when one
//! covers a path, else walked), each a [`Unit`]; a block-indexed text is
//! cut into parts, so that one huge log spreads over partitions.

use std::path::Path;

use datafusion::error::Result;

use crate::filter::Pred;
use crate::paths::Root;
use crate::read::{Part, Unit};
use crate::text::{self, Compression};
use crate::tree;

/// A block-indexed text gets one part per this many bytes of its text, at
/// most one per partition.
const PART_BYTES: u64 = 64 << 20;

/// The units of `roots` read with `compression`, in walk order, and how
/// many files a tree index ruled out.
pub fn units(
    roots: &[Root],
    base: &Path,
    pred: Option<&Pred>,
    partitions: usize,
    compression: Compression,
) -> Result<(Vec<Unit>, u64)> {
    let mut units = Vec::new();
    let mut pruned = 0;
    for root in roots {
        let found = tree::files(&root.path, base, pred, compression)?;
        pruned += found.pruned;
        // Only the files read are looked at for a block index.
        for (path, size) in found.files {
            let shown = root.shown(&path);
            let unit = |part| Unit { path: path.clone(), shown: shown.clone(), compression, part };
            if let Some(len) = text::block_text_len(&path, size, base, compression) {
                let parts = (len / PART_BYTES).clamp(1, partitions.max(1) as u64) as u32;
                units.extend((0..parts).map(|part| unit(Some(Part { part, parts }))));
            } else {
                units.push(unit(None));
            }
        }
    }
    Ok((units, pruned))
}

/// Deals `units` to at most `n` partitions, round robin (a text's parts
/// land on different partitions); never fewer than one partition.
pub fn deal(units: Vec<Unit>, n: usize) -> Vec<Vec<Unit>> {
    let n = n.clamp(1, units.len().max(1));
    let mut parts = vec![Vec::new(); n];
    for (i, u) in units.into_iter().enumerate() {
        parts[i % n].push(u);
    }
    parts
}
