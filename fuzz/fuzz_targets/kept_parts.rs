//! The parts of a packed object's block index a reader keeps on disk
//! (`trigrep::remote::kept::parse_parts`): any bytes parse or are refused,
//! never a panic; every part parsed lies within the object, and the
//! parts parsed are all the bytes (16 bytes of offset and length each).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::remote::kept::parse_parts;

fuzz_target!(|data: &[u8]| {
    let size = 1 << 20;
    if let Some(parts) = parse_parts(data, size) {
        assert!(parts.iter().all(|(start, bytes)| start + bytes.len() as u64 <= size));
        let len: usize = parts.iter().map(|(_, bytes)| 16 + bytes.len()).sum();
        assert_eq!(len, data.len());
    }
});
