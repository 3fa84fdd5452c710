//! `tg pack FILE` and `tg unpack FILE.zst`: flags, then the engine's
//! [`trigrep::pack`], then a line on what was done.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Parser;
use trigrep::pack::read::PackedFile;
use trigrep::pack::verify;
use trigrep::pack::write::{self, DEFAULT_FRAME_SIZE, DEFAULT_LEVEL, PackOptions};

use super::config::parse_size;
use super::flags::trigrep::IndexDirArg;
use super::progress::Bar;

/// `tg pack FILE`: store a log as a seekable zstd file with its block
/// index, searched in place by `tg PATTERN FILE.zst` and restored by
/// `tg unpack` or `zstd -d`.
#[derive(Debug, Parser)]
#[command(name = "tg pack")]
pub struct PackArgs {
    /// The text file to pack.
    pub file: PathBuf,
    /// Where to write the packed file (default: FILE.zst).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// zstd compression level (1-19; the default is measured in BENCHMARKS.md).
    #[arg(long = "level", default_value_t = DEFAULT_LEVEL,
          value_parser = clap::value_parser!(i32).range(1..=19))]
    pub level: i32,
    /// Nominal frame size: every frame is a block of the index, ending at
    /// the first line end past it (suffixes K, M; default 1M).
    #[arg(long = "frame-size", value_name = "SIZE")]
    pub frame_size: Option<String>,
    /// Memory budget of the block index's sort (suffixes K, M, G).
    #[arg(long = "index-memory", value_name = "SIZE", default_value = "64M")]
    pub index_memory: String,
    /// Replace the output if it exists.
    #[arg(short = 'f', long = "force")]
    pub force: bool,
    /// Print nothing but errors.
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,
    /// Where indexes live: the verdict that the packed file is sound is
    /// kept there, so that its first search need not check it whole.
    #[command(flatten)]
    pub index_base: IndexDirArg,
}

/// `tg unpack FILE.zst`: restore the text of a packed file, decompressing
/// its frames on every core and checking the whole text's checksum.
#[derive(Debug, Parser)]
#[command(name = "tg unpack")]
pub struct UnpackArgs {
    /// The packed file.
    pub file: PathBuf,
    /// Where to write the text (default: FILE without `.zst`; `-`: stdout).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Write the text to stdout (same as `-o -`).
    #[arg(short = 'c', long = "stdout")]
    pub stdout: bool,
    /// Replace the output if it exists.
    #[arg(short = 'f', long = "force")]
    pub force: bool,
    /// Print nothing but errors.
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,
}

/// Runs `tg pack`.
pub fn run_pack(args: PackArgs) -> anyhow::Result<()> {
    let output = args.output.clone().unwrap_or_else(|| trigrep::kind::packed_name(&args.file));
    // A remote output is checked before it is uploaded (`pack_remote`).
    #[cfg(feature = "remote")]
    let remote = trigrep::remote::is_remote(output.as_os_str().as_encoded_bytes());
    #[cfg(not(feature = "remote"))]
    let remote = false;
    anyhow::ensure!(
        args.force || remote || !output.exists(),
        "{} exists (replace it with --force)",
        output.display()
    );
    let frame_size = match &args.frame_size {
        Some(s) => parse_size(s, "--frame-size")?,
        None => DEFAULT_FRAME_SIZE,
    };
    anyhow::ensure!(frame_size >= 4096, "--frame-size must be at least 4K");
    let budget = parse_size(&args.index_memory, "--index-memory")? as usize;
    let opts = PackOptions { level: args.level, frame_size, budget };
    #[cfg(feature = "remote")]
    if let Some(written) = output.to_str().filter(|o| trigrep::remote::is_remote(o.as_bytes())) {
        return pack_remote(&args, written, &opts);
    }
    clean_up_on_signal(write::output_dir(&output)?)?;
    let bar = Bar::labelled(args.quiet, "packing");
    let s = write::pack(&args.file, &output, &opts, &bar)
        .with_context(|| format!("packing {} into {}", args.file.display(), output.display()))?;
    bar.finish();
    // A cache: without it, the first search checks the file whole.
    let _ = verify::vouch_for(&output, &args.index_base.base());
    if !args.quiet {
        eprintln!("{}", super::done_line::packed(&args.file, &output, &s));
    }
    Ok(())
}

/// `tg pack FILE -o s3://BUCKET/KEY`: packed into a temporary directory
/// (removed on return), then uploaded by multipart upload; the object
/// carries its block index, so a reader anywhere builds nothing.
#[cfg(feature = "remote")]
fn pack_remote(args: &PackArgs, written: &str, opts: &PackOptions) -> anyhow::Result<()> {
    use trigrep::remote::upload;
    upload::target(written, args.force).map_err(|e| anyhow::anyhow!("{written}: {e}"))?;
    let dir = tempfile::tempdir().context("a temporary directory to pack into")?;
    clean_up_on_signal(dir.path().to_path_buf())?;
    let local = dir.path().join(trigrep::kind::packed_name(Path::new("packed")));
    let bar = Bar::labelled(args.quiet, "packing");
    let s = write::pack(&args.file, &local, opts, &bar)
        .with_context(|| format!("packing {}", args.file.display()))?;
    bar.finish();
    upload::upload(written, &local, true).map_err(|e| anyhow::anyhow!("{written}: {e}"))?;
    if !args.quiet {
        eprintln!("{}", super::done_line::packed(&args.file, Path::new(written), &s));
    }
    Ok(())
}

/// Runs `tg unpack`.
pub fn run_unpack(args: UnpackArgs) -> anyhow::Result<()> {
    let input = &args.file;
    let file = File::open(input).with_context(|| input.display().to_string())?;
    let packed = PackedFile::open(&file)
        .with_context(|| input.display().to_string())?
        .with_context(|| format!("{}: not a packed (seekable zstd) file", input.display()))?;
    let to_stdout = args.stdout || args.output.as_deref() == Some(Path::new("-"));
    if to_stdout {
        let mut out = std::io::stdout().lock();
        // An I/O error stays one (a closed pipe ends `tg` quietly).
        let unpacked = packed.unpack(&mut out).map_err(std::io::Error::from);
        unpacked.with_context(|| input.display().to_string())?;
        return Ok(());
    }
    let output = match &args.output {
        Some(o) => o.clone(),
        None => trigrep::kind::unpacked_name(input).with_context(|| {
            format!("{}: no .zst suffix to strip (name the output with -o)", input.display())
        })?,
    };
    anyhow::ensure!(
        args.force || !output.exists(),
        "{} exists (replace it with --force)",
        output.display()
    );
    let started = std::time::Instant::now();
    let n = write::unpack_to(&packed, &file, &output)
        .with_context(|| format!("unpacking {} into {}", input.display(), output.display()))?;
    if !args.quiet {
        let checked = if packed.is_tg() { ", checksum verified" } else { "" };
        eprintln!(
            "unpacked {} into {} ({n} bytes{checked}) in {:.2}s",
            input.display(),
            output.display(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// Removes the pack's temporary file from `dir` when it is interrupted
/// (SIGINT, SIGTERM, SIGHUP), then exits as a process killed by that
/// signal would (128 + its number).
fn clean_up_on_signal(dir: PathBuf) -> anyhow::Result<()> {
    trigrep::sys::on_stop(move |sig| {
        write::remove_own_temp_files(&dir);
        std::process::exit(128 + sig);
    })?;
    Ok(())
}
