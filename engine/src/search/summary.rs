//! What ripgrep prints after the results: its `--stats` block (or the JSON
//! summary line), and the note that no file was searched.

use std::io::{self, Write};
use std::time::Instant;

use grep_printer::Stats;

use crate::options::OutputMode;
use crate::report::Messages;

/// Reports that the walk found no file at all, in ripgrep's two lines.
pub fn nothing_searched(msgs: &Messages) {
    msgs.error(
        "No files were searched, which means trigrep probably applied a filter you didn't expect.\n\
         Running with --debug will show why files are being skipped.",
    );
}

/// Writes ripgrep's statistics block (or JSON summary) to `wtr`.
pub(crate) fn print_rg_stats<W: Write>(
    mode: OutputMode,
    stats: &Stats,
    started: Instant,
    mut wtr: W,
) -> io::Result<()> {
    let elapsed = started.elapsed();
    if mode == OutputMode::Json {
        let summary = serde_json::json!({
            "type": "summary",
            "data": {
                "stats": stats,
                "elapsed_total": {
                    "secs": elapsed.as_secs(),
                    "nanos": elapsed.subsec_nanos(),
                    "human": format!("{:0.6}s", elapsed.as_secs_f64()),
                },
            }
        });
        serde_json::to_writer(&mut wtr, &summary)?;
        writeln!(wtr)
    } else {
        write!(
            wtr,
            "\n{} matches\n{} matched lines\n{} files contained matches\n{} files searched\n\
             {} bytes printed\n{} bytes searched\n{:0.6} seconds spent searching\n\
             {:0.6} seconds total\n",
            stats.matches(),
            stats.matched_lines(),
            stats.searches_with_match(),
            stats.searches(),
            stats.bytes_printed(),
            stats.bytes_searched(),
            stats.elapsed().as_secs_f64(),
            elapsed.as_secs_f64(),
        )
    }
}
