//! Regexes planned for lossily decoded lines. The `line` column holds each
//! line decoded lossily: an invalid byte is U+FFFD there, and a regex
//! that can match U+FFFD can match a line at bytes that are not U+FFFD's
//! encoding. Trigrep's planner reads a pattern as bytes: it expands a
//! small class into its characters' encodings (`[\x{FFFC}-\x{FFFE}]`
//! into three), and a plan requiring the bytes of U+FFFD would rule out
//! the blocks where the line holds an invalid byte instead. So the
//! pattern planned is the regex with every class or literal character
//! that can match U+FFFD widened to any character, whose bytes a plan
//! never requires.

use regex_syntax::hir::{
    Capture, Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Repetition,
};

/// The character a lossily decoded line holds for an invalid byte.
const REPLACEMENT: char = char::REPLACEMENT_CHARACTER;

/// The pattern to plan for the regex `pattern` (with `case_insensitive`)
/// on lossily decoded lines: `pattern` itself unless it can match U+FFFD
/// (or does not parse: DataFusion reports that), else `pattern` with
/// what can match U+FFFD widened to any character.
pub fn planned(pattern: &str, case_insensitive: bool) -> String {
    let parsed = regex_syntax::ParserBuilder::new()
        .case_insensitive(case_insensitive)
        .build()
        .parse(pattern);
    match parsed {
        Ok(hir) if matches_replacement(&hir) => widen(hir).to_string(),
        _ => pattern.to_string(),
    }
}

/// Whether some class or literal of `hir` can match U+FFFD.
fn matches_replacement(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Class(c) => holds_replacement(c),
        HirKind::Literal(l) => memchr::memmem::find(&l.0, encoded()).is_some(),
        HirKind::Repetition(r) => matches_replacement(&r.sub),
        HirKind::Capture(c) => matches_replacement(&c.sub),
        HirKind::Concat(all) | HirKind::Alternation(all) => all.iter().any(matches_replacement),
        HirKind::Empty | HirKind::Look(_) => false,
    }
}

/// `hir` with each class holding U+FFFD, and each U+FFFD of a literal,
/// made any character.
fn widen(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Class(c) if holds_replacement(&c) => any_char(),
        HirKind::Class(c) => Hir::class(c),
        HirKind::Literal(l) => {
            let (mut parts, mut at) = (Vec::new(), 0);
            for i in memchr::memmem::find_iter(&l.0, encoded()) {
                parts.push(Hir::literal(&l.0[at..i]));
                parts.push(any_char());
                at = i + encoded().len();
            }
            parts.push(Hir::literal(&l.0[at..]));
            Hir::concat(parts)
        }
        HirKind::Repetition(r) => Hir::repetition(Repetition { sub: Box::new(widen(*r.sub)), ..r }),
        HirKind::Capture(c) => Hir::capture(Capture { sub: Box::new(widen(*c.sub)), ..c }),
        HirKind::Concat(all) => Hir::concat(all.into_iter().map(widen).collect()),
        HirKind::Alternation(all) => Hir::alternation(all.into_iter().map(widen).collect()),
        HirKind::Empty => Hir::empty(),
        HirKind::Look(look) => Hir::look(look),
    }
}

/// Whether `class` holds U+FFFD (a class of bytes holds no character
/// beyond ASCII in a regex over strings).
fn holds_replacement(class: &Class) -> bool {
    match class {
        Class::Unicode(u) => {
            u.ranges().iter().any(|r| r.start() <= REPLACEMENT && REPLACEMENT <= r.end())
        }
        Class::Bytes(_) => false,
    }
}

/// Any character.
fn any_char() -> Hir {
    Hir::class(Class::Unicode(ClassUnicode::new([ClassUnicodeRange::new('\0', char::MAX)])))
}

/// U+FFFD's UTF-8 encoding.
fn encoded() -> &'static [u8] {
    "\u{FFFD}".as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(p: &str) -> Hir {
        regex_syntax::parse(p).expect("parses")
    }

    #[test]
    fn what_can_match_the_replacement_character_is_any_character() {
        let any = r"[\x00-\x{10FFFF}]";
        for (p, widened) in [
            (r"bad[\x{FFFC}-\x{FFFE}]{2}bytes", format!("bad{any}{{2}}bytes")),
            (r"x[^\x00-\x{FFFC}\x{FFFE}-\x{10FFFF}]yz", format!("x{any}yz")),
            (r"ab\x{FFFD}cd|[\x{FFF0}-\x{FFFF}]", format!("ab{any}cd|{any}")),
            (r"bad..bytes", format!("bad{any}{any}bytes")),
            // Case folding holds no U+FFFD: the rest is as it was.
            (r"(?i)\x{FFFD}k", format!("{any}(?i:k)")),
        ] {
            assert_eq!(parse(&planned(p, false)), parse(&widened), "{p}");
        }
    }

    #[test]
    fn a_regex_that_cannot_match_it_is_planned_as_written() {
        for p in ["abc", "(?i)struct", "[a-z]+\\d", "^foo$", "("] {
            assert_eq!(planned(p, false), p);
            assert_eq!(planned(p, true), p);
        }
    }
}
