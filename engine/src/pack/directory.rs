//! The frame directory of a large packed file: which data frames hold each
//! trigram, in buckets of a fixed size at a fixed place right after the
//! header frame, so that a first reader of a remote container can fetch
//! the buckets of its query's trigrams with the container's ends, before
//! it knows anything of the container, and then only the frames that can
//! match: two round trips where the block index takes three (its table's
//! parts and lists, then the frames). docs/PACK-FORMAT.md draws it.
//!
//! A trigram's bucket and fingerprint come from one multiplicative hash
//! (`place`). A bucket lists its trigrams by fingerprint, the rarest
//! with their frames; a trigram in many frames is listed bare (its
//! frames: any). A bucket too small for all its trigrams is marked
//! incomplete, and keeps only whole groups of a fingerprint with their
//! frames: a trigram it does not list may be anywhere. So a lookup is
//! always a superset of the trigram's frames: the union of the frames of
//! every entry of its fingerprint, any frame when one of them is bare or
//! the bucket is incomplete and lists none, no frame when a complete
//! bucket lists none (the trigram is in no frame). Every bucket carries
//! a CRC of its bytes and its number: a damaged or misplaced one is an
//! error, never a wrong answer. Parsing is fuzzed (`pack_directory`).

use std::ops::Range;

use super::error::PackError;
use super::format::{BUCKET_LEN, BUCKETS, BUCKETS_AT, FRAME_LEN, TG_FRAME_MAGIC};
use super::store::Store;
use crate::index::encoding::Put;
use crate::index::error::IndexError;
use crate::index::format::read_u32;
use crate::index::postings::{get_varint, put_varint};
use crate::index::reader::IndexReader;
use crate::query::Query;
use crate::query::trigram::Trigram;

/// Flag of a bucket that does not list every trigram hashed to it.
const INCOMPLETE: u8 = 1;
/// An entry's key bit saying its frames follow (the other 15 bits are the
/// fingerprint).
const LISTED: u16 = 0x8000;
/// The most frames an entry lists; a trigram in more is listed bare.
const MOST_LISTED: u32 = 32;

/// The most buckets a first reader fetches (a request each, in the same
/// round trip as the file's ends).
const FIRST_BUCKETS: usize = 16;

/// Containers of this many data frames or more carry a directory (1 MiB:
/// about 1 % of a 1 GiB log packed at the default 1 MiB frames; a
/// smaller container's block index is fetched whole, in as many trips).
const FROM_FRAMES: usize = 256;

/// Whether a container of `frames` data frames carries a directory.
pub(crate) fn wanted(frames: usize) -> bool {
    frames >= FROM_FRAMES
}

/// The bucket of `t` and its fingerprint.
fn place(t: Trigram) -> (usize, u16) {
    let h = u64::from(t).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((h >> (64 - BUCKETS.trailing_zeros())) as usize, ((h >> 20) & 0x7fff) as u16)
}

/// The file's range of bucket `b`.
fn bucket_range(b: usize) -> Range<u64> {
    let at = BUCKETS_AT + (b * BUCKET_LEN) as u64;
    at..at + BUCKET_LEN as u64
}

/// The directory frame of the block index `index` of `frames` frames.
pub(crate) fn encode(index: &IndexReader, frames: u32) -> Result<Vec<u8>, IndexError> {
    let mut of: Vec<Vec<(u32, u16, Trigram)>> = vec![Vec::new(); BUCKETS];
    for (t, count) in index.list_lengths() {
        let (b, fp) = place(t);
        of[b].push((count, fp, t));
    }
    let mut out = Vec::with_capacity(FRAME_LEN);
    out.put_le(TG_FRAME_MAGIC).put_le((FRAME_LEN - 8) as u32);
    for v in [BUCKETS as u32, BUCKET_LEN as u32, frames] {
        out.put_le(v);
    }
    out.put_le(crc32fast::hash(&out[8..20]));
    let frames_of =
        |t: Trigram| -> Result<Vec<u32>, IndexError> { Ok(index.postings(t)?.collect()) };
    for (b, mut entries) in of.into_iter().enumerate() {
        entries.sort_unstable();
        out.extend_from_slice(&bucket(b as u32, &entries, &frames_of)?);
    }
    Ok(out)
}

/// Bucket `b` holding `entries` (count, fingerprint, trigram), rarest
/// first; `frames_of` gives a trigram's frames.
fn bucket(
    b: u32,
    entries: &[(u32, u16, Trigram)],
    frames_of: &dyn Fn(Trigram) -> Result<Vec<u32>, IndexError>,
) -> Result<[u8; BUCKET_LEN], IndexError> {
    let room = BUCKET_LEN - 6;
    let complete = 2 * entries.len() <= room;
    // A fingerprint's entries go in together or not at all (an incomplete
    // bucket must never answer for a trigram it left out).
    let mut groups: Vec<(u16, Vec<(u32, Trigram)>)> = Vec::new();
    for &(count, fp, t) in entries {
        match groups.iter_mut().find(|(g, _)| *g == fp) {
            Some((_, members)) => members.push((count, t)),
            None => groups.push((fp, vec![(count, t)])),
        }
    }
    let mut body = Vec::new();
    let mut n = 0u8;
    let mut left = if complete { room - 2 * entries.len() } else { room };
    let mut bare = Vec::new();
    for (fp, members) in &groups {
        let mut lists = Vec::new();
        for &(count, t) in members {
            if count <= MOST_LISTED {
                let mut list = Vec::new();
                put_frames(&frames_of(t)?, &mut list);
                lists.push(list);
            }
        }
        // Listed, each entry costs its list past its key (already counted
        // in a complete bucket) or all of it (an incomplete one).
        let cost: usize = lists.iter().map(Vec::len).sum::<usize>()
            + if complete { 0 } else { 2 * members.len() };
        if lists.len() == members.len() && cost <= left {
            left -= cost;
            for list in lists {
                body.put(&(fp | LISTED).to_le_bytes()).put(&list);
                n += 1;
            }
        } else if complete {
            bare.extend(std::iter::repeat_n(*fp, members.len()));
        }
    }
    for fp in bare {
        body.put(&fp.to_le_bytes());
        n += 1;
    }
    let mut out = [0u8; BUCKET_LEN];
    out[4] = n;
    out[5] = if complete { 0 } else { INCOMPLETE };
    out[6..6 + body.len()].copy_from_slice(&body);
    let crc = bucket_crc(b, &out);
    out[..4].copy_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// The CRC of bucket `b`'s bytes `bytes` (past its own CRC).
fn bucket_crc(b: u32, bytes: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&b.to_le_bytes());
    h.update(&bytes[4..]);
    h.finalize()
}

/// Writes `frames` (increasing): their count, the first, then each gap
/// less one.
fn put_frames(frames: &[u32], out: &mut Vec<u8>) {
    put_varint(out, frames.len() as u32);
    let mut prev = None;
    for &f in frames {
        put_varint(out, prev.map_or(f, |p: u32| f - p - 1));
        prev = Some(f);
    }
}

/// The ranges of the file a first reader fetches for `query`: the
/// buckets of its trigrams, [`FIRST_BUCKETS`] at most, those likeliest to
/// be rare first ([`rarity`]); sorted, neighbours joined. A bucket not
/// fetched answers any frame, so any of them will do.
pub(crate) fn first_ranges(query: &Query) -> Vec<Range<u64>> {
    let mut all = Vec::new();
    trigrams(query, &mut |t| {
        if !all.contains(&t) {
            all.push(t);
        }
    });
    // Stable: of equally rare ones, the query's first.
    all.sort_by_key(|&t| std::cmp::Reverse(rarity(t)));
    let mut buckets: Vec<usize> = all.into_iter().map(|t| place(t).0).collect();
    buckets.truncate(FIRST_BUCKETS);
    buckets.sort_unstable();
    buckets.dedup();
    let mut out: Vec<Range<u64>> = Vec::new();
    for r in buckets.into_iter().map(bucket_range) {
        match out.last_mut() {
            Some(last) if last.end == r.start => last.end = r.end,
            _ => out.push(r),
        }
    }
    out
}

/// How likely trigram `t` is to be rare in a log or in code, before
/// anything of the text is known: by its digits and punctuation, and how
/// often its bytes change kind (letter, digit, punctuation; a space is
/// everywhere). A word's trigrams score 0; an identifier's or a hex
/// number's (`7f3`, `e-4`) the most.
fn rarity(t: Trigram) -> u32 {
    let kind = |b: u8| match b {
        b' ' | b'\t' | b'\n' | b'\r' => 0,
        b if b.is_ascii_alphabetic() || b >= 0x80 => 1,
        b if b.is_ascii_digit() => 2,
        _ => 3,
    };
    let k = [kind((t >> 16) as u8), kind((t >> 8) as u8), kind(t as u8)];
    let odd = k.iter().filter(|&&k| k >= 2).count() as u32;
    let changes = k.windows(2).filter(|w| w[0] != w[1] && w[0] != 0 && w[1] != 0).count() as u32;
    odd + changes
}

/// Calls `f` with every trigram `query` asks about.
fn trigrams(query: &Query, f: &mut dyn FnMut(Trigram)) {
    match query {
        Query::All | Query::Nothing => {}
        Query::Trigram(t) | Query::Followed(t, _) => f(*t),
        Query::And(qs) | Query::Or(qs) => qs.iter().for_each(|q| trigrams(q, f)),
    }
}

/// The data frames (of `frames`) that can hold what `query` asks for, by
/// the directory whose buckets `held` gives (the bytes of a bucket's range
/// in the file, `None` when not at hand: its trigrams may be anywhere);
/// `None`: any frame. A bucket that does not check is an error.
pub(crate) fn frames_for(
    query: &Query,
    held: &dyn Fn(Range<u64>) -> Option<Vec<u8>>,
    frames: usize,
) -> Result<Option<Vec<usize>>, PackError> {
    let lookup = |t: Trigram| -> Result<Option<Vec<u32>>, PackError> {
        let (b, fp) = place(t);
        match held(bucket_range(b)) {
            None => Ok(None),
            Some(bytes) => lookup(&bytes, b as u32, fp, frames as u32),
        }
    };
    Ok(eval(query, &lookup, frames)?
        .map(|set| (0..frames).filter(|&i| set[i / 64] & (1 << (i % 64)) != 0).collect()))
}

/// The frames of `query` as a bitset over `frames` (`None`: any).
fn eval(
    query: &Query,
    lookup: &dyn Fn(Trigram) -> Result<Option<Vec<u32>>, PackError>,
    frames: usize,
) -> Result<Option<Vec<u64>>, PackError> {
    let words = frames.div_ceil(64);
    Ok(match query {
        Query::All => None,
        Query::Nothing => Some(vec![0; words]),
        Query::Trigram(t) | Query::Followed(t, _) => lookup(*t)?.map(|list| {
            let mut set = vec![0u64; words];
            list.iter().for_each(|&f| set[f as usize / 64] |= 1 << (f % 64));
            set
        }),
        Query::And(qs) => {
            let mut acc: Option<Vec<u64>> = None;
            for q in qs {
                if let Some(set) = eval(q, lookup, frames)? {
                    acc = Some(match acc {
                        None => set,
                        Some(a) => a.iter().zip(&set).map(|(x, y)| x & y).collect(),
                    });
                }
            }
            acc
        }
        Query::Or(qs) => {
            let mut acc = vec![0u64; words];
            for q in qs {
                let Some(set) = eval(q, lookup, frames)? else { return Ok(None) };
                acc.iter_mut().zip(&set).for_each(|(x, y)| *x |= y);
            }
            Some(acc)
        }
    })
}

/// The frames bucket `b` (its bytes `bytes`) gives the trigrams of
/// fingerprint `fp` in a container of `frames` frames (`None`: any).
fn lookup(bytes: &[u8], b: u32, fp: u16, frames: u32) -> Result<Option<Vec<u32>>, PackError> {
    let damaged =
        || PackError::Damaged(format!("bucket {b} of the frame directory does not check"));
    if bytes.len() != BUCKET_LEN || read_u32(bytes, 0) != Some(bucket_crc(b, bytes)) {
        return Err(damaged());
    }
    let (n, flags) = (bytes[4], bytes[5]);
    if flags & !INCOMPLETE != 0 {
        return Err(damaged());
    }
    let (mut pos, mut found, mut any) = (6, false, false);
    let mut out = Vec::new();
    for _ in 0..n {
        let key = bytes.get(pos..pos + 2).ok_or_else(damaged)?;
        let key = u16::from_le_bytes([key[0], key[1]]);
        pos += 2;
        let mine = key & !LISTED == fp;
        found |= mine;
        if key & LISTED == 0 {
            any |= mine;
            continue;
        }
        let count = get_varint(bytes, &mut pos).ok_or_else(damaged)?;
        if count == 0 || count > MOST_LISTED {
            return Err(damaged());
        }
        let mut prev: Option<u32> = None;
        for _ in 0..count {
            let v = get_varint(bytes, &mut pos).ok_or_else(damaged)?;
            let f = match prev {
                None => Some(v),
                Some(p) => p.checked_add(v).and_then(|x| x.checked_add(1)),
            };
            let f = f.filter(|&f| f < frames).ok_or_else(damaged)?;
            if mine {
                out.push(f);
            }
            prev = Some(f);
        }
    }
    if bytes[pos..].iter().any(|&x| x != 0) {
        return Err(damaged());
    }
    if any || (!found && flags & INCOMPLETE != 0) {
        return Ok(None);
    }
    out.sort_unstable();
    out.dedup();
    Ok(Some(out))
}

/// Whether `chosen` frames of `frames` are few enough to be read without
/// the block index's lists (at most 2 %): else the lists are read first,
/// which may rule out more.
pub(crate) fn few(chosen: usize, frames: usize) -> bool {
    chosen * 50 <= frames
}

/// The data frames (of `frames`) that can hold what `query` asks for by
/// the directory of the file `store` reads, when the buckets it needs are
/// at hand and the frames are [`few`]; `None`: the block index's lists
/// tell.
pub(crate) fn held_frames(
    store: &dyn Store,
    query: &Query,
    frames: usize,
) -> Result<Option<Vec<usize>>, PackError> {
    let held = |r: Range<u64>| match store.holds(r.clone()) {
        true => store.bytes(r).ok().map(std::borrow::Cow::into_owned),
        false => None,
    };
    let chosen = frames_for(query, &held, frames)?;
    Ok(chosen.filter(|c| few(c.len(), frames)))
}

/// Checks every bucket of the directory of the file `store` reads (of
/// `frames` data frames): each is [`PackError::Damaged`] when it does not
/// check, as a search would find it.
pub(crate) fn check(store: &dyn Store, frames: usize) -> Result<(), PackError> {
    let all = bucket_range(0).start..bucket_range(BUCKETS - 1).end;
    let bytes = store.bytes(all)?;
    for (b, bucket) in bytes.chunks(BUCKET_LEN).enumerate() {
        check_bucket(bucket, b as u32, frames as u32)?;
    }
    Ok(())
}

/// Checks `bytes` as bucket `b` of the directory of a container of
/// `frames` data frames, as a search reads it: its CRC, every entry, its
/// padding ([`PackError::Damaged`] when it does not check).
pub fn check_bucket(bytes: &[u8], b: u32, frames: u32) -> Result<(), PackError> {
    // No fingerprint is `u16::MAX`: every entry is read, none taken.
    lookup(bytes, b, u16::MAX, frames).map(drop)
}

#[cfg(test)]
mod tests;
