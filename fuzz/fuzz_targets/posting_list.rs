//! One posting list from arbitrary bytes (`trigrep::index::postings::
//! read_list`), in every list format: the first 4 bytes are its count and
//! the document count (u16 LE each), the next its format (7, or 4 when odd),
//! the rest the list. Any bytes decode or are refused, never a panic; a
//! list accepted holds `count` increasing ids below the document count,
//! each with a 4-bit mask.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::index::postings::read_list;

fuzz_target!(|data: &[u8]| {
    let Some((head, list)) = data.split_first_chunk::<5>() else { return };
    let count = u32::from(u16::from_le_bytes([head[0], head[1]]));
    let docs = u32::from(u16::from_le_bytes([head[2], head[3]]));
    let format = if head[4] % 2 == 1 { 4 } else { 7 };
    if let Ok(ids) = read_list(list, count, docs, format) {
        assert_eq!(ids.len(), count as usize);
        assert!(ids.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(ids.iter().all(|&(d, m)| d < docs && m <= 0x0f));
    }
});
