//! `tg status --all`: every index kept under the index directory, of every
//! kind alike (a tree's index, a file's block index, a `.gz` file's index,
//! a packed file's verdict), read from the key each directory records
//! (`index::location::key`), with its size and age, and whether what it
//! describes still exists.

use std::io::Write;
use std::path::Path;

use indicatif::{HumanBytes, HumanDuration};
use trigrep::index::location::{self, Filed};

/// Writes one line per index directory under `base` to `out`.
pub fn write(out: &mut impl Write, base: &Path) -> anyhow::Result<()> {
    let filed = location::all(base)?;
    if filed.is_empty() {
        writeln!(out, "no indexes under {}", base.display())?;
        return Ok(());
    }
    writeln!(out, "{:<14} {:>10} {:>12}  describes", "kind", "size", "age")?;
    for f in &filed {
        let (bytes, newest) = contents(&f.dir);
        let age = newest.and_then(|t| t.elapsed().ok());
        let age = age.map_or_else(|| "-".to_string(), |a| format!("{:#}", HumanDuration(a)));
        let what = match &f.path {
            Some(p) if p.exists() => p.display().to_string(),
            Some(p) => format!("{} (gone)", p.display()),
            None => format!("{} (no key recorded)", f.dir.display()),
        };
        writeln!(out, "{:<14} {:>10} {:>12}  {what}", kind(f), HumanBytes(bytes).to_string(), age)?;
    }
    Ok(())
}

/// What the directory holds, by its key's kind, or for a path alone by
/// what the path is (a directory has a tree's index, a file a block index).
fn kind(f: &Filed) -> &'static str {
    match (f.kind.as_deref(), &f.path) {
        (Some("gz"), _) => ".gz index",
        (Some("zst"), _) => "packed check",
        (Some(_), _) => "unknown",
        (None, Some(p)) if p.is_dir() => "tree",
        (None, Some(p)) if p.is_file() => "block index",
        (None, _) => "index",
    }
}

/// The bytes of the files in `dir` and when the newest was written.
fn contents(dir: &Path) -> (u64, Option<std::time::SystemTime>) {
    let entries = std::fs::read_dir(dir).into_iter().flatten().flatten();
    let mds = entries.filter_map(|e| e.metadata().ok()).filter(|m| m.is_file());
    mds.fold((0, None), |(bytes, newest), m| (bytes + m.len(), newest.max(m.modified().ok())))
}
