//! What `tg view` shows, from the files named: a directory names the
//! files in it, a pattern a shell left unexpanded (`'logs/*.log'`) the
//! files it matches; each file is shown alone (`:n`, `:p`), and when two
//! or more of them write times, in order, all of those first, merged by
//! time ([`super::merge`]). A file without times, or whose times go back,
//! is shown on its own only.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use trigrep::logline::time::Format;

use super::escape;
use super::merge::Merge;
use super::merge_walk::Source;
use super::nav;
use super::text::{self, Text};
use super::times;

/// Bytes read from a text's start to tell its time format.
const SAMPLE: usize = trigrep::logline::time::SAMPLE;

/// The longest tag of a merged file.
const TAG: usize = 12;

/// One thing to view: a file, stdin, or a merge.
pub struct Shown {
    /// Its text.
    pub text: Arc<dyn Text>,
    /// The file (`None`: stdin, or a merge).
    pub path: Option<PathBuf>,
    /// Its name on the status line.
    pub name: String,
    /// The merge, when it is one.
    pub merge: Option<Arc<Merge>>,
    /// When the file last changed (ms since the epoch): a syslog time's year.
    pub modified: i64,
    /// It is one of the files of the merge shown first.
    pub in_merge: bool,
}

/// The files `paths` name: a directory's files (not hidden, by name), a
/// pattern's matches (by name) when no file has its name; `None` is stdin.
pub fn expand(paths: &[PathBuf]) -> anyhow::Result<Vec<Option<PathBuf>>> {
    let mut out = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            out.push(None);
        } else if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?
                .filter_map(|e| e.ok())
                .filter(|e| !e.file_name().as_encoded_bytes().starts_with(b"."))
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect();
            anyhow::ensure!(!found.is_empty(), "{}: no files in this directory", p.display());
            found.sort();
            out.extend(found.into_iter().map(Some));
        } else if !p.exists() && p.to_string_lossy().contains(['*', '?', '[']) {
            let found = matching(p)?;
            anyhow::ensure!(!found.is_empty(), "{}: no file matches", p.display());
            out.extend(found.into_iter().map(Some));
        } else {
            out.push(Some(p.clone()));
        }
    }
    Ok(out)
}

/// The files of the directory of `pattern` whose names match its last
/// part (a glob), by name.
fn matching(pattern: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let dir = pattern.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = pattern.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let glob = globset::Glob::new(&name)
        .map_err(|e| anyhow::anyhow!("{}: {e}", pattern.display()))?
        .compile_matcher();
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| glob.is_match(e.file_name()))
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    Ok(found)
}

/// Opens what `path` names (`None`: stdin), with indexes under `base`: a
/// remote object ([`super::remote`]) or a file ([`text::open`]).
fn open(path: Option<&Path>, base: &Path) -> anyhow::Result<Arc<dyn Text>> {
    #[cfg(feature = "remote")]
    if let Some(written) =
        path.and_then(|p| p.to_str()).filter(|p| trigrep::remote::is_remote(p.as_bytes()))
    {
        return super::remote::open(written, base);
    }
    text::open(path, base)
}

/// Opens each of `files` (`None`: stdin), indexes under `base`: the
/// merge first when two or more write times in order, then each alone.
pub fn open_all(files: &[Option<PathBuf>], base: &Path) -> anyhow::Result<Vec<Shown>> {
    let mut shown = Vec::with_capacity(files.len() + 1);
    for f in files {
        let text = open(f.as_deref(), base)?;
        let name = f.as_ref().map_or_else(|| "stdin".to_string(), |p| printable(p));
        let modified = f.as_ref().and_then(|p| std::fs::metadata(p).ok()?.modified().ok());
        let modified = modified.unwrap_or_else(std::time::SystemTime::now);
        let since = modified.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let modified = since.as_millis() as i64;
        shown.push(Shown { text, path: f.clone(), name, merge: None, modified, in_merge: false });
    }
    if shown.len() < 2 {
        return Ok(shown);
    }
    let timed: Vec<(usize, Format)> =
        shown.iter().enumerate().filter_map(|(i, s)| Some((i, timed(s)?))).collect();
    if timed.len() < 2 {
        return Ok(shown);
    }
    let tags = tags(&timed.iter().map(|&(i, _)| shown[i].name.as_str()).collect::<Vec<_>>());
    let sources: Vec<Source> = timed
        .iter()
        .zip(tags)
        .map(|(&(i, format), tag)| Source::new(Arc::clone(&shown[i].text), format, tag))
        .collect();
    let names: Vec<&str> = timed.iter().map(|&(i, _)| shown[i].name.as_str()).collect();
    let name = names.join(" + ");
    let merge = Arc::new(Merge::new(sources));
    for &(i, _) in &timed {
        shown[i].in_merge = true;
    }
    let text: Arc<dyn Text> = merge.clone();
    let merged = Shown { text, path: None, name, merge: Some(merge), modified: 0, in_merge: false };
    shown.insert(0, merged);
    Ok(shown)
}

/// The time format of a shown file whose times go up (a text still
/// arriving, stdin or a decompression, is waited for: a merge is of
/// whole texts).
fn timed(s: &Shown) -> Option<Format> {
    while s.text.arriving() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mut head = vec![0; SAMPLE];
    let n = nav::read_full(&*s.text, 0, &mut head);
    let format = trigrep::logline::time::detect(&head[..n], s.modified)?;
    times::in_order(&*s.text, format, &mut |_| true).then_some(format)
}

/// A short tag for each name: its file name, at most [`TAG`] characters,
/// the same width for all.
fn tags(names: &[&str]) -> Vec<String> {
    let short: Vec<String> = names
        .iter()
        .map(|n| {
            let base = n.rsplit('/').next().unwrap_or(n);
            base.chars().take(TAG).collect()
        })
        .collect();
    let width = short.iter().map(|s| s.chars().count()).max().unwrap_or(0);
    short.into_iter().map(|s| format!("{s:width$}")).collect()
}

/// `p` with its control bytes escaped, for the screen.
fn printable(p: &Path) -> String {
    escape::escape(p.as_os_str().as_encoded_bytes(), &[], usize::MAX)
        .into_iter()
        .map(|(_, s)| s)
        .collect()
}
