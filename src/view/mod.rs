//! `tg view FILE`: a terminal viewer for texts of any size, plain, huge
//! (block index), `.gz` (indexed, or decompressed in the background),
//! packed `.zst` and stdin, with `less`'s keys.
//!
//! A front door over the engine: [`text`] adapts what the engine reads
//! (files, block indexes, `.gz` access points, packed frames) to the one
//! [`text::Text`] the viewer needs (keeping a few pieces, read ahead
//! for a remote object: [`ahead`]); [`lines`] knows line numbers (block
//! map, background count); [`nav`] moves by lines; [`finder`] finds
//! matching lines through candidate ranges; [`density`] draws where the
//! matches are; [`screen`] says which lines to draw, [`line_ends`] where long
//! lines end (found in the background), [`wrap`] where a wrapped line's
//! rows start and [`scroll`] moves by them; [`app`] is the state
//! that [`keys`] drive; [`render`] and [`escape`] draw it; [`terminal`]
//! sets up and always restores the terminal; [`event_loop`] reads keys
//! and ticks; [`work`] runs scans off the UI thread as [`job`]s, in the
//! order typed, [`route`] saying which actions do (a move tried within a
//! read budget, [`metered`]). [`replay`] runs keys without a terminal and
//! times them (`--replay`, for bench/view.py). [`finding`] searches and
//! filters on the [`app`], [`less`] holds the rest of less's keys (marks,
//! `s FILE`, `:n`), [`timeline`] the times (`@TIME`), [`histogram`] the
//! lines per time bucket (`H`, drawn from a [`chart`]) and [`levels`] the level jumps (`e`, `w`);
//! [`status`] writes the status line.

pub mod ahead;
pub mod app;
pub mod chart;
pub mod density;
pub mod escape;
pub mod event_loop;
pub mod files;
pub mod finder;
pub mod finding;
pub mod histogram;
pub mod job;
pub mod keys;
pub mod less;
pub mod levels;
pub mod line_ends;
pub mod lines;
pub mod long_line;
pub mod merge;
pub mod merge_walk;
pub mod metered;
pub mod nav;
pub mod placed;
#[cfg(feature = "remote")]
pub mod remote;
pub mod render;
pub mod replay;
pub mod route;
pub mod screen;
pub mod scroll;
pub mod status;
pub mod terminal;
pub mod text;
pub mod timeline;
pub mod times;
pub mod unmatched;
pub mod work;
pub mod wrap;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use trigrep::options::Case;

use app::App;
use lines::LineMap;

/// What `tg view` was asked (the command line's `tg view` flags, parsed
/// by `cli::view_cmd`, which documents each).
pub struct ViewArgs {
    /// The files to view (none, or `-`: stdin) and `+CMD` start-up commands.
    pub files: Vec<PathBuf>,
    /// Start at the first line matching this pattern (as `+/PATTERN`).
    pub pattern: Option<String>,
    /// When to use colours: `auto`, `always` or `never`.
    pub color: String,
    /// Search case-insensitively.
    pub ignore_case: bool,
    /// Search with smart case.
    pub smart_case: bool,
    /// `n` and `N` go round to the other end of the text.
    pub wrap_search: bool,
    /// Start without line numbers.
    pub no_line_numbers: bool,
    /// The base directory of indexes.
    pub index_base: PathBuf,
    /// Without a terminal: type these keys and print the last screen.
    pub replay: Option<String>,
    /// The replayed screen's size, COLUMNSxROWS.
    pub size: String,
    /// Starts an index of a file in the background, if the file is big
    /// enough for one (the command line's automatic index).
    pub auto_index: Arc<dyn Fn(&Path) + Send + Sync>,
}

/// Runs `tg view`: each file named in turn, as `:n`, `:p` and `:x` ask.
pub fn run_view(args: ViewArgs) -> anyhow::Result<()> {
    let (commands, named): (Vec<_>, Vec<_>) =
        args.files.iter().partition(|p| p.as_os_str().as_encoded_bytes().starts_with(b"+"));
    let mut start = Vec::new();
    for c in &commands {
        start.extend(startup_keys(&c.to_string_lossy()[1..]));
    }
    if let Some(p) = &args.pattern {
        start.extend(startup_keys(&format!("/{p}")));
    }
    let named: Vec<PathBuf> = named.into_iter().cloned().collect();
    let files = if named.is_empty() { vec![None] } else { files::expand(&named)? };
    anyhow::ensure!(
        files.iter().all(Option::is_some) || !std::io::stdin().is_terminal(),
        "no file to view (name one, or pipe text into tg view)"
    );
    let shown = files::open_all(&files, &args.index_base)?;
    let interactive = args.replay.is_none() && std::io::stdout().is_terminal();
    // The terminal is taken once the files opened (an error is then
    // said on the normal screen).
    let mut screen = None;
    let mut at = 0;
    loop {
        let file = (&shown[at], at, shown.len());
        let next = view_one(&args, file, &start, interactive.then_some(&mut screen))?;
        // Not on a terminal, each in turn (a merge instead of its files).
        let after = (at + 1..shown.len()).find(|&i| !shown[i].in_merge);
        match (next, after) {
            (Some(n), _) => at = n,
            (None, Some(n)) if !interactive => at = n,
            (None, _) => return Ok(()),
        }
    }
}

/// The actions the keys of a start-up command make (`+G`; `+N` is `+Ng`;
/// one that opens a prompt is ended with Enter).
fn startup_keys(command: &str) -> Vec<keys::Action> {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let mut typed = command.to_string();
    if !typed.is_empty() && typed.bytes().all(|b| b.is_ascii_digit()) {
        typed.push('g');
    }
    let mut k = keys::Keys::default();
    let mut actions: Vec<keys::Action> = typed
        .chars()
        .filter_map(|c| k.feed(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)))
        .collect();
    if k.prompt().is_some() {
        actions.extend(k.feed(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)));
    }
    actions
}

/// Views one file or merge (`(it, its place, how many)`) on the terminal
/// `screen` (entered if not yet; none: not a terminal), `start` done
/// first; the place of the file to view next, if `:n`, `:p` or `:x`
/// asked for one.
fn view_one(
    args: &ViewArgs,
    (shown, place, count): (&files::Shown, usize, usize),
    start: &[keys::Action],
    screen: Option<&mut Option<terminal::Screen>>,
) -> anyhow::Result<Option<usize>> {
    let path = shown.path.clone();
    let text = Arc::clone(&shown.text);
    let mut name = shown.name.clone();
    if count > 1 {
        name.push_str(&format!(" (file {} of {count})", place + 1));
    }
    let lines = Arc::new(LineMap::new(&*text));
    let stop = Arc::new(AtomicBool::new(false));
    // Background work waits for the first screen: on two cores, a count
    // on both (and an indexer starting) would take the CPU the first
    // screen needs.
    let mut background = {
        let (text, lines, stop) = (Arc::clone(&text), Arc::clone(&lines), Arc::clone(&stop));
        let (path, auto_index) = (path.clone(), Arc::clone(&args.auto_index));
        Some(move || {
            if let Some(p) = &path
                && matches!(text.kind(), "no index" | "decompressing")
            {
                auto_index(p);
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
    app.wrap = args.wrap_search;
    app.files = (place, count);
    app.merge = shown.merge.clone();
    if app.merge.is_none() {
        app.detect_time(shown.modified);
    }
    app.case = if args.ignore_case {
        Case::Insensitive
    } else if args.smart_case {
        Case::Smart
    } else {
        Case::Sensitive
    };
    let result = if let Some(keys) = &args.replay {
        replay::run(&mut app, keys, &args.size, &mut drawn)
    } else if let Some(screen) = screen {
        let screen = match screen.take() {
            Some(s) => screen.insert(s),
            None => screen.insert(terminal::Screen::enter()?),
        };
        let color = match args.color.as_str() {
            "always" => true,
            "never" => false,
            _ => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
            }
        };
        event_loop::interactive(&mut app, screen, start, color, &mut drawn)
    } else {
        drawn();
        copy_out(&*text)
    };
    stop.store(true, Ordering::Relaxed);
    if let Some(d) = &app.density {
        d.stop();
    }
    result.map(|()| app.switch_to.filter(|_| !app.quit))
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
