//! `tg status FILE.zst`: what a packed file holds and whether it is sound.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use anyhow::Context;
use trigrep::pack::read::PackedFile;
use trigrep::pack::{PackError, verify};

/// The tg container at `path` (`None`: `path` is not one).
pub fn open_packed(path: &Path) -> anyhow::Result<Option<(File, PackedFile)>> {
    let Ok(file) = File::open(path) else { return Ok(None) };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    match PackedFile::open(&file) {
        Ok(Some(p)) if p.is_tg() => Ok(Some((file, p))),
        Ok(_) => Ok(None),
        Err(e) => Err(anyhow::Error::from(e).context(path.display().to_string())),
    }
}

/// `tg status FILE.zst`: what the container holds and whether it is
/// sound (checked now when no verdict covers the file as it is); exits 2
/// when it is damaged.
pub fn write_status(
    path: &Path,
    (file, packed): &(File, PackedFile),
    base: &Path,
) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "packed:     {}", path.display())?;
    writeln!(out, "text:       {} bytes in {} frames", packed.text_len(), packed.frames().len())?;
    let checked = verify::check(packed, file, path, base);
    match &checked {
        Ok(()) => writeln!(out, "integrity:  sound (every frame checked against its checksums)")?,
        Err(PackError::Damaged(why)) => writeln!(out, "integrity:  damaged: {why}")?,
        Err(e) => writeln!(out, "integrity:  not known: {e}")?,
    }
    out.flush()?;
    checked.with_context(|| path.display().to_string())
}
