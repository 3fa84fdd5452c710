//! `tg serve`'s wire protocol, from arbitrary bytes (what a hostile client
//! or a broken server may send): frames, path lists, queries and JSON
//! lines are errors or values, never a panic, and path lists and queries
//! re-encode to the same bytes. The same bytes as the `server` record a
//! server leaves in its index directory (how a client finds it): a record
//! with a pid and a socket, or none, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::query::wire;
use trigrep::serve::protocol::{self, Kind};
use trigrep::serve::parse_record;

fuzz_target!(|data: &[u8]| {
    // The first byte sets the largest frame taken (0 to 4,080 bytes), so
    // frames over the limit are met too.
    let Some((&limit, data)) = data.split_first() else { return };
    let mut r = data;
    while let Ok(Some((kind, body))) = protocol::read_frame(&mut r, usize::from(limit) * 16) {
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
            Kind::Query => {
                if let Ok(q) = wire::decode(&body) {
                    assert_eq!(wire::encode(&q).as_deref(), Some(&body[..]));
                }
            }
            _ => {
                let _ = protocol::parse_json(&body);
            }
        }
    }
    let mut lines = data;
    while let Ok(Some(_)) = protocol::read_json_line(&mut lines) {}
    if let Some(r) = parse_record(data) {
        assert!(r.pid != 0 && !r.socket.as_os_str().is_empty());
    }
});
