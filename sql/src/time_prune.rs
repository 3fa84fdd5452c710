//! Blocks skipped by time. When the index recorded the earliest and
//! latest time of each block's lines ([`BlockTimes`]), exactly the
//! blocks whose range meets the condition's are read ([`by_ranges`]).
//! An older index recorded none: then blocks are skipped only for a
//! table whose user said its times only go up (`'times=ascending'`,
//! [`crate::time_filter`]), by [`by_time`]. Then the
//! lines of a block have times between the time its first line carries
//! and the one the next block's first line carries, so the blocks that
//! can hold a time in a [`TimeRange`] are one run, found by bisecting:
//! a handful of probes, each a block's first line (and, when that line
//! has no time of its own, a look back for the one it carries). A line
//! without a time (before the text's first) is in no range.

use std::collections::HashMap;

use trigrep::index::blocks::time_ranges::BlockTimes;
use trigrep::logline::time::Format;
use trigrep::text::{Block, BlockText};

use crate::look_back::time_before;
use crate::stamps::own_time;
use crate::time_filter::TimeRange;
use trigrep::logline::time::LINE_HEAD as HEAD;

/// The time carried by the first line of each block of a text, probed
/// lazily.
struct Probes<'t> {
    text: &'t dyn BlockText,
    format: Format,
    /// Where the text's lines start (after a byte-order mark).
    start: u64,
    blocks: &'t [Block],
    seen: HashMap<usize, i64>,
}

impl Probes<'_> {
    /// The time block `i`'s first line carries; `i64::MIN` for none.
    fn at(&mut self, i: usize) -> std::io::Result<i64> {
        if let Some(&t) = self.seen.get(&i) {
            return Ok(t);
        }
        let b = self.blocks[i];
        let from = b.offset.max(self.start);
        let end = b.offset + b.len;
        let mut head = vec![0; (end.saturating_sub(from)).min(HEAD as u64) as usize];
        self.text.read_at(from, &mut head)?;
        let line = &head[..memchr::memchr(b'\n', &head).unwrap_or(head.len())];
        let t = match own_time(self.format, line) {
            Some(t) => Some(t),
            None => {
                time_before(&|at, buf| self.text.read_at(at, buf), self.format, self.start, from)?
            }
        };
        let t = t.unwrap_or(i64::MIN);
        self.seen.insert(i, t);
        Ok(t)
    }

    /// The first `i` in `lo..hi` where `yes(i)` holds (`hi`: none), for a
    /// `yes` that holds from some `i` on.
    fn first(
        &mut self,
        mut lo: usize,
        mut hi: usize,
        yes: &dyn Fn(i64) -> bool,
    ) -> std::io::Result<usize> {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if yes(self.at(mid)?) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Ok(lo)
    }
}

/// The spans of `spans` (blocks of `text`, whose every block, in order,
/// `blocks` holds) that can hold a line with a time in `range`, the
/// text's times (in `format`, its lines starting at `start`) going up.
pub fn by_time(
    text: &dyn BlockText,
    format: Format,
    start: u64,
    blocks: &[Block],
    spans: Vec<Block>,
    range: TimeRange,
) -> std::io::Result<Vec<Block>> {
    let n = blocks.len();
    if n == 0 {
        return Ok(spans);
    }
    let mut probes = Probes { text, format, start, blocks, seen: HashMap::new() };
    // Block i's lines are no later than what block i + 1 starts with: the
    // blocks before the one before the first starting at or after `lo`
    // are all earlier.
    let first = match range.lo {
        Some(lo) => probes.first(1, n, &|t| t >= lo)? - 1,
        None => 0,
    };
    // Block i's lines are no earlier than what it starts with.
    let end = match range.hi {
        Some(hi) => probes.first(0, n, &|t| t > hi)?,
        None => n,
    };
    log::info!("times in order: blocks {first}..{end} of {n} can hold {range:?}");
    if first >= end {
        return Ok(Vec::new());
    }
    let (from, to) = (blocks[first].offset, blocks[end - 1].offset);
    Ok(spans.into_iter().filter(|s| (from..=to).contains(&s.offset)).collect())
}

/// The spans of `spans` that can hold a line with a time in `range`, by
/// the times `recorded` of each of `blocks` (every block of the index, in
/// order): a span of an indexed block whose lines' times all fall outside
/// the range is left out; a span from `tail_from` on (a grown file's tail,
/// which no range covers) and one that is no block are kept.
pub fn by_ranges(
    blocks: &[Block],
    recorded: &BlockTimes,
    spans: Vec<Block>,
    tail_from: Option<u64>,
    range: TimeRange,
) -> Vec<Block> {
    let meets = |r: &Option<(i64, i64)>| {
        r.is_some_and(|(lo, hi)| {
            range.lo.is_none_or(|l| hi >= l) && range.hi.is_none_or(|h| lo <= h)
        })
    };
    let n = recorded.ranges.len().min(blocks.len());
    let kept = recorded.ranges[..n].iter().filter(|r| meets(r)).count();
    log::info!("time ranges: {kept} of {n} blocks can hold {range:?}");
    let keep = |s: &Block| {
        if tail_from.is_some_and(|t| s.offset >= t) {
            return true;
        }
        match blocks[..n].binary_search_by_key(&s.offset, |b| b.offset) {
            Ok(i) => meets(&recorded.ranges[i]),
            Err(_) => true,
        }
    };
    spans.into_iter().filter(keep).collect()
}
