//! `tg index [DIR]` builds a tree's trigram index; `tg status` describes it.
//!
//! The build walks the tree with the search's default rules, sorts the files
//! by path (so file ids follow path order), extracts each file's distinct
//! trigrams on every core in bounded batches, and feeds them in order to the
//! [`trigrep::index::writer::IndexWriter`], whose external sort keeps memory within the budget. The
//! index is published atomically: a build killed at any point leaves the
//! previous index answering.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::Context;
use clap::Parser;
use rayon::prelude::*;
use trigrep::index::extract::TrigramSet;
use trigrep::index::location::{self, ROOT_FILE};
use trigrep::index::reader::IndexReader;
use trigrep::index::table::{FileMeta, RACY, flags};
use trigrep::index::trigram::Trigram;
use trigrep::index::writer::IndexWriterBuilder;

use super::stats::MemorySampler;

/// `tg index [DIR]`: build (or rebuild) the trigram index of a tree.
#[derive(Debug, Parser)]
#[command(name = "tg index")]
pub struct IndexArgs {
    /// The root of the tree to index (default: the current directory).
    pub dir: Option<PathBuf>,
    /// Memory budget of the build's external sort (suffixes K, M, G).
    #[arg(long = "index-memory", value_name = "SIZE", default_value = "64M")]
    pub index_memory: String,
    /// Where indexes live (default: the user's cache directory).
    #[arg(long = "index-dir", value_name = "DIR", env = "TG_INDEX_DIR")]
    pub index_dir: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,
    /// Describe the existing index instead of building one (same as `tg status`).
    #[arg(long = "status")]
    pub status: bool,
}

/// `tg status [DIR]`: describe the index that a query in DIR would use.
#[derive(Debug, Parser)]
#[command(name = "tg status")]
pub struct StatusArgs {
    /// Where to look (default: the current directory).
    pub dir: Option<PathBuf>,
    /// List the files the index left out (binary, unreadable, too large) and why.
    #[arg(long = "skipped")]
    pub skipped: bool,
    /// Where indexes live (default: the user's cache directory).
    #[arg(long = "index-dir", value_name = "DIR", env = "TG_INDEX_DIR")]
    pub index_dir: Option<PathBuf>,
}

/// An entry of the file table found by the build: a file to index, or a
/// directory or watched path (see [`flags::NOT_A_FILE`]).
struct Found {
    rel: Vec<u8>,
    size: u64,
    changed_ns: i64,
    flags: u32,
}

/// Names whose appearance, change or removal in a directory changes what a
/// walk yields: ignore files and repository markers.
pub const WATCHED_NAMES: &[&str] = &[".gitignore", ".ignore", ".rgignore", ".git", ".jj"];

/// One file after extraction: its table entry and trigrams.
struct Extracted {
    meta: FileMeta,
    len: u64,
    trigrams: Vec<Trigram>,
}

/// The share of the memory budget given to extraction batches (input bytes
/// read per batch, whose trigram lists wait for the writer); the writer's
/// sort gets three quarters.
const BATCH_SHARE: usize = 8;

/// Runs `tg index`.
pub fn run_index(args: IndexArgs) -> anyhow::Result<()> {
    if args.status {
        return run_status(StatusArgs { dir: args.dir, skipped: false, index_dir: args.index_dir });
    }
    let started = Instant::now();
    let peak = MemorySampler::start();
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let root = dir.canonicalize().with_context(|| format!("{}", dir.display()))?;
    anyhow::ensure!(root.is_dir(), "{}: not a directory", dir.display());
    let budget = super::config::parse_size(&args.index_memory)? as usize;
    let base = args.index_dir.clone().unwrap_or_else(location::default_base);
    let out = location::index_dir_for(&base, &root);
    std::fs::create_dir_all(&out).with_context(|| format!("{}", out.display()))?;

    // Files changed just before the build would otherwise look racy (see
    // `recorded_change`) and be re-read by every query until the next build.
    std::thread::sleep(std::time::Duration::from_nanos(RACY_WINDOW_NS as u64));
    let mut files = walk(&root)?;
    files.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
    let total: u64 = files.iter().filter(|f| f.flags == 0).map(|f| f.size).sum();
    let n_files = files.iter().filter(|f| f.flags == 0).count();
    let progress = Progress::new(args.quiet, total);

    let batch_bytes = (budget / BATCH_SHARE).max(1 << 20) as u64;
    let sort_budget = budget - budget / 4;
    let mut writer = IndexWriterBuilder::new().memory_budget(sort_budget).spill_dir(&out).build();
    let mut skipped = 0u64;
    let mut start = 0;
    while start < files.len() {
        let mut end = start;
        let mut bytes = 0;
        while end < files.len() && (end == start || bytes + files[end].size <= batch_bytes) {
            bytes += files[end].size;
            end += 1;
        }
        let batch: Vec<Extracted> = files[start..end]
            .par_iter()
            .map_init(
                || (TrigramSet::new(), Vec::new()),
                |(set, buf), f| extract(&root, f, set, buf),
            )
            .collect();
        for e in batch {
            skipped += u64::from(e.meta.flags & flags::SKIPPED_ANY != 0);
            let is_file = e.meta.flags & flags::NOT_A_FILE == 0;
            let id = writer.add_file(e.meta);
            if is_file {
                writer.add_document(id, 0, e.len, 1, &e.trigrams)?;
            }
        }
        progress.advance(bytes);
        start = end;
    }
    let summary = writer.finish(&out).context("writing the index")?;
    // Queries check only what they read; the whole index is checked once, here.
    if let Err(err) = IndexReader::open(&out).and_then(|r| r.verify()) {
        let _ = std::fs::remove_file(out.join(location::INDEX_FILE));
        anyhow::bail!("the new index failed its check ({err}); removed it: searches will scan");
    }
    std::fs::write(out.join(ROOT_FILE), root.as_os_str().as_bytes())?;
    progress.finish();
    if !args.quiet {
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "indexed {n_files} files ({} bytes) in {secs:.2}s: {} trigrams, {} postings, index {} bytes \
             ({:.1}% of the tree), {skipped} left out; peak private memory {:.1} MiB\nindex: {}",
            total,
            summary.trigrams,
            summary.postings,
            summary.bytes,
            100.0 * summary.bytes as f64 / total.max(1) as f64,
            peak.finish() as f64 / (1 << 20) as f64,
            out.display(),
        );
    }
    Ok(())
}

/// Lists the files under `root` with the search's default filters, plus the
/// directories and the watched paths that let a query trust this list later.
fn walk(root: &Path) -> anyhow::Result<Vec<Found>> {
    let found = Mutex::new(Vec::new());
    let mut builder = ignore::WalkBuilder::new(root);
    builder.add_custom_ignore_filename(".rgignore");
    builder.build_parallel().run(|| {
        let found = &found;
        Box::new(move |entry| {
            let Ok(entry) = entry else { return ignore::WalkState::Continue };
            let Some(kind) = entry.file_type() else { return ignore::WalkState::Continue };
            let flags = if kind.is_file() {
                0
            } else if kind.is_dir() {
                flags::DIR
            } else {
                return ignore::WalkState::Continue;
            };
            let Ok(md) = entry.metadata() else { return ignore::WalkState::Continue };
            let path = entry.into_path();
            let rel = path.strip_prefix(root).unwrap_or(&path).as_os_str().as_bytes().to_vec();
            // Stat the watched names before taking the lock, so walker
            // threads do not wait on each other's syscalls.
            let mut mine: Vec<Found> = if flags == flags::DIR {
                WATCHED_NAMES
                    .iter()
                    .filter_map(|name| watched(root, child_rel(&rel, name.as_bytes()), false))
                    .collect()
            } else {
                Vec::new()
            };
            mine.push(Found { rel, size: md.len(), changed_ns: recorded_change(&md), flags });
            found.lock().unwrap().extend(mine);
            ignore::WalkState::Continue
        })
    });
    let mut found = found.into_inner().unwrap();
    // Outside the tree, absent paths are watched too: creating one changes
    // the walk, and no directory of the tree would show it.
    found.extend(outside_watched(root).into_iter().filter_map(|w| watched(root, w, true)));
    Ok(found)
}

/// The table path of entry `name` in the directory whose table path is `dir`.
pub fn child_rel(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut r = Vec::with_capacity(dir.len() + 1 + name.len());
    r.extend_from_slice(dir);
    if !r.is_empty() {
        r.push(b'/');
    }
    r.extend_from_slice(name);
    r
}

/// The watch entry for `rel` (relative to `root`, or absolute); absent
/// paths give an entry only when `keep_absent`.
fn watched(root: &Path, rel: Vec<u8>, keep_absent: bool) -> Option<Found> {
    let path = root.join(std::ffi::OsStr::from_bytes(&rel));
    let is_marker = rel.ends_with(b".git") || rel.ends_with(b".jj");
    let flags = if is_marker { flags::WATCH_EXISTS } else { flags::WATCH };
    match std::fs::symlink_metadata(&path) {
        Ok(md) => {
            let (size, mtime) = if is_marker { (0, 0) } else { (md.len(), recorded_change(&md)) };
            Some(Found { rel, size, changed_ns: mtime, flags })
        }
        Err(_) if keep_absent => Some(Found { rel, size: 0, changed_ns: i64::MIN, flags }),
        Err(_) => None,
    }
}

/// Paths outside the tree that steer the walk: ignore files and repository
/// markers of every ancestor (as `../…`), git's exclude files, and the
/// user's git configuration and global ignore file (absolute).
fn outside_watched(root: &Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut up = Vec::new();
    for _ in root.ancestors().skip(1) {
        up.extend_from_slice(b"../");
        for name in WATCHED_NAMES.iter().chain(&[".git/info/exclude"]) {
            let mut p = up.clone();
            p.extend_from_slice(name.as_bytes());
            out.push(p);
        }
    }
    out.push(b".git/info/exclude".to_vec());
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|x| !x.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let mut absolute = Vec::new();
    if let Some(h) = &home {
        absolute.push(h.join(".gitconfig"));
    }
    if let Some(c) = &config {
        absolute.push(c.join("git/ignore"));
        absolute.push(c.join("git/config"));
    }
    out.extend(absolute.into_iter().map(|p| p.into_os_string().into_vec()));
    out
}

/// A path's status-change time (ctime) in nanoseconds since the epoch.
pub fn changed_ns(md: &std::fs::Metadata) -> i64 {
    md.ctime().saturating_mul(1_000_000_000).saturating_add(md.ctime_nsec())
}

/// How close to the build's look a change must be to be untrustworthy: file
/// times come from a coarse clock (one tick is up to 4 ms, and lags the
/// precise clock by up to a tick), so two changes within it can share a time.
const RACY_WINDOW_NS: i64 = 20_000_000;

/// `changed_ns` of `md` as recorded by the build, or [`RACY`] when the change
/// is too recent to be told apart from a later one.
fn recorded_change(md: &std::fs::Metadata) -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(i64::MAX, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    let t = changed_ns(md);
    if now.saturating_sub(t) < RACY_WINDOW_NS { RACY } else { t }
}

/// Reads one file and collects its distinct trigrams. The size and time
/// recorded are those seen by the walk, before reading: a file changed
/// while it is read then looks changed to every later query.
fn extract(root: &Path, f: &Found, set: &mut TrigramSet, buf: &mut Vec<u8>) -> Extracted {
    let meta =
        |flags| FileMeta { path: f.rel.clone(), size: f.size, changed_ns: f.changed_ns, flags };
    if f.flags != 0 {
        return Extracted { meta: meta(f.flags), len: 0, trigrams: Vec::new() };
    }
    let skipped = |why| Extracted {
        meta: meta(flags::ALWAYS_CANDIDATE | why),
        len: f.size,
        trigrams: Vec::new(),
    };
    let Ok(mut file) = std::fs::File::open(root.join(OsStr::from_bytes(&f.rel))) else {
        return skipped(flags::SKIPPED_UNREADABLE);
    };
    const MAP_ABOVE: u64 = 8 << 20;
    let map;
    let bytes: &[u8] = if f.size > MAP_ABOVE {
        // SAFETY: the map is read once, here; a file truncated meanwhile can
        // raise SIGBUS, as with any mmap reader (ripgrep accepts the same).
        match unsafe { memmap2::Mmap::map(&file) } {
            Ok(m) => {
                map = m;
                &map
            }
            Err(_) => return skipped(flags::SKIPPED_UNREADABLE),
        }
    } else {
        buf.clear();
        if file.read_to_end(buf).is_err() {
            return skipped(flags::SKIPPED_UNREADABLE);
        }
        buf
    };
    // UTF-16 files are transcoded by the searcher: their raw bytes do not
    // hold the text's trigrams, so they are always searched.
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return skipped(flags::SKIPPED_ENCODING);
    }
    // A binary file is indexed only up to its first NUL: a walk with default
    // binary detection reads no further, and the random bytes after it would
    // fill the index with trigrams no text query needs. Searches that read
    // binary files whole (`-a`, `--binary`, named files) always read them.
    let text_end = memchr::memchr(0, bytes).unwrap_or(bytes.len());
    let binary = if text_end < bytes.len() { flags::SKIPPED_BINARY } else { 0 };
    set.add_bytes(&bytes[..text_end]);
    Extracted { meta: meta(binary), len: bytes.len() as u64, trigrams: set.take_sorted() }
}

/// Runs `tg status`.
pub fn run_status(args: StatusArgs) -> anyhow::Result<()> {
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let base = args.index_dir.clone().unwrap_or_else(location::default_base);
    let Some(found) = location::find(&base, &dir) else {
        anyhow::bail!("no index covers {} (build one with: tg index DIR)", dir.display());
    };
    let reader = IndexReader::open(&found.dir)
        .with_context(|| format!("index at {}", found.dir.display()))?;
    let st = reader.stats();
    let index_file = found.dir.join(location::INDEX_FILE);
    let age = std::fs::metadata(&index_file)?.modified()?.elapsed().unwrap_or_default();
    let mut out = std::io::stdout().lock();
    if args.skipped {
        for f in reader.files().filter(|f| f.flags & flags::SKIPPED_ANY != 0) {
            let why = match f.flags & flags::SKIPPED_ANY {
                flags::SKIPPED_BINARY => "binary (indexed up to its first NUL)",
                flags::SKIPPED_TOO_LARGE => "too large",
                flags::SKIPPED_UNREADABLE => "unreadable",
                flags::SKIPPED_ENCODING => "encoding (searched directly)",
                _ => "skipped",
            };
            writeln!(out, "{}\t{why}", String::from_utf8_lossy(f.path))?;
        }
        return Ok(out.flush()?);
    }
    let files = reader.files().filter(|f| f.flags & flags::NOT_A_FILE == 0).count();
    let skipped = reader.files().filter(|f| f.flags & flags::SKIPPED_ANY != 0).count();
    writeln!(out, "root:       {}", found.root.display())?;
    writeln!(out, "index:      {}", index_file.display())?;
    writeln!(out, "size:       {} bytes", st.bytes)?;
    writeln!(out, "age:        {} s", age.as_secs())?;
    writeln!(out, "files:      {files}")?;
    writeln!(out, "documents:  {}", st.documents)?;
    writeln!(out, "trigrams:   {}", st.trigrams)?;
    writeln!(out, "postings:   {} ({} bytes)", reader.posting_count(), st.posting_bytes)?;
    writeln!(out, "left out:   {skipped} (tg status --skipped lists them)")?;
    out.flush()?;
    Ok(())
}

/// A progress bar on stderr when it is a terminal.
struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    fn new(quiet: bool, total: u64) -> Progress {
        use std::io::IsTerminal;
        if quiet || !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::new(total);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "indexing {bar:40} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        ) {
            bar.set_style(style);
        }
        Progress(Some(bar))
    }

    fn advance(&self, bytes: u64) {
        if let Some(b) = &self.0 {
            b.inc(bytes);
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}
