//! trigrep's own flags: the index and huge files.

use std::path::PathBuf;

use trigrep::options::IoChoice;

use super::{Flag, size, text, unknown_choice};

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
    Flag::value("index-dir", "DIR", "Where indexes live.", |v, a| {
        a.index_dir = Some(PathBuf::from(v.given()));
        Ok(())
    })
    .more("Default: TG_INDEX_DIR, else the user's cache directory."),
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
