//! The histogram `H` shows ([`super::histogram`] counts it): lines per
//! time bucket, and the bucket chosen, drawn as rows of bars.

use trigrep::logline::time;

/// Counts of lines per time bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    /// Where the first bucket starts (ms since the epoch).
    pub start: i64,
    /// How wide each bucket is (ms).
    pub width: i64,
    /// Lines in each bucket.
    pub counts: Vec<u64>,
    /// The bucket chosen.
    pub selected: usize,
    /// What was counted (`/pattern`, `&pattern` or `all lines`).
    pub what: String,
}

impl Histogram {
    /// The chart's rows, `width` columns wide, the chosen one first
    /// marked with `>`.
    pub fn rows(&self, width: usize) -> Vec<String> {
        let most = self.counts.iter().copied().max().unwrap_or(0).max(1);
        let room = width.saturating_sub(34).max(1) as u64;
        (0..self.counts.len())
            .map(|i| {
                let n = self.counts[i];
                let bar = "█".repeat(((n * room).div_ceil(most)) as usize);
                let mark = if i == self.selected { '>' } else { ' ' };
                let at = time::format(self.start + i as i64 * self.width);
                format!("{mark}{at:<23} {n:>8} {bar}")
            })
            .collect()
    }
}
