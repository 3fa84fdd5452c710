//! The wire between `tg sql` and its warm server, from arbitrary bytes
//! (what a hostile client or a broken server may send): a request or a
//! reply frame is an error or a value, never a panic, and a request read
//! re-encodes to the bytes it was read from.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::serve::sql_wire::{Reply, Request};

fuzz_target!(|data: &[u8]| {
    let mut r = data;
    if let Ok(req) = Request::read(&mut r) {
        let used = data.len() - r.len();
        assert_eq!(req.encode(), &data[..used]);
    }
    let mut r = data;
    while let Ok(reply) = Reply::read(&mut r) {
        let mut again = Vec::new();
        reply.write(&mut again).unwrap();
        assert!(again.len() <= data.len());
    }
});
