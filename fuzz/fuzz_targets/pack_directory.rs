//! A bucket of a packed file's frame directory, as a search reads it
//! (`pack::directory::check_bucket`): from arbitrary bytes, a bucket
//! number and a frame count, `Ok` or an error, never a panic; a bucket
//! whose CRC does not match its bytes and number is never `Ok`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::pack::directory::check_bucket;

fuzz_target!(|data: &[u8]| {
    let Some((head, bytes)) = data.split_first_chunk::<8>() else { return };
    let b = u32::from_le_bytes(head[..4].try_into().unwrap()) % (1 << 14);
    let frames = u32::from_le_bytes(head[4..].try_into().unwrap());
    let checked = check_bucket(bytes, b, frames).is_ok();
    // A sound bucket's CRC covers its number: read as another, it fails.
    if checked {
        assert!(check_bucket(bytes, b ^ 1, frames).is_err());
    }
    // The same bytes with a CRC made to match: parsed to the end.
    if bytes.len() == 64 {
        let mut fixed = bytes.to_vec();
        let mut h = crc32fast::Hasher::new();
        h.update(&b.to_le_bytes());
        h.update(&fixed[4..]);
        fixed[..4].copy_from_slice(&h.finalize().to_le_bytes());
        let _ = check_bucket(&fixed, b, frames);
    }
});
