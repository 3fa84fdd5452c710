//! A log line's time, level and host, from arbitrary bytes: every
//! format's parser, the detector, the level and host readers answer,
//! never panic; a time read formats, a level's place lies inside the
//! line and a host is a word of it followed by a space.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::logline::{host, level};
use trigrep::logline::time::{self, Format};

fuzz_target!(|data: &[u8]| {
    let formats =
        [Format::Iso, Format::Access, Format::Json, Format::Syslog { year: 2026, month: 2 }];
    for line in data.split(|&b| b == b'\n') {
        for f in formats {
            if let Some(t) = time::parse(f, line) {
                assert!(!time::format(t).is_empty());
            }
            if let Some(h) = host::detect(f, line) {
                let at = h.as_ptr() as usize - line.as_ptr() as usize;
                assert!(!h.is_empty() && at + h.len() < line.len() && line[at + h.len()] == b' ');
            }
        }
        if let Some((_, at)) = level::detect(line) {
            assert!(at.start <= at.end && at.end <= line.len());
        }
    }
    let _ = time::detect(data, 1_767_434_400_000);
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = time::parse_query(s, Some(0), Some(0));
    }
});
