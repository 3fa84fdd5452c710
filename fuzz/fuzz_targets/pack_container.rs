//! A packed file's layout (seek table, header, index frame and footer)
//! from arbitrary bytes, then every frame and the whole text read through
//! `PackedFile`: errors or data, never a panic, and a parsed layout whose
//! frames tile the file in order.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use trigrep::pack::format::parse;
use trigrep::pack::read::PackedFile;

fuzz_target!(|data: &[u8]| {
    let Ok(layout) = parse(data) else { return };
    let mut end = 0;
    for f in &layout.frames {
        assert!(f.offset >= end && f.offset + f.len <= data.len() as u64);
        end = f.offset + f.len;
    }
    // The same bytes through a file, as a search opens them.
    let mut file = tempfile::tempfile().expect("a temporary file");
    file.write_all(data).expect("written");
    let Ok(Some(packed)) = PackedFile::open(&file) else { return };
    let _ = packed.head(64 << 10);
    if let Some(Ok(index)) = packed.block_index() {
        let _ = index.blocks().count();
    }
    let mut dctx = zstd::bulk::Decompressor::new().expect("a context");
    let mut buf = Vec::new();
    for i in 0..packed.frames().len().min(64) {
        let _ = packed.frame(i, &mut dctx, &mut buf);
    }
    let _ = packed.unpack(&mut std::io::sink());
    let _ = trigrep::pack::verify::inspect(&packed);
});
