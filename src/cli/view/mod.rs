//! `tg view FILE`: a terminal viewer for texts of any size, plain, huge
//! (block index), `.gz` (indexed, or decompressed in the background),
//! packed `.zst` and stdin, with `less`'s keys.
//!
//! A front door over the engine: [`text`] adapts what the engine reads
//! (files, block indexes, `.gz` access points, packed frames) to the one
//! [`text::Text`] the viewer needs; [`lines`] knows line numbers (block
//! map, background count); [`nav`] moves by lines; [`search`] finds
//! matching lines through candidate ranges; [`density`] draws where the
//! matches are; [`screen`] says which lines to draw, [`ends`] where long
//! lines end (found in the background); [`app`] is the state
//! that [`keys`] drive; [`render`] and [`escape`] draw it; [`terminal`]
//! sets up and always restores the terminal; [`event_loop`] reads keys
//! and ticks; [`work`] runs scans off the UI thread as [`job`]s, in the
//! order typed, [`route`] saying which actions do (a move tried within a
//! read budget, [`metered`]). [`replay`] runs keys without a terminal and
//! times them (`--replay`, for bench/view.py).

pub mod app;
pub mod density;
pub mod ends;
pub mod escape;
pub mod event_loop;
pub mod job;
pub mod keys;
pub mod lines;
pub mod long_line;
pub mod metered;
pub mod nav;
pub mod render;
pub mod replay;
pub mod route;
pub mod screen;
pub mod search;
pub mod terminal;
pub mod text;
pub mod work;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Parser;
use trigrep::options::Case;

use super::flags::trigrep::IndexDirArg;
use app::App;
use lines::LineMap;

/// `tg view [FILE]`: a terminal viewer for files of any size, with the
/// keys of `less` (h shows them); searches go through the file's block
/// index when it has one.
#[derive(Debug, Parser)]
#[command(name = "tg view")]
pub struct ViewArgs {
    /// The file to view (none, or `-`: stdin).
    pub file: Option<PathBuf>,
    /// When to use colours: auto, always or never (NO_COLOR also turns them off).
    #[arg(long = "color", value_name = "WHEN", default_value = "auto",
          value_parser = ["auto", "always", "never"])]
    pub color: String,
    /// Search case-insensitively (toggled with -i in the viewer).
    #[arg(short = 'i', long = "ignore-case")]
    pub ignore_case: bool,
    /// Search with smart case (toggled with -S in the viewer).
    #[arg(short = 'S', long = "smart-case")]
    pub smart_case: bool,
    /// Start without line numbers (toggled with -N in the viewer).
    #[arg(short = 'n', long = "no-line-numbers")]
    pub no_line_numbers: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub index_base: IndexDirArg,
    /// Without a terminal: type these keys (`\n` for Enter, `{count}` to
    /// wait for the line count, `{density}` for the density bar), print
    /// each key's time to the screen and the last screen.
    #[arg(long = "replay", value_name = "KEYS", hide = true)]
    pub replay: Option<String>,
    /// The replayed screen's size, COLUMNSxROWS.
    #[arg(long = "size", value_name = "WxH", default_value = "120x40", hide = true)]
    pub size: String,
}

/// Runs `tg view`.
pub fn run_view(args: ViewArgs) -> anyhow::Result<()> {
    let base = args.index_base.base();
    let path = args.file.clone().filter(|p| p.as_os_str() != "-");
    anyhow::ensure!(
        path.is_some() || !std::io::stdin().is_terminal(),
        "no file to view (name one, or pipe text into tg view)"
    );
    let text = text::open(path.as_deref(), &base)?;
    let name = path.as_ref().map_or_else(
        || "stdin".to_string(),
        |p| {
            escape::escape(p.as_os_str().as_encoded_bytes(), &[], usize::MAX)
                .into_iter()
                .map(|(_, s)| s)
                .collect()
        },
    );
    let lines = Arc::new(LineMap::new(&*text));
    let stop = Arc::new(AtomicBool::new(false));
    // Background work waits for the first screen: on two cores, a count
    // on both (and an indexer starting) would take the CPU the first
    // screen needs.
    let mut background = {
        let (text, lines, stop) = (Arc::clone(&text), Arc::clone(&lines), Arc::clone(&stop));
        let (path, base) = (path.clone(), base.clone());
        Some(move || {
            if let Some(p) = &path
                && matches!(text.kind(), "no index" | "decompressing")
            {
                super::index_cmd::index_in_background(std::slice::from_ref(p), &base);
            }
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
            std::thread::spawn(move || lines::count(text, lines, threads, stop));
        })
    };
    let mut drawn = || {
        if let Some(start) = background.take() {
            start();
        }
    };
    let mut app = App::new(Arc::clone(&text), name, lines);
    app.numbers = !args.no_line_numbers;
    app.case = if args.ignore_case {
        Case::Insensitive
    } else if args.smart_case {
        Case::Smart
    } else {
        Case::Sensitive
    };
    let result = if let Some(keys) = &args.replay {
        replay::run(&mut app, keys, &args.size, &mut drawn)
    } else if !std::io::stdout().is_terminal() {
        drawn();
        copy_out(&*text)
    } else {
        let color = match args.color.as_str() {
            "always" => true,
            "never" => false,
            _ => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
            }
        };
        event_loop::interactive(&mut app, color, &mut drawn)
    };
    stop.store(true, Ordering::Relaxed);
    if let Some(d) = &app.density {
        d.stop();
    }
    result
}

/// Not a terminal: the text is written out whole, as `less` does (a
/// spool once it is complete).
fn copy_out(text: &dyn text::Text) -> anyhow::Result<()> {
    use std::io::Write;
    while text.arriving() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = std::io::stdout().lock();
    let mut failed = None;
    nav::each_chunk(text, 0..text.len(), &mut |bytes| match out.write_all(bytes) {
        Ok(()) => true,
        Err(e) => {
            failed = Some(e);
            false
        }
    });
    match failed {
        Some(e) => Err(e.into()),
        None => Ok(out.flush()?),
    }
}
