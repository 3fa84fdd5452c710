//! A tg container is checked whole before its index is trusted: a byte
//! changed anywhere since it was written (a frame the query's candidates
//! would never touch, a block index that lies) is found before a search
//! could miss a line because of it.
//!
//! The check compares the block index with the footer's CRC, then unpacks
//! every frame on every core into nothing and compares the text with the
//! footer's length and CRC (each frame also with its seek table entry). It runs once per [`Stamp`]: its verdict is kept in
//! the index directory under the file's key (`verdict_dir`), so a query
//! of a file unchanged since costs a `stat` and a small read. `tg pack`
//! keeps the verdict of what it wrote.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::error::PackError;
use super::read::PackedFile;
use crate::index::integrity::{Finding, Integrity};
use crate::index::location;
use crate::index::trust::Stamp;

/// The kind a packed file's verdict is filed under ([`location::key`]).
pub const KIND: &str = "zst";

/// Where the verdict on the packed file at `canonical` is kept.
pub(crate) fn verdict_dir(base: &Path, canonical: &Path) -> PathBuf {
    location::kind_dir(base, canonical, KIND)
}

/// Whether the tg container `packed` (open as `file`, at `path`) is sound:
/// by the verdict kept for its stamp, else by checking it whole (and
/// keeping the verdict when the index directory takes it). A damaged
/// container is [`PackError::Damaged`], naming the damage.
pub fn check(packed: &PackedFile, file: &File, path: &Path, base: &Path) -> Result<(), PackError> {
    let stamp = Stamp::of(&file.metadata()?, crate::sys::open_file_id(file));
    let canonical = path.canonicalize().ok();
    let kept = canonical.map(|c| (verdict_dir(base, &c), location::key(&c, Some(KIND))));
    let known = kept.as_ref().and_then(|(dir, _)| Integrity::load(dir));
    let known = known.filter(|v| v.stamp.unchanged(&stamp));
    let finding = match known {
        Some(v) => v.finding,
        None => {
            let finding = inspect(packed)?;
            if let Some((dir, key)) = &kept {
                // A cache: a directory that takes nothing costs a check
                // per query, never an error.
                let _ = Integrity { stamp, finding: finding.clone() }.store(dir, key);
            }
            finding
        }
    };
    match finding {
        Finding::Sound => Ok(()),
        Finding::Damaged(why) => Err(PackError::Damaged(why)),
    }
}

/// Checks `packed` whole: [`Finding::Damaged`] when its block index does
/// not match the footer's CRC, a bucket of its frame directory does not
/// check, or a frame does not decompress to what the
/// seek table and footer say (the header, footer and seek table were
/// checked when it was opened); an I/O error is an error, not a finding.
pub fn inspect(packed: &PackedFile) -> Result<Finding, PackError> {
    let checked = packed.check_index().and_then(|()| packed.check_directory());
    match checked.and_then(|()| packed.unpack(&mut std::io::sink())) {
        Ok(_) => Ok(Finding::Sound),
        Err(PackError::Io(e)) if e.kind() != std::io::ErrorKind::InvalidData => {
            Err(PackError::Io(e))
        }
        Err(PackError::Mismatch(why) | PackError::Corrupt(why)) => Ok(Finding::Damaged(why)),
        Err(e) => Ok(Finding::Damaged(e.to_string())),
    }
}

/// Keeps the verdict that the packed file just written at `path` is sound
/// (waiting out the racy window, so that its stamp can be kept).
pub fn vouch_for(path: &Path, base: &Path) -> Result<(), PackError> {
    std::thread::sleep(std::time::Duration::from_nanos(
        crate::index::recorded::RACY_WINDOW_NS as u64,
    ));
    let md = std::fs::metadata(path)?;
    let stamp = Stamp::of(&md, crate::sys::file_id(path, &md));
    let canonical = path.canonicalize()?;
    let key = location::key(&canonical, Some(KIND));
    Integrity { stamp, finding: Finding::Sound }.store(&verdict_dir(base, &canonical), &key)?;
    Ok(())
}
