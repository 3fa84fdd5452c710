//! The entries of a table reached through a symbolic link, mapped to the
//! real entries of the same table they reach ([`LinkMap`]).
//!
//! A watcher sees a change under a link's target only at the target's own
//! path: a directory reached through a link is the target's inode, watched
//! once, under its real name. So a server that trusts the table for what
//! its watcher did not report must stat every linked entry on every query
//! (on the kernel, 5,389 entries behind 56 links). Most links point inside
//! the tree, at entries the table holds and the watcher watches: such a
//! linked entry may differ from the table only when its link or the real
//! entry may ([`LinkMap::spread`]), and only the others are stat-ed each
//! time ([`LinkMap::unmapped`]).
//!
//! An entry is mapped only when that is plainly true: its first link (the
//! shortest linked prefix of its path) resolves, one component at a time,
//! through no other link to a directory or file inside the tree; the rest
//! of its path below that target is an entry of the table not reached
//! through a link, of the same kind. Anything else (a target outside the
//! tree, a chain of links, a dangling or looping link) is left unmapped.

use std::path::{Component, Path};

use super::changes::lookup;
use crate::index::reader::IndexReader;
use crate::index::table::{FileId, flags};

/// The linked entries of one table: mapped to real ones, or not.
#[derive(Debug, Default)]
pub(crate) struct LinkMap {
    /// Linked entries stat-ed by every query.
    pub unmapped: Vec<FileId>,
    /// Each mapped linked entry, its first link, and the real entry it
    /// reaches (all table ids).
    mapped: Vec<(FileId, FileId, FileId)>,
    /// Each first link, with the links met resolving it (itself first).
    roots: Vec<(FileId, Vec<FileId>)>,
}

impl LinkMap {
    /// Maps the linked entries of `reader`'s table (of the tree at the
    /// canonical `root`), reading the links as they are now.
    pub fn of(reader: &IndexReader, root: &Path) -> LinkMap {
        let mut map = LinkMap::default();
        // The first link of the entries last seen, and where it leads.
        let mut last: Option<(Vec<u8>, FileId, Option<Vec<u8>>)> = None;
        for (id, f) in reader.files().enumerate() {
            let id = id as FileId;
            if f.flags & flags::VIA_LINK == 0 {
                continue;
            }
            let same = last.as_ref().is_some_and(|(l, _, _)| below_or_at(f.path, l));
            if !same {
                last = first_link(reader, f.path).map(|(l, lid)| {
                    let (target, via) = target_of(reader, root, &l);
                    map.roots.push((lid, via));
                    (l, lid, target)
                });
            }
            let real = last.as_ref().and_then(|(l, lid, target)| {
                let target = target.as_ref()?;
                let mut rel = target.clone();
                rel.extend_from_slice(&f.path[l.len()..]);
                let rid = lookup(reader, &rel)?;
                let r = reader.file(rid)?;
                let kinds = flags::VIA_LINK | flags::DIR | flags::WATCH | flags::WATCH_EXISTS;
                (r.flags & kinds == f.flags & (flags::DIR | flags::WATCH | flags::WATCH_EXISTS))
                    .then_some((*lid, rid))
            });
            match real {
                Some((lid, rid)) => map.mapped.push((id, lid, rid)),
                None => map.unmapped.push(id),
            }
        }
        map.roots.sort_unstable();
        map.roots.dedup_by_key(|(id, _)| *id);
        map
    }

    /// The first links marked in `bits` (as [`LinkMap::spread`] reads
    /// them), or resolved through a link marked there, in table order.
    pub(crate) fn roots_in(&self, bits: &[u64]) -> Vec<FileId> {
        let touched = |(_, via): &&(FileId, Vec<FileId>)| via.iter().any(|&id| has(bits, id));
        self.roots.iter().filter(touched).map(|(id, _)| *id).collect()
    }

    /// Marks in `bits` (bit `id % 64` of word `id / 64`: entry `id` may
    /// differ from the tree) every mapped entry whose link or real entry
    /// may, and every unmapped one.
    pub fn spread(&self, bits: &mut [u64]) {
        let set = |bits: &mut [u64], id: FileId| {
            if let Some(w) = bits.get_mut(id as usize / 64) {
                *w |= 1 << (id % 64);
            }
        };
        for &(id, link, real) in &self.mapped {
            if has(bits, link) || has(bits, real) {
                set(bits, id);
            }
        }
        for &id in &self.unmapped {
            set(bits, id);
        }
    }
}

/// Whether bit `id` of `bits` is set.
fn has(bits: &[u64], id: FileId) -> bool {
    bits.get(id as usize / 64).is_some_and(|w| w & (1 << (id % 64)) != 0)
}

/// Whether `path` is `dir` or lies below it.
fn below_or_at(path: &[u8], dir: &[u8]) -> bool {
    path.strip_prefix(dir).is_some_and(|rest| rest.is_empty() || rest[0] == b'/')
}

/// The shortest prefix of `path` that the table holds as reached through
/// a link (the link itself), and its id.
fn first_link(reader: &IndexReader, path: &[u8]) -> Option<(Vec<u8>, FileId)> {
    let ends = path.iter().enumerate().filter(|(_, b)| **b == b'/').map(|(i, _)| i);
    for end in ends.chain(std::iter::once(path.len())) {
        let id = lookup(reader, &path[..end])?;
        if reader.file(id)?.flags & flags::VIA_LINK != 0 {
            return Some((path[..end].to_vec(), id));
        }
    }
    None
}

/// Links followed at most while resolving one (as the kernel's limit).
const MAX_HOPS: usize = 40;

/// Where the link `link` (a table path whose parents are real
/// directories) leads, resolved one component at a time: the table path
/// of its target when that is an entry of the table not reached through a
/// link, met through no other link (`None` when it leaves the tree, passes
/// another link, or does not resolve); and the table ids of the links met
/// on the way, `link`'s own first.
fn target_of(reader: &IndexReader, root: &Path, link: &[u8]) -> (Option<Vec<u8>>, Vec<FileId>) {
    let mut via: Vec<FileId> = lookup(reader, link).into_iter().collect();
    let mut parts: Vec<Vec<u8>> = link.split(|&b| b == b'/').map(<[u8]>::to_vec).collect();
    // The components still to walk, the next last.
    let mut pending: Vec<Vec<u8>> = Vec::new();
    let (mut hops, mut clean) = (0, true);
    loop {
        let rel = parts.join(&b'/');
        let abs = root.join(crate::sys::rel_path(&rel));
        match std::fs::symlink_metadata(&abs) {
            Ok(md) if md.file_type().is_symlink() => {
                hops += 1;
                if hops > 1 {
                    clean = false;
                    via.extend(lookup(reader, &rel));
                }
                let Ok(target) = std::fs::read_link(&abs) else { return (None, via) };
                if hops > MAX_HOPS || !push_target(&mut parts, &mut pending, root, &target) {
                    return (None, via);
                }
            }
            Ok(_) => {}
            Err(_) => return (None, via),
        }
        let Some(next) = pending.pop() else { break };
        if next == b".." {
            if parts.pop().is_none() {
                return (None, via);
            }
        } else {
            parts.push(next);
        }
    }
    let rel = parts.join(&b'/');
    let real = clean
        && lookup(reader, &rel)
            .and_then(|id| reader.file(id))
            .is_some_and(|f| f.flags & flags::VIA_LINK == 0);
    (real.then_some(rel), via)
}

/// Replaces the link last in `parts` with its `target`: the target's
/// components go on `pending` (the first last); an absolute target
/// restarts at `root`. `false` when the target leaves the tree.
fn push_target(
    parts: &mut Vec<Vec<u8>>,
    pending: &mut Vec<Vec<u8>>,
    root: &Path,
    target: &Path,
) -> bool {
    parts.pop();
    let rest = if target.is_absolute() {
        // An absolute target names the tree by its canonical root.
        let Ok(inside) = target.strip_prefix(root) else { return false };
        parts.clear();
        inside
    } else {
        target
    };
    let mut names = Vec::new();
    for c in rest.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => names.push(b"..".to_vec()),
            Component::Normal(name) => names.push(name.as_encoded_bytes().to_vec()),
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    pending.extend(names.into_iter().rev());
    true
}
