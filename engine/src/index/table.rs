//! The file and document tables: what a document is and where it lives.
//!
//! A *file* ([`FileMeta`]) carries a path and freshness metadata; a
//! *document* ([`DocMeta`]) is a byte range of one file and is what posting
//! lists point at. A small file is one document; a huge file is many block
//! documents. Both tables are fixed-size little-endian records, so the
//! reader reaches record `i` at `i * LEN` without parsing the rest:
//!
//! ```text
//! files  (FILE_RECORD_LEN = 32 bytes each)
//! +--------------+--------------+-----------+-----------+--------------+
//! | path_off u64 | path_len u32 | flags u32 | size u64  | changed_ns i64 |
//! +--------------+--------------+-----------+-----------+--------------+
//! docs   (DOC_RECORD_LEN = 32 bytes each)
//! +----------+--------------+------------+---------+----------------+
//! | file u32 | reserved u32 | offset u64 | len u64 | first_line u64 |
//! +----------+--------------+------------+---------+----------------+
//! ```
//!
//! `path_off` points into the `paths` section (raw path bytes, concatenated).

use super::encoding::Put;
use super::error::IndexError;
use super::format::{read_u32, read_u64};

/// Identifies a file of an index: its position in the file table.
pub type FileId = u32;

/// Identifies a document of an index: its position in the document table.
pub(crate) type DocId = u32;

/// Bits of [`FileMeta::flags`].
pub mod flags {
    /// The file's bytes are not indexed as-is (UTF-16, unreadable at build
    /// time, ...): its documents are candidates for every satisfiable query.
    pub(crate) const ALWAYS_CANDIDATE: u32 = 1 << 0;
    /// Binary file (has a NUL): only the bytes before the first NUL are
    /// indexed; searches that read binary files whole must read it.
    pub(crate) const SKIPPED_BINARY: u32 = 1 << 8;
    /// Skipped: larger than the size limit.
    pub(crate) const SKIPPED_TOO_LARGE: u32 = 1 << 9;
    /// Skipped: could not be read.
    pub(crate) const SKIPPED_UNREADABLE: u32 = 1 << 10;
    /// Skipped: an encoding the indexer does not handle.
    pub(crate) const SKIPPED_ENCODING: u32 = 1 << 11;
    /// Any of the `SKIPPED_*` reasons (for `tg status --skipped`).
    pub(crate) const SKIPPED_ANY: u32 = 0xff << 8;
    /// Not a file but a directory of the tree: its modification time tells
    /// a query whether entries were added or removed since the build.
    pub const DIR: u32 = 1 << 16;
    /// A path whose change changes which files a walk yields (an ignore
    /// file, git's configuration, ...): any change and a query walks the
    /// tree instead of trusting the file table. An absent path is recorded
    /// with `changed_ns == i64::MIN`.
    pub const WATCH: u32 = 1 << 17;
    /// Like [`WATCH`], but only whether the path exists is compared (`.git`).
    pub const WATCH_EXISTS: u32 = 1 << 18;
    /// Entries that are not searchable files ([`DIR`], [`WATCH`], [`WATCH_EXISTS`]).
    pub(crate) const NOT_A_FILE: u32 = DIR | WATCH | WATCH_EXISTS;
    /// Left out by the default walk (`super::views::PLAIN`): hidden, or
    /// reached through a symbolic link. The table holds the walk of
    /// [`super::views::UNION`]; each recorded view flags what it leaves out.
    pub const OUT_OF_PLAIN: u32 = 1 << 19;
    /// Left out by a `--hidden` walk ([`super::views::HIDDEN`]).
    pub(crate) const OUT_OF_HIDDEN: u32 = 1 << 20;
    /// Left out by a `--hidden --no-require-git --follow` walk
    /// (`super::views::EDITOR`).
    pub const OUT_OF_EDITOR: u32 = 1 << 21;
    /// Every view bit.
    pub(crate) const OUT_OF_ANY: u32 = OUT_OF_PLAIN | OUT_OF_HIDDEN | OUT_OF_EDITOR;
    /// Reached through a symbolic link (the link itself, or below a
    /// linked directory): stat-ed by following links, and always stat-ed
    /// (a watcher sees changes under the link's target only).
    pub const VIA_LINK: u32 = 1 << 22;
}

/// The walks a tree's table records (index feature version 4). The table
/// holds the files and directories of [`views::UNION`]; an entry another recorded
/// walk leaves out carries that walk's `OUT_OF_*` flag, so a search with
/// one of these walk rules lists its files from the table with a filter.
pub mod views {
    use super::flags;

    /// A walk's rules that the table records, beyond the defaults.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Rules {
        /// `--hidden`.
        pub hidden: bool,
        /// `--no-require-git`.
        pub no_require_git: bool,
        /// `--follow`.
        pub follow: bool,
    }

    /// What the build walks and the table holds: hidden files, links
    /// followed, outside repository stores (`.git`, `.jj`).
    pub const UNION: Rules = Rules { hidden: true, no_require_git: false, follow: true };
    /// A plain search's walk.
    pub(crate) const PLAIN: Rules = Rules { hidden: false, no_require_git: false, follow: false };
    /// `--hidden` (deadgrep).
    pub(crate) const HIDDEN: Rules = Rules { hidden: true, no_require_git: false, follow: false };
    /// `--hidden --no-require-git --follow` (VS Code).
    pub(crate) const EDITOR: Rules = Rules { hidden: true, no_require_git: true, follow: true };

    /// Each recorded walk with the flag of what it leaves out.
    pub(crate) const RECORDED: [(Rules, u32); 4] = [
        (PLAIN, flags::OUT_OF_PLAIN),
        (HIDDEN, flags::OUT_OF_HIDDEN),
        (EDITOR, flags::OUT_OF_EDITOR),
        (UNION, 0),
    ];

    /// The flags that take an entry out of the walk with `rules`, if the
    /// table records that walk.
    pub(crate) fn out_of(rules: Rules) -> Option<u32> {
        RECORDED.iter().find(|(r, _)| *r == rules).map(|(_, f)| *f)
    }
}

/// The `changed_ns` of an entry whose status changed within a clock tick
/// of the build's look at it: a later change in the same tick would leave
/// the same time, so such a file always counts as changed (git's "racy
/// clean" problem).
pub(crate) const RACY: i64 = -1;

/// A file as the writer is told about it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileMeta {
    /// Path relative to the indexed root, raw bytes (not necessarily UTF-8).
    pub path: Vec<u8>,
    /// Size in bytes when indexed.
    pub size: u64,
    /// Status-change time (ctime) in nanoseconds since the Unix epoch when
    /// indexed: unlike the modification time, no tool can set it back, so a
    /// rewrite with an old mtime (`cp -p`, `touch -r`) still shows. `RACY`
    /// marks a file changed too close to the build to trust.
    pub changed_ns: i64,
    /// A combination of [`flags`].
    pub flags: u32,
}

/// A file as the reader returns it, borrowing the path from the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileRef<'a> {
    /// Path relative to the indexed root, raw bytes.
    pub path: &'a [u8],
    /// Size in bytes when indexed.
    pub size: u64,
    /// Status-change time (ctime) in nanoseconds since the Unix epoch when
    /// indexed: unlike the modification time, no tool can set it back, so a
    /// rewrite with an old mtime (`cp -p`, `touch -r`) still shows. `RACY`
    /// marks a file changed too close to the build to trust.
    pub changed_ns: i64,
    /// A combination of [`flags`].
    pub flags: u32,
}

/// Why a build left a file's bytes out of the index (`tg status --skipped`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeftOut {
    /// A binary file: indexed up to its first NUL.
    Binary,
    /// Larger than the size limit.
    TooLarge,
    /// A directory that could not be read: every query walks it.
    UnreadableDirectory,
    /// A file that could not be read.
    Unreadable,
    /// An encoding the indexer does not handle: searched directly.
    Encoding,
}

impl std::fmt::Display for LeftOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LeftOut::Binary => "binary (indexed up to its first NUL)",
            LeftOut::TooLarge => "too large",
            LeftOut::UnreadableDirectory => "unreadable directory (walked by every query)",
            LeftOut::Unreadable => "unreadable",
            LeftOut::Encoding => "encoding (searched directly)",
        })
    }
}

impl FileRef<'_> {
    /// Whether this entry is a file to search (not a directory or a path
    /// watched for changes to the walk).
    pub fn is_file(&self) -> bool {
        self.flags & flags::NOT_A_FILE == 0
    }

    /// Why the build left this entry's bytes out, if it did.
    pub fn left_out(&self) -> Option<LeftOut> {
        match self.flags & flags::SKIPPED_ANY {
            0 => None,
            flags::SKIPPED_BINARY => Some(LeftOut::Binary),
            flags::SKIPPED_TOO_LARGE => Some(LeftOut::TooLarge),
            flags::SKIPPED_UNREADABLE if self.flags & flags::DIR != 0 => {
                Some(LeftOut::UnreadableDirectory)
            }
            flags::SKIPPED_ENCODING => Some(LeftOut::Encoding),
            _ => Some(LeftOut::Unreadable),
        }
    }

    /// An owned copy.
    pub fn to_meta(&self) -> FileMeta {
        FileMeta {
            path: self.path.to_vec(),
            size: self.size,
            changed_ns: self.changed_ns,
            flags: self.flags,
        }
    }
}

/// A document: a byte range of one file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DocMeta {
    /// The file the range belongs to.
    pub file: FileId,
    /// Offset of the first byte in the file.
    pub offset: u64,
    /// Length of the range in bytes.
    pub len: u64,
    /// 1-based line number of the range's first line.
    pub first_line: u64,
}

/// Length of one file record.
pub(crate) const FILE_RECORD_LEN: usize = 32;
/// Length of one document record.
pub(crate) const DOC_RECORD_LEN: usize = 32;

/// Appends the record of a file whose path starts at `path_off` in `paths`.
pub(crate) fn encode_file(out: &mut Vec<u8>, f: &FileMeta, path_off: u64) {
    out.put_le(path_off).put_le(f.path.len() as u32).put_le(f.flags);
    out.put_le(f.size).put_le(f.changed_ns);
}

/// Appends the record of a document.
pub(crate) fn encode_doc(out: &mut Vec<u8>, d: &DocMeta) {
    out.put_le(d.file).put_le(0u32).put_le(d.offset).put_le(d.len).put_le(d.first_line);
}

/// Decodes file record `i`. The caller has validated the tables with
/// [`validate`], so this does not fail; out-of-range reads yield zeros.
pub(crate) fn decode_file<'a>(files: &[u8], paths: &'a [u8], i: usize) -> FileRef<'a> {
    let at = i * FILE_RECORD_LEN;
    let off = read_u64(files, at).unwrap_or(0) as usize;
    let len = read_u32(files, at + 8).unwrap_or(0) as usize;
    FileRef {
        path: paths.get(off..off.saturating_add(len)).unwrap_or(&[]),
        flags: read_u32(files, at + 12).unwrap_or(0),
        size: read_u64(files, at + 16).unwrap_or(0),
        changed_ns: read_u64(files, at + 24).unwrap_or(0) as i64,
    }
}

/// Decodes document record `i` (see [`decode_file`] on validation).
pub(crate) fn decode_doc(docs: &[u8], i: usize) -> DocMeta {
    let at = i * DOC_RECORD_LEN;
    DocMeta {
        file: read_u32(docs, at).unwrap_or(0),
        offset: read_u64(docs, at + 8).unwrap_or(0),
        len: read_u64(docs, at + 16).unwrap_or(0),
        first_line: read_u64(docs, at + 24).unwrap_or(0),
    }
}

/// Checks the file and document tables: whole records, every path inside
/// `paths`, every document's file id in range, counts within `u32`.
/// Returns `(file_count, doc_count)`.
pub fn validate(files: &[u8], paths: &[u8], docs: &[u8]) -> Result<(u32, u32), IndexError> {
    let c = IndexError::corrupt;
    if !files.len().is_multiple_of(FILE_RECORD_LEN) || !docs.len().is_multiple_of(DOC_RECORD_LEN) {
        return Err(c("file or document table has a partial record"));
    }
    let nfiles = u32::try_from(files.len() / FILE_RECORD_LEN).map_err(|_| c("too many files"))?;
    let ndocs = u32::try_from(docs.len() / DOC_RECORD_LEN).map_err(|_| c("too many docs"))?;
    for i in 0..nfiles as usize {
        let at = i * FILE_RECORD_LEN;
        let off = read_u64(files, at).ok_or_else(|| c("file record"))?;
        let len = u64::from(read_u32(files, at + 8).ok_or_else(|| c("file record"))?);
        if off.checked_add(len).is_none_or(|end| end > paths.len() as u64) {
            return Err(c(&format!("file {i}: path outside the paths section")));
        }
    }
    for i in 0..ndocs as usize {
        let file = read_u32(docs, i * DOC_RECORD_LEN).ok_or_else(|| c("doc record"))?;
        if file >= nfiles {
            return Err(c(&format!("doc {i}: file id {file} out of range")));
        }
    }
    Ok((nfiles, ndocs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let f = FileMeta { path: b"a/\xffb.rs".to_vec(), size: 9, changed_ns: -5, flags: 3 };
        let mut files = Vec::new();
        encode_file(&mut files, &f, 0);
        let d = DocMeta { file: 0, offset: 7, len: 2, first_line: 4 };
        let mut docs = Vec::new();
        encode_doc(&mut docs, &d);
        assert_eq!(validate(&files, &f.path, &docs).unwrap(), (1, 1));
        assert_eq!(decode_file(&files, &f.path, 0).to_meta(), f);
        assert_eq!(decode_doc(&docs, 0), d);
        assert!(validate(&files, b"short", &docs).is_err());
        encode_doc(&mut docs, &DocMeta { file: 1, ..d });
        assert!(validate(&files, &f.path, &docs).is_err());
    }
}
