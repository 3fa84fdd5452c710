//! `tg status --all`: every index kept under the index directory, of every
//! kind alike (a tree's index, a file's block index, a `.gz` file's index,
//! a packed file's verdict), read from the key each directory records
//! (`index::location::key`), with its size and age, and whether what it
//! describes still exists; `tg status --prune`: the indexes of trees and
//! files that are gone, removed ([`prune()`]).

use std::io::Write;
use std::path::Path;

use indicatif::{HumanBytes, HumanDuration};
use trigrep::index::location::{self, Filed};
use trigrep::index::prune::{self, Removal};

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
            Some(p) if !gone(p) => p.display().to_string(),
            Some(p) => format!("{} (gone)", p.display()),
            None => format!("{} (no key recorded)", f.dir.display()),
        };
        writeln!(out, "{:<14} {:>10} {:>12}  {what}", kind(f), HumanBytes(bytes).to_string(), age)?;
    }
    Ok(())
}

/// Removes every index directory under `base` whose tree or file is gone
/// (what [`write()`] marks `(gone)`), except one a build holds or a server
/// serves; writes one line per directory removed or kept, then the total.
pub fn prune(out: &mut impl Write, base: &Path) -> anyhow::Result<()> {
    let (mut removed, mut freed) = (0, 0);
    for f in &location::all(base)? {
        let Some(path) = f.path.as_ref().filter(|p| gone(p)) else { continue };
        let what = format!("{} (gone)", path.display());
        if served(&f.dir)? {
            writeln!(out, "kept     {what}: a server runs for it (tg stop stops it)")?;
            continue;
        }
        match prune::remove_dir(&f.dir)? {
            Removal::Removed(bytes) => {
                writeln!(
                    out,
                    "removed  {:<14} {:>10}  {what}",
                    kind(f),
                    HumanBytes(bytes).to_string()
                )?;
                (removed, freed) = (removed + 1, freed + bytes);
            }
            Removal::Building => writeln!(out, "kept     {what}: a build of it runs")?,
        }
    }
    let s = if removed == 1 { "" } else { "es" };
    writeln!(out, "{removed} index{s} of gone trees and files removed ({})", HumanBytes(freed))?;
    Ok(())
}

/// Whether nothing is at `path` any more (a path that cannot be looked at
/// for another reason, such as permissions, is not gone).
fn gone(path: &Path) -> bool {
    matches!(path.symlink_metadata(), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
}

/// Whether a live server holds the index directory `dir` (its record is
/// there and the lock every server holds for its life is taken).
fn served(dir: &Path) -> anyhow::Result<bool> {
    if trigrep::serve::read_record(dir).is_none() {
        return Ok(false);
    }
    Ok(trigrep::serve::Rendezvous::for_index(dir)?.lock()?.is_none())
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
