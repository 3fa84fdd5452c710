//! trigrep's own flags: the index and huge files.
//!
//! `--index-dir` is defined once, here ([`INDEX_DIR`]): the search reads
//! it through the table, and every subcommand that finds an index
//! flattens [`IndexDirArg`], whose name, value name and help are that
//! entry's. Both resolve the base directory through [`Env::base`], the one
//! reader of `TG_INDEX_DIR`.

use std::path::PathBuf;

use trigrep::options::IoChoice;

use super::flag::{Flag, size, text, unknown_choice};
use crate::cli::config::Env;

/// `--index-dir DIR`: the base directory of indexes.
pub const INDEX_DIR: Flag = Flag::value("index-dir", "DIR", "Where indexes live.", |v, a| {
    a.index_base = Some(PathBuf::from(v.given()));
    Ok(())
})
.more("Default: TG_INDEX_DIR, else the user's cache directory.");

/// [`INDEX_DIR`] for the subcommands (clap), shared by every one that
/// finds an index.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct IndexDirArg {
    /// The directory given, if any.
    #[arg(
        long = INDEX_DIR.long,
        value_name = INDEX_DIR.var,
        help = INDEX_DIR.help,
        long_help = format!("{} {}", INDEX_DIR.help, INDEX_DIR.more),
    )]
    pub given: Option<PathBuf>,
}

impl IndexDirArg {
    /// The base directory of indexes ([`Env::base`]).
    pub fn base(&self) -> PathBuf {
        Env::detect().base(self.given.clone())
    }
}

/// trigrep's flags.
pub const FLAGS: &[Flag] = &[
    Flag::value("io", "STRATEGY", "How huge files searched in chunks are read.", |v, a| {
        a.io = match text(&v.given())? {
            "auto" => IoChoice::Auto,
            "mmap" => IoChoice::Mmap,
            "read" => IoChoice::Read,
            other => return Err(unknown_choice(other)),
        };
        Ok(())
    })
    .choices(&[
        ("auto", "map or read by the file's size against free memory (docs/IO.md)"),
        ("mmap", "memory-map"),
        ("read", "read into large buffers"),
    ]),
    Flag::switch("no-index", "Do not use an index even if one exists.", |_, a| {
        a.no_index = true;
        Ok(())
    })
    .more("Scan the files directly."),
    Flag::switch("no-server", "Do not ask a server (tg serve) even if one runs.", |_, a| {
        a.no_server = true;
        Ok(())
    })
    .more("Check the index's freshness by stat-ing its files instead."),
    INDEX_DIR,
    Flag::value(
        "chunk-threshold",
        "NUM+SUFFIX?",
        "Search files of at least this size in chunks on all threads.",
        |v, a| {
            a.chunk_threshold = Some(size(&v.given())?);
            Ok(())
        },
    )
    .more("A size with an optional K, M or G suffix; default 64M, or TG_CHUNK_THRESHOLD."),
    Flag::value(
        "chunk-size",
        "NUM+SUFFIX?",
        "The nominal size of one chunk of a huge file.",
        |v, a| {
            a.chunk_size = Some(size(&v.given())?);
            Ok(())
        },
    )
    .more(
        "A size with an optional K, M or G suffix; default 16M, less for files under 64 MiB \
         per thread, or TG_CHUNK_SIZE.",
    ),
];
