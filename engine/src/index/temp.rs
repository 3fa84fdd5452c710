//! Temporary files that become published files by rename: the index, its
//! `ROOT` record, `tg pack`'s and `tg unpack`'s output. Each writer holds
//! an exclusive lock (`flock`) on its file for as long as it lives, so a
//! file of the pattern that nobody holds a lock on belongs to a dead
//! process: the next writer in the directory removes it, while a
//! concurrent writer's file is left alone.

use std::fs::File;
use std::io;
use std::path::Path;

/// The prefix of this process's temporary files named `prefix…`: `prefix<pid>.`.
fn own_temp_prefix(prefix: &str) -> String {
    format!("{prefix}{}.", std::process::id())
}

/// Removes this process's temporary files `prefix<pid>.…suffix` from `dir`:
/// for a writer interrupted by a signal, which exits before dropping them.
/// Best effort: errors are ignored.
pub fn remove_own_temp_files(dir: &Path, prefix: &str, suffix: &str) {
    let own = own_temp_prefix(prefix);
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name.to_str().is_some_and(|n| n.starts_with(&own) && n.ends_with(suffix)) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// A new temporary file `prefix<pid>.XXXXXX suffix` in `dir`, locked
/// (`flock`) for as long as it is open, after removing the files of that
/// pattern whose writers died (nobody holds their lock). The index,
/// `tg pack` and `tg unpack` write through such files and rename them into
/// place, so a writer killed at any point leaves at most its own file, which
/// the next writer in the directory removes.
pub fn locked_temp_file(
    dir: &Path,
    prefix: &str,
    suffix: &str,
) -> io::Result<tempfile::NamedTempFile> {
    remove_dead_temp_files(dir, prefix, suffix);
    for _ in 0..3 {
        let tmp = tempfile::Builder::new()
            .prefix(&own_temp_prefix(prefix))
            .suffix(suffix)
            .tempfile_in(dir)?;
        // The lock marks the file as alive. A concurrent writer's sweep
        // may have removed the name between creation and locking; once
        // locked, check that the name is still ours.
        tmp.as_file().lock()?;
        if same_file(tmp.path(), tmp.as_file()) {
            return Ok(tmp);
        }
    }
    Err(io::Error::other("temporary file kept disappearing"))
}

/// Removes the temporary files `prefix…suffix` in `dir` of writers that
/// died before publishing: those no live writer holds a lock on. Best
/// effort: errors are ignored.
fn remove_dead_temp_files(dir: &Path, prefix: &str, suffix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !(name.starts_with(prefix) && name.ends_with(suffix)) {
            continue;
        }
        let path = entry.path();
        if let Ok(file) = File::open(&path)
            && file.try_lock().is_ok()
        {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Whether `path` still names the open `file`.
fn same_file(path: &Path, file: &File) -> bool {
    match (std::fs::metadata(path), file.metadata()) {
        (Ok(a), Ok(_)) => crate::sys::file_id(path, &a) == crate::sys::open_file_id(file),
        _ => false,
    }
}
