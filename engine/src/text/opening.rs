//! Where a file's text comes from, decided once for every front door that
//! shows or queries whole texts (`tg view`, `tg sql`): [`open`].
//!
//! The door ([`crate::kind::Door::opening`]) says from the file's name
//! (and, for the viewer, its first bytes) what to try; this module does
//! the trying, in one order:
//!
//! 1. a packed file (a seekable zstd file): tg's container through the
//!    block index it carries when that index is trusted; else, for a door
//!    that reads seekable files ([`Opening::seekable`]), its frames in
//!    turn; else decompressed as a stream;
//! 2. a compressed file: its text through the index of its text when its
//!    format is indexed ([`IndexedFormat`]) and that index is trusted; else
//!    decompressed as a stream;
//! 3. any other file: its own bytes, through its block index when trusted.
//!
//! An index that cannot be used (another tg's format, say) never stops a
//! reader: the text is read without it and [`Opened::unusable`] says why,
//! for the door to tell its user as it tells things. A damaged tg
//! container, or a file that cannot be read, is an error: its text cannot
//! be shown as it is.

use std::fs::File;
use std::path::Path;

use super::indexed_format::IndexedFormat;
use super::packed::PackedText;
use super::raw::RawText;
use super::{BlockText, Opened as Trust};
use crate::kind::{Door, Format, Opening};
use crate::pack::PackError;
use crate::pack::read::PackedFile;

/// Every compression format whose text tg indexes: the one list
/// ([`IndexedFormat::of`]).
const INDEXED: &[&IndexedFormat] = &[&super::gz::GZIP];

impl IndexedFormat {
    /// The entry of `format` (`None`: tg does not index its text, so it is
    /// always decompressed whole).
    pub fn of(format: Format) -> Option<&'static IndexedFormat> {
        INDEXED.iter().copied().find(|f| f.format == format)
    }

    /// Every indexed format.
    pub fn all() -> impl Iterator<Item = &'static IndexedFormat> {
        INDEXED.iter().copied()
    }
}

/// Where the text of an opened file comes from.
pub enum Source {
    /// A compressed file's text, read through its trusted block index (an
    /// indexed format's, [`IndexedFormat`]; a packed file's).
    Indexed(Box<dyn BlockText>),
    /// A seekable zstd file without a usable index of its own: its frames,
    /// decompressed one at a time.
    Frames(PackedFile),
    /// A compressed text without a trusted index: what decompressing the
    /// file in this format gives, as a stream.
    Stream(Format),
    /// The file's own bytes, through its block index when one is trusted
    /// (unchanged since it was built, or only grown).
    Bytes(Option<Box<RawText>>),
}

/// An opened file: its text's source, and why an index beside it was not
/// used, when it could not be.
pub struct Opened {
    /// Where the text comes from.
    pub source: Source,
    /// An index that exists but cannot be read (its error): the text is
    /// read without it.
    pub unusable: Option<String>,
}

/// Opens the text of the file at `path` (`file`, open) as `door` reads
/// it, with indexes under `base`; see the module docs for the order.
pub fn open(door: Door, path: &Path, file: &File, base: &Path) -> Result<Opened, PackError> {
    let opening = door.opening(path);
    let packed = match opening.packed {
        true => PackedFile::open(file)?,
        false => None,
    };
    if let Some(packed) = packed.filter(|p| p.is_tg() || opening.seekable) {
        return open_packed(packed, opening, path, file, base);
    }
    Ok(match opening.decompress {
        Some(format) => match IndexedFormat::of(format) {
            Some(indexed) => {
                let text = (indexed.open)(base, path, file.try_clone()?);
                trusted(text, || format.into())
            }
            None => Opened { source: format.into(), unusable: None },
        },
        None => match RawText::open(base, path, file.try_clone()?) {
            Ok(trust) => {
                Opened { source: Source::Bytes(trust.trusted().map(Box::new)), unusable: None }
            }
            Err(e) => Opened { source: Source::Bytes(None), unusable: Some(e.to_string()) },
        },
    })
}

/// A seekable zstd file: tg's container through its index when trusted;
/// else its frames when the door reads them, else a stream.
fn open_packed(
    packed: PackedFile,
    opening: Opening,
    path: &Path,
    file: &File,
    base: &Path,
) -> Result<Opened, PackError> {
    let without = |p: PackedFile| match opening.seekable {
        true => Source::Frames(p),
        false => Format::Zstd.into(),
    };
    if !packed.is_tg() {
        return Ok(Opened { source: without(packed), unusable: None });
    }
    match PackedText::of(&packed, file, path, base) {
        Err(e @ (PackError::Damaged(_) | PackError::Io(_))) => Err(e),
        opened => Ok(trusted(opened, || without(packed))),
    }
}

/// The source a verdict on an index gives: the trusted text, or
/// `otherwise` (stale, missing, or unusable: then its error is kept).
fn trusted<T: Into<Source>, E: std::fmt::Display>(
    verdict: Result<Trust<T>, E>,
    otherwise: impl FnOnce() -> Source,
) -> Opened {
    match verdict {
        Ok(Trust::Trusted(text)) => Opened { source: text.into(), unusable: None },
        Ok(Trust::Stale | Trust::Missing) => Opened { source: otherwise(), unusable: None },
        Err(e) => Opened { source: otherwise(), unusable: Some(e.to_string()) },
    }
}

impl From<Format> for Source {
    fn from(format: Format) -> Source {
        Source::Stream(format)
    }
}

impl From<Box<dyn BlockText>> for Source {
    fn from(text: Box<dyn BlockText>) -> Source {
        Source::Indexed(text)
    }
}

impl From<PackedText> for Source {
    fn from(text: PackedText) -> Source {
        Source::Indexed(Box::new(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::location;

    #[test]
    fn gzip_alone_is_indexed_and_its_entry_files_apart_from_block_indexes() {
        let indexed: Vec<Format> = IndexedFormat::all().map(|f| f.format).collect();
        assert_eq!(indexed, [Format::Gzip]);
        assert!(IndexedFormat::of(Format::Xz).is_none());
        let gz = IndexedFormat::of(Format::Gzip).unwrap();
        let (base, file) = (Path::new("/b"), Path::new("/t/a.log.gz"));
        assert_ne!(gz.index_dir(base, file), location::index_dir_for(base, file));
    }
}
