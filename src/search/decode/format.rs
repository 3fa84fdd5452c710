//! The compression formats `-z` knows, and which files are compressed:
//! rg's globs (`*.gz`, …), read as file-name endings.

use std::path::Path;

/// A compression format `-z` decompresses.
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
    /// Zstandard frames (`.zst`, `.zstd`).
    Zstd,
    /// Unix `compress` (`.Z`): through the `uncompress` program, as rg does.
    Compress,
}

/// The file-name endings rg's `-z` globs (`*.gz`, …) recognise.
const ENDINGS: &[(&str, Format)] = &[
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

impl Format {
    /// The format of `path`, by the end of its file name as ripgrep's globs
    /// recognise it (so `.gz` alone is gzip too; case matters).
    pub fn of(path: &Path) -> Option<Format> {
        let name = path.file_name()?.as_encoded_bytes();
        ENDINGS.iter().find(|(end, _)| name.ends_with(end.as_bytes())).map(|&(_, f)| f)
    }

    /// The format's usual name, which starts its error messages.
    pub(super) fn name(self) -> &'static str {
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
    fn the_index_reads_every_file_z_decompresses() {
        let ends: Vec<&str> = ENDINGS.iter().map(|(end, _)| *end).collect();
        assert_eq!(ends, crate::index::fresh::judge::COMPRESSED_ENDINGS);
    }
}
