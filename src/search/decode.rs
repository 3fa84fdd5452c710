//! Files whose searched text is not their bytes: compressed files
//! (`-z/--search-zip`, decompressed in-process) and files run through a
//! preprocessor (`--pre COMMAND`, its stdout searched), as ripgrep does.
//!
//! A run's [`Decoding`] decides from the path alone (no I/O), so a driver
//! asks before it opens a file; [`Transform::open`] gives the reader whose
//! bytes are searched. A preprocessor, when its globs match,
//! wins over decompression. Recognised extensions are ripgrep's: `.gz`,
//! `.tgz`, `.bz2`, `.tbz2`, `.xz`, `.txz`, `.lzma`, `.lz4`, `.br`, `.zst`,
//! `.zstd`, and `.Z` (which rg hands to `uncompress`; so does tg).

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::options::ReadOptions;

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

impl Format {
    /// The format of `path`, by its extension as ripgrep recognises it.
    pub fn of(path: &Path) -> Option<Format> {
        Some(match path.extension().and_then(OsStr::to_str)? {
            "gz" | "tgz" => Format::Gzip,
            "bz2" | "tbz2" => Format::Bzip2,
            "xz" | "txz" => Format::Xz,
            "lzma" => Format::Lzma,
            "lz4" => Format::Lz4,
            "br" => Format::Brotli,
            "zst" | "zstd" => Format::Zstd,
            "Z" => Format::Compress,
            _ => return None,
        })
    }

    /// A reader of `file`'s decompressed bytes.
    pub fn decoder(self, file: File, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        let buffered = BufReader::with_capacity(256 << 10, file);
        Ok(match self {
            Format::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(buffered)),
            Format::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(buffered)),
            Format::Xz => Box::new(liblzma::bufread::XzDecoder::new_multi_decoder(buffered)),
            Format::Lzma => {
                let stream = liblzma::stream::Stream::new_lzma_decoder(u64::MAX)
                    .map_err(io::Error::other)?;
                Box::new(liblzma::bufread::XzDecoder::new_stream(buffered, stream))
            }
            Format::Lz4 => Box::new(lz4_flex::frame::FrameDecoder::new(buffered)),
            Format::Brotli => Box::new(brotli_decompressor::Decompressor::new(buffered, 64 << 10)),
            Format::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(buffered)?),
            Format::Compress => {
                return Ok(Box::new(Piped::spawn(Command::new("uncompress").arg("-c"), path)?));
            }
        })
    }
}

/// How a file's searched text is made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transform {
    /// Decompressed in-process.
    Decompress(Format),
    /// The stdout of this command, run with the path as its argument and
    /// the file on its stdin.
    Preprocess(PathBuf),
}

impl Transform {
    /// Opens `path` and returns the reader of its searched text.
    pub fn open(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        match self {
            Transform::Decompress(format) => format.decoder(File::open(path)?, path),
            Transform::Preprocess(command) => {
                Ok(Box::new(Piped::spawn(Command::new(command).arg(path), path)?))
            }
        }
    }
}

/// A run's rules for transforming files: built once, asked per file.
#[derive(Clone, Debug, Default)]
pub struct Decoding {
    zip: bool,
    preprocessor: Option<PathBuf>,
    /// `--pre-glob`s (`None`: every file goes through the preprocessor).
    globs: Option<GlobSet>,
}

impl Decoding {
    /// The rules of `opts` (`-z`, `--pre`, `--pre-glob`).
    pub fn new(opts: &ReadOptions) -> Result<Decoding, globset::Error> {
        let globs = if opts.preprocessor_globs.is_empty() {
            None
        } else {
            let mut b = GlobSetBuilder::new();
            for g in &opts.preprocessor_globs {
                b.add(Glob::new(g)?);
            }
            Some(b.build()?)
        };
        Ok(Decoding { zip: opts.search_zip, preprocessor: opts.preprocessor.clone(), globs })
    }

    /// Whether any file may be transformed in this run.
    pub fn is_active(&self) -> bool {
        self.zip || self.preprocessor.is_some()
    }

    /// The transform for `path` (`None`: its bytes are searched). A
    /// preprocessor whose globs match wins over decompression.
    pub fn transform(&self, path: &Path) -> Option<Transform> {
        if let Some(command) = &self.preprocessor {
            let name = path.file_name().map_or(path, Path::new);
            if self.globs.as_ref().is_none_or(|g| g.is_match(path) || g.is_match(name)) {
                return Some(Transform::Preprocess(command.clone()));
            }
        }
        if self.zip {
            return Format::of(path).map(Transform::Decompress);
        }
        None
    }
}

/// A child process's stdout as a reader: the file is its stdin; when the
/// output ends, a failed exit becomes an error that carries its stderr.
struct Piped {
    child: Child,
    stdout: ChildStdout,
    what: String,
    done: bool,
}

impl Piped {
    fn spawn(command: &mut Command, path: &Path) -> io::Result<Piped> {
        let what = format!("{:?}", command.get_program());
        let mut child = command
            .stdin(File::open(path)?)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("could not run {what}: {e}")))?;
        let stdout = child.stdout.take().expect("stdout was piped");
        Ok(Piped { child, stdout, what, done: false })
    }

    /// Waits for the child; an error when it failed.
    fn finish(&mut self) -> io::Result<()> {
        self.done = true;
        let mut stderr = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut stderr);
        }
        let status = self.child.wait()?;
        if status.success() {
            return Ok(());
        }
        let stderr = stderr.trim();
        Err(io::Error::other(if stderr.is_empty() {
            format!("{} exited with {status}", self.what)
        } else {
            format!("{} exited with {status}: {stderr}", self.what)
        }))
    }
}

impl Read for Piped {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.stdout.read(buf)?;
        if n == 0 && !buf.is_empty() && !self.done {
            self.finish()?;
        }
        Ok(n)
    }
}

impl Drop for Piped {
    fn drop(&mut self) {
        if !self.done {
            // Stopped early (`-l`, `-q`, `-m`): the output is not wanted.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn read_all(mut r: Box<dyn Read + Send>) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        r.read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn extensions_name_formats() {
        assert_eq!(Format::of(Path::new("a/b.log.gz")), Some(Format::Gzip));
        assert_eq!(Format::of(Path::new("x.tbz2")), Some(Format::Bzip2));
        assert_eq!(Format::of(Path::new("x.zstd")), Some(Format::Zstd));
        assert_eq!(Format::of(Path::new("x.Z")), Some(Format::Compress));
        assert_eq!(Format::of(Path::new("x.z")), None);
        assert_eq!(Format::of(Path::new("gz")), None);
    }

    #[test]
    fn multi_member_gzip_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("two.gz");
        let mut bytes = Vec::new();
        for part in [&b"first\n"[..], b"second\n"] {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(part).unwrap();
            bytes.extend(enc.finish().unwrap());
        }
        std::fs::write(&path, &bytes).unwrap();
        let r = Format::Gzip.decoder(File::open(&path).unwrap(), &path).unwrap();
        assert_eq!(read_all(r).unwrap(), b"first\nsecond\n");
        // Truncated: an error, not a short answer.
        std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
        let r = Format::Gzip.decoder(File::open(&path).unwrap(), &path).unwrap();
        assert!(read_all(r).is_err());
    }

    #[test]
    fn a_failing_preprocessor_is_an_error_with_its_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, b"hello\n").unwrap();
        let cat = Transform::Preprocess(PathBuf::from("cat"));
        assert_eq!(read_all(cat.open(&path).unwrap()).unwrap(), b"hello\n");
        let failing = Transform::Preprocess(PathBuf::from("false"));
        let err = read_all(failing.open(&path).unwrap()).unwrap_err();
        assert!(err.to_string().contains("exited with"), "{err}");
        let missing = Transform::Preprocess(PathBuf::from("/nonexistent/pre"));
        assert!(missing.open(&path).is_err());
    }
}
