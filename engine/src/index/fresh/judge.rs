//! The sweep's pass over a file table: each entry below the search paths
//! judged from what may have changed ([`MayDiffer`]) and which files are
//! candidates. A query process runs it on the index it opened
//! ([`super::IndexFilter::sweep`]); a server runs it on the index it holds
//! open and sends the result ([`crate::serve`]), so the query process
//! never opens the index.

use std::path::Path;

use rayon::prelude::*;

use super::changes::{Changes, MayDiffer, Touched, below, lookup};
use super::links::LinkMap;
use super::rules::Reads;
use super::verdict::{Recorded, Verdict, as_recorded, verdict};
use crate::index::reader::IndexReader;
use crate::index::recorded::under;
use crate::index::table::{DocId, FileId, FileRef, RACY, flags, views};
use crate::kind::{maybe_compressed, maybe_packed};
use crate::sys::dirstat::{DirStat, Meta};

/// The rules the entries of one table are judged by.
pub struct Judge<'a> {
    /// The index whose table is judged.
    pub reader: &'a IndexReader,
    /// The canonical root of its tree.
    pub root: &'a Path,
    /// Bit `id % 64` of word `id / 64` set: file `id` has a candidate
    /// document ([`candidate_files`]).
    pub candidate_files: &'a [u64],
    /// Which files are read whatever their candidacy: binary ones, which
    /// the index saw only up to their first NUL; with `-z`, compressed ones
    /// ([`maybe_compressed`]), whose compressed bytes it holds. With
    /// [`Reads::misses`], entries judged [`Verdict::Skip`] are kept.
    pub reads: Reads,
    /// Entries flagged with any of these are left out by the search's
    /// walk ([`super::view::View::out`]): not judged, not counted.
    pub out: u32,
    /// What the table holds, computed ahead (a server keeps it): with it,
    /// a pass that stats only a few entries visits only those, the
    /// candidates and the files read whatever the query.
    pub summary: Option<&'a TableSummary>,
}

/// What a pass needs of a table beyond its entries, computed once per
/// index ([`TableSummary::of`]).
pub struct TableSummary {
    /// The identity of the table it describes.
    pub table_id: u64,
    /// Per recorded walk (`views::RECORDED`, in order), entry `id`: how
    /// many plain files (entries that are not directories or watched
    /// paths) of that walk come before it; one more entry for the end.
    files_before: Vec<Vec<u32>>,
    /// The entries reached through a link, mapped to the real entries
    /// the watcher sees.
    links: LinkMap,
    /// The files compressed formats' names end in ([`maybe_compressed`]).
    compressed: Vec<FileId>,
    /// The binary files the index saw only up to their first NUL.
    binary: Vec<FileId>,
    /// The files that may be packed logs ([`maybe_packed`]).
    packed: Vec<FileId>,
}

impl TableSummary {
    /// Summarizes `reader`'s table (one pass over it) of the tree at the
    /// canonical `root`, whose links it reads now.
    pub fn of(reader: &IndexReader, root: &Path) -> TableSummary {
        let n = reader.stats().files as usize + 1;
        let mut s = TableSummary {
            table_id: reader.stats().table_id,
            files_before: views::RECORDED.iter().map(|_| Vec::with_capacity(n)).collect(),
            links: LinkMap::of(reader, root),
            compressed: Vec::new(),
            binary: Vec::new(),
            packed: Vec::new(),
        };
        let mut plain = [0u32; views::RECORDED.len()];
        for (id, f) in reader.files().enumerate() {
            for (v, (_, out)) in views::RECORDED.iter().enumerate() {
                s.files_before[v].push(plain[v]);
                if f.flags & (flags::NOT_A_FILE | out) == 0 {
                    plain[v] += 1;
                }
            }
            if maybe_compressed(f.path) {
                s.compressed.push(id as FileId);
            }
            if f.flags & flags::SKIPPED_BINARY != 0 {
                s.binary.push(id as FileId);
            }
            if maybe_packed(f.path) {
                s.packed.push(id as FileId);
            }
        }
        for (v, count) in plain.into_iter().enumerate() {
            s.files_before[v].push(count);
        }
        s
    }

    /// What a stat of each entry of `reader` (the table summarized, of
    /// the tree at `root`) that no watcher reports on finds now: the
    /// watched paths outside the tree and the linked entries not mapped
    /// to real ones (`links.rs`), each stat-ed by every pass. `None`
    /// when one cannot be stat-ed.
    pub fn unwatched_now(&self, reader: &IndexReader, root: &Path) -> Option<Vec<Option<Meta>>> {
        let n = reader.stats().files;
        let outside = Changes::Watched(Touched::default()).may_differ(n, |id| reader.path(id));
        let MayDiffer::Some(bits) = outside else { return None };
        let mut ids: Vec<FileId> =
            set_bits(&bits).chain(self.links.unmapped.iter().copied()).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut stat = DirStat::new(root)?;
        ids.into_iter().map(|id| stat_now(&mut stat, root, &reader.file(id)?).ok()).collect()
    }

    /// How many plain files of `reader` (the table summarized) not
    /// flagged `out` lie below one of `scopes`.
    fn files_below(&self, reader: &IndexReader, scopes: &[Vec<u8>], out: u32) -> u64 {
        let n = reader.stats().files;
        let path_of = |id| reader.path(id);
        let v = views::RECORDED.iter().position(|(_, o)| *o == out).unwrap_or(0);
        let counts = &self.files_before[v];
        let before = |id: u32| u64::from(counts.get(id as usize).copied().unwrap_or(0));
        scopes
            .iter()
            .map(|p| {
                // A scope is a directory: its files are the entries below `p/`.
                let (lo, hi) = if p.is_empty() { (0, n) } else { below(n, &path_of, p) };
                before(hi).saturating_sub(before(lo))
            })
            .sum()
    }
}

/// What a pass over a table found.
#[derive(Debug, Default)]
pub struct Judged {
    /// The entries to list, in table order: those not judged
    /// [`Verdict::Skip`] (with them, when [`Reads::misses`]).
    pub kept: Vec<(FileId, Verdict)>,
    /// How many were judged what.
    pub counts: Counts,
}

/// How many files a pass judged each way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Unchanged candidates: read.
    pub candidates: u64,
    /// Changed since the build: read.
    pub changed: u64,
    /// Unchanged and not candidates: not read.
    pub pruned: u64,
}

impl Judge<'_> {
    /// Judges every entry below one of `scopes` (table paths; `b""` is the
    /// whole tree) and every watched path; `None` when the tree's root
    /// cannot be opened. Entries in `may_differ` are stat-ed, the others
    /// taken as the table recorded them; stat-ing every entry runs on
    /// every core, a pass that stats a few runs on this thread (starting
    /// the pool would cost more than the pass).
    pub fn table(&self, scopes: &[Vec<u8>], may_differ: &MayDiffer) -> Option<Judged> {
        DirStat::new(self.root)?;
        let n = self.reader.stats().files;
        let summary = self.summary.filter(|s| s.table_id == self.reader.stats().table_id);
        // The links a server's watcher saw touched.
        let relinked = match (may_differ, summary) {
            (MayDiffer::Some(differ), Some(summary)) => summary.links.roots_in(differ),
            _ => Vec::new(),
        };
        // Linked entries are stat-ed unless `may_differ` accounts for them.
        let judge_by = |stat: &mut Option<DirStat>, id: FileId, differ: &MayDiffer, links| {
            let f = self.reader.file(id)?;
            if relinked.binary_search(&id).is_ok()
                && let Some(v) = self.relinked(stat.as_mut(), &f, scopes)
            {
                return Some((id, v));
            }
            let in_scope = scopes.iter().any(|p| under(f.path, p));
            Some((id, self.entry(stat.as_mut()?, &f, id, in_scope, differ, links)?))
        };
        let judge = |stat: &mut Option<DirStat>, id| judge_by(stat, id, may_differ, false);
        let tally = |j, judged| self.tally(j, judged);
        if let (MayDiffer::Some(differ), Some(summary), false) =
            (may_differ, summary, self.reads.misses)
        {
            // Every entry not visited is an unchanged plain file that is
            // not read: counted, not judged. A linked entry may differ
            // when its link or the real entry it reaches may.
            let mut bits = differ.clone();
            summary.links.spread(&mut bits);
            let mut ids: Vec<FileId> = set_bits(&bits)
                .chain(set_bits(self.candidate_files))
                .chain(summary.packed.iter().copied())
                .chain(summary.compressed.iter().copied().filter(|_| self.reads.zip))
                .chain(summary.binary.iter().copied().filter(|_| self.reads.binary_whole))
                .collect();
            ids.sort_unstable();
            ids.dedup();
            let differ = MayDiffer::Some(bits);
            let mut stat = DirStat::new(self.root);
            let mut visited = 0;
            let mut judged = Judged::default();
            for id in ids {
                let Some(f) = self.reader.file(id) else { continue };
                if f.flags & (flags::NOT_A_FILE | self.out) == 0
                    && scopes.iter().any(|p| under(f.path, p))
                {
                    visited += 1;
                }
                judged = self.tally(judged, judge_by(&mut stat, id, &differ, true));
            }
            let below = summary.files_below(self.reader, scopes, self.out);
            let not_visited = below.saturating_sub(visited);
            judged.counts.pruned += not_visited;
            return Some(judged);
        }
        Some(if matches!(may_differ, MayDiffer::All) {
            (0..n)
                .into_par_iter()
                .with_min_len(1024)
                .map_init(|| DirStat::new(self.root), judge)
                .fold(Judged::default, tally)
                .reduce(Judged::default, |mut a, b| {
                    a.kept.extend(b.kept);
                    a.counts.candidates += b.counts.candidates;
                    a.counts.changed += b.counts.changed;
                    a.counts.pruned += b.counts.pruned;
                    a
                })
        } else {
            let mut stat = DirStat::new(self.root);
            (0..n).map(|id| judge(&mut stat, id)).fold(Judged::default(), tally)
        })
    }

    /// Adds one entry's verdict to a pass's result.
    fn tally(&self, mut j: Judged, judged: Option<(FileId, Verdict)>) -> Judged {
        if let Some((id, v)) = judged {
            match v {
                Verdict::Skip => j.counts.pruned += 1,
                Verdict::Candidate => j.counts.candidates += 1,
                Verdict::Changed => j.counts.changed += 1,
                Verdict::DirChanged | Verdict::GiveUp => {}
            }
            if v != Verdict::Skip || self.reads.misses {
                j.kept.push((id, v));
            }
        }
        j
    }

    /// Stats one table entry (when it may differ from the tree) and judges
    /// it; `None` when it needs nothing (out of scope, vanished). An entry
    /// reached through a link is stat-ed unless `links`: `may_differ`
    /// accounts for it ([`LinkMap::spread`]).
    fn entry(
        &self,
        stat: &mut DirStat,
        f: &FileRef<'_>,
        id: FileId,
        in_scope: bool,
        may_differ: &MayDiffer,
        links: bool,
    ) -> Option<Verdict> {
        let is_watch = f.flags & (flags::WATCH | flags::WATCH_EXISTS) != 0;
        if (!in_scope && !is_watch) || f.flags & self.out != 0 {
            return None;
        }
        let entry = Recorded { flags: f.flags, size: f.size, changed_ns: f.changed_ns };
        let linked = f.flags & flags::VIA_LINK != 0;
        let now = if !may_differ.contains(id) && (links || !linked) {
            as_recorded(entry)
        } else {
            if linked && self.repointed(stat, f) {
                return Some(Verdict::GiveUp);
            }
            match stat_now(stat, self.root, f) {
                Ok(m) => m,
                // Unreadable: a walk would report it; let the walk do so.
                Err(_) => return Some(Verdict::GiveUp),
            }
        };
        verdict(entry, now, self.reads(id, f))
    }

    /// The verdict on the link `f` the watcher saw touched (removed and
    /// made again, perhaps pointing elsewhere), if it still leads to what
    /// it is recorded as: its new target may look as the old one did (the
    /// same size and ctime), so a directory is walked and a file read
    /// whatever their stat says.
    fn relinked(
        &self,
        stat: Option<&mut DirStat>,
        f: &FileRef<'_>,
        scopes: &[Vec<u8>],
    ) -> Option<Verdict> {
        if f.flags & self.out != 0 || !scopes.iter().any(|p| under(f.path, p)) {
            return None;
        }
        let now = stat?.stat_followed(f.path).ok()??;
        match f.flags & flags::DIR != 0 {
            true => now.is_dir.then_some(Verdict::DirChanged),
            false => now.is_file.then_some(Verdict::Changed),
        }
    }

    /// Whether the linked entry `f` is a link made, or pointed elsewhere,
    /// since the build: a first link (its directory not reached through a
    /// link) whose own ctime is later than its directory's recorded one.
    /// Making or replacing a link changes the directory that holds it at
    /// that moment, so an unchanged link is never the later. Its new
    /// target may look as the old one did (the same size and ctime, made
    /// in one clock tick), and so may every entry below it: the table
    /// cannot stand in for a walk there.
    fn repointed(&self, stat: &mut DirStat, f: &FileRef<'_>) -> bool {
        let parent = f.path.iter().rposition(|&b| b == b'/').map_or(&f.path[..0], |i| &f.path[..i]);
        let Some(dir) = lookup(self.reader, parent).and_then(|id| self.reader.file(id)) else {
            return false;
        };
        if dir.flags & flags::VIA_LINK != 0 {
            return false;
        }
        match stat.lstat(f.path) {
            Ok(Some(now)) if !now.is_file && !now.is_dir => {
                dir.changed_ns == RACY || now.changed_ns > dir.changed_ns
            }
            _ => false,
        }
    }

    /// Whether file `id` is read when unchanged: a candidate, a binary file
    /// the index saw only in part when the search reads it whole, a
    /// possible packed log (see [`maybe_packed`]), or with `-z` a
    /// compressed file.
    fn reads(&self, id: FileId, f: &FileRef<'_>) -> bool {
        is_candidate(self.candidate_files, id)
            || (self.reads.binary_whole && f.flags & flags::SKIPPED_BINARY != 0)
            || maybe_packed(f.path)
            || (self.reads.zip && maybe_compressed(f.path))
    }
}

/// What a stat of the table entry `f` of the tree at `root` finds now,
/// as a pass stats it: a watched path by name (it may lie outside the
/// tree: `../.gitignore`, absolute), an entry reached through a link
/// through it (as the walk that follows it does), any other as itself.
fn stat_now(stat: &mut DirStat, root: &Path, f: &FileRef<'_>) -> std::io::Result<Option<Meta>> {
    if f.flags & (flags::WATCH | flags::WATCH_EXISTS) != 0 {
        Ok(Meta::of_path(&root.join(crate::sys::rel_path(f.path))))
    } else if f.flags & flags::VIA_LINK != 0 {
        stat.stat_followed(f.path)
    } else if f.flags & flags::DIR != 0 {
        stat.lstat_dir(f.path)
    } else {
        stat.lstat(f.path)
    }
}

/// The files of `reader` with a document among `docs`, as a bitset (bit
/// `id % 64` of word `id / 64`).
pub fn candidate_files(reader: &IndexReader, docs: &[DocId]) -> Vec<u64> {
    let mut bits = vec![0u64; reader.stats().files as usize / 64 + 1];
    for &d in docs {
        if let Some(doc) = reader.doc(d)
            && let Some(w) = bits.get_mut(doc.file as usize / 64)
        {
            *w |= 1 << (doc.file % 64);
        }
    }
    bits
}

/// The positions of the bits set in `bits`, in order.
fn set_bits(bits: &[u64]) -> impl Iterator<Item = FileId> + '_ {
    bits.iter().enumerate().flat_map(|(w, &word)| {
        let mut word = word;
        std::iter::from_fn(move || {
            (word != 0).then(|| {
                let bit = word.trailing_zeros();
                word &= word - 1;
                w as FileId * 64 + bit
            })
        })
    })
}

/// Whether bit `id` of a [`candidate_files`] bitset is set.
pub(crate) fn is_candidate(bits: &[u64], id: FileId) -> bool {
    bits.get(id as usize / 64).is_some_and(|w| w & (1 << (id % 64)) != 0)
}
