//! The one list of compression formats: each format's file-name endings
//! (rg's `-z` globs `*.gz`, …, read as endings) and its magic bytes.

use std::path::Path;

/// A compression format a file's text may be stored in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// gzip, every member (`.gz`, `.tgz`).
    Gzip,
    /// bzip2, every stream (`.bz2`, `.tbz2`).
    Bzip2,
    /// xz, every stream (`.xz`, `.txz`).
    Xz,
    /// legacy lzma (`.lzma`).
    Lzma,
    /// LZ4 frames (`.lz4`).
    Lz4,
    /// Brotli (`.br`).
    Brotli,
    /// Zstandard frames (`.zst`, `.zstd`); a packed log is one too.
    Zstd,
    /// Unix `compress` (`.Z`): through the `uncompress` program, as rg does.
    Compress,
}

/// The file-name endings rg's `-z` globs (`*.gz`, …) recognise, each with
/// its format. Case matters, as it does for rg.
pub const ENDINGS: &[(&str, Format)] = &[
    (".gz", Format::Gzip),
    (".tgz", Format::Gzip),
    (".bz2", Format::Bzip2),
    (".tbz2", Format::Bzip2),
    (".xz", Format::Xz),
    (".txz", Format::Xz),
    (".lz4", Format::Lz4),
    (".lzma", Format::Lzma),
    (".br", Format::Brotli),
    (".zst", Format::Zstd),
    (".zstd", Format::Zstd),
    (".Z", Format::Compress),
];

/// The bytes each format's data (a gzip member, a bzip2 stream, a zstd
/// frame, …) opens with; lzma and brotli have none.
pub const MAGIC: &[(Format, &[u8])] = &[
    (Format::Gzip, &[0x1f, 0x8b]),
    (Format::Bzip2, b"BZh"),
    (Format::Xz, &[0xfd, b'7', b'z', b'X', b'Z', 0x00]),
    (Format::Lz4, &[0x04, 0x22, 0x4d, 0x18]),
    (Format::Zstd, &[0x28, 0xb5, 0x2f, 0xfd]),
    (Format::Compress, &[0x1f, 0x9d]),
];

impl Format {
    /// The format of `path`, by the end of its file name as ripgrep's globs
    /// recognise it (so `.gz` alone is gzip too; case matters).
    pub fn of(path: &Path) -> Option<Format> {
        Format::of_name(path.file_name()?.as_encoded_bytes())
    }

    /// The format a file named `name` (a path's bytes, or its last
    /// component's) is in, by the ending of [`ENDINGS`] it has.
    pub(crate) fn of_name(name: &[u8]) -> Option<Format> {
        ENDINGS.iter().find(|(end, _)| name.ends_with(end.as_bytes())).map(|&(_, f)| f)
    }

    /// The bytes the format's data opens with (see [`MAGIC`]; empty: none).
    pub fn magic(self) -> &'static [u8] {
        MAGIC.iter().find(|(f, _)| *f == self).map_or(&[], |(_, m)| m)
    }

    /// The format's usual name, which starts its error messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Gzip => "gzip",
            Format::Bzip2 => "bzip2",
            Format::Xz => "xz",
            Format::Lzma => "lzma",
            Format::Lz4 => "lz4",
            Format::Brotli => "brotli",
            Format::Zstd => "zstd",
            Format::Compress => "uncompress",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_name_endings_name_formats() {
        assert_eq!(Format::of(Path::new("a/b.log.gz")), Some(Format::Gzip));
        assert_eq!(Format::of(Path::new("x.tbz2")), Some(Format::Bzip2));
        assert_eq!(Format::of(Path::new("x.zstd")), Some(Format::Zstd));
        assert_eq!(Format::of(Path::new("x.Z")), Some(Format::Compress));
        assert_eq!(Format::of(Path::new("d/.gz")), Some(Format::Gzip));
        assert_eq!(Format::of(Path::new("x.z")), None);
        assert_eq!(Format::of(Path::new("x.GZ")), None);
        assert_eq!(Format::of(Path::new("gz")), None);
    }

    #[test]
    fn magic_bytes_are_the_formats_own() {
        assert_eq!(Format::Gzip.magic(), [0x1f, 0x8b]);
        assert_eq!(Format::Bzip2.magic(), b"BZh");
        assert!(Format::Brotli.magic().is_empty());
    }
}
