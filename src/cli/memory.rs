//! Peak private memory (RssAnon), sampled by a background thread.
//!
//! The kernel keeps a high-water mark of the resident set (VmHWM) but not of
//! private memory; mapped file pages are not ours, so resident set overstates
//! what `tg` costs. [`PeakMemory`] reads `RssAnon` from `/proc/self/status`
//! every few milliseconds and keeps the maximum.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// A running sampler of private memory; stops when dropped.
pub struct PeakMemory {
    peak: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl PeakMemory {
    /// Starts sampling every 5 ms.
    pub fn start() -> PeakMemory {
        let peak = Arc::new(AtomicU64::new(status_bytes("RssAnon:").unwrap_or(0)));
        let stop = Arc::new(AtomicBool::new(false));
        let (p, s) = (peak.clone(), stop.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                if let Some(v) = status_bytes("RssAnon:") {
                    p.fetch_max(v, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        PeakMemory { peak, stop }
    }

    /// The highest private memory seen so far, in bytes (sampled now too).
    pub fn peak_rss_anon(&self) -> u64 {
        if let Some(v) = status_bytes("RssAnon:") {
            self.peak.fetch_max(v, Ordering::Relaxed);
        }
        self.peak.load(Ordering::Relaxed)
    }
}

impl Drop for PeakMemory {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Reads one `kB` field of `/proc/self/status` (e.g. `RssAnon:`, `VmHWM:`) in bytes.
pub fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line[field.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb * 1024)
}
