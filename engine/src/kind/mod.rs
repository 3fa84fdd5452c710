//! The one door to a file's text: what a file is, and how each front door
//! opens it. Every decision taken from a file's name or its first bytes
//! is taken here, from one list ([`Format`]: each compression format's
//! file-name endings and magic bytes); the modules that open texts (a
//! huge file's blocks, a `.gz` file's indexed text, a packed file's
//! frames, a decompressor's stream) are told what to open by this module
//! and decide nothing of it themselves. This module imports nothing of
//! the engine, so freshness (`crate::index`) asks it too.
//!
//! What a file is, by its name:
//!
//! - **compressed** in a [`Format`] when its name ends in one of
//!   [`compression::ENDINGS`] (rg's `-z` globs: the content is not sniffed);
//! - **maybe packed** ([`maybe_packed`]) when it is named as a zstd file:
//!   it is a packed log only if it opens as a seekable zstd file
//!   (`crate::pack`), which carries tg's index of its text or not.
//!
//! How each front door opens a file ([`Door::opening`], one rule each):
//!
//! | door | packed | else decompressed |
//! |---|---|---|
//! | [`Door::Search`] | named so, no `--pre`: tg's container, or with `-z` any seekable zstd file | with `-z`, by name |
//! | [`Door::Viewer`] | sniffed whatever the name: any seekable zstd file | by name |
//! | [`Door::Sql`] | named so, unless told to read bytes: tg's container | by name, unless told to read bytes |
//!
//! A search treats files as rg does, by name; only the viewer, which shows
//! one file a user named, also looks inside a file for a packed one. What
//! the door does not say is the rest of each front door's business: the
//! search's preprocessor globs, which index to trust (`crate::text`), and
//! what to do when an index is stale.

mod compression;

pub use compression::{ENDINGS, Format, MAGIC};

use std::path::Path;

/// Whether a file named `name` (a path's bytes) may be a packed log: named
/// as a zstd file (`*.zst`, `*.zstd`). A search reads the text it packs,
/// which a tree index did not see, so such a file is never ruled out.
pub fn maybe_packed(name: &[u8]) -> bool {
    ENDINGS.iter().any(|(end, f)| *f == Format::Zstd && name.ends_with(end.as_bytes()))
}

/// Whether a file named `name` (a path's bytes) is compressed: `-z`
/// decompresses it, so a tree index (holding its compressed bytes) cannot
/// rule it out of a `-z` search.
pub fn maybe_compressed(name: &[u8]) -> bool {
    Format::of_name(name).is_some()
}

/// The name `tg pack` gives the packed file of `path` by default.
pub fn packed_name(path: &Path) -> std::path::PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(PACKED_ENDING);
    s.into()
}

/// The ending of a packed file's name `tg pack` writes.
const PACKED_ENDING: &str = ".zst";

/// `path` without the ending that names it a packed file (`None`: it has
/// none, or nothing is left).
pub fn unpacked_name(path: &Path) -> Option<std::path::PathBuf> {
    let name = path.to_str()?;
    let zstd = ENDINGS.iter().filter(|(_, f)| *f == Format::Zstd);
    let stem = zstd.filter_map(|(end, _)| name.strip_suffix(end)).next()?;
    (!stem.is_empty()).then(|| stem.into())
}

/// The ending of the name of the object `tg index s3://BUCKET/KEY` writes
/// beside a remote object: its block index (`KEY.tgidx`).
#[cfg(feature = "remote")]
const INDEX_OBJECT_ENDING: &str = ".tgidx";

/// The key of the object holding the block index of the remote object
/// `key`.
#[cfg(feature = "remote")]
pub(crate) fn index_object_name(key: &str) -> String {
    format!("{key}{INDEX_OBJECT_ENDING}")
}

/// Whether the remote object `key` holds another's block index: tg's own,
/// not a text a search reads.
#[cfg(feature = "remote")]
pub(crate) fn is_index_object(key: &str) -> bool {
    key.ends_with(INDEX_OBJECT_ENDING)
}

/// A front door: a reader of files' texts, each with its rule for what a
/// file is (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Door {
    /// A search (`tg PATTERN`): by name alone, as rg.
    Search {
        /// `-z/--search-zip`.
        zip: bool,
        /// `--pre`: a preprocessor makes the searched text.
        pre: bool,
    },
    /// `tg view`: a packed file is sniffed, whatever its name.
    Viewer,
    /// `tg sql`: by name, as a `-z` search, but another tool's seekable
    /// zstd file is decompressed like any other.
    Sql {
        /// The table decompresses compressed files (its `compression`
        /// option; `false`: every file is read as its own bytes, as rg
        /// reads without `-z`).
        decompress: bool,
    },
}

/// How a front door opens a file's text, decided before any I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Open it as a packed file first: tg's container is read through the
    /// index it carries (`crate::text::packed`).
    pub packed: bool,
    /// Take another tool's seekable zstd file for a packed one too (its
    /// frames read in turn); else such a file is opened as below.
    pub seekable: bool,
    /// Not packed: the format its text is decompressed from (through the
    /// index of its text first, when tg indexes the format's text:
    /// `crate::text::indexed_format`); `None`:
    /// its bytes are its text (through a block index, if one describes it).
    pub decompress: Option<Format>,
}

impl Door {
    /// How this door opens the file at `path`.
    pub fn opening(self, path: &Path) -> Opening {
        let format = Format::of(path);
        let named_packed = format == Some(Format::Zstd);
        match self {
            Door::Search { zip, pre } => Opening {
                packed: named_packed && !pre,
                seekable: zip,
                decompress: format.filter(|_| zip),
            },
            Door::Viewer => Opening { packed: true, seekable: true, decompress: format },
            Door::Sql { decompress } => Opening {
                packed: named_packed && decompress,
                seekable: false,
                decompress: format.filter(|_| decompress),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_what_a_file_may_be() {
        assert!(maybe_packed(b"d/a.log.zst") && maybe_packed(b"a.zstd"));
        assert!(!maybe_packed(b"a.gz") && !maybe_packed(b"a.zs"));
        assert!(maybe_compressed(b"a.tgz") && maybe_compressed(b"a.Z"));
        assert!(!maybe_compressed(b"a.z") && !maybe_compressed(b"a.log"));
    }

    #[test]
    fn packed_names_go_both_ways() {
        assert_eq!(packed_name(Path::new("d/a.log")), Path::new("d/a.log.zst"));
        assert_eq!(unpacked_name(Path::new("d/a.log.zst")).unwrap(), Path::new("d/a.log"));
        assert_eq!(unpacked_name(Path::new("a.zstd")).unwrap(), Path::new("a"));
        assert_eq!(unpacked_name(Path::new(".zst")), None);
        assert_eq!(unpacked_name(Path::new("a.gz")), None);
    }

    #[test]
    #[cfg(feature = "remote")]
    fn index_objects_are_named_beside_their_object() {
        assert_eq!(index_object_name("logs/a.log"), "logs/a.log.tgidx");
        assert!(is_index_object("logs/a.log.tgidx") && !is_index_object("logs/a.log"));
    }

    #[test]
    fn each_door_has_its_rule() {
        let (zst, gz, bz) = (Path::new("a.zst"), Path::new("a.gz"), Path::new("a.bz2"));
        let search = |zip, pre| Door::Search { zip, pre };
        assert!(search(false, false).opening(zst).packed);
        assert!(!search(false, true).opening(zst).packed);
        assert!(!search(false, false).opening(zst).seekable);
        assert_eq!(search(false, false).opening(gz).decompress, None);
        assert_eq!(search(true, false).opening(bz).decompress, Some(Format::Bzip2));
        assert!(Door::Viewer.opening(Path::new("a.log")).packed);
        let sql = |decompress| Door::Sql { decompress };
        assert!(!sql(true).opening(Path::new("a.log")).packed);
        assert!(sql(true).opening(zst).packed && !sql(true).opening(zst).seekable);
        assert_eq!(sql(true).opening(bz).decompress, Some(Format::Bzip2));
        assert_eq!(sql(false).opening(gz).decompress, None);
        assert!(!sql(false).opening(zst).packed);
    }
}
