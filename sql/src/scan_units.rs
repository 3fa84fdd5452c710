//! What a scan reads: the files of its paths, found with `tg`'s (and
//! `rg`'s) default walk rules ([`tree`]: listed from a tree index when one
//! covers a path, else walked), and the objects of its remote paths
//! (listed now: [`remote::list`]), each a [`Unit`]; a block-indexed text
//! is cut into parts, so that one huge log spreads over partitions.

use std::path::{Path, PathBuf};

use datafusion::error::Result;

use crate::paths::Root;
use crate::plain_parts::{self, PART_BYTES};
use crate::pushdown::Pred;
use crate::read::{Part, Unit};
use crate::remote::{self, Object};
use crate::text::{self, Compression, Kind};
use crate::tree;

/// The units of `roots` read with `compression`, in walk order, and how
/// many files a tree index ruled out.
pub fn of_paths(
    roots: &[Root],
    base: &Path,
    pred: Option<&Pred>,
    partitions: usize,
    compression: Compression,
) -> Result<(Vec<Unit>, u64)> {
    let mut units = Vec::new();
    let mut pruned = 0;
    for root in roots {
        if let Some(objects) = remote::list(&root.path) {
            units.extend(
                objects?.into_iter().flat_map(|o| object_units(o, partitions, compression)),
            );
            continue;
        }
        let found = tree::files(&root.path, base, pred, compression)?;
        pruned += found.pruned;
        // Only the files read are looked at for a block index.
        for (path, size) in found.files {
            let shown = root.shown(&path);
            let unit = |part| Unit {
                path: path.clone(),
                shown: shown.clone(),
                compression,
                part,
                object: None,
            };
            let plain_parts = (size / plain_parts::part_bytes()).min(partitions as u64);
            if let Some(len) = text::block_text_len(&path, size, base, compression) {
                let parts = (len / PART_BYTES).clamp(1, partitions.max(1) as u64) as u32;
                units.extend((0..parts).map(|part| unit(Some(Part { part, parts }))));
            } else if plain_parts > 1 && text::kind(&path, compression) == Kind::Plain {
                // A huge plain file without an index is read by parts
                // too (`plain_parts`): cut at line ends once, then shared.
                let parts = plain_parts as u32;
                units.extend((0..parts).map(|part| unit(Some(Part { part, parts }))));
            } else {
                units.push(unit(None));
            }
        }
    }
    Ok((units, pruned))
}

/// The units of the remote object `object`: parts of its text, cut by
/// its size (known from its listing: nothing is fetched to plan), when it
/// may be read by its block index.
fn object_units(object: Object, partitions: usize, compression: Compression) -> Vec<Unit> {
    let parts = match object.by_blocks(compression) {
        true => Some((object.size / PART_BYTES).clamp(1, partitions.max(1) as u64) as u32),
        false => None,
    };
    let unit = |part| Unit {
        path: PathBuf::from(&object.url),
        shown: None,
        compression,
        part,
        object: Some(object.clone()),
    };
    match parts {
        Some(parts) => (0..parts).map(|part| unit(Some(Part { part, parts }))).collect(),
        None => vec![unit(None)],
    }
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
