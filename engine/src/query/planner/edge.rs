//! What a match's assertions say about the bytes just outside it.
//!
//! `^static` matches only after a line terminator, `-w read` only between
//! bytes that are not word characters. A plan may require those bytes
//! together with the match (`"\nst"`, `" re"`), because an index holds
//! every document as if a line terminator came before and after it
//! ([`crate::query::trigram::for_each_edge`]): a match at a document's
//! start or end has its outside byte there too, and a line terminator is
//! no word character.
//!
//! Only an assertion at an edge of the whole match counts: inside it, an
//! assertion is zero-width between two bytes of the match, and the planner
//! treats it as the empty string.

use regex_syntax::hir::{Class, Hir, HirKind, Look};

use super::strset::{Side, StrSet, window_query};
use crate::query::Query;

/// What every document holding a match of `hir` holds around it, given
/// the strings a match can start with (`prefixes`) and end with
/// (`suffixes`): an allowed byte before a prefix's first two bytes (with
/// its third after them), and a suffix's last two bytes before an allowed
/// byte after it. `All` when no assertion at an edge restricts the bytes
/// outside, or a string is too short to give a trigram.
///
/// The byte outside meets only a string's first (last) two bytes, so the
/// query stays an OR of trigrams beside the pattern's own query, cheap to
/// evaluate, rather than a copy of it per byte allowed.
pub(super) fn query(hir: &Hir, prefixes: &StrSet, suffixes: &StrSet) -> Query {
    let before = outside(hir, Side::Prefix).map_or(Query::All, |bytes| {
        around(prefixes, |s, alts| {
            for b in bytes.iter() {
                alts.push(window_query([b, s[0], s[1]], s.get(2).copied()));
            }
        })
    });
    let after = outside(hir, Side::Suffix).map_or(Query::All, |bytes| {
        around(suffixes, |s, alts| {
            for b in bytes.iter() {
                alts.push(window_query([s[s.len() - 2], s[s.len() - 1], b], None));
            }
        })
    });
    before.and(after)
}

/// The OR of the trigram queries `alternatives` pushes for each string of
/// `strings`; `All` when a string is shorter than two bytes.
fn around(strings: &StrSet, alternatives: impl Fn(&[u8], &mut Vec<Query>)) -> Query {
    let mut alts = Vec::new();
    for s in strings.iter() {
        if s.len() < 2 {
            return Query::All;
        }
        alternatives(s, &mut alts);
    }
    if alts.contains(&Query::All) {
        return Query::All;
    }
    // The plan is simplified once, whole.
    Query::Or(alts)
}

/// The bytes that can sit just outside a match of `hir` on `side` (the
/// byte before its start for [`Side::Prefix`], after its end for
/// [`Side::Suffix`]), when an assertion at that edge restricts them.
fn outside(hir: &Hir, side: Side) -> Option<Bytes> {
    match hir.kind() {
        HirKind::Look(look) => look_outside(*look, side, None),
        HirKind::Capture(cap) => outside(&cap.sub, side),
        HirKind::Concat(subs) => {
            let inward: Vec<&Hir> = match side {
                Side::Prefix => subs.iter().collect(),
                Side::Suffix => subs.iter().rev().collect(),
            };
            for (i, sub) in inward.iter().enumerate() {
                let HirKind::Look(look) = sub.kind() else {
                    return outside(sub, side);
                };
                // Assertions are zero-width: the first byte inside the
                // match is that of the next node that is not one.
                let inside = inward[i + 1..].iter().find(|h| !matches!(h.kind(), HirKind::Look(_)));
                if let Some(set) = look_outside(*look, side, inside.copied()) {
                    return Some(set);
                }
            }
            None
        }
        HirKind::Alternation(alts) => {
            let mut all = Bytes::of(|_| false);
            for alt in alts {
                all = all.union(outside(alt, side)?);
            }
            Some(all)
        }
        _ => None,
    }
}

/// The bytes outside a match on `side` that assertion `look`, at that edge,
/// allows; `inside` is the node next to it within the match, which a plain
/// word boundary (`\b`) needs to know the outside byte's class.
fn look_outside(look: Look, side: Side, inside: Option<&Hir>) -> Option<Bytes> {
    let word_inside = |unicode| inside.is_some_and(|h| edge_is_word(h, side, unicode));
    let set = match (side, look) {
        (Side::Prefix, Look::StartLF) | (Side::Suffix, Look::EndLF) => Bytes::of(|b| b == b'\n'),
        (Side::Prefix, Look::StartCRLF) | (Side::Suffix, Look::EndCRLF) => {
            Bytes::of(|b| b == b'\n' || b == b'\r')
        }
        (
            Side::Prefix,
            Look::WordStartHalfUnicode
            | Look::WordStartHalfAscii
            | Look::WordStartUnicode
            | Look::WordStartAscii,
        )
        | (
            Side::Suffix,
            Look::WordEndHalfUnicode
            | Look::WordEndHalfAscii
            | Look::WordEndUnicode
            | Look::WordEndAscii,
        ) => non_word(),
        (_, Look::WordUnicode) if word_inside(true) => non_word(),
        (_, Look::WordAscii) if word_inside(false) => non_word(),
        _ => return None,
    };
    Some(set)
}

/// Every byte that can end (or start) a character that is not a word
/// character: all but ASCII letters, digits and `_` (bytes of multibyte
/// characters included, whatever the character).
fn non_word() -> Bytes {
    Bytes::of(|b| !is_word(char::from(b), false))
}

/// A set of bytes.
#[derive(Clone, Copy)]
struct Bytes([u64; 4]);

impl Bytes {
    /// The bytes `keep` says yes to.
    fn of(keep: impl Fn(u8) -> bool) -> Bytes {
        let mut words = [0u64; 4];
        for b in (0..=u8::MAX).filter(|&b| keep(b)) {
            words[usize::from(b / 64)] |= 1 << (b % 64);
        }
        Bytes(words)
    }

    /// The bytes in either set.
    fn union(self, other: Bytes) -> Bytes {
        Bytes(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    /// The bytes, in order.
    fn iter(self) -> impl Iterator<Item = u8> {
        (0..=u8::MAX).filter(move |&b| self.0[usize::from(b / 64)] & (1 << (b % 64)) != 0)
    }
}

/// Whether every match of `hir` starts (`Side::Prefix`) or ends
/// (`Side::Suffix`) with a word character (Unicode's, or ASCII's when not
/// `unicode`). `false` when unsure.
fn edge_is_word(hir: &Hir, side: Side, unicode: bool) -> bool {
    match hir.kind() {
        HirKind::Literal(lit) => edge_char(&lit.0, side).is_some_and(|c| is_word(c, unicode)),
        HirKind::Class(Class::Unicode(class)) => {
            let size: u32 =
                class.ranges().iter().map(|r| u32::from(r.end()) - u32::from(r.start()) + 1).sum();
            size <= 256
                && class.ranges().iter().all(|r| (r.start()..=r.end()).all(|c| is_word(c, unicode)))
        }
        HirKind::Class(Class::Bytes(class)) => class
            .ranges()
            .iter()
            .all(|r| (r.start()..=r.end()).all(|b| is_word(char::from(b), false))),
        HirKind::Capture(cap) => edge_is_word(&cap.sub, side, unicode),
        HirKind::Repetition(rep) if rep.min >= 1 => edge_is_word(&rep.sub, side, unicode),
        HirKind::Concat(subs) => {
            let edge = match side {
                Side::Prefix => subs.first(),
                Side::Suffix => subs.last(),
            };
            // The edge node must consume a character in every match.
            edge.is_some_and(|h| {
                h.properties().minimum_len().is_some_and(|n| n > 0)
                    && edge_is_word(h, side, unicode)
            })
        }
        HirKind::Alternation(alts) => alts.iter().all(|h| edge_is_word(h, side, unicode)),
        _ => false,
    }
}

/// The first (`Side::Prefix`) or last character of `bytes`, if valid UTF-8.
fn edge_char(bytes: &[u8], side: Side) -> Option<char> {
    (1..=bytes.len().min(4)).find_map(|k| {
        let part = match side {
            Side::Prefix => &bytes[..k],
            Side::Suffix => &bytes[bytes.len() - k..],
        };
        std::str::from_utf8(part).ok().and_then(|s| s.chars().next())
    })
}

/// Whether `c` is a word character: Unicode's `\w`, or ASCII's.
fn is_word(c: char, unicode: bool) -> bool {
    if unicode {
        regex_syntax::try_is_word_character(c).unwrap_or(false)
    } else {
        c.is_ascii_alphanumeric() || c == '_'
    }
}
