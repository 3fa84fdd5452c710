//! An integrity record of a file's bytes, kept beside the indexes: the file with
//! [`Stamp`] S was checked whole and found sound, or damaged (and why). A
//! later look at a file whose stamp is still S needs no second check: no
//! write leaves a stamp unchanged (see [`crate::index::trust`]).
//!
//! Stored as the file `integrity` in the file's index directory, written
//! atomically ([`FsStorage::write_file`]):
//!
//! ```text
//! magic "TGVERDCT" | version u32 | flags u32 | dev u64 | ino u64 | len u64
//! | mtime_ns i64 | ctime_ns i64 | reason (the rest, UTF-8, damaged only)
//! ```
//!
//! [`Integrity::decode`] never panics on bad bytes (fuzzed: `fuzz/`).

use std::path::Path;

use super::encoding::{self, Fields, Put};
use super::error::IndexError;
use super::storage::FsStorage;
use super::trust::Stamp;

/// The record's magic.
const MAGIC: [u8; 8] = *b"TGVERDCT";
/// The record's version.
const VERSION: u32 = 1;
/// The length of a record with no reason.
const FIXED_LEN: usize = 16 + 8 * 5;
/// `flags`: the file was found damaged.
const DAMAGED: u32 = 1;
/// The longest reason kept, in bytes.
const MAX_REASON: usize = 1024;
/// The integrity record's file name in an index directory.
pub(crate) const INTEGRITY_FILE: &str = "integrity";

/// What a whole check of a file found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finding {
    /// Every byte is what its checksums say.
    Sound,
    /// Damaged, and why.
    Damaged(String),
}

/// A check's finding for the file with a stamp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Integrity {
    /// The file as it was checked.
    pub stamp: Stamp,
    /// What the check found.
    pub finding: Finding,
}

impl Integrity {
    /// The record's bytes (a reason is cut to 1 KiB, at a character edge).
    pub fn encode(&self) -> Vec<u8> {
        let (flags, reason) = match &self.finding {
            Finding::Sound => (0, ""),
            Finding::Damaged(why) => (DAMAGED, cut(why, MAX_REASON)),
        };
        let mut b = encoding::start(&MAGIC, VERSION, flags, FIXED_LEN + reason.len());
        let s = &self.stamp;
        for v in [s.dev, s.ino, s.len, s.mtime_ns as u64, s.ctime_ns as u64] {
            b.put_le(v);
        }
        b.put(reason.as_bytes());
        b
    }

    /// Reads a record; anything malformed is [`IndexError::Corrupt`] or
    /// [`IndexError::UnsupportedVersion`].
    pub fn decode(b: &[u8]) -> Result<Integrity, IndexError> {
        let bad = |what: &str| IndexError::Corrupt(format!("integrity record: {what}"));
        let f = Fields::check(b, &MAGIC, VERSION..=VERSION, bad)?;
        if b.len() < FIXED_LEN || b.len() > FIXED_LEN + MAX_REASON {
            return Err(bad("wrong length"));
        }
        let stamp = Stamp {
            dev: f.u64_at(16),
            ino: f.u64_at(24),
            len: f.u64_at(32),
            mtime_ns: f.u64_at(40) as i64,
            ctime_ns: f.u64_at(48) as i64,
        };
        let reason = std::str::from_utf8(&b[FIXED_LEN..]).map_err(|_| bad("reason not UTF-8"))?;
        let finding = match f.flags() {
            0 if reason.is_empty() => Finding::Sound,
            DAMAGED => Finding::Damaged(reason.to_string()),
            _ => return Err(bad("unknown flags")),
        };
        Ok(Integrity { stamp, finding })
    }

    /// The record kept in `dir` (`None`: none, or unreadable or malformed:
    /// a record is a cache, and a missing one only costs a check).
    pub fn load(dir: &Path) -> Option<Integrity> {
        Integrity::decode(&std::fs::read(dir.join(INTEGRITY_FILE)).ok()?).ok()
    }

    /// Keeps this record in `dir` (created if missing, filed under `key`:
    /// [`super::location::key`]), replacing any other; a stamp that is not
    /// settled is not kept.
    pub fn store(&self, dir: &Path, key: &Path) -> Result<(), IndexError> {
        if !self.stamp.is_settled() {
            return Ok(());
        }
        let storage = FsStorage::create(dir)?;
        storage.write_file(INTEGRITY_FILE, &self.encode())?;
        storage.record_key(key)
    }
}

/// `s` cut to at most `max` bytes at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp() -> Stamp {
        Stamp { dev: 1, ino: 2, len: 3, mtime_ns: 4, ctime_ns: 5 }
    }

    #[test]
    fn round_trips_and_rejects_bad_bytes() {
        for finding in [Finding::Sound, Finding::Damaged("frame 3: bad".into())] {
            let v = Integrity { stamp: stamp(), finding };
            assert_eq!(Integrity::decode(&v.encode()).unwrap(), v);
        }
        let long = Integrity { stamp: stamp(), finding: Finding::Damaged("é".repeat(600)) };
        let Finding::Damaged(kept) = Integrity::decode(&long.encode()).unwrap().finding else {
            panic!("damaged");
        };
        assert_eq!(kept.len(), 1024);
        let b = Integrity { stamp: stamp(), finding: Finding::Sound }.encode();
        assert!(Integrity::decode(&b[..b.len() - 1]).is_err());
        let mut flags = b.clone();
        flags[12] = 7;
        assert!(Integrity::decode(&flags).is_err());
        let mut sound_with_reason = b.clone();
        sound_with_reason.push(b'x');
        assert!(Integrity::decode(&sound_with_reason).is_err());
        for n in 0..80 {
            let _ = Integrity::decode(&vec![0xff; n]);
        }
    }

    #[test]
    fn stored_and_loaded_only_when_settled() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("x");
        let racy = Integrity {
            stamp: Stamp { ctime_ns: super::super::table::RACY, ..stamp() },
            finding: Finding::Sound,
        };
        racy.store(&sub, &sub).unwrap();
        assert_eq!(Integrity::load(&sub), None);
        let v = Integrity { stamp: stamp(), finding: Finding::Damaged("why".into()) };
        v.store(&sub, &sub).unwrap();
        assert_eq!(Integrity::load(&sub), Some(v));
    }
}
