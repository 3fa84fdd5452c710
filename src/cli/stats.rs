//! `--stats`: trigrep's own statistics, printed on stderr after the
//! results (ripgrep's block stays on stdout, printed by the engine).

use std::io::{self, Write};
use std::time::Duration;

use trigrep::index::fresh::IndexReport;
use trigrep::stats::RunStats;

/// Writes the run's statistics to `wtr`, one `name: value` per line.
pub fn write_run<W: Write>(run: &RunStats, mut wtr: W) -> io::Result<()> {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    writeln!(wtr, "tg stats:")?;
    writeln!(wtr, "  setup: {:.1} ms", ms(run.setup))?;
    writeln!(wtr, "  search: {:.1} ms", ms(run.search))?;
    writeln!(wtr, "  bytes read: {}", run.bytes_read)?;
    writeln!(wtr, "  files searched sequentially: {}", run.files_sequential)?;
    writeln!(wtr, "  files searched in chunks: {}", run.files_chunked)?;
    writeln!(wtr, "  chunks searched: {}", run.chunks)?;
    writeln!(wtr, "  bytes prefetched: {}", run.prefetch_loaded)?;
    writeln!(wtr, "  bytes found cached by the prefetcher: {}", run.prefetch_resident)?;
    for ((kind, strategy), n) in &run.strategies {
        writeln!(wtr, "  strategy {kind} {strategy}: {n}")?;
    }
    writeln!(wtr, "  block indexes used: {}", run.block_indexes)?;
    writeln!(wtr, "  blocks searched: {} of {}", run.blocks_searched, run.blocks_total)?;
    for (why, n) in &run.fallbacks {
        writeln!(wtr, "  large file on one thread ({why}): {n}")?;
    }
    writeln!(wtr, "  page faults minor: {}", run.minor_faults)?;
    writeln!(wtr, "  page faults major: {}", run.major_faults)?;
    writeln!(wtr, "  peak private memory (RssAnon): {}", run.peak_private)?;
    writeln!(wtr, "  peak resident set (VmHWM): {}", run.peak_resident)
}

/// The index's part of `--stats`, as one line.
pub fn index_line(r: &IndexReport) -> String {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let (open, freshness) = match (r.server_time, r.sweep_time, &r.served) {
        (Some(server), Some(t), Some(Ok(pid))) => (
            format!(
                "candidates told by the server (pid {pid}): asked in {:.3} ms",
                ms(r.open_time)
            ),
            format!("judged there in {:.3} ms, listed in {:.3} ms", ms(server), ms(t)),
        ),
        (_, Some(t), Some(Ok(pid))) => (
            format!("open+candidates {:.3} ms", ms(r.open_time)),
            format!(
                "freshness told by the server (pid {pid}), sweep of what changed {:.3} ms",
                ms(t)
            ),
        ),
        (_, Some(t), Some(Err(why))) => (
            format!("open+candidates {:.3} ms", ms(r.open_time)),
            format!("freshness: sweep of the file table {:.3} ms (server not used: {why})", ms(t)),
        ),
        (_, Some(t), _) => (
            format!("open+candidates {:.3} ms", ms(r.open_time)),
            format!("freshness: sweep of the file table {:.3} ms", ms(t)),
        ),
        (_, None, _) => (
            format!("open+candidates {:.3} ms", ms(r.open_time)),
            "freshness checked during the walk".into(),
        ),
    };
    format!(
        "index: {} ({} entries, {} documents); plan {:.3} ms, {open}, {freshness}; \
         candidate documents {}; walked files: {} read as candidates, {} not read, \
         {} changed since the build (read), {} not in the index (read)",
        r.dir.display(),
        r.files,
        r.documents,
        ms(r.plan_time),
        r.candidate_documents,
        r.read_as_candidates,
        r.not_read,
        r.changed,
        r.unknown,
    )
}
