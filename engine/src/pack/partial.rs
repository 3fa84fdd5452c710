//! A large block index read by range, for one search: the block index a
//! packed file carries is stored as is (docs/PACK-FORMAT.md), so a reader
//! of a remote object can fetch its footer and table of contents (held in
//! the tail read first), its tables (`trigrams`, `docs`, …) and then the
//! posting lists of the query's trigrams only, neighbours joined into one
//! request by the store, instead of the whole index. Of an AND, the
//! lists of its [`AND_LISTS`] cheapest terms only (by their counts in the
//! trigram table; a trigram absent from it ends the choice: nothing can
//! match): the search then asks the query with every other leaf taken as
//! true ([`readable`]), which admits a few more frames at most, where
//! each list more would cost a request (8 against 4: the 1 GiB log's
//! case-insensitive queries read 66 % of the object, not 70 %).
//!
//! The index is rebuilt in memory at its full length, what was not
//! fetched left zero (a zeroed allocation: pages never written cost no
//! memory), and opened as any index. Every byte a search reads was
//! checked: the footer and the table of contents by their CRCs, each
//! table by its own at open, each list fetched against the CRC its
//! trigram entry holds, before the index is opened; a list not fetched
//! is never read (the search asks the query [`readable`] makes), and
//! would fail its CRC if it were. A mismatch is [`PackError::Damaged`]: an
//! error, never a wrong answer.

use std::ops::Range;

use super::error::PackError;
use super::format::HEADER_LEN;
use super::store::Store;
use crate::index::error::IndexError;
use crate::index::format::{EDGES_FEATURE_VERSION, FOOTER_LEN, Layout, read_u64};
use crate::index::postings::{TRIGRAM_ENTRY_LEN, TrigramEntry};
use crate::index::reader::IndexReader;
use crate::query::Query;
use crate::query::trigram::Trigram;

/// A block index up to this long is fetched whole (and kept whole by a
/// remote reader): reading it by range costs one more round trip (the
/// lists after the table), which 1 MiB more body does not cost on a link
/// of 50 MB/s or more with round trips of 20 ms or more. (Fuzzed: any.)
pub(crate) const WHOLE: u64 = if cfg!(fuzzing) { 0 } else { 1 << 20 };

/// What the tail read first of a ranged file holds before its seek table
/// at least: the container's footer, the index's footer and its table of
/// contents (about 300 bytes).
pub(crate) const MARGIN: usize = 4096;

/// The terms of an AND whose lists are read, cheapest first.
const AND_LISTS: usize = 8;

/// The index in `range` of `store`, whose tail from `tail_from` is held,
/// with its tables and the posting lists a search for `query(edges)`
/// needs (`edges`: whether its documents hold their edges' trigrams);
/// with the trigrams of the lists read, sorted. `also` (ranges of the
/// file the search reads anyway) is fetched with the first of these that
/// is fetched (none held: a second reader's are kept).
pub(crate) fn read(
    store: &dyn Store,
    range: Range<u64>,
    tail_from: u64,
    query: &dyn Fn(bool) -> Query,
    also: &[Range<u64>],
) -> Result<(IndexReader, Vec<Trigram>), PackError> {
    let mut index =
        Sparse { store, range: range.clone(), buf: vec![0; len(&range)], fetched: false };
    let held = tail_from.clamp(range.start, range.end)..range.end;
    index.fetch(std::slice::from_ref(&held))?;
    let footer_at = index.buf.len().checked_sub(FOOTER_LEN).ok_or_else(|| damaged("short"))?;
    index.fetch(&[index.at(footer_at as u64..index.buf.len() as u64)])?;
    let toc_offset = read_u64(&index.buf, footer_at).unwrap_or(0);
    let toc_len = read_u64(&index.buf, footer_at + 8).unwrap_or(0);
    match toc_offset.checked_add(toc_len) {
        Some(end) if end <= footer_at as u64 => index.fetch(&[index.at(toc_offset..end)])?,
        _ => return Err(damaged("its footer is corrupt")),
    }
    let layout = Layout::parse(&index.buf).map_err(unusable)?;
    let tables: Vec<Range<u64>> = layout
        .sections
        .iter()
        .filter(|s| s.name != "postings")
        .map(|s| index.at(s.offset..s.offset + s.len))
        .filter(|r| r.start < held.start)
        .collect();
    if also.iter().any(|r| r.start > r.end || r.end > store.len()) {
        return Err(damaged("a frame lies outside the file"));
    }
    let mut also = also.to_vec();
    let fetched = std::cell::Cell::new(false);
    let mut with_also = |ranges: &[Range<u64>]| -> Result<(), PackError> {
        let mut all = ranges.to_vec();
        if ranges.iter().any(|r| !store.holds(r.clone())) {
            fetched.set(true);
            all.append(&mut also);
        }
        Ok(store.want(&all)?)
    };
    with_also(&tables)?;
    index.fetch(&tables)?;
    let (trigrams, postings) = (layout.require("trigrams")?, layout.require("postings")?);
    let table = trigrams.offset as usize..(trigrams.offset + trigrams.len) as usize;
    if crc32fast::hash(&index.buf[table.clone()]) != trigrams.crc {
        return Err(damaged("its trigram table's checksum does not match"));
    }
    let edges = crate::index::style::split(layout.feature_version).0 >= EDGES_FEATURE_VERSION;
    let count = |t| entry(&index.buf[table.clone()], t).map_or(0, |(e, _)| u64::from(e.count));
    let mut wanted = Vec::new();
    choose(&query(edges), &count, &mut wanted);
    wanted.sort_unstable();
    wanted.dedup();
    let found = wanted.iter().filter_map(|&t| entry(&index.buf[table.clone()], t));
    let mut chosen = Vec::new();
    for (e, next) in found {
        let end = next.unwrap_or(postings.len);
        if e.offset > end || end > postings.len {
            return Err(damaged("a posting list lies outside its section"));
        }
        chosen.push((e.crc, index.at(postings.offset + e.offset..postings.offset + end)));
    }
    let lists: Vec<Range<u64>> = chosen.iter().map(|(_, r)| r.clone()).collect();
    with_also(&lists)?;
    index.fetch(&lists)?;
    for (crc, r) in &chosen {
        let bytes = &index.buf[(r.start - range.start) as usize..(r.end - range.start) as usize];
        if crc32fast::hash(bytes) != *crc {
            return Err(damaged("a posting list's checksum does not match"));
        }
    }
    let fetched_tables = index.fetched;
    let reader = IndexReader::from_bytes(index.buf).map_err(unusable)?;
    let header = 0..(HEADER_LEN as u64).min(store.len());
    // Kept when something was fetched (a reader holding all it needs
    // writes nothing).
    if fetched.get() || fetched_tables {
        store.keep_part(&[header, range.start.min(tail_from)..store.len()]);
    }
    Ok((reader, wanted))
}

/// Appends to `out` the trigrams whose lists answer `query` well enough:
/// every leaf of an OR, the [`AND_LISTS`] cheapest terms of an AND (by
/// `count`, a list's length), up to the first that nothing holds.
fn choose(query: &Query, count: &dyn Fn(Trigram) -> u64, out: &mut Vec<Trigram>) {
    match query {
        Query::All | Query::Nothing => {}
        Query::Trigram(t) | Query::Followed(t, _) => out.push(*t),
        Query::Or(qs) => qs.iter().for_each(|q| choose(q, count, out)),
        Query::And(qs) => {
            let mut qs: Vec<(u64, &Query)> = qs.iter().map(|q| (cost(q, count), q)).collect();
            qs.sort_by_key(|(c, _)| *c);
            for (c, q) in qs.into_iter().take(AND_LISTS) {
                choose(q, count, out);
                if c == 0 {
                    break;
                }
            }
        }
    }
}

/// An upper bound on the documents `query` admits (`count`: a list's length).
fn cost(query: &Query, count: &dyn Fn(Trigram) -> u64) -> u64 {
    match query {
        Query::All => u64::MAX,
        Query::Nothing => 0,
        Query::Trigram(t) | Query::Followed(t, _) => count(*t),
        Query::And(qs) => qs.iter().map(|q| cost(q, count)).min().unwrap_or(u64::MAX),
        Query::Or(qs) => qs.iter().map(|q| cost(q, count)).fold(0, u64::saturating_add),
    }
}

/// `query` with every leaf whose list is not in `read` (sorted) taken as
/// true: what a search asks of an index read by range (it admits what
/// `query` admits, and maybe more).
pub(crate) fn readable(query: &Query, read: &[Trigram]) -> Query {
    match query {
        Query::Trigram(t) | Query::Followed(t, _) if read.binary_search(t).is_err() => Query::All,
        Query::And(qs) => Query::And(qs.iter().map(|q| readable(q, read)).collect()).simplify(),
        Query::Or(qs) => Query::Or(qs.iter().map(|q| readable(q, read)).collect()).simplify(),
        q => q.clone(),
    }
}

/// The entry of `trigram` in the trigram table `table`, with the end of
/// its list (its successor's offset; `None`: the last list, which ends
/// where the section does).
fn entry(table: &[u8], trigram: Trigram) -> Option<(TrigramEntry, Option<u64>)> {
    let n = table.len() / TRIGRAM_ENTRY_LEN;
    let i = bisect(n, |i| TrigramEntry::decode(table, i).map_or(u32::MAX, |e| e.trigram), trigram)?;
    let e = TrigramEntry::decode(table, i)?;
    Some((e, TrigramEntry::decode(table, i + 1).map(|next| next.offset)))
}

/// The index below `n` where `at` gives `want` (`at` increasing).
fn bisect(n: usize, at: impl Fn(usize) -> u32, want: u32) -> Option<usize> {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match at(mid).cmp(&want) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Some(mid),
        }
    }
    None
}

/// An index being read by range into a buffer of its full length.
struct Sparse<'a> {
    store: &'a dyn Store,
    /// Where the index lies in the file.
    range: Range<u64>,
    /// Whether a range it put in place was not held before.
    fetched: bool,
    buf: Vec<u8>,
}

impl Sparse<'_> {
    /// The file's range of the index's bytes `r`.
    fn at(&self, r: Range<u64>) -> Range<u64> {
        self.range.start + r.start..self.range.start + r.end
    }

    /// Fetches the file's `ranges` (within the index) together and puts
    /// them in place.
    fn fetch(&mut self, ranges: &[Range<u64>]) -> Result<(), PackError> {
        if ranges.iter().any(|r| r.start > r.end || r.end > self.range.end) {
            return Err(damaged("a section lies outside the index"));
        }
        self.fetched |= ranges.iter().any(|r| !self.store.holds(r.clone()));
        self.store.want(ranges)?;
        for r in ranges {
            let bytes = self.store.bytes(r.clone())?;
            let from = (r.start - self.range.start) as usize;
            self.buf[from..from + bytes.len()].copy_from_slice(&bytes);
        }
        Ok(())
    }
}

/// The length of `range`.
fn len(range: &Range<u64>) -> usize {
    (range.end - range.start) as usize
}

/// The error of an index read by range whose bytes do not check.
fn damaged(what: &str) -> PackError {
    PackError::Damaged(format!("the block index read by range: {what}"))
}

/// An index error: damage when bytes do not check, else the index is
/// unusable (another version's, say).
fn unusable(e: IndexError) -> PackError {
    match e {
        IndexError::Corrupt(why) => damaged(&why),
        other => PackError::Index(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::trigram::pack;

    fn t(s: &[u8; 3]) -> Query {
        Query::Trigram(pack(*s))
    }

    #[test]
    fn the_cheapest_terms_of_an_and_and_every_leaf_of_an_or_are_read() {
        let counts = [(pack(*b"abc"), 9), (pack(*b"bcd"), 1), (pack(*b"cde"), 5)];
        let count = |x: Trigram| counts.iter().find(|(k, _)| *k == x).map_or(0, |(_, c)| *c);
        let terms: Vec<Query> = (0..12u8).map(|i| t(&[b'a', b'b', b'c' + i])).collect();
        let mut read = Vec::new();
        choose(&Query::And(terms.clone()), &count, &mut read);
        // A trigram nothing holds ends the choice.
        assert_eq!(read.len(), 1);
        let query = Query::And(vec![t(b"abc"), t(b"bcd"), Query::Or(vec![t(b"cde"), t(b"xyz")])]);
        let mut read = Vec::new();
        choose(&query, &|x| count(x).max(1), &mut read);
        read.sort_unstable();
        let mut all = vec![pack(*b"abc"), pack(*b"bcd"), pack(*b"cde"), pack(*b"xyz")];
        all.sort_unstable();
        assert_eq!(read, all);
        let mut read = Vec::new();
        choose(&Query::And(terms.clone()), &|_| 3, &mut read);
        assert_eq!(read.len(), AND_LISTS);
    }

    #[test]
    fn what_is_not_read_is_taken_as_true() {
        let read = [pack(*b"abc")];
        let and = Query::And(vec![t(b"abc"), t(b"bcd")]);
        assert_eq!(readable(&and, &read), t(b"abc"));
        assert_eq!(readable(&Query::Or(vec![t(b"abc"), t(b"bcd")]), &read), Query::All);
        assert_eq!(readable(&t(b"bcd"), &read), Query::All);
        assert_eq!(readable(&Query::Nothing, &read), Query::Nothing);
        let nested = Query::And(vec![t(b"abc"), Query::Or(vec![t(b"bcd"), t(b"abc")])]);
        assert_eq!(readable(&nested, &read), t(b"abc"));
    }
}
