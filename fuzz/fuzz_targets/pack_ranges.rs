//! A packed file read by range, as a remote object is (`PackedFile::open_store`
//! over a store that serves only the ranges asked for): from arbitrary
//! bytes, errors or data, never a panic or a range outside the file; what
//! it parses is what parsing the whole file gives. Read again with nothing
//! at hand (`Store::holds` false, as a remote object is), its block index
//! is read by range for a query (`PackedText::read_for`, `pack::partial`:
//! any index, under `cfg(fuzzing)`; through its trigram table's directory
//! when it has one, `index::trigram_dir::decode`), errors or an index,
//! never a panic.
#![no_main]

use std::borrow::Cow;
use std::io;
use std::ops::Range;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use trigrep::pack::Store;
use trigrep::pack::format::parse;
use trigrep::pack::read::PackedFile;
use trigrep::query::Query;
use trigrep::text::packed::PackedText;
use trigrep::text::{BlockText, Opened};
use trigrep::query::trigram::pack;

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

/// The same file, nothing of it at hand: its index is read by range.
struct Remote(Ranged);

impl Store for Remote {
    fn len(&self) -> u64 {
        self.0.len()
    }

    fn bytes(&self, range: Range<u64>) -> io::Result<Cow<'_, [u8]>> {
        self.0.bytes(range)
    }

    fn want(&self, ranges: &[Range<u64>]) -> io::Result<()> {
        self.0.want(ranges)
    }

    fn holds(&self, _: Range<u64>) -> bool {
        false
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(Some(packed)) = PackedFile::open_store(Arc::new(Remote(Ranged(data.to_vec())))) {
        let query = Query::Trigram(pack(*b"abc")).and(Query::Trigram(pack(*b"bcd")));
        if let Ok(Opened::Trusted(text)) = PackedText::read_for(&packed, &|_| query.clone()) {
            let _ = text.blocks().len();
        }
    }
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
