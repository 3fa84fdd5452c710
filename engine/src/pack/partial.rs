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
use super::format::BUCKETS_AT;
use super::store::Store;
use crate::index::error::IndexError;
use crate::index::format::{EDGES_FEATURE_VERSION, FOOTER_LEN, Layout, read_u64};
use crate::index::postings::{TRIGRAM_ENTRY_LEN, TrigramEntry};
use crate::index::reader::IndexReader;
use crate::index::storage::IndexBytes;
use crate::index::trigram_dir;
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

/// The trigrams of an AND whose parts of the trigram table are read at
/// most (through the table's directory): the [`AND_LISTS`] cheapest are
/// chosen among these.
const PART_TRIGRAMS: usize = 12;

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
    let (trigrams, postings) = (layout.require("trigrams")?, layout.require("postings")?);
    // With a directory of the trigram table, the parts of the table a
    // query's trigrams lie in are read, with their lists, not the table.
    let dir = layout.get(trigram_dir::SECTION).map(|d| (d, index.at(d.offset..d.offset + d.len)));
    let by_parts = dir.is_some();
    let skipped = |name: &str| {
        name == "postings" || (by_parts && (name == "trigrams" || name == trigram_dir::SECTION))
    };
    let mut tables: Vec<Range<u64>> = layout
        .sections
        .iter()
        .filter(|s| !skipped(&s.name))
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
    let edges = crate::index::style::split(layout.feature_version).0 >= EDGES_FEATURE_VERSION;
    let table = trigrams.offset as usize..(trigrams.offset + trigrams.len) as usize;
    let parts = match dir {
        Some((d, at)) => {
            index.fetch(std::slice::from_ref(&at))?;
            let bytes = &index.buf[d.offset as usize..(d.offset + d.len) as usize];
            let entries = trigrams.len / TRIGRAM_ENTRY_LEN as u64;
            let parts = (crc32fast::hash(bytes) == d.crc)
                .then(|| trigram_dir::decode(bytes, entries, postings.len))
                .flatten()
                .ok_or_else(|| damaged("its trigram table's directory is corrupt"))?;
            // A trigram's list is about as long as the lists of its part
            // of the table are on average: a guess at which are rare.
            let guess = |t: Trigram| match trigram_dir::part_of(&parts, t) {
                None => 0,
                Some(k) => {
                    let end = parts.get(k + 1).map_or(postings.len, |p| p.offset);
                    (end - parts[k].offset) / u64::from(parts[k].entries)
                }
            };
            let mut leaves = Vec::new();
            some_trigrams(&query(edges), &guess, &mut leaves);
            let mut read: Vec<usize> =
                leaves.iter().filter_map(|&t| trigram_dir::part_of(&parts, t)).collect();
            read.sort_unstable();
            read.dedup();
            for &k in &read {
                let lists = parts[k].offset..parts.get(k + 1).map_or(postings.len, |p| p.offset);
                let r = parts[k].table_range();
                tables.push(index.at(trigrams.offset + r.start..trigrams.offset + r.end));
                tables.push(index.at(postings.offset + lists.start..postings.offset + lists.end));
            }
            leaves.sort_unstable();
            Some((parts, read, leaves))
        }
        None => None,
    };
    with_also(&tables)?;
    index.fetch(&tables)?;
    match &parts {
        Some((parts, read, _)) => stand_ins(&mut index.buf[table.clone()], parts, read)?,
        None if crc32fast::hash(&index.buf[table.clone()]) != trigrams.crc => {
            return Err(damaged("its trigram table's checksum does not match"));
        }
        None => {}
    }
    // A trigram whose part of the table was not read: unknown, never chosen.
    let unread = |t: &Trigram| parts.as_ref().is_some_and(|(_, _, l)| l.binary_search(t).is_err());
    let count = |t: Trigram| match unread(&t) {
        true => u64::MAX,
        false => entry(&index.buf[table.clone()], t).map_or(0, |(e, _)| u64::from(e.count)),
    };
    let mut wanted = Vec::new();
    choose(&query(edges), &count, &mut wanted);
    wanted.sort_unstable();
    wanted.dedup();
    wanted.retain(|t| !unread(t));
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
    let bytes = IndexBytes::Shared(std::sync::Arc::new(index.buf));
    let reader = IndexReader::opened(bytes, !by_parts).map_err(unusable)?;
    let header = 0..BUCKETS_AT.min(store.len());
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

/// Appends to `out` the trigrams of `query` whose parts of the trigram
/// table are read, before the table tells how many documents each is in
/// (`guess`: a guess at a trigram's list length): every leaf of an OR
/// (one left out makes it admit all), and of an AND's terms the cheapest
/// by the guess first, up to [`PART_TRIGRAMS`] trigrams (each costs a
/// request or two in the same round trip).
fn some_trigrams(query: &Query, guess: &dyn Fn(Trigram) -> u64, out: &mut Vec<Trigram>) {
    match query {
        Query::All | Query::Nothing => {}
        Query::Trigram(t) | Query::Followed(t, _) => out.push(*t),
        Query::Or(qs) => qs.iter().for_each(|q| some_trigrams(q, guess, out)),
        Query::And(qs) => {
            let mut terms: Vec<(u64, Vec<Trigram>)> = qs
                .iter()
                .map(|q| {
                    let mut of = Vec::new();
                    some_trigrams(q, guess, &mut of);
                    (of.iter().map(|&t| guess(t)).fold(0, u64::saturating_add), of)
                })
                .collect();
            terms.sort_by_key(|(cost, of)| (of.is_empty(), *cost));
            let mut taken = 0;
            for (_, term) in terms {
                if taken > 0 && taken + term.len() > PART_TRIGRAMS {
                    break;
                }
                taken += term.len();
                out.extend(term);
            }
        }
    }
}

/// Checks the parts `read` of the trigram table `table` (cut into
/// `parts`) against their CRCs, and fills every other part with stand-ins
/// of its first entry (its trigram, no documents, its list's offset): the
/// table stays in order, a trigram of the query is found in its own part
/// only, and a list before a part not read ends where that part's begin.
fn stand_ins(
    table: &mut [u8],
    parts: &[trigram_dir::Part],
    read: &[usize],
) -> Result<(), PackError> {
    let mut entry = Vec::with_capacity(TRIGRAM_ENTRY_LEN);
    for (k, part) in parts.iter().enumerate() {
        let r = part.table_range();
        let bytes = table
            .get_mut(r.start as usize..r.end as usize)
            .ok_or_else(|| damaged("a part of its trigram table lies outside it"))?;
        if read.binary_search(&k).is_ok() {
            // Its entries' CRC, its first entry, and its last before the
            // next part's first: as the directory says.
            let first = TrigramEntry::decode(bytes, 0);
            let last = TrigramEntry::decode(bytes, part.entries as usize - 1);
            let next = parts.get(k + 1).map_or(u32::MAX as u64 + 1, |p| u64::from(p.trigram));
            let fits = first.is_some_and(|e| (e.trigram, e.offset) == (part.trigram, part.offset))
                && last.is_some_and(|e| u64::from(e.trigram) < next);
            if crc32fast::hash(bytes) != part.crc || !fits {
                return Err(damaged("a part of its trigram table does not match its directory"));
            }
            continue;
        }
        entry.clear();
        let e = TrigramEntry { trigram: part.trigram, count: 0, offset: part.offset, crc: 0 };
        e.encode(&mut entry);
        for stand_in in bytes.chunks_exact_mut(TRIGRAM_ENTRY_LEN) {
            stand_in.copy_from_slice(&entry);
        }
    }
    Ok(())
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
