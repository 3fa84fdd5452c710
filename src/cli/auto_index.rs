//! Indexes nobody asked for: after a search (or `tg view`) read a big file
//! without an index describing it, `tg index --background FILE` is started
//! for it, detached, at background priority ([`AutoIndex::start`]).
//!
//! Big means at least [`AUTO_INDEX_MIN`] bytes for a plain file and
//! its format's compressed size for a compressed file whose text tg indexes
//! (64 MiB for `.gz`: [`IndexedFormat::auto_index_min`]), or, for both,
//! `TG_AUTO_INDEX_MIN` when set (a size with rg's suffixes, as
//! `--max-filesize`: `500M`, `2G`); `TG_AUTO_INDEX=0` turns it off.

use std::path::{Path, PathBuf};

use trigrep::search::decode::Format;
use trigrep::text::indexed_format::IndexedFormat;

/// Plain files from this size up get a block index in the background.
///
/// Chosen by measurement (`bench/auto_index_threshold.py`: the 1 GiB log
/// cut to 16 MiB .. 1 GiB, three selective queries, this 2-core machine,
/// shared): through the index a query costs 6-10 ms of CPU at any size,
/// a hot scan 7 ms (16 MiB), 10 ms (64 MiB), 27 ms (256 MiB), 81 ms
/// (1 GiB); cold, 36, 77, 150 and 668 ms against 35-60 ms through the
/// index. The build costs 0.7 s of CPU at 64 MiB, 3.3 s at 256 MiB, 8.2 s
/// at 1 GiB, and pays back after about 170 hot or 43 cold queries at
/// 256 MiB (110 and 20 at 1 GiB); at 64 MiB a hot query gains nothing and
/// a cold one 18 ms. From 256 MiB up a query through the index is 3-4x
/// faster hot and cold, and the build runs at background priority.
pub const AUTO_INDEX_MIN: u64 = 256 << 20;

/// The automatic-index settings of this run, read from the environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AutoIndex {
    /// `TG_AUTO_INDEX=0`: no background builds.
    off: bool,
    /// `TG_AUTO_INDEX_MIN`, when set and readable: the floor for every kind.
    min: Option<u64>,
}

impl AutoIndex {
    /// The settings of this process's environment; a `TG_AUTO_INDEX_MIN`
    /// that is not a size is said on stderr (one `tg:` line) and ignored.
    pub fn from_env() -> AutoIndex {
        let min = std::env::var_os("TG_AUTO_INDEX_MIN").filter(|v| !v.is_empty());
        let (settings, warning) = AutoIndex::read(
            std::env::var_os("TG_AUTO_INDEX").is_some_and(|v| v == "0"),
            min.as_deref().map(|v| v.to_string_lossy()).as_deref(),
        );
        if let Some(w) = warning {
            trigrep::report::line(&w);
        }
        settings
    }

    /// The settings for `off` and a `TG_AUTO_INDEX_MIN` of `min`, and what
    /// to say when `min` cannot be read.
    fn read(off: bool, min: Option<&str>) -> (AutoIndex, Option<String>) {
        let Some(text) = min else { return (AutoIndex { off, min: None }, None) };
        match grep_cli::parse_human_readable_size(text.trim()) {
            Ok(n) => (AutoIndex { off, min: Some(n) }, None),
            Err(_) => {
                let compressed: Vec<String> = IndexedFormat::all()
                    .map(|f| format!("{} for {}", human(f.auto_index_min), f.format.name()))
                    .collect();
                let warning = format!(
                    "TG_AUTO_INDEX_MIN={text:?} is not a size (digits and an optional K, M \
                     or G, as --max-filesize); ignored: files get an index in the background \
                     from {} ({})",
                    human(AUTO_INDEX_MIN),
                    compressed.join(", ")
                );
                (AutoIndex { off, min: None }, Some(warning))
            }
        }
    }

    /// The size from which the file at `path` gets an index in the background.
    pub fn min_for(&self, path: &Path) -> u64 {
        let compressed = Format::of(path).and_then(IndexedFormat::of);
        self.min.unwrap_or(compressed.map_or(AUTO_INDEX_MIN, |indexed| indexed.auto_index_min))
    }

    /// Starts `tg index --background FILE` for each file of `paths` (read
    /// without an index describing it) at least [`AutoIndex::min_for`] big,
    /// detached from this process.
    pub fn start(&self, paths: &[PathBuf], base: &Path) {
        if paths.is_empty() || self.off {
            return;
        }
        let Ok(exe) = std::env::current_exe() else { return };
        let mut seen = std::collections::BTreeSet::new();
        for path in paths {
            let big = path.metadata().is_ok_and(|m| m.is_file() && m.len() >= self.min_for(path));
            if !big || !seen.insert(path) {
                continue;
            }
            let mut cmd = std::process::Command::new(&exe);
            cmd.args(["index", "-q", "--background", "--index-dir"])
                .arg(base)
                .arg(path)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            trigrep::sys::own_group(&mut cmd);
            let _ = cmd.spawn();
        }
    }
}

/// `bytes` as a size with rg's suffixes, exact (`64M`, `1G`, `1000`).
fn human(bytes: u64) -> String {
    match bytes {
        0 => "0".to_string(),
        b if b % (1 << 30) == 0 => format!("{}G", b >> 30),
        b if b % (1 << 20) == 0 => format!("{}M", b >> 20),
        b if b % (1 << 10) == 0 => format!("{}K", b >> 10),
        b => b.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_rgs_suffixes_and_a_bad_one_is_said() {
        let read = |v: &str| AutoIndex::read(false, Some(v));
        assert_eq!(read("500M"), (AutoIndex { off: false, min: Some(500 << 20) }, None));
        assert_eq!(read("2G").0.min, Some(2 << 30));
        assert_eq!(read("64K").0.min, Some(64 << 10));
        assert_eq!(read("1073741745").0.min, Some(1_073_741_745));
        for bad in ["500MB", "lots", "-1", "1.5G"] {
            let (settings, warning) = read(bad);
            assert_eq!(settings.min, None, "{bad}");
            let w = warning.expect(bad);
            assert!(w.contains("TG_AUTO_INDEX_MIN") && w.contains("256M"), "{w}");
        }
        let unset = AutoIndex::read(true, None);
        assert_eq!(unset, (AutoIndex { off: true, min: None }, None));
        assert_eq!(unset.0.min_for(Path::new("a.log")), AUTO_INDEX_MIN);
        assert_eq!(unset.0.min_for(Path::new("a.log.gz")), 64 << 20);
        assert_eq!(read("1K").0.min_for(Path::new("a.log.gz")), 1024);
    }
}
