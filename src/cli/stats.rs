//! `--stats`: trigrep's own statistics, printed on stderr after the
//! results (ripgrep's block stays on stdout, printed by the engine).

use std::io::{self, Write};
use std::time::Duration;

use trigrep::index::fresh::IndexReport;
use trigrep::query::search_plan::Unused;
use trigrep::stats::RunStats;

/// Writes the run's statistics to `wtr`, one `name: value` per line.
pub fn write_run<W: Write>(run: &RunStats, mut wtr: W) -> io::Result<()> {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    writeln!(wtr, "tg stats:")?;
    writeln!(wtr, "  setup: {:.1} ms", ms(run.setup))?;
    writeln!(wtr, "  search: {:.1} ms", ms(run.search))?;
    writeln!(wtr, "  bytes read: {}", run.bytes_read)?;
    if run.fetch_requests > 0 {
        writeln!(wtr, "  object store requests: {}", run.fetch_requests)?;
        writeln!(wtr, "  bytes fetched: {}", run.fetched_bytes)?;
    }
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
    if run.being_indexed > 0 {
        writeln!(
            wtr,
            "  files read without their index, still being built: {}",
            run.being_indexed
        )?;
    }
    writeln!(
        wtr,
        "  indexed bytes of grown files verified: {} in {:.1} ms",
        run.verified_bytes,
        ms(run.verify_time)
    )?;
    for (why, n) in &run.fallbacks {
        writeln!(wtr, "  large file on one thread ({why}): {n}")?;
    }
    writeln!(wtr, "  page faults minor: {}", run.minor_faults)?;
    writeln!(wtr, "  page faults major: {}", run.major_faults)?;
    writeln!(wtr, "  peak private memory (RssAnon): {}", run.peak_private)?;
    writeln!(wtr, "  peak resident set (VmHWM): {}", run.peak_resident)
}

/// The indexes' part of `--stats`, one sentence true for what was used:
/// the tree index (or why not) and the block indexes of huge, `.gz` and
/// packed files (`None`: nothing to say, no search ran).
pub fn index_sentence(
    tree: Option<&Result<IndexReport, Unused>>,
    run: Option<&RunStats>,
) -> Option<String> {
    let blocks = run.filter(|r| r.block_indexes > 0).map(|r| {
        let n = r.block_indexes;
        format!(
            "{n} block {} used ({} of {} blocks searched)",
            if n == 1 { "index" } else { "indexes" },
            r.blocks_searched,
            r.blocks_total
        )
    });
    Some(match (tree?, blocks) {
        (Ok(index), None) => index_line(index),
        (Ok(index), Some(blocks)) => format!("{}; {blocks}", index_line(index)),
        (Err(why), None) => format!("index: not used: {why}"),
        (Err(why), Some(blocks)) => format!("index: {blocks}; tree index not used: {why}"),
    })
}

/// The tree index's part of `--stats`, as one line.
fn index_line(r: &IndexReport) -> String {
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
