//! What a scan reads: the files of its paths, walked with `tg`'s (and
//! `rg`'s) default rules, each a [`Unit`]; a block-indexed text is cut
//! into parts, so that one huge log spreads over partitions; a tree index
//! covering a path rules out unchanged files that cannot match.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use datafusion::error::{DataFusionError, Result};
use trigrep::index::fresh::{changes, judge};
use trigrep::index::location;
use trigrep::index::reader::IndexReader;
use trigrep::index::tree::changed_ns;
use trigrep::options::walk::WalkFilters;

use crate::filter::Pred;
use crate::read::Unit;
use crate::text;

/// A block-indexed text gets one part per this many bytes of its text, at
/// most one per partition.
const PART_BYTES: u64 = 64 << 20;

/// The units of `paths`, in walk order, and how many files a tree index
/// ruled out.
pub fn units(
    paths: &[PathBuf],
    base: &Path,
    pred: Option<&Pred>,
    partitions: usize,
) -> Result<(Vec<Unit>, u64)> {
    let mut units = Vec::new();
    let mut pruned = 0;
    for source in paths {
        let tree = pred.and_then(|p| TreeIndex::open(source, base, p));
        let walk = WalkFilters::default()
            .builder(std::slice::from_ref(source), 1, true, false)
            .map_err(|e| DataFusionError::Execution(e.to_string()))?;
        for entry in walk.build() {
            let entry = entry.map_err(|e| DataFusionError::Execution(e.to_string()))?;
            let md = entry.metadata().ok();
            let is_file = if entry.depth() == 0 {
                std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file())
            } else {
                entry.file_type().is_some_and(|t| t.is_file())
            };
            if !is_file {
                continue;
            }
            let path = entry.path().to_path_buf();
            let size = md.as_ref().map_or(0, |m| m.len());
            if let Some(len) = text::block_text_len(&path, size, base) {
                let parts = (len / PART_BYTES).clamp(1, partitions.max(1) as u64) as u32;
                units.extend((0..parts).map(|part| Unit::Text { path: path.clone(), part, parts }));
            } else if tree.as_ref().is_some_and(|t| t.rules_out(source, &path, md.as_ref())) {
                pruned += 1;
            } else {
                units.push(Unit::File { path });
            }
        }
    }
    Ok((units, pruned))
}

/// Deals `units` to at most `n` partitions, round robin (a text's parts
/// land on different partitions); never fewer than one partition.
pub fn deal(units: Vec<Unit>, n: usize) -> Vec<Vec<Unit>> {
    let n = n.clamp(1, units.len().max(1));
    let mut parts = vec![Vec::new(); n];
    for (i, u) in units.into_iter().enumerate() {
        parts[i % n].push(u);
    }
    parts
}

/// A tree index covering a scanned path, opened for one predicate.
struct TreeIndex {
    reader: IndexReader,
    /// Bit `i` set: file `i` has a candidate document.
    candidates: Vec<u64>,
    /// The scanned path relative to the index's root.
    rel: PathBuf,
}

impl TreeIndex {
    /// The index covering `source`, if there is a usable one.
    fn open(source: &Path, base: &Path, pred: &Pred) -> Option<TreeIndex> {
        let start = if source.is_dir() { source.to_path_buf() } else { source.parent()?.into() };
        let found = location::find(base, &start)?;
        let reader = IndexReader::open(&found.dir).ok()?;
        if reader.needs_reindex() {
            return None;
        }
        let docs = reader.candidates(&pred.query(reader.has_edges())).ok()?;
        let candidates = judge::candidate_files(&reader, docs.as_slice());
        let rel = source.canonicalize().ok()?.strip_prefix(&found.root).ok()?.to_path_buf();
        Some(TreeIndex { reader, candidates, rel })
    }

    /// Whether the walked file at `path` (under `source`) is in the index,
    /// unchanged since its build, and no candidate: then it holds no
    /// matching line and is not read.
    fn rules_out(&self, source: &Path, path: &Path, md: Option<&std::fs::Metadata>) -> bool {
        let (Ok(rest), Some(md)) = (path.strip_prefix(source), md) else { return false };
        let rel = if rest.as_os_str().is_empty() { self.rel.clone() } else { self.rel.join(rest) };
        let Some(id) = changes::lookup(&self.reader, rel.as_os_str().as_bytes()) else {
            return false;
        };
        let Some(meta) = self.reader.file(id) else { return false };
        // A file whose bytes the build left out (binary, too large, ...)
        // is no candidate only because the index never saw its bytes.
        meta.is_file()
            && meta.left_out().is_none()
            && meta.size == md.len()
            && meta.changed_ns == changed_ns(md)
            && !judge::is_candidate(&self.candidates, id)
    }
}
