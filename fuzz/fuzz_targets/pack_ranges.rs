//! A packed file read by range, as a remote object is (`PackedFile::open_store`
//! over a store that serves only the ranges asked for): from arbitrary
//! bytes, errors or data, never a panic or a range outside the file; what
//! it parses is what parsing the whole file gives.
#![no_main]

use std::borrow::Cow;
use std::io;
use std::ops::Range;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use trigrep::pack::Store;
use trigrep::pack::format::parse;
use trigrep::pack::read::PackedFile;

/// A file served by range, every range checked within it.
struct Ranged(Vec<u8>);

impl Store for Ranged {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn bytes(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        assert!(range.start <= range.end && range.end <= self.len(), "asked for {range:?}");
        Ok(Cow::Owned(self.0[range.start as usize..range.end as usize].to_vec()))
    }

    fn want(&self, ranges: &[Range<u64>]) -> io::Result<()> {
        for r in ranges {
            assert!(r.start <= r.end && r.end <= self.len(), "wanted {r:?}");
        }
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let whole = parse(data).ok();
    let Ok(Some(packed)) = PackedFile::open_store(Arc::new(Ranged(data.to_vec()))) else { return };
    assert_eq!(Some(packed.frames()), whole.as_ref().map(|l| &l.frames[..]));
    let _ = packed.head(64 << 10);
    let _ = packed.check_index();
    if let Some(Ok(index)) = packed.block_index() {
        let _ = index.blocks().count();
    }
    let all: Vec<usize> = (0..packed.frames().len().min(64)).collect();
    let _ = packed.want_frames(&all);
    let mut dctx = zstd::bulk::Decompressor::new().expect("a context");
    let mut buf = Vec::new();
    for i in all {
        let _ = packed.frame(i, &mut dctx, &mut buf);
    }
});
