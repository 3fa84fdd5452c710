//! Bytes made safe for a terminal: invalid UTF-8 as `\xFF`, control
//! bytes as `^[`, tabs as spaces; never a raw byte that a terminal would
//! act on. Pure, so that what a line becomes on screen is unit-tested.

use std::ops::Range;

/// What a piece of a shown line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Text as it is.
    Plain,
    /// Text inside a match.
    Match,
    /// An escaped byte or character.
    Escape,
    /// An escaped byte inside a match.
    MatchEscape,
}

/// Tab stops are this far apart.
const TAB: usize = 8;

/// The columns an invalid byte takes (`\xFF`).
pub const INVALID: usize = 4;

/// The columns `c` takes on screen when it starts at column `col` of a
/// row: a tab to the next multiple of 8, a control character 2 (`^[`,
/// `^?`), a C1 one 8 (`<U+0085>`), a wide character 2, any other 1 (one
/// of no width too: a row never holds more than 4 bytes a column).
pub fn columns(c: char, col: usize) -> usize {
    match c {
        '\t' => TAB - col % TAB,
        c if (c as u32) < 0x20 || c == '\x7f' => 2,
        '\u{80}'..='\u{9f}' => 8,
        c => unicode_width::UnicodeWidthChar::width(c).unwrap_or(1).max(1),
    }
}

/// `bytes` as pieces of displayable text of at most about `width`
/// columns, those inside `matches` (byte ranges of `bytes`) marked.
pub fn escape(bytes: &[u8], matches: &[Range<usize>], width: usize) -> Vec<(Kind, String)> {
    let mut out: Vec<(Kind, String)> = Vec::new();
    let mut col = 0;
    let mut at = 0;
    let inside = |i: usize| matches.iter().any(|m| m.contains(&i));
    let push = |kind: Kind, s: &str, out: &mut Vec<(Kind, String)>| match out.last_mut() {
        Some((k, text)) if *k == kind => text.push_str(s),
        _ => out.push((kind, s.to_string())),
    };
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if col >= width {
                return out;
            }
            let hit = inside(at);
            let (plain, escaped) =
                if hit { (Kind::Match, Kind::MatchEscape) } else { (Kind::Plain, Kind::Escape) };
            match c {
                '\t' => {
                    let n = TAB - col % TAB;
                    push(plain, &" ".repeat(n), &mut out);
                    col += n;
                }
                c if (c as u32) < 0x20 => {
                    push(escaped, &format!("^{}", char::from(c as u8 + 0x40)), &mut out);
                    col += 2;
                }
                '\x7f' => {
                    push(escaped, "^?", &mut out);
                    col += 2;
                }
                c if ('\u{80}'..='\u{9f}').contains(&c) => {
                    let s = format!("<U+{:04X}>", c as u32);
                    col += s.len();
                    push(escaped, &s, &mut out);
                }
                c => {
                    push(plain, c.encode_utf8(&mut [0; 4]), &mut out);
                    col += columns(c, col);
                }
            }
            at += c.len_utf8();
        }
        for &b in chunk.invalid() {
            if col >= width {
                return out;
            }
            let kind = if inside(at) { Kind::MatchEscape } else { Kind::Escape };
            push(kind, &format!("\\x{b:02X}"), &mut out);
            col += INVALID;
            at += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(pieces: &[(Kind, String)]) -> String {
        pieces.iter().map(|(_, s)| s.as_str()).collect()
    }

    #[test]
    fn control_and_invalid_bytes_are_escaped() {
        let out = escape(b"a\x1b[31mb\xffc\x7f\x00\td\xc2\x85", &[], 100);
        assert_eq!(text(&out), "a^[[31mb\\xFFc^?^@       d<U+0085>");
        assert!(out.iter().all(|(_, s)| !s.chars().any(|c| c.is_control())));
        assert_eq!(out[1], (Kind::Escape, "^[".to_string()));
    }

    #[test]
    fn matches_are_marked_and_width_cuts() {
        let out = escape("héllo wörld".as_bytes(), &[1..3, 8..11], 100);
        assert_eq!(
            out,
            vec![
                (Kind::Plain, "h".to_string()),
                (Kind::Match, "é".to_string()),
                (Kind::Plain, "llo w".to_string()),
                (Kind::Match, "ör".to_string()),
                (Kind::Plain, "ld".to_string()),
            ]
        );
        assert_eq!(text(&escape(b"abcdef", &[], 3)), "abc");
        assert_eq!(text(&escape(b"ab\tc", &[], 80)), "ab      c");
    }
}
