//! Which huge files cannot be searched in chunks with these options, and
//! why: what chunks could not reproduce exactly is refused up front, and
//! the file is searched whole on one thread (`--stats` says why).

use grep_searcher::BinaryDetection;

use crate::options::{EncodingChoice, Mode, OutputMode, SearchOptions};

/// How many leading bytes of a file [`fallback_reason`] wants to see: the
/// span ripgrep's memory-map path checks for binary data up front.
pub const HEAD_LEN: usize = 64 << 10;

/// Why a file cannot be searched in chunks with these options, if it cannot.
///
/// `explicit` says the file was named on the command line; `head` holds the
/// file's first [`HEAD_LEN`] bytes (BOM sniffing, up-front binary check).
pub fn fallback_reason(opts: &SearchOptions, explicit: bool, head: &[u8]) -> Option<&'static str> {
    let binary = opts.binary_detection(explicit);
    let (read, print) = (&opts.read, &opts.print);
    if opts.matcher.multiline {
        Some("multiline")
    } else if opts.matcher.anchors_at_haystack_start() {
        Some("a pattern anchored at the haystack's start")
    } else if read.context != (0, 0) {
        Some("context")
    } else if read.passthru {
        Some("passthru")
    } else if read.max_count.is_some() {
        Some("max-count")
    } else if read.stop_on_nonmatch {
        Some("stop-on-nonmatch")
    } else if opts.matcher.null_data {
        Some("null-data")
    } else if matches!(read.encoding, EncodingChoice::Label(_)) {
        Some("encoding")
    } else if matches!(read.encoding, EncodingChoice::Auto) && has_bom(head) {
        Some("BOM")
    } else if print.prints_heading() || (print.file_separator.is_some() && !opts.walk.one_file) {
        Some("heading or file separators")
    } else if binary == BinaryDetection::none() {
        None
    } else if binary.quit_byte().is_some() {
        // Quit on rg's read path is searched in chunks that look for NUL
        // (see the module docs); on a map, rg looks for it in matched lines.
        // `--files-without-match` reads on past a match, so its answer
        // depends on a NUL anywhere in the file: not worth chunks.
        if opts.rg_mmap() {
            Some("binary detection: quit on a memory map")
        } else if opts.mode == Mode::Search(OutputMode::FilesWithoutMatch) {
            Some("binary detection: quit with --files-without-match")
        } else {
            None
        }
    } else if !opts.rg_mmap() {
        // rg's read path checks every buffer; chunks reproduce its map path.
        Some("binary detection of rg's read path")
    } else if memchr::memchr(0, head).is_some() {
        Some("binary data in the first 64 KiB")
    } else {
        None
    }
}

/// Whether `head` starts with a byte-order mark grep-searcher would sniff.
fn has_bom(head: &[u8]) -> bool {
    head.starts_with(b"\xEF\xBB\xBF")
        || head.starts_with(b"\xFF\xFE")
        || head.starts_with(b"\xFE\xFF")
}
