//! A [`Query`] as bytes, so that a query process can hand its planned
//! query to a server (`tg serve`) that evaluates it against the index it
//! holds open.
//!
//! Prefix order, one tag byte per node: `0` all, `1` nothing, `2` trigram
//! (its three folded bytes), `3` followed trigram (three bytes and the
//! following byte), `4` and, `5` or (each a `u32` little-endian count of
//! children, then the children). The decoder treats its input as hostile:
//! nesting is bounded by `MAX_DEPTH`, a count larger than the bytes left
//! is an error, and so are trailing bytes.

use super::Query;
use super::trigram::Trigram;

/// The deepest nesting either side accepts: deeper queries are not sent
/// (the query process then reads the index itself).
pub(crate) const MAX_DEPTH: usize = 128;

/// Why bytes are not a query.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("bad query bytes: {0}")]
pub struct BadQuery(&'static str);

/// `q` as bytes; `None` when it nests deeper than `MAX_DEPTH`.
pub fn encode(q: &Query) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    encode_into(q, &mut out, 0).then_some(out)
}

fn encode_into(q: &Query, out: &mut Vec<u8>, depth: usize) -> bool {
    if depth >= MAX_DEPTH {
        return false;
    }
    let trigram = |out: &mut Vec<u8>, t: Trigram| out.extend_from_slice(&t.to_be_bytes()[1..]);
    match q {
        Query::All => out.push(0),
        Query::Nothing => out.push(1),
        Query::Trigram(t) => {
            out.push(2);
            trigram(out, *t);
        }
        Query::Followed(t, b) => {
            out.push(3);
            trigram(out, *t);
            out.push(*b);
        }
        Query::And(cs) | Query::Or(cs) => {
            out.push(if matches!(q, Query::And(_)) { 4 } else { 5 });
            out.extend_from_slice(&(cs.len() as u32).to_le_bytes());
            return cs.iter().all(|c| encode_into(c, out, depth + 1));
        }
    }
    true
}

/// The query encoded in `bytes`, all of them.
pub fn decode(bytes: &[u8]) -> Result<Query, BadQuery> {
    let mut rest = bytes;
    let q = decode_node(&mut rest, 0)?;
    if !rest.is_empty() {
        return Err(BadQuery("bytes after the query"));
    }
    Ok(q)
}

fn take<'a>(rest: &mut &'a [u8], n: usize) -> Result<&'a [u8], BadQuery> {
    if rest.len() < n {
        return Err(BadQuery("cut short"));
    }
    let (head, tail) = rest.split_at(n);
    *rest = tail;
    Ok(head)
}

fn decode_node(rest: &mut &[u8], depth: usize) -> Result<Query, BadQuery> {
    if depth >= MAX_DEPTH {
        return Err(BadQuery("nested too deep"));
    }
    let trigram = |b: &[u8]| Trigram::from_be_bytes([0, b[0], b[1], b[2]]);
    Ok(match take(rest, 1)?[0] {
        0 => Query::All,
        1 => Query::Nothing,
        2 => Query::Trigram(trigram(take(rest, 3)?)),
        3 => {
            let b = take(rest, 4)?;
            Query::Followed(trigram(b), b[3])
        }
        tag @ (4 | 5) => {
            let n = take(rest, 4)?;
            let n = u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as usize;
            // Every child takes a byte at least.
            if n > rest.len() {
                return Err(BadQuery("more children than bytes"));
            }
            let cs = (0..n).map(|_| decode_node(rest, depth + 1)).collect::<Result<Vec<_>, _>>()?;
            if tag == 4 { Query::And(cs) } else { Query::Or(cs) }
        }
        _ => return Err(BadQuery("unknown node")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::trigram::pack;

    #[test]
    fn queries_round_trip() {
        let t = |s: &[u8; 3]| pack(*s);
        let q = Query::And(vec![
            Query::Trigram(t(b"abc")),
            Query::Or(vec![Query::Followed(t(b"xyz"), b'!'), Query::Nothing, Query::All]),
            Query::Or(vec![]),
        ]);
        let bytes = encode(&q).unwrap();
        assert_eq!(decode(&bytes).unwrap(), q);
        assert_eq!(bytes[..5], [4, 3, 0, 0, 0]);
    }

    #[test]
    fn bad_bytes_are_errors() {
        assert!(decode(&[]).is_err());
        assert!(decode(&[2, b'a', b'b']).is_err());
        assert!(decode(&[0, 0]).is_err());
        assert!(decode(&[9]).is_err());
        assert!(decode(&[4, 255, 255, 255, 255, 0]).is_err());
        let mut deep = Vec::new();
        for _ in 0..MAX_DEPTH {
            deep.extend_from_slice(&[5, 1, 0, 0, 0]);
        }
        deep.push(0);
        assert_eq!(decode(&deep), Err(BadQuery("nested too deep")));
    }

    #[test]
    fn deep_queries_are_not_encoded() {
        let mut q = Query::All;
        for _ in 0..MAX_DEPTH {
            q = Query::Or(vec![q]);
        }
        assert!(encode(&q).is_none());
        let Query::Or(inner) = q else { unreachable!() };
        let shallower = inner.into_iter().next().unwrap();
        assert_eq!(decode(&encode(&shallower).unwrap()).unwrap(), shallower);
    }
}
