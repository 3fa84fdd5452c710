//! The line `tg index` and `tg pack` print when done: sizes in human units
//! (`1.63 KiB`), a share only where it means something (an index larger
//! than its tree says so), counts with their noun in the right number,
//! and a rate only for inputs large enough to time.

use std::path::Path;

use indicatif::HumanBytes;
use trigrep::index::blocks::BuiltBlocks;
use trigrep::index::build::Built;
use trigrep::pack::write::PackSummary;
use trigrep::text::indexed_format::BuiltText;

/// Below this much input a rate says more about start-up than speed.
const RATE_FROM: u64 = 1 << 20;

/// `tg index DIR`'s line.
pub fn tree(built: &Built) -> String {
    let s = &built.summary;
    format!(
        "indexed {}{} ({}) in {:.2}s: {} trigrams, {} postings, index {} ({}), {} left out; \
         peak private memory {}\nindex: {}",
        counted(built.files as u64, "file"),
        kept(built),
        HumanBytes(built.bytes),
        built.elapsed.as_secs_f64(),
        s.trigrams,
        s.postings,
        HumanBytes(s.bytes),
        share(s.bytes, built.bytes, "tree", 1),
        built.skipped,
        HumanBytes(built.peak_private),
        built.dir.display(),
    )
}

/// How many of a tree's files were kept from the index replaced, unread:
/// nothing when none was.
fn kept(built: &Built) -> String {
    match built.kept {
        0 => String::new(),
        n => format!(" ({} read, {n} unchanged kept)", built.files - n as usize),
    }
}

/// `tg index --stats`'s lines for a tree: where the time went and the
/// cores kept busy.
pub fn tree_stats(built: &Built) -> String {
    let t = &built.times;
    let s = &built.summary.sort;
    let secs = |d: std::time::Duration| format!("{:.2}s", d.as_secs_f64());
    let wall = built.elapsed.as_secs_f64();
    format!(
        "time: walk {}, read+extract+sort {} (thread time: read {}, extract {}, sort {}, \
         spill {}), merge {}, write {}, verify {}\ncpu: {} user+system in {} wall: {:.2} cores \
         busy on average\nsort: {} pairs, {}, {} merge passes, {} spilled",
        secs(t.walk),
        secs(t.extracting),
        secs(t.read),
        secs(t.extract),
        secs(t.sorting),
        secs(t.spilling),
        secs(t.merging),
        secs(t.writing),
        secs(t.verifying),
        secs(t.cpu),
        secs(built.elapsed),
        t.cpu.as_secs_f64() / wall.max(1e-9),
        s.pairs,
        counted(s.runs, "run"),
        s.merge_passes,
        HumanBytes(s.spilled_bytes),
    )
}

/// `tg index FILE`'s line.
pub fn file(path: &Path, built: &BuiltBlocks) -> String {
    let s = &built.summary;
    format!(
        "indexed {} ({}) as {} in {:.2}s: {} trigrams, {} postings, index {} ({}); peak \
         private memory {}\nindex: {}",
        path.display(),
        HumanBytes(built.bytes),
        counted(built.blocks as u64, "block"),
        built.elapsed.as_secs_f64(),
        s.trigrams,
        s.postings,
        HumanBytes(s.bytes),
        share(s.bytes, built.bytes, "file", 2),
        HumanBytes(built.peak_private),
        built.dir.display(),
    )
}

/// `tg index FILE.gz`'s line (any compressed file whose text tg indexes).
pub fn compressed(path: &Path, built: &BuiltText) -> String {
    let s = &built.summary;
    format!(
        "indexed {} ({} of text) as {} and {} in {:.2}s: {} trigrams, index {} ({}); peak \
         private memory {}\nindex: {}",
        path.display(),
        HumanBytes(built.text_bytes),
        counted(built.blocks as u64, "block"),
        counted(built.points as u64, "access point"),
        built.elapsed.as_secs_f64(),
        s.trigrams,
        HumanBytes(s.bytes),
        share(s.bytes, built.text_bytes, "text", 2),
        HumanBytes(built.peak_private),
        built.dir.display(),
    )
}

/// `tg pack`'s line.
pub fn packed(input: &Path, output: &Path, s: &PackSummary) -> String {
    let secs = s.elapsed.as_secs_f64();
    let rate = if s.text_len >= RATE_FROM {
        format!(" ({:.0} MB/s)", s.text_len as f64 / 1e6 / secs.max(1e-9))
    } else {
        String::new()
    };
    format!(
        "packed {} ({}) into {} ({}, {} incl. a {} index) as {} in {secs:.2}s{rate}; peak \
         private memory {}",
        input.display(),
        HumanBytes(s.text_len),
        output.display(),
        HumanBytes(s.packed_len),
        share(s.packed_len, s.text_len, "text", 2),
        HumanBytes(s.index_len),
        counted(s.frames as u64, "frame"),
        HumanBytes(s.peak_private),
    )
}

/// `part` as a share of `whole` ("12.3% of the tree", `decimals` places),
/// or what it is when a share would mislead.
fn share(part: u64, whole: u64, what: &str, decimals: usize) -> String {
    if whole == 0 {
        format!("an empty {what}")
    } else if part >= whole {
        format!("larger than the {what}")
    } else {
        format!("{:.decimals$}% of the {what}", 100.0 * part as f64 / whole as f64)
    }
}

/// `n` and `noun`, plural unless one.
fn counted(n: u64, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_and_counts_read_well() {
        assert_eq!(share(1856, 13, "tree", 1), "larger than the tree");
        assert_eq!(share(15, 100, "tree", 1), "15.0% of the tree");
        assert_eq!(share(0, 0, "tree", 1), "an empty tree");
        assert_eq!(counted(1, "frame"), "1 frame");
        assert_eq!(counted(0, "frame"), "0 frames");
        assert_eq!(counted(2, "access point"), "2 access points");
    }
}
