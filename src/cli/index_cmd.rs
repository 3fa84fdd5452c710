//! `tg index [DIR]` and `tg status [DIR]`: flags, then the engine's
//! [`trigrep::index::build`] or an [`IndexReader`], then the lines printed.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Parser;
use trigrep::index::blocks;
use trigrep::index::build;
use trigrep::index::error::IndexError;
use trigrep::index::location;
use trigrep::index::reader::IndexReader;
use trigrep::index::storage::FsStorage;
use trigrep::index::table::flags;
use trigrep::kind::Format;
use trigrep::report;
use trigrep::text::indexed_format::{BuildRequest, IndexedFormat};

use super::config::parse_size;
use super::done_line;
use super::flags::trigrep::IndexDirArg;
use super::progress::Bar;

/// `tg index [DIR | FILE]`: build (or rebuild) the trigram index of a tree,
/// or the block index of one huge file.
#[derive(Debug, Parser)]
#[command(name = "tg index")]
pub struct IndexArgs {
    /// The root of the tree to index (default: the current directory), or
    /// a file to index as blocks.
    pub dir: Option<PathBuf>,
    /// The nominal block size of a file's block index (suffixes K, M, G;
    /// default 64K).
    #[arg(long = "block-size", value_name = "SIZE")]
    pub block_size: Option<String>,
    /// The distance between the access points of a `.gz` file's index, in
    /// bytes of text (suffixes K, M, G; default 1M).
    #[arg(long = "access-spacing", value_name = "SIZE")]
    pub access_spacing: Option<String>,
    /// Run at the lowest CPU and I/O priority (for builds started in the
    /// background after a search).
    #[arg(long = "background", hide = true)]
    pub background: bool,
    /// When another build of FILE runs, return at once (without an index
    /// if it is still building) instead of waiting: a background build
    /// started after a search gives way and the index is built here.
    #[arg(long = "no-wait")]
    pub no_wait: bool,
    /// Read every file of the tree again: by default a tree already indexed
    /// reads only the files that changed since (size or status-change
    /// time) and keeps what the index holds of the others.
    #[arg(long = "rebuild")]
    pub rebuild: bool,
    /// Memory budget of the build (peak private memory, suffixes K, M,
    /// G; `--max-memory` is the same): a tree's listing past 2M goes to a
    /// temporary file, each extraction thread takes 17M (its trigram
    /// table and read buffer), the sort and the files read ahead the
    /// rest. A tree build needs at least 32M on one thread and 17M more a
    /// thread (and a quarter of a byte a file); without -j it runs on as
    /// many threads as the budget affords, and a smaller budget is
    /// exceeded, with a warning.
    #[arg(
        long = "index-memory",
        visible_alias = "max-memory",
        value_name = "SIZE",
        default_value = "256M"
    )]
    pub index_memory: String,
    /// Threads reading files and merging the sort (default: one per core).
    #[arg(short = 'j', long = "threads", value_name = "NUM")]
    pub threads: Option<std::num::NonZeroUsize>,
    /// Where indexes live.
    #[command(flatten)]
    pub index_base: IndexDirArg,
    /// Print nothing but errors.
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,
    /// Let the first query in the tree start a server (tg serve) when none
    /// runs; it exits after 30 idle minutes. `--no-serve` turns this off.
    #[arg(long = "serve", overrides_with = "no_serve")]
    pub serve: bool,
    /// Queries start no server (the default).
    #[arg(long = "no-serve")]
    pub no_serve: bool,
    /// Describe the existing index instead of building one (same as `tg status`).
    #[arg(long = "status")]
    pub status: bool,
    /// After building a tree's index, say where the time went (walk, read,
    /// extract, sort, merge, write, verify) and how many cores were busy.
    #[arg(long = "stats")]
    pub stats: bool,
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
    /// List every index kept under the index directory, of every kind
    /// (trees, huge files, `.gz` files, packed files' checks), with what
    /// each describes.
    #[arg(long = "all", conflicts_with_all = ["dir", "skipped"])]
    pub all: bool,
    /// Remove the indexes of trees and files that are gone (those `--all`
    /// marks `(gone)`), except one being built or served; list them.
    #[arg(long = "prune", conflicts_with_all = ["dir", "skipped", "all"])]
    pub prune: bool,
    /// Where indexes live.
    #[command(flatten)]
    pub index_base: IndexDirArg,
}

/// Runs `tg index`.
pub fn run_index(args: IndexArgs) -> anyhow::Result<()> {
    if args.status {
        return run_status(StatusArgs {
            dir: args.dir,
            skipped: false,
            all: false,
            prune: false,
            index_base: args.index_base,
        });
    }
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    #[cfg(feature = "remote")]
    if let Some(written) = dir.to_str().filter(|d| trigrep::remote::is_remote(d.as_bytes())) {
        let budget = parse_size(&args.index_memory, "--index-memory")? as usize;
        return super::remote_cmd::index(written, block_size(&args)?, budget, args.quiet);
    }
    let root = dir.canonicalize().with_context(|| format!("{}", dir.display()))?;
    let budget = parse_size(&args.index_memory, "--index-memory")? as usize;
    let base = args.index_base.base();
    if args.background {
        trigrep::sys::lower_priority();
    }
    let cores = || std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = match args.threads {
        Some(n) => Some(n.get()),
        // A tree build runs on the threads its budget affords.
        None if root.is_dir() => Some(build::budget::threads_for(budget, cores())),
        None => None,
    };
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global()?;
    }
    let n = threads.unwrap_or(1);
    let floor = build::budget::floor(n);
    if root.is_dir() && budget < floor && !args.quiet {
        report::line(&format!(
            "warning: --index-memory {} is below the least a tree build on {n} thread{} needs \
             ({} MiB): it will use more",
            args.index_memory,
            if n == 1 { "" } else { "s" },
            floor.div_ceil(1 << 20),
        ));
    }
    if root.is_file() {
        return index_file(&args, &root, &base, budget);
    }
    anyhow::ensure!(root.is_dir(), "{}: not a directory or a regular file", dir.display());
    let index_dir = location::index_dir_for(&base, &root);
    clean_up_on_signal(index_dir.clone())?;
    let bar = Bar::new(args.quiet);
    let built = match args.rebuild {
        true => build::build_reading(&root, &base, budget, &bar, build::Read::All),
        false => build::build(&root, &base, budget, &bar),
    };
    let built =
        or_abandon(built, &index_dir).with_context(|| format!("indexing {}", root.display()))?;
    bar.finish();
    // As a search says where its walk failed, with the tree as named.
    let named = args.dir.as_deref().unwrap_or(Path::new("."));
    for err in &built.walk_errors {
        let shown = match err.path.strip_prefix(&root) {
            Ok(rel) if rel.as_os_str().is_empty() => named.to_path_buf(),
            Ok(rel) => named.join(rel),
            Err(_) => err.path.clone(),
        };
        let message = err.message.replace(&*err.path.to_string_lossy(), &shown.to_string_lossy());
        report::line(&message);
    }
    if args.serve || args.no_serve {
        trigrep::serve::set_auto_start(&built.dir, args.serve)?;
    }
    if !args.quiet {
        eprintln!("{}", done_line::tree(&built));
    }
    if args.stats {
        eprintln!("{}", done_line::tree_stats(&built));
    }
    Ok(())
}

/// `err`, with the way to choose another place when it is an index
/// directory that could not be written.
pub fn with_place_hint(err: anyhow::Error) -> anyhow::Error {
    use trigrep::serve::ServeError;
    let place = err.chain().any(|c| {
        matches!(c.downcast_ref(), Some(IndexError::Place { .. }))
            || matches!(c.downcast_ref(), Some(ServeError::Index(IndexError::Place { .. })))
    });
    if !place {
        return err;
    }
    anyhow::anyhow!("{err:#} (choose another place with --index-dir DIR or TG_INDEX_DIR)")
}

/// Builds the block index of the huge file `path`.
fn index_file(args: &IndexArgs, path: &Path, base: &Path, budget: usize) -> anyhow::Result<()> {
    let block_size = block_size(args)?;
    if let Some(indexed) = Format::of(path).and_then(IndexedFormat::of) {
        let req = BuildRequest { path, base, block_size, spacing: 0, budget };
        return index_compressed(args, indexed, req);
    }
    let index_dir = location::index_dir_for(base, path);
    let Some(_lock) = lock_build(args, path, &index_dir)? else {
        return Ok(());
    };
    let bar = Bar::new(args.quiet);
    let progress = give_way(args, path, &bar, &index_dir);
    let built = or_abandon(blocks::build(path, base, block_size, budget, &progress), &index_dir)
        .with_context(|| format!("indexing {}", path.display()))?;
    bar.finish();
    if !args.quiet {
        eprintln!("{}", done_line::file(path, &built));
    }
    Ok(())
}

/// The block size `--block-size` asks for (at least 4 KiB).
fn block_size(args: &IndexArgs) -> anyhow::Result<u64> {
    let block_size = match &args.block_size {
        Some(s) => parse_size(s, "--block-size")?,
        None => blocks::DEFAULT_BLOCK_SIZE,
    };
    anyhow::ensure!(block_size >= 4096, "--block-size must be at least 4K");
    Ok(block_size)
}

/// `built`, after removing the index directory `dir` if the build failed
/// there before any index was published: a failed first build leaves
/// nothing behind, a failed rebuild the old index.
fn or_abandon<T>(built: Result<T, IndexError>, dir: &Path) -> Result<T, IndexError> {
    if built.is_err() {
        FsStorage::new(dir).remove_if_unpublished();
    }
    built
}

/// Takes the build lock of the index directory `dir` of file `path` and
/// removes the build's temporary files on a signal; `None` (said unless
/// quiet) when another build holds it and this one does not wait for it
/// (`--no-wait`, or a background build). A build that waits first asks a
/// background build to give way (it stops between two batches), then
/// waits for the lock and builds itself, at its own priority.
fn lock_build(args: &IndexArgs, path: &Path, dir: &Path) -> anyhow::Result<Option<std::fs::File>> {
    let storage = FsStorage::create(dir)?;
    let quiet = args.quiet;
    let lock = if args.background || args.no_wait {
        if args.background && storage.asked_to_give_way() {
            return Ok(None);
        }
        let Some(lock) = storage.try_lock_build()? else {
            if !quiet {
                eprintln!("{} is being indexed already", path.display());
            }
            return Ok(None);
        };
        lock
    } else {
        if storage.build_under_way() && !quiet {
            eprintln!("{} is being indexed already: waiting for that build", path.display());
        }
        // Asked only while waiting: once held, the lock keeps others out.
        let _asking = storage.ask_to_give_way()?;
        storage.lock_build()?
    };
    clean_up_on_signal(dir.to_path_buf())?;
    Ok(Some(lock))
}

/// `bar`, for a build in the index directory `dir`: a background build
/// gives way to a `tg index` of the same file.
fn give_way<'a>(args: &IndexArgs, path: &'a Path, bar: &'a Bar, dir: &Path) -> GiveWay<'a> {
    let background = args.background.then_some((path, args.quiet));
    GiveWay { inner: bar, storage: FsStorage::new(dir), background }
}

/// The progress of a background build, which gives way to a `tg index`
/// of the same file: between two batches, when someone asks
/// ([`FsStorage::asked_to_give_way`]), it removes its temporary files and
/// exits (0) without publishing.
struct GiveWay<'a> {
    inner: &'a dyn build::Progress,
    storage: FsStorage,
    /// The background build's file, and whether to say that it gave way.
    background: Option<(&'a Path, bool)>,
}

impl build::Progress for GiveWay<'_> {
    fn start(&self, bytes: u64) {
        self.inner.start(bytes);
    }

    fn advance(&self, bytes: u64) {
        if let Some((path, quiet)) = self.background
            && self.storage.asked_to_give_way()
        {
            self.storage.remove_own_temp_files();
            self.storage.remove_if_unpublished();
            if !quiet {
                eprintln!("{}: gave way to the tg index that asked for it", path.display());
            }
            std::process::exit(0);
        }
        self.inner.advance(bytes);
    }
}

/// Builds the index of the text of the file `req.path`, compressed in a
/// format tg indexes (`indexed`).
fn index_compressed(
    args: &IndexArgs,
    indexed: &IndexedFormat,
    mut req: BuildRequest<'_>,
) -> anyhow::Result<()> {
    req.spacing = match &args.access_spacing {
        Some(s) => parse_size(s, "--access-spacing")?,
        None => indexed.default_spacing,
    };
    anyhow::ensure!(req.spacing >= 4096, "--access-spacing must be at least 4K");
    let path = req.path;
    let index_dir = indexed.index_dir(req.base, path);
    let Some(_lock) = lock_build(args, path, &index_dir)? else {
        return Ok(());
    };
    let bar = Bar::new(args.quiet);
    let progress = give_way(args, path, &bar, &index_dir);
    let built = or_abandon((indexed.build)(&req, &progress), &index_dir)
        .with_context(|| format!("indexing {}", path.display()))?;
    bar.finish();
    if !args.quiet {
        eprintln!("{}", done_line::compressed(path, &built));
    }
    Ok(())
}

/// Removes this build's temporary files from the index directory `dir`
/// when the build is interrupted (SIGINT, SIGTERM, SIGHUP), then exits as
/// a process killed by that signal would (128 + its number).
fn clean_up_on_signal(dir: PathBuf) -> anyhow::Result<()> {
    trigrep::sys::on_stop(move |sig| {
        let storage = FsStorage::new(&dir);
        storage.remove_own_temp_files();
        storage.remove_if_unpublished();
        std::process::exit(128 + sig);
    })?;
    Ok(())
}

/// Runs `tg status`.
pub fn run_status(args: StatusArgs) -> anyhow::Result<()> {
    if args.all || args.prune {
        let mut out = std::io::stdout().lock();
        let base = args.index_base.base();
        if args.prune {
            super::status_all::prune(&mut out, &base)?;
        } else {
            super::status_all::write(&mut out, &base)?;
        }
        return Ok(out.flush()?);
    }
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    if let Err(err) = dir.symlink_metadata() {
        anyhow::bail!("{}: {err}", dir.display());
    }
    let base = args.index_base.base();
    if let Some(packed) = super::packed_status::open_packed(&dir)? {
        return super::packed_status::write_status(&dir, &packed, &base);
    }
    // A compressed file's index is kept under its format's own key.
    let compressed = dir.canonicalize().ok().and_then(|root| {
        IndexedFormat::all()
            .map(|indexed| location::Located {
                dir: indexed.index_dir(&base, &root),
                root: root.clone(),
            })
            .find(|found| FsStorage::new(&found.dir).has_index())
    });
    let Some(found) = compressed.or_else(|| location::find(&base, &dir)) else {
        anyhow::bail!("no index covers {} (build one with: tg index DIR)", dir.display());
    };
    let storage = FsStorage::new(&found.dir);
    let mut out = std::io::stdout().lock();
    let reader = match IndexReader::load(&storage) {
        Ok(reader) => reader,
        // A server may run (and answer) whatever the index's state.
        Err(err) if !args.skipped => {
            writeln!(out, "root:       {}", found.root.display())?;
            writeln!(out, "index:      {} (unusable)", storage.index_path().display())?;
            super::serve_cmd::write_status(&mut out, &found.dir)?;
            out.flush()?;
            return Err(err).context(format!("index at {}", found.dir.display()));
        }
        Err(err) => return Err(err).context(format!("index at {}", found.dir.display())),
    };
    let st = reader.stats();
    let age = storage.published_at()?.elapsed().unwrap_or_default();
    if args.skipped {
        for f in reader.files() {
            if let Some(why) = f.left_out() {
                writeln!(out, "{}\t{why}", String::from_utf8_lossy(f.path))?;
            }
        }
        return Ok(out.flush()?);
    }
    let files = reader.files().filter(|f| f.is_file()).count();
    let count = |flag: u32| reader.files().filter(|f| f.is_file() && f.flags & flag != 0).count();
    let (linked, out_of_plain) = (count(flags::VIA_LINK), count(flags::OUT_OF_PLAIN));
    let skipped = reader.files().filter(|f| f.left_out().is_some()).count();
    writeln!(out, "root:       {}", found.root.display())?;
    writeln!(out, "index:      {}", storage.index_path().display())?;
    writeln!(out, "size:       {} bytes", st.bytes)?;
    writeln!(out, "age:        {} s", age.as_secs())?;
    writeln!(
        out,
        "files:      {files} (hidden files and symbolic links followed, as tg --hidden --follow \
         walks: {linked} reached through symbolic links; a plain search walks {})",
        files - out_of_plain
    )?;
    writeln!(out, "documents:  {}", st.documents)?;
    writeln!(out, "trigrams:   {}", st.trigrams)?;
    writeln!(out, "postings:   {} ({} bytes)", reader.posting_count(), st.posting_bytes)?;
    writeln!(out, "left out:   {skipped} (tg status --skipped lists them)")?;
    super::serve_cmd::write_status(&mut out, &found.dir)?;
    out.flush()?;
    Ok(())
}
