//! What the viewer's tests (`view.rs`, `view_edges.rs`) share: the
//! fixture log, `sed -n Np` and `rg -n` as references, reading rows off a
//! captured screen, and starting `tg view` on each kind of text in tmux.

use std::io::Write;
use std::process::{Command, Stdio};

use super::Tree;
use super::tmux::Tmux;

/// Lines in the fixture log.
pub const LINES: usize = 3000;

/// The fixture log: numbered lines, some holding "needle".
pub fn fixture() -> Vec<u8> {
    let mut out = Vec::new();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let words = ["alpha", "beta", "gamma", "delta", "kappa", "sigma", "omega"];
    for i in 1..=LINES {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let w = |k: u64| words[((x >> k) % words.len() as u64) as usize];
        let needle = if x.is_multiple_of(53) { " needle" } else { "" };
        writeln!(out, "{i:05} {} {} {}{needle} {}", w(3), w(11), w(19), x % 100_000).unwrap();
    }
    out
}

/// Line `n` (1-based) of `data`, as `sed -n Np` prints it without its newline.
pub fn sed(data: &[u8], n: u64) -> String {
    let line = data.split(|&b| b == b'\n').nth(n as usize - 1).unwrap_or_default();
    String::from_utf8_lossy(line).into_owned()
}

/// `rg -n PATTERN FILE` in `tree`: the numbers and text of the matching lines.
pub fn rg_lines(tree: &Tree, pattern: &str, file: &str) -> Vec<(u64, String)> {
    let out = super::rg_command(tree, tree.root()).args(["-n", pattern, file]).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (n, text) = l.split_once(':').unwrap();
            (n.parse().unwrap(), text.to_string())
        })
        .collect()
}

/// A screen row as (line number, text): the gutter parsed, the density bar
/// (the last column) dropped.
pub fn row(s: &str, width: usize) -> Option<(u64, String)> {
    let s: String = s.chars().take(width - 1).collect();
    let s = s.trim_start();
    let (n, text) = s.split_once(' ').unwrap_or((s, ""));
    Some((n.parse().ok()?, text.trim_end().to_string()))
}

/// The text rows of a screen (all but the status line), parsed.
pub fn rows(screen: &[String], width: usize) -> Vec<(u64, String)> {
    screen[..screen.len() - 1].iter().filter_map(|s| row(s, width)).collect()
}

/// The line number at the top of the screen.
pub fn top(screen: &[String]) -> Option<u64> {
    row(screen.first()?, 120).map(|r| r.0)
}

/// How the viewer is started on each kind of text.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A plain file without an index.
    Plain,
    /// A log with a block index of 4 KiB blocks.
    Blocks,
    /// An indexed `.gz` (64 KiB access points).
    Gz,
    /// A `.gz` without an index: decompressed into a spool.
    GzSpool,
    /// A packed `.zst` (4 KiB frames).
    Packed,
    /// Another tool's seekable `.zst` (zstd's contrib library, 4 KiB
    /// frames, a seek table with checksums, no tg index): read frame by frame.
    Seekable,
    /// A plain `.zst` (the `zstd` program, one frame): decompressed into a spool.
    ZstSpool,
    /// stdin.
    Stdin,
}

/// `data` as zstd's seekable format, written by zstd's contrib library
/// (`ZSTD_seekable_compressStream`): frames of at most `frame` bytes of
/// text, then the seek table, with checksums.
pub fn seekable_zst(data: &[u8], frame: u32) -> Vec<u8> {
    use zstd_safe::seekable::SeekableCStream;
    use zstd_safe::{InBuffer, OutBuffer};
    let mut out = vec![0u8; data.len() + (1 << 20)];
    let mut c = SeekableCStream::create();
    c.init(3, true, frame).unwrap();
    let mut input = InBuffer::around(data);
    let mut output = OutBuffer::around(&mut out[..]);
    while input.pos() < data.len() {
        c.compress_stream(&mut output, &mut input).unwrap();
    }
    while c.end_stream(&mut output).unwrap() != 0 {}
    let n = output.pos();
    out.truncate(n);
    out
}

/// Runs `tg` with `args` in `tree`, indexes under `tree/idx`; fails on error.
pub fn tg(tree: &Tree, args: &[&str]) {
    let st = super::tg_command(tree, tree.root())
        .env("TG_INDEX_DIR", tree.path("idx"))
        .args(args)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "tg {args:?} failed");
}

/// Prepares `kind` from `app.log`: the command line that views it, and
/// what the status line calls it.
pub fn prepare(tree: &Tree, kind: Kind) -> (String, &'static str) {
    let tg_bin = super::tg_bin().display().to_string();
    match kind {
        Kind::Plain => (format!("{tg_bin} view app.log"), "(no index)"),
        Kind::Blocks => {
            tg(tree, &["index", "-q", "--block-size", "4K", "app.log"]);
            (format!("{tg_bin} view app.log"), "(block index)")
        }
        Kind::Gz => {
            let st = Command::new("gzip").args(["-k", "app.log"]).current_dir(tree.root()).status();
            assert!(st.unwrap().success());
            tg(
                tree,
                &["index", "-q", "--block-size", "4K", "--access-spacing", "64K", "app.log.gz"],
            );
            (format!("{tg_bin} view app.log.gz"), "(.gz index)")
        }
        Kind::GzSpool => {
            let st = Command::new("gzip").args(["-k", "app.log"]).current_dir(tree.root()).status();
            assert!(st.unwrap().success());
            (format!("{tg_bin} view app.log.gz"), "app.log.gz (spooled)")
        }
        Kind::Packed => {
            tg(tree, &["pack", "-q", "--frame-size", "4K", "app.log"]);
            (format!("{tg_bin} view app.log.zst"), "(packed)")
        }
        Kind::Seekable => {
            let data = std::fs::read(tree.path("app.log")).unwrap();
            tree.write("app.log.zst", seekable_zst(&data, 4096));
            (format!("{tg_bin} view app.log.zst"), "(seekable zstd)")
        }
        Kind::ZstSpool => {
            let st = Command::new("zstd")
                .args(["-q", "-k", "app.log"])
                .current_dir(tree.root())
                .status();
            assert!(st.unwrap().success(), "zstd -k app.log");
            (format!("{tg_bin} view app.log.zst"), "app.log.zst (spooled)")
        }
        Kind::Stdin => (format!("cat app.log | {tg_bin} view"), "stdin (spooled)"),
    }
}

/// A viewer of `kind` in a 120×40 window, its first screen shown.
pub fn open(tree: &Tree, kind: Kind) -> (Tmux, &'static str) {
    let (command, label) = prepare(tree, kind);
    let idx = tree.path("idx").display().to_string();
    let env = [("TG_INDEX_DIR", idx.as_str()), ("TG_AUTO_INDEX", "0"), ("NO_COLOR", "1")];
    let t = Tmux::new(tree.root(), 120, 40, &env);
    t.send_line(&format!("{command} 2>tg.err; stty -a > stty.txt"));
    let data = std::fs::read(tree.path("app.log")).unwrap();
    let want: Vec<(u64, String)> = (1..=39).map(|n| (n, sed(&data, n))).collect();
    t.wait(&format!("{kind:?}: the first screen, lines 1-39 as sed prints them"), |s| {
        s.last().is_some_and(|l| l.contains(label) && l.contains(&format!("lines 1-39/{LINES}")))
            && rows(s, 120) == want
    });
    (t, label)
}

/// Types `keys` and waits until the top line is `want` and the status
/// line (drawn last) says so; the screen.
pub fn top_after(t: &Tmux, keys: &str, want: u64, what: &str) -> Vec<String> {
    t.send(keys);
    t.wait(&format!("{what}: line {want} at the top"), |s| at_top(s, want))
}

/// Whether line `n` is at the top, by the first row and the status line.
pub fn at_top(s: &[String], n: u64) -> bool {
    top(s) == Some(n) && s.last().is_some_and(|l| l.contains(&format!("lines {n}-")))
}

/// `tg view FILE` in a 120×40 window of `tree`, colours off, indexes
/// under `tree/idx`, with `env` added; its exit code goes to `rc.txt`,
/// its stderr to `tg.err`, `stty -a` after it to `stty.txt`. Returns once
/// the status line names `file`.
pub fn view(tree: &Tree, file: &str, env: &[(&str, &str)]) -> Tmux {
    let t = launch(tree, file, env);
    t.wait(&format!("tg view {file}: its first screen"), |s| {
        s.last().is_some_and(|l| l.starts_with(file))
    });
    t
}

/// [`view`] without waiting for the first screen.
pub fn launch(tree: &Tree, file: &str, env: &[(&str, &str)]) -> Tmux {
    launch_sized(tree, file, env, 120, 40)
}

/// [`launch`] in a `width`×`height` window.
pub fn launch_sized(
    tree: &Tree,
    file: &str,
    env: &[(&str, &str)],
    width: u16,
    height: u16,
) -> Tmux {
    let idx = tree.path("idx").display().to_string();
    let mut all = vec![("TG_INDEX_DIR", idx.as_str()), ("TG_AUTO_INDEX", "0"), ("NO_COLOR", "1")];
    all.retain(|(k, _)| !env.iter().any(|e| e.0 == *k));
    all.extend_from_slice(env);
    let t = Tmux::new(tree.root(), width, height, &all);
    let tg_bin = super::tg_bin().display().to_string();
    t.send_line(&format!("{tg_bin} view {file} 2>tg.err; echo $? > rc.txt; stty -a > stty.txt"));
    t
}

/// Waits until the shell is back after the viewer (`stty.txt` written by
/// [`view`]'s command line); checks the terminal is in canonical mode with
/// echo and the viewer's screen is gone. The viewer's exit code and stderr.
pub fn after_exit(tree: &Tree, t: &Tmux, file: &str, what: &str) -> (String, String) {
    let stty = tree.path("stty.txt");
    t.wait(&format!("{what}: the shell after the viewer"), |_| {
        std::fs::metadata(&stty).is_ok_and(|m| m.len() > 0)
    });
    let modes = std::fs::read_to_string(&stty).unwrap();
    assert!(modes.contains(" icanon") && modes.contains(" echo "), "{what}: stty -a: {modes}");
    // The shell's own echo of the command line may wrap right before the
    // file's name: that line names `tg.err` too, the viewer's never does.
    // tmux may draw the viewer's last bytes (leaving the alternate screen)
    // after the shell wrote `stty.txt`: wait for them, fail if they never come.
    let viewer_line = |l: &String| l.starts_with(file) && !l.contains("tg.err");
    t.wait(&format!("{what}: the viewer's screen gone (alternate screen left)"), |screen| {
        !screen.iter().any(viewer_line)
    });
    let rc = std::fs::read_to_string(tree.path("rc.txt")).unwrap();
    let err = std::fs::read_to_string(tree.path("tg.err")).unwrap();
    (rc.trim().to_string(), err)
}

/// Writes `name` in `tree`: `before` lines (`before N`), one line of
/// `size` bytes (the letters and digits over and over: [`LONG_UNIT`]),
/// then `after` lines (`after NNNNN` and 110 letters, so that a shift
/// right shows some); the long line is line `before + 1`.
pub fn long_line_file(tree: &Tree, name: &str, before: u64, size: u64, after: u64) {
    let chunk: Vec<u8> = LONG_UNIT.iter().copied().cycle().take(LONG_UNIT.len() << 15).collect();
    let mut f = std::io::BufWriter::new(std::fs::File::create(tree.path(name)).unwrap());
    for i in 1..=before {
        writeln!(f, "before {i}").unwrap();
    }
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len() as u64);
        f.write_all(&chunk[..n as usize]).unwrap();
        left -= n;
    }
    f.write_all(b"\n").unwrap();
    let tail: String = ('a'..='z').cycle().take(110).collect();
    for i in 1..=after {
        writeln!(f, "after {i:05} {tail}").unwrap();
    }
}

/// What the long line of [`long_line_file`] repeats.
pub const LONG_UNIT: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";

/// Lines `from..=to` (1-based) of `file` in `tree`, bytes `skip + 1` to
/// `skip + 114` of each (what a 120-column screen with line numbers
/// shows), as `tail -n +FROM | head | cut -c` print them: streamed, so
/// that a line of gigabytes is never held whole (sed would hold it).
pub fn cut_lines(tree: &Tree, file: &str, from: u64, to: u64, skip: u64) -> Vec<(u64, String)> {
    let script = format!(
        "tail -n +{from} {file} | head -n {} | cut -c{}-{}",
        to + 1 - from,
        skip + 1,
        skip + 114
    );
    let out = Command::new("sh").args(["-c", &script]).current_dir(tree.root()).output();
    String::from_utf8(out.unwrap().stdout)
        .unwrap()
        .lines()
        .zip(from..)
        .map(|(l, n)| (n, l.trim_end().to_string()))
        .collect()
}

/// The text between reverse-video escapes in each captured row (colours
/// off, a match is drawn reversed). tmux does not repeat an attribute at
/// the start of a row that the row before left on.
pub fn marked(screen: &[String]) -> Vec<Vec<String>> {
    let mut on = false;
    let mut all = Vec::new();
    for row in screen {
        let (mut out, mut cur) = (Vec::new(), String::new());
        let mut chars = row.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\x1b' && chars.peek() == Some(&'[') {
                chars.next();
                let params: String = chars.by_ref().take_while(|&c| c != 'm').collect();
                for p in params.split(';') {
                    match p {
                        "7" => on = true,
                        "" | "0" | "27" => on = false,
                        _ => {}
                    }
                }
                if !on && !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            } else if on {
                cur.push(c);
            }
        }
        out.extend((!cur.is_empty()).then_some(cur));
        all.push(out);
    }
    all
}
