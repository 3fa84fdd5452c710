//! Input options: where patterns come from and how files are read in.

use std::path::PathBuf;

use super::flag::{Flag, Value, string};
use crate::cli::args::PatternSource;

/// The input options, in help order.
pub const FLAGS: &[Flag] = &[
    Flag::value("regexp", "PATTERN", "A pattern to search for.", |v, a| {
        a.patterns.push(PatternSource::Regexp(string(v.given())?));
        Ok(())
    })
    .short('e')
    .more(
        "May be given many times; lines matching any pattern are printed. Use it for a \
         pattern that starts with a dash (tg -e -foo). With -e or -f, every positional \
         argument is a path.",
    ),
    Flag::value("file", "PATTERNFILE", "Search for patterns from the given file.", |v, a| {
        a.patterns.push(PatternSource::File(PathBuf::from(v.given())));
        Ok(())
    })
    .short('f')
    .more(
        "One pattern per line; an empty line matches every line. '-' reads the patterns \
         from stdin. May be given many times, with -e too.",
    ),
    Flag::value("pre", "COMMAND", "Search output of COMMAND for each PATH.", |v, a| {
        if let Value::Switch(_) = v {
            a.pre = None;
            return Ok(());
        }
        let path = PathBuf::from(v.given());
        a.pre = (!path.as_os_str().is_empty()).then_some(path);
        if a.pre.is_some() {
            a.search_zip = false;
        }
        Ok(())
    })
    .negated("no-pre")
    .more(
        "COMMAND runs once per file with the file's path as its argument and the file \
         on its stdin; its stdout is searched. Not for stdin. An empty COMMAND or \
         --no-pre turns it off. Overrides -z.",
    ),
    Flag::value("pre-glob", "GLOB", "Include or exclude files from a preprocessor.", |v, a| {
        a.pre_glob.push(string(v.given())?);
        Ok(())
    })
    .more("With --pre, only files matching these globs ('!' excludes) are preprocessed."),
    Flag::switch("search-zip", "Search in compressed files.", |v, a| {
        a.search_zip = v.on();
        if a.search_zip {
            a.pre = None;
        }
        Ok(())
    })
    .short('z')
    .negated("no-search-zip")
    .more(
        "gzip, bzip2, xz, lzma, lz4, brotli and zstd files (known by extension) are \
         decompressed in-process and searched; .Z goes through 'uncompress'. Overrides \
         --pre.",
    ),
];
