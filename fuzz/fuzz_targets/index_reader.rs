//! An index file from arbitrary bytes: opening, verifying, listing and
//! querying it give errors or answers, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::index::query::Query;
use trigrep::index::reader::IndexReader;
use trigrep::index::trigram::pack;

fuzz_target!(|data: &[u8]| {
    let Ok(reader) = IndexReader::from_bytes(data.to_vec()) else { return };
    let _ = reader.verify();
    for f in reader.files() {
        let _ = f.path.len();
    }
    for d in reader.documents() {
        let _ = d.offset;
    }
    let _ = reader.source();
    let q = Query::And(vec![Query::Trigram(pack(*b"abc")), Query::Trigram(pack(*b"xyz"))]);
    let _ = reader.candidates(&q);
    let _ = reader.candidates(&Query::All);
});
