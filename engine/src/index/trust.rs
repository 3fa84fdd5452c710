//! The rule a text with a block index (a huge file, a `.gz` file's text, a
//! packed file) is trusted by, and the two measurements it rests on.
//!
//! An index describes bytes that were read once; a query may use it only
//! if no write since can have changed what a search of the file finds.
//! The file system says little: every write, append, truncation or rename
//! moves a file's status-change time (ctime), but an append moves it just
//! as a write in the middle does. So:
//!
//! - **Unchanged** — the same device and inode, the same size and the same
//!   ctime as when the index was built ([`Stamp`], taken after the racy
//!   window: a stamp too recent to tell apart from a later change is never
//!   equal to anything). Nothing is read.
//! - **Grown** — the same file, longer, and every indexed byte verified to
//!   be the indexed byte: the `digest` of the indexed range equals the
//!   one recorded at the build. The whole indexed range is read (at memory
//!   speed when cached, on every core); only the new tail is searched
//!   beside the candidate blocks.
//! - Anything else is **stale**: the file is scanned (and indexed again).
//!
//! A packed file is never appended to: its container records checksums of
//! everything it holds, and it is verified whole once per [`Stamp`], the
//! verdict kept beside the indexes (`crate::pack::verify`).

use std::fs::File;
use std::hash::Hasher;

use rayon::prelude::*;
use twox_hash::XxHash3_64;

use super::encoding::read_in_pieces;
use super::recorded::recorded_change;
use super::table::RACY;

/// What the file system says of a file's bytes, to tell them unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// Device and inode: another inode is another file.
    pub dev: u64,
    /// See `dev`.
    pub ino: u64,
    /// Length in bytes.
    pub len: u64,
    /// Modification time, ns since the epoch.
    pub mtime_ns: i64,
    /// Status-change time, ns since the epoch (`RACY`: too recent to
    /// be told apart from a later change).
    pub ctime_ns: i64,
}

impl Stamp {
    /// The stamp of a file with metadata `md` and identity `id`, its ctime
    /// `RACY` when it lies within the racy window of now.
    pub fn of(md: &std::fs::Metadata, id: crate::sys::FileId) -> Stamp {
        Stamp {
            dev: id.dev,
            ino: id.ino,
            len: md.len(),
            mtime_ns: crate::sys::modified_ns(md),
            ctime_ns: recorded_change(md),
        }
    }

    /// Whether a later look at the file can be compared with this one.
    pub(crate) fn is_settled(&self) -> bool {
        self.ctime_ns != RACY
    }

    /// Whether `now` shows the very bytes this stamp was taken of.
    pub fn unchanged(&self, now: &Stamp) -> bool {
        self.is_settled() && self == now
    }
}

/// How many bytes one thread digests at a time.
const SEGMENT: u64 = 16 << 20;

/// The digest of the first `len` bytes of `file`: XXH3-64 of each 16 MiB
/// segment, computed on every core, then XXH3-64 of the length and those
/// digests in order. Read with `pread` in 1 MiB pieces (a file truncated
/// meanwhile is an error, not a signal).
pub(crate) fn digest(file: &File, len: u64) -> std::io::Result<u64> {
    let segments: Vec<u64> = (0..len.div_ceil(SEGMENT)).collect();
    let parts = segments
        .par_iter()
        .map_init(
            || vec![0u8; 1 << 20],
            |buf, &i| {
                let mut h = XxHash3_64::default();
                let segment = i * SEGMENT..((i + 1) * SEGMENT).min(len);
                read_in_pieces(file, segment, buf, |piece| h.write(piece))?;
                Ok(h.finish())
            },
        )
        .collect::<std::io::Result<Vec<u64>>>()?;
    Ok(combine(len, &parts))
}

/// [`digest`] of bytes in memory.
pub(crate) fn digest_of(data: &[u8]) -> u64 {
    let parts: Vec<u64> = data.par_chunks(SEGMENT as usize).map(XxHash3_64::oneshot).collect();
    combine(data.len() as u64, &parts)
}

/// The digest of a text of `len` bytes whose segments have digests `parts`.
fn combine(len: u64, parts: &[u64]) -> u64 {
    let mut whole = XxHash3_64::default();
    whole.write(&len.to_le_bytes());
    for p in parts {
        whole.write(&p.to_le_bytes());
    }
    whole.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Seek, SeekFrom, Write};

    #[test]
    fn a_digest_sees_any_changed_byte_and_the_length() {
        let mut f = tempfile::tempfile().unwrap();
        let text: Vec<u8> = (0..(SEGMENT as usize + 1000)).map(|i| (i % 251) as u8).collect();
        f.write_all(&text).unwrap();
        let len = text.len() as u64;
        let d = digest(&f, len).unwrap();
        assert_eq!(d, digest_of(&text));
        assert_eq!(digest(&f, 0).unwrap(), digest_of(b""));
        assert_ne!(d, digest(&f, len - 1).unwrap());
        for at in [0, 12_345, SEGMENT - 1, SEGMENT, len - 1] {
            f.seek(SeekFrom::Start(at)).unwrap();
            f.write_all(&[text[at as usize] ^ 1]).unwrap();
            assert_ne!(d, digest(&f, len).unwrap(), "a change at {at}");
            f.seek(SeekFrom::Start(at)).unwrap();
            f.write_all(&[text[at as usize]]).unwrap();
        }
        assert_eq!(d, digest(&f, len).unwrap());
        assert!(digest(&f, len + 1).is_err(), "past the end is an error");
    }

    #[test]
    fn a_recent_stamp_equals_nothing() {
        let f = tempfile::NamedTempFile::new().unwrap();
        let s = Stamp::of(&f.as_file().metadata().unwrap(), crate::sys::open_file_id(f.as_file()));
        assert!(!s.is_settled());
        assert!(!s.unchanged(&s));
        let settled = Stamp { ctime_ns: 1, ..s };
        assert!(settled.unchanged(&settled));
        assert!(!settled.unchanged(&Stamp { len: s.len + 1, ..settled }));
    }
}
