//! A block index's `times` section, from arbitrary bytes: `None` or
//! ranges, one per block, each in order, that encode back to the same
//! bytes; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::index::blocks::time_ranges::BlockTimes;

fuzz_target!(|data: &[u8]| {
    // The block count the index's document table would give: the one the
    // section says, or another.
    let said = data.get(24..32).map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap()));
    for blocks in [said, said.wrapping_add(1), u64::from(data.first().copied().unwrap_or(0))] {
        if let Some(t) = BlockTimes::decode(data, blocks) {
            assert_eq!(t.ranges.len() as u64, blocks);
            assert!(t.ranges.iter().flatten().all(|(lo, hi)| lo <= hi));
            assert_eq!(t.encode(), data, "a decoded section re-encodes");
        }
    }
});
