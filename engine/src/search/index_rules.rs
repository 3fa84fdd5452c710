//! What a search's options allow of the indexes it may read: why it
//! cannot use one at all ([`unusable_for`], and for a file's own block
//! index or a compressed text's index), and what freshness must read of a
//! tree whatever the index says ([`fresh_rules`]).

use std::path::Path;

use crate::index::fresh::{Reads, Rules};
use crate::options::{EncodingChoice, Mode, OutputMode, SearchOptions};
use crate::query::search_plan::Unused;

/// What the index's freshness check needs of the search `opts`.
pub(crate) fn fresh_rules(opts: &SearchOptions) -> Rules<'_> {
    Rules {
        walk: &opts.walk,
        base: &opts.index.base,
        threads: opts.run.threads,
        skip_stdout: matches!(opts.mode, Mode::Search(_)),
        reads: Reads {
            binary_whole: reads_binary_whole(opts),
            misses: lists_misses(opts),
            zip: opts.read.search_zip,
        },
    }
}

/// Why this search cannot be answered from an index at all, if it cannot.
/// With `-z` a tree index answers for the files `-z` leaves as they are;
/// compressed ones are always read (`crate::kind::maybe_compressed`),
/// each through its own index if it has one.
///
/// Every output mode can: `--json`'s messages are the scan's, except that
/// its summary's statistics (and `--stats`) count what was really read; a
/// listing of files without a match reports the files the index ruled out
/// without reading them. `-E none` reads raw bytes, as indexed.
pub(crate) fn unusable_for(opts: &SearchOptions) -> Option<Unused> {
    let stdin_only = opts.walk.paths.iter().all(|p| p == Path::new("-"));
    Some(if !opts.index.enabled {
        Unused::Disabled
    } else if opts.read.invert_match {
        Unused::Inverted
    } else if passes_through(opts) {
        Unused::Passthru
    } else if matches!(opts.read.encoding, EncodingChoice::Label(_)) {
        Unused::Encoding
    } else if opts.read.preprocessor.is_some() {
        Unused::Transformed
    } else if stdin_only {
        Unused::Stdin
    } else {
        return None;
    })
}

/// Whether `--passthru` prints lines: in the modes that print lines (a
/// count or a listing prints the same with or without it).
fn passes_through(opts: &SearchOptions) -> bool {
    opts.read.passthru && matches!(opts.mode, Mode::Search(OutputMode::Standard | OutputMode::Json))
}

/// Why the block index of a file's own bytes (a huge file, a packed
/// file's text) cannot serve a search of those bytes, if it cannot: as
/// [`unusable_for`], except that `--pre`, which left this file as it is
/// (no `--pre-glob` took it), does not apply.
pub(crate) fn bytes_unusable_for(opts: &SearchOptions) -> Option<Unused> {
    unusable_for(opts).filter(|why| *why != Unused::Transformed)
}

/// Why the index of a compressed file's text ([`crate::index::gz`]) cannot
/// serve this search at all, if it cannot. `-z` is what such an index is
/// for; an inverted search, or one whose trigram query is everything,
/// still reads the whole text through it, in parallel pieces.
pub(crate) fn text_unusable_for(opts: &SearchOptions) -> Option<Unused> {
    Some(if !opts.index.enabled {
        Unused::Disabled
    } else if matches!(opts.read.encoding, EncodingChoice::Label(_)) {
        Unused::Encoding
    } else if opts.read.preprocessor.is_some() {
        Unused::Transformed
    } else {
        return None;
    })
}

/// Whether a walked binary file, which an index saw only up to its first
/// NUL (all that a walk with default binary detection reads of it), must
/// be read whatever its candidacy: the search reads binary files whole, or
/// lists files without a match (ripgrep lists no binary file that its
/// detection stopped, so only a read can tell).
fn reads_binary_whole(opts: &SearchOptions) -> bool {
    !opts.walked_binary_stops_at_nul() || lists_misses(opts)
}

/// Whether the output lists files without a match.
pub fn lists_misses(opts: &SearchOptions) -> bool {
    match opts.mode {
        Mode::Search(OutputMode::FilesWithoutMatch) => true,
        Mode::Search(OutputMode::Count | OutputMode::CountMatches) => opts.print.include_zero,
        _ => false,
    }
}
