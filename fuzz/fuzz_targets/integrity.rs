//! An integrity record (`index::integrity`), from arbitrary bytes: an error or
//! a record that encodes back to the same bytes, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::index::integrity::Integrity;

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = Integrity::decode(data) {
        assert_eq!(v.encode(), data, "a decoded record re-encodes to its bytes");
    }
});
