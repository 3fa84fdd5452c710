//! Files whose searched text is not their bytes: compressed files
//! (`-z/--search-zip`, decompressed in-process) and files run through a
//! preprocessor (`--pre COMMAND`, its stdout searched), as ripgrep does.
//!
//! A run's `Decoding` decides from the path alone (no I/O), so a driver
//! asks before it opens a file; [`Transform::open`] gives the reader whose
//! bytes are searched. Stdin is never transformed (the drivers search it
//! before asking). The rules are rg 15.2's:
//!
//! - A preprocessor wins over decompression. `--pre-glob`s are gitignore-style
//!   override globs rooted at the working directory (`!` excludes; with at
//!   least one plain glob, a file none matches is left alone).
//! - A file is compressed when its name says so, by the door's rule for a
//!   search ([`crate::kind::Door::Search`]: rg's globs `*.gz`, …; the
//!   content is not sniffed).
//! - A file that fails to decompress is an error for that file, worded as rg
//!   words a decompressor's failure (`PATH: ` then the message between two
//!   rules of dashes); the search goes on. Everything but `.Z` is
//!   decompressed in-process, so a missing `gzip` does not matter; `.Z` runs
//!   `uncompress -c PATH` as rg does, and when that cannot start, the file is
//!   searched as it is, as rg does.
//! - A preprocessor runs as `COMMAND PATH` with the file on its stdin; its
//!   failure reads `preprocessor command failed: '"COMMAND" "PATH"': ` and
//!   its stderr (`<stderr is empty>` when it said nothing).
//!
//! The formats and which files are in them are the door's
//! ([`crate::kind`]). The pieces: `stream.rs` (the
//! in-process decoders, read as the programs rg runs read), `ahead.rs` (a
//! big file's decoder on a thread of its own, ahead of the search),
//! `piped.rs` (programs: `--pre`, `uncompress`).

mod ahead;
mod piped;
mod stream;

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use ignore::overrides::{Override, OverrideBuilder};

use crate::kind::Door;
pub use crate::kind::Format;
use crate::options::ReadOptions;

/// How a file's searched text is made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transform {
    /// Decompressed (in-process, but `.Z`).
    Decompress(Format),
    /// The stdout of this command, run with the path as its argument and
    /// the file on its stdin.
    Preprocess(PathBuf),
}

impl Transform {
    /// Opens `path` and returns the reader of its searched text.
    pub fn open(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        match self {
            Transform::Decompress(Format::Compress) => piped::uncompress(path),
            Transform::Decompress(format) => stream::open(*format, path),
            Transform::Preprocess(program) => piped::preprocess(program, path),
        }
    }
}

impl Transform {
    /// The text `format` (not [`Format::Compress`], which runs a program)
    /// decodes from the compressed bytes `compressed` reads, of the file or
    /// object at `path` (named in errors).
    pub fn decode(
        format: Format,
        path: &Path,
        compressed: Box<dyn Read + Send>,
    ) -> io::Result<Box<dyn Read + Send>> {
        stream::decode(format, path, compressed)
    }
}

/// A run's rules for transforming files: built once, asked per file.
#[derive(Clone, Debug)]
pub(crate) struct Decoding {
    zip: bool,
    preprocessor: Option<PathBuf>,
    /// `--pre-glob`s (empty: every file goes through the preprocessor).
    globs: Override,
}

impl Decoding {
    /// The rules of `opts` (`-z`, `--pre`, `--pre-glob`); the globs are
    /// rooted at the working directory, as rg roots them.
    pub fn new(opts: &ReadOptions) -> Result<Decoding, ignore::Error> {
        let globs = pre_globs(&opts.preprocessor_globs)?;
        Ok(Decoding { zip: opts.search_zip, preprocessor: opts.preprocessor.clone(), globs })
    }

    /// The transform for `path` (`None`: its bytes are searched). A
    /// preprocessor wins over decompression unless the globs exclude the file.
    pub(crate) fn transform(&self, path: &Path) -> Option<Transform> {
        if let Some(program) = &self.preprocessor
            && !self.globs.matched(path, false).is_ignore()
        {
            return Some(Transform::Preprocess(program.clone()));
        }
        self.door().opening(path).decompress.map(Transform::Decompress)
    }

    /// The front door these rules are (`-z` and `--pre`).
    pub fn door(&self) -> Door {
        Door::Search { zip: self.zip, pre: self.preprocessor.is_some() }
    }
}

/// The `--pre-glob`s as rg builds them: override globs rooted at the
/// working directory (none: the empty matcher, which matches nothing).
fn pre_globs(globs: &[String]) -> Result<Override, ignore::Error> {
    if globs.is_empty() {
        return Ok(Override::empty());
    }
    let cwd = std::env::current_dir().map_err(ignore::Error::Io)?;
    let mut b = OverrideBuilder::new(cwd);
    for g in globs {
        b.add(g)?;
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pre_globs_are_override_globs() {
        let rules = |globs: &[&str]| {
            let globs: Vec<String> = globs.iter().map(|g| g.to_string()).collect();
            let globs = pre_globs(&globs).unwrap();
            Decoding { zip: true, preprocessor: Some(PathBuf::from("pre")), globs }
        };
        let pre = Some(Transform::Preprocess(PathBuf::from("pre")));
        let gz = Some(Transform::Decompress(Format::Gzip));
        assert_eq!(rules(&[]).transform(Path::new("a.gz")), pre);
        assert_eq!(rules(&["*.txt"]).transform(Path::new("d/a.txt")), pre);
        assert_eq!(rules(&["*.txt"]).transform(Path::new("a.gz")), gz);
        assert_eq!(rules(&["!*.gz"]).transform(Path::new("a.gz")), gz);
        assert_eq!(rules(&["!*.gz"]).transform(Path::new("a.md")), pre);
        assert_eq!(rules(&["*", "!*.gz"]).transform(Path::new("a.gz")), gz);
        assert_eq!(rules(&["!*.gz", "*"]).transform(Path::new("a.gz")), pre);
    }
}
