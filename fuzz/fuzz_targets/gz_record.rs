//! A `.gz` index's access-point record, from arbitrary bytes: an error or
//! a record that encodes back to the same bytes, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::index::gz::record::GzRecord;

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = GzRecord::decode(data) {
        let points: Vec<_> =
            r.points.iter().map(|p| (p.clone(), data[p.window.clone()].to_vec())).collect();
        let bytes = GzRecord::encode(&r.file, &r.text, r.spacing, &points);
        assert_eq!(bytes, data, "a decoded record re-encodes to its bytes");
        for offset in [0, r.text.len / 2, r.text.len] {
            if let Some(p) = r.point_before(offset) {
                assert!(p.text_offset <= offset);
            }
        }
    }
});
