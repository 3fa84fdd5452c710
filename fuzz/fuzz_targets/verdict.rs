//! A verdict record (`index::verdict`), from arbitrary bytes: an error or
//! a verdict that encodes back to the same bytes, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::index::verdict::Verdict;

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = Verdict::decode(data) {
        assert_eq!(v.encode(), data, "a decoded verdict re-encodes to its bytes");
    }
});
