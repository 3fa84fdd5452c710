//! The one-thread driver: subjects in output order (walk order, or
//! sorted), each read as [`super::reading`] says and searched straight to
//! stdout; huge files are searched in chunks on every core ([`super::huge`]).

use std::io::{self, Write};

use grep_printer::Stats;

use super::driven::{Driven, Run};
use super::huge::Huge;
use super::reading::{Direct, Reading, Readings};
use super::subject::{Source, Subject};
use super::summary::{nothing_searched, print_rg_stats};
use crate::error::Result;
use crate::stats::{RunClock, RunStats};
use crate::worker::{Printer, SearchWorker};

/// Searches what `source` yields on one thread.
pub fn search(search: Run<'_>, source: &dyn Source) -> Result<Driven> {
    let Run { opts, mode, msgs, .. } = search;
    let clock = RunClock::start(opts.run.stats);
    let started = clock.started;
    let stdout = opts.print.stdout();
    let printer = Printer::new(opts, mode, stdout, true);
    let mut worker = SearchWorker::new(opts, printer)?;
    let mmap = opts.rg_mmap();
    let readings = Readings::new(search)?;
    let mut huge = Huge::new(search);
    let mut run = RunStats::default();
    let mut stats = opts.print.stats.then(Stats::new);
    let mut matched = false;
    run.setup = started.elapsed();
    let search_started = std::time::Instant::now();
    let mut visit = |subject: &Subject| {
        let result = readings.of(subject).and_then(|reading| match reading {
            Reading::Now(direct) => readings.search(&mut worker, subject, direct, Some(&mut run)),
            Reading::Compressed(format) => huge
                .search_compressed(&mut worker, subject, format, &mut run)
                .unwrap_or_else(|| {
                    let whole = Direct::decompressed(format);
                    readings.search(&mut worker, subject, whole, Some(&mut run))
                }),
            Reading::Bytes => huge.search(&mut worker, subject, mmap, &mut run),
        });
        let result = match result {
            Ok(r) => r,
            Err(err) if err.kind() == io::ErrorKind::BrokenPipe => return false,
            Err(err) => {
                msgs.error(format!("{}: {}", subject.path().display(), err));
                return true;
            }
        };
        matched |= result.has_match;
        if let (Some(total), Some(s)) = (stats.as_mut(), result.stats.as_ref()) {
            *total += s;
        }
        !(matched && opts.print.quit_after_match())
    };
    let found = source.visit(&mut visit)?;
    run.search = search_started.elapsed();
    if opts.walk.implicit_path && !found {
        nothing_searched(msgs);
    }
    let out = worker.printer().get_mut();
    if let Some(stats) = stats {
        let _ = print_rg_stats(mode, &stats, started, &mut *out);
    }
    if opts.run.stats {
        let _ = out.flush();
        clock.finish(&mut run);
    }
    Ok(Driven { matched, run, unindexed_huge: huge.take_unindexed() })
}
