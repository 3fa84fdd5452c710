//! The object beside a remote object that holds its block index
//! (`trigrep::remote::sibling`): any bytes decode or are an error, never
//! a panic, and what decodes encodes back to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::remote::sibling::{decode, encode};

fuzz_target!(|data: &[u8]| {
    if let Ok(object) = decode(data.to_vec()) {
        assert_eq!(encode(&object.etag, object.size, &object.index), data);
    }
});
