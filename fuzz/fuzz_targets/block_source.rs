//! A block index's `source` record, from arbitrary bytes: an error or a
//! record that encodes back to the same bytes, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::index::blocks::source::BlockSource;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = BlockSource::decode(data) {
        let again = BlockSource::decode(&s.encode()).expect("a decoded record re-encodes");
        assert_eq!(again, s);
    }
});
