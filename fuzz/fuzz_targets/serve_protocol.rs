//! `tg serve`'s wire protocol, from arbitrary bytes (what a hostile client
//! or a broken server may send): frames, path lists and JSON lines are
//! errors or values, never a panic, and path lists re-encode to the same
//! bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::serve::protocol::{self, Kind};

fuzz_target!(|data: &[u8]| {
    let mut r = data;
    while let Ok(Some((kind, body))) = protocol::read_frame(&mut r) {
        match kind {
            Kind::Paths => {
                if let Ok(paths) = protocol::decode_paths(&body) {
                    let mut again = Vec::new();
                    for (k, p) in &paths {
                        protocol::encode_path(&mut again, *k, p);
                    }
                    assert_eq!(again, body);
                }
            }
            _ => {
                let _ = protocol::parse_json(&body);
            }
        }
    }
    let mut lines = data;
    while let Ok(Some(_)) = protocol::read_json_line(&mut lines) {}
});
