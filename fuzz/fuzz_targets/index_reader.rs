//! An index file from arbitrary bytes: opening, verifying, listing the file
//! table and documents, looking paths up, reading posting lists, answering
//! queries and opening it as a block index give errors or answers, never a
//! panic; an index that verifies yields sorted candidates that are
//! documents of it.
//!
//! Two inputs: a whole index file (checksums and all, as read from disk),
//! or `SECT` followed by sections (`[name length: u8][name][length: u32
//! LE][bytes]`...), framed here with correct checksums (and each posting
//! list's CRC in the `trigrams` table set right), so that the fuzzer
//! reaches what lies behind the checksums: the file table, the paths, the
//! documents, the `always` list, the trigram table and the postings.
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use trigrep::index::blocks::BlockIndex;
use trigrep::index::format::{FormatWriter, Layout, SECTION_NAME_LEN, read_u32};
use trigrep::index::fresh::changes::lookup;
use trigrep::index::postings::{TRIGRAM_ENTRY_LEN, TrigramEntry};
use trigrep::query::Query;
use trigrep::index::reader::IndexReader;

fuzz_target!(|data: &[u8]| {
    let bytes = match data.strip_prefix(b"SECT") {
        Some(sections) => frame(sections),
        None => data.to_vec(),
    };
    let Ok(reader) = IndexReader::from_bytes(bytes.clone()) else { return };
    let trigrams = table_trigrams(&bytes);
    let queries = queries(&trigrams);
    exercise(&reader, &trigrams, &queries);
    if let Ok(blocks) = BlockIndex::from_reader(reader, PathBuf::new()) {
        let n = blocks.blocks().count();
        assert_eq!(n, blocks.block_count() as usize);
        assert_eq!(blocks.last_block().is_some(), n > 0);
        for q in &queries {
            let _ = blocks.candidates(q, 8);
        }
    }
});

/// Everything a query or `tg status` asks of an open index.
fn exercise(reader: &IndexReader, trigrams: &[u32], queries: &[Query]) {
    let verified = reader.verify().is_ok();
    let stats = reader.stats();
    let _ = (reader.needs_reindex(), reader.feature_version(), reader.source());
    let _ = reader.posting_count();
    let mut paths = Vec::new();
    for f in reader.files() {
        let _ = f.to_meta();
        if paths.len() < 16 {
            paths.push(f.path.to_vec());
        }
    }
    assert_eq!(reader.documents().count(), stats.documents as usize);
    for p in paths.iter().map(Vec::as_slice).chain([&b""[..], b"a", b"\xff"]) {
        if let Some(id) = lookup(reader, p) {
            assert_eq!(reader.file(id).map(|f| f.path), Some(p));
        }
    }
    let _ = (reader.file(u32::MAX), reader.doc(u32::MAX), reader.doc(0));
    for &t in trigrams {
        let _ = reader.posting_len(t);
        if let Ok(list) = reader.postings(t) {
            let _ = list.count();
        }
    }
    for q in queries {
        let Ok(c) = reader.candidates(q) else { continue };
        let docs = c.as_slice();
        if verified {
            assert!(docs.windows(2).all(|w| w[0] < w[1]), "candidates sorted and distinct");
            assert!(docs.iter().all(|&d| d < stats.documents), "candidates are documents");
        }
    }
}

/// An index file holding the sections in `data`, with correct checksums.
fn frame(mut data: &[u8]) -> Vec<u8> {
    let mut sections: Vec<(String, Vec<u8>)> = Vec::new();
    while let [n, rest @ ..] = data {
        let n = usize::from(*n).min(SECTION_NAME_LEN).min(rest.len());
        let name = String::from_utf8_lossy(&rest[..n]).into_owned();
        let rest = &rest[n..];
        let len = read_u32(rest, 0).map_or(0, |l| l as usize).min(rest.len().saturating_sub(4));
        let body = rest.get(4..4 + len).unwrap_or_default();
        if name.len() <= SECTION_NAME_LEN {
            sections.push((name, body.to_vec()));
        }
        data = rest.get(4 + len..).unwrap_or_default();
    }
    fix_list_crcs(&mut sections);
    let mut w = FormatWriter::new(Vec::new());
    for (name, body) in &sections {
        w.section(name, body).expect("writing to memory");
    }
    w.finish().expect("writing to memory").0
}

/// Sets each trigram table entry's CRC to that of its posting list (the
/// bytes from its offset to the next entry's, or to the end), where the
/// list lies inside the postings.
fn fix_list_crcs(sections: &mut [(String, Vec<u8>)]) {
    let Some(postings) = sections.iter().find(|s| s.0 == "postings").map(|s| s.1.clone()) else {
        return;
    };
    let Some((_, table)) = sections.iter_mut().find(|s| s.0 == "trigrams") else { return };
    let n = table.len() / TRIGRAM_ENTRY_LEN;
    let mut fixed = Vec::with_capacity(table.len());
    for i in 0..n {
        let Some(mut e) = TrigramEntry::decode(table, i) else { break };
        let end = TrigramEntry::decode(table, i + 1).map_or(postings.len() as u64, |n| n.offset);
        if let Some(list) = postings.get(e.offset as usize..end as usize) {
            e.crc = crc32fast::hash(list);
        }
        e.encode(&mut fixed);
    }
    fixed.extend_from_slice(&table[n * TRIGRAM_ENTRY_LEN..]);
    *table = fixed;
}

/// The first trigrams of the index's trigram table.
fn table_trigrams(bytes: &[u8]) -> Vec<u32> {
    let Ok(layout) = Layout::parse(bytes) else { return Vec::new() };
    let Some(s) = layout.get("trigrams") else { return Vec::new() };
    let table = &bytes[s.offset as usize..(s.offset + s.len) as usize];
    (0..16).map_while(|i| TrigramEntry::decode(table, i)).map(|e| e.trigram).collect()
}

/// Queries over `trigrams` (and two the index is unlikely to hold).
fn queries(trigrams: &[u32]) -> Vec<Query> {
    let tri = |i: usize| trigrams.get(i).copied().unwrap_or(0x61_62_63 + i as u32);
    let t = |i: usize| Query::Trigram(tri(i));
    // A trigram followed by a byte reads the follow masks of dense lists.
    let f = |i: usize| Query::Followed(tri(i), b"etaoin"[i % 6]);
    vec![
        f(0),
        Query::And(vec![f(1), t(0), f(2)]),
        Query::All,
        Query::Nothing,
        t(0),
        Query::And(vec![t(0), t(1)]),
        Query::Or(vec![t(2), t(3)]),
        Query::And(vec![Query::Or(vec![t(0), t(4)]), t(5), Query::Or(vec![t(1), t(6)])]),
        Query::Or(vec![Query::And(vec![t(7), t(8)]), Query::And(vec![t(9), Query::All])]),
    ]
}
