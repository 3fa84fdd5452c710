//! The verdict on one entry of an index's file table, given what a stat of
//! it found now: pure functions, shared by the freshness sweep
//! ([`super::sweep`]) and a server's reconcile ([`super::changes`]).

use crate::index::table::flags;
use crate::sys::dirstat::Meta;

/// What the stat of one table entry decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Unchanged and not a candidate: not read (only counted).
    Skip,
    /// Unchanged and a candidate: read it.
    Candidate,
    /// Changed since the build: read it.
    Changed,
    /// A directory whose entries changed: walk it one level deep.
    DirChanged,
    /// A watched path changed: the table cannot be trusted for this search.
    GiveUp,
}

/// What the table recorded of an entry, as [`verdict`] needs it.
#[derive(Clone, Copy, Debug)]
pub struct Recorded {
    /// The entry's flags (`table::flags`).
    pub flags: u32,
    /// Its size at the build.
    pub size: u64,
    /// Its ctime at the build (`crate::index::table::RACY`: always changed;
    /// `i64::MIN`: a watched path that was absent).
    pub changed_ns: i64,
}

/// The verdict on one table entry, given what a stat of it found now
/// (`None`: it is gone) and whether its document is a candidate; `None`
/// when it needs nothing (a vanished file, or a file now something else).
pub fn verdict(entry: Recorded, now: Option<Meta>, candidate: bool) -> Option<Verdict> {
    if entry.flags & flags::WATCH_EXISTS != 0 {
        let was = entry.changed_ns != i64::MIN;
        return (now.is_some() != was).then_some(Verdict::GiveUp);
    }
    if entry.flags & flags::WATCH != 0 {
        let same = match &now {
            Some(m) => m.size == entry.size && m.changed_ns == entry.changed_ns,
            None => entry.changed_ns == i64::MIN,
        };
        return (!same).then_some(Verdict::GiveUp);
    }
    let now = now?;
    if entry.flags & flags::DIR != 0 {
        if !now.is_dir && !now.is_file {
            // Replaced by a link (or stranger): a walk does not enter
            // it, but a walk started at it would; let the walk decide.
            return Some(Verdict::GiveUp);
        }
        // Replaced by a file: its parent changed too, and lists it.
        let changed = !now.is_dir || now.changed_ns != entry.changed_ns;
        return changed.then_some(Verdict::DirChanged);
    }
    if !now.is_file {
        // Now a symlink or something else: a walk would not search it.
        return None;
    }
    Some(if now.size != entry.size || now.changed_ns != entry.changed_ns {
        Verdict::Changed
    } else if candidate {
        Verdict::Candidate
    } else {
        Verdict::Skip
    })
}

/// What a stat of entry `e` returns when nothing changed since the build.
pub(crate) fn as_recorded(e: Recorded) -> Option<Meta> {
    let watched = e.flags & (flags::WATCH | flags::WATCH_EXISTS) != 0;
    if watched && e.changed_ns == i64::MIN {
        return None;
    }
    let is_dir = e.flags & flags::DIR != 0 || e.flags & flags::WATCH_EXISTS != 0;
    Some(Meta { is_file: !is_dir, is_dir, size: e.size, changed_ns: e.changed_ns })
}

/// Whether a stat that found `now` shows entry `e` changed since the build.
pub fn differs(e: Recorded, now: Option<Meta>) -> bool {
    if e.flags & (flags::WATCH | flags::WATCH_EXISTS) != 0 {
        return verdict(e, now, false) == Some(Verdict::GiveUp);
    }
    let Some(now) = now else { return true };
    if e.flags & flags::DIR != 0 {
        !now.is_dir || now.changed_ns != e.changed_ns
    } else {
        !now.is_file || now.size != e.size || now.changed_ns != e.changed_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 1_700_000_000_000_000_000;

    fn file(size: u64) -> Recorded {
        Recorded { flags: 0, size, changed_ns: T }
    }

    fn now_file(size: u64, changed_ns: i64) -> Option<Meta> {
        Some(Meta { is_file: true, is_dir: false, size, changed_ns })
    }

    fn now_dir(changed_ns: i64) -> Option<Meta> {
        Some(Meta { is_file: false, is_dir: true, size: 4096, changed_ns })
    }

    #[test]
    fn unchanged_files_are_read_only_as_candidates() {
        assert_eq!(verdict(file(10), now_file(10, T), false), Some(Verdict::Skip));
        assert_eq!(verdict(file(10), now_file(10, T), true), Some(Verdict::Candidate));
    }

    #[test]
    fn changed_size_or_ctime_is_read_and_racy_entries_always_are() {
        assert_eq!(verdict(file(10), now_file(11, T), false), Some(Verdict::Changed));
        assert_eq!(verdict(file(10), now_file(10, T + 1), false), Some(Verdict::Changed));
        let racy = Recorded { changed_ns: crate::index::table::RACY, ..file(10) };
        assert_eq!(verdict(racy, now_file(10, T), false), Some(Verdict::Changed));
    }

    #[test]
    fn vanished_files_and_files_turned_into_links_are_not_read() {
        assert_eq!(verdict(file(10), None, true), None);
        let link = Some(Meta { is_file: false, is_dir: false, size: 10, changed_ns: T });
        assert_eq!(verdict(file(10), link, true), None);
    }

    #[test]
    fn directories_walk_when_changed_and_give_up_when_linked() {
        let dir = Recorded { flags: flags::DIR, size: 0, changed_ns: T };
        assert_eq!(verdict(dir, now_dir(T), false), None);
        assert_eq!(verdict(dir, now_dir(T + 5), false), Some(Verdict::DirChanged));
        assert_eq!(verdict(dir, now_file(3, T), false), Some(Verdict::DirChanged));
        let link = Some(Meta { is_file: false, is_dir: false, size: 0, changed_ns: T });
        assert_eq!(verdict(dir, link, false), Some(Verdict::GiveUp));
        assert_eq!(verdict(dir, None, false), None);
    }

    #[test]
    fn watched_paths_give_up_on_any_change() {
        let w = Recorded { flags: flags::WATCH, size: 12, changed_ns: T };
        assert_eq!(verdict(w, now_file(12, T), false), None);
        assert_eq!(verdict(w, now_file(13, T), false), Some(Verdict::GiveUp));
        assert_eq!(verdict(w, None, false), Some(Verdict::GiveUp));
        let absent = Recorded { flags: flags::WATCH, size: 0, changed_ns: i64::MIN };
        assert_eq!(verdict(absent, None, false), None);
        assert_eq!(verdict(absent, now_file(0, T), false), Some(Verdict::GiveUp));
        let marker = Recorded { flags: flags::WATCH_EXISTS, size: 0, changed_ns: 0 };
        assert_eq!(verdict(marker, now_dir(T), false), None);
        assert_eq!(verdict(marker, None, false), Some(Verdict::GiveUp));
    }

    #[test]
    fn an_entry_as_recorded_does_not_differ() {
        for e in [
            Recorded { flags: 0, size: 5, changed_ns: T },
            Recorded { flags: flags::DIR, size: 0, changed_ns: T },
            Recorded { flags: flags::WATCH, size: 9, changed_ns: T },
            Recorded { flags: flags::WATCH, size: 0, changed_ns: i64::MIN },
            Recorded { flags: flags::WATCH_EXISTS, size: 0, changed_ns: T },
            Recorded { flags: flags::WATCH_EXISTS, size: 0, changed_ns: i64::MIN },
        ] {
            assert!(!differs(e, as_recorded(e)), "{e:?}");
        }
    }

    #[test]
    fn changed_vanished_and_racy_entries_differ() {
        let f = Recorded { flags: 0, size: 5, changed_ns: T };
        let now = |size, ns| Some(Meta { is_file: true, is_dir: false, size, changed_ns: ns });
        assert!(differs(f, now(6, T)));
        assert!(differs(f, now(5, T + 1)));
        assert!(differs(f, None));
        let racy = Recorded { changed_ns: crate::index::table::RACY, ..f };
        assert!(differs(racy, now(5, T)));
        let d = Recorded { flags: flags::DIR, size: 0, changed_ns: T };
        assert!(differs(d, None));
        assert!(differs(
            d,
            Some(Meta { is_file: false, is_dir: true, size: 0, changed_ns: T + 1 })
        ));
    }
}
