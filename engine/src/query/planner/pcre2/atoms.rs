//! The atoms of a PCRE2 pattern for its rewrite: escapes, literals and
//! character classes, read by [`Reader`] and written for `regex-syntax`.

use super::Reader;

impl Reader {
    /// An escape, after its `\`.
    pub(super) fn escape(&mut self) -> Option<String> {
        let c = self.next()?;
        Some(match c {
            '1'..='9' => {
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.at += 1;
                }
                self.any("*")
            }
            'g' | 'k' => {
                match self.next()? {
                    '{' => self.skip_to('}')?,
                    '<' => self.skip_to('>')?,
                    '\'' => self.skip_to('\'')?,
                    d if c == 'g' && (d.is_ascii_digit() || d == '-' || d == '+') => {
                        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                            self.at += 1;
                        }
                    }
                    _ => return None,
                }
                self.any("*")
            }
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => format!("\\{c}"),
            // A word boundary narrows a plan at a pattern's edge; a search
            // for candidate lines is faster without one.
            'b' if !self.lines => r"\b".into(),
            'N' if self.eat("{") => {
                // `\N{U+hh..}`: one character by its code point.
                self.skip_to('}')?;
                self.any("")
            }
            'h' | 'H' | 'v' | 'V' | 'N' | 'C' => self.any(""),
            'p' | 'P' => {
                if self.next()? == '{' {
                    self.skip_to('}')?;
                }
                self.any("")
            }
            'R' => self.any("{1,2}"),
            'X' => self.any("+"),
            'A' | 'z' | 'Z' | 'G' | 'K' | 'B' | 'b' | 'E' => String::new(),
            'Q' => {
                let mut out = String::new();
                while self.peek().is_some() && !self.eat("\\E") {
                    let c = self.next()?;
                    out.push_str(&self.literal(c));
                }
                out
            }
            _ => {
                let code = self.escaped_code(c)?;
                self.code_literal(code)
            }
        })
    }

    /// Consumes through the next `close`.
    pub(super) fn skip_to(&mut self, close: char) -> Option<()> {
        while self.next()? != close {}
        Some(())
    }

    /// The character an escape `\c...` (after the `\`) stands for: a
    /// control, octal or hex escape or a punctuation character; `None` for
    /// an escape this reader does not know.
    pub(super) fn escaped_code(&mut self, c: char) -> Option<u32> {
        Some(match c {
            'a' => 7,
            'e' => 0x1b,
            'f' => 0x0c,
            'n' => u32::from(b'\n'),
            'r' => u32::from(b'\r'),
            't' => u32::from(b'\t'),
            'c' => u32::from(self.next()?.to_ascii_uppercase()) ^ 0x40,
            '0' => {
                let mut n = 0;
                for _ in 0..2 {
                    match self.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            n = n * 8 + d;
                            self.at += 1;
                        }
                        None => break,
                    }
                }
                n
            }
            'o' => {
                (self.next()? == '{').then_some(())?;
                let digits = self.until('}')?;
                u32::from_str_radix(&digits, 8).ok()?
            }
            'x' => {
                if self.eat("{") {
                    let digits = self.until('}')?;
                    u32::from_str_radix(digits.trim(), 16).ok()?
                } else {
                    let mut n = 0;
                    for _ in 0..2 {
                        match self.peek().and_then(|c| c.to_digit(16)) {
                            Some(d) => {
                                n = n * 16 + d;
                                self.at += 1;
                            }
                            None => break,
                        }
                    }
                    n
                }
            }
            c if !c.is_ascii_alphanumeric() => u32::from(c),
            _ => return None,
        })
    }

    /// The text up to the next `close`, which is consumed.
    pub(super) fn until(&mut self, close: char) -> Option<String> {
        let mut s = String::new();
        loop {
            match self.next()? {
                c if c == close => return Some(s),
                c => s.push(c),
            }
        }
    }

    /// A literal character of the pattern, escaped; any character when
    /// it is not ASCII and case may be ignored; without UTF, its UTF-8
    /// bytes, which PCRE2 then reads one by one.
    pub(super) fn literal(&self, c: char) -> String {
        if c.is_ascii() {
            regex_syntax::escape(c.encode_utf8(&mut [0; 4]))
        } else if self.caseless {
            self.any("")
        } else if self.unicode {
            regex_syntax::escape(c.encode_utf8(&mut [0; 4]))
        } else {
            c.encode_utf8(&mut [0; 4]).bytes().map(byte).collect()
        }
    }

    /// The character an escape stands for (`\x{E9}`), as a literal: a
    /// character with UTF, a byte without; any character when it is not
    /// ASCII and case may be ignored.
    pub(super) fn code_literal(&self, code: u32) -> String {
        match char::from_u32(code) {
            Some(c) if c.is_ascii() => regex_syntax::escape(c.encode_utf8(&mut [0; 4])),
            _ if self.caseless => self.any(""),
            Some(c) if self.unicode => regex_syntax::escape(c.encode_utf8(&mut [0; 4])),
            _ => match u8::try_from(code) {
                Ok(b) if !self.unicode => byte(b),
                _ => self.any(""),
            },
        }
    }

    /// A character class, after its `[`, through its `]`: the same set
    /// when it holds only characters and ranges, else any character.
    pub(super) fn class(&mut self) -> Option<String> {
        let negated = self.eat("^");
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        let mut exact = true;
        let mut first = true;
        loop {
            let c = self.next()?;
            if c == ']' && !first {
                break;
            }
            first = false;
            let lo = match c {
                '[' if matches!(self.peek(), Some(':' | '.' | '=')) => {
                    let close = self.next()?;
                    while !(self.next()? == close && self.peek() == Some(']')) {}
                    self.at += 1;
                    exact = false;
                    continue;
                }
                '\\' => match self.next()? {
                    'd' | 'D' | 'w' | 'W' | 's' | 'S' | 'h' | 'H' | 'v' | 'V' | 'N' | 'R' | 'X' => {
                        exact = false;
                        continue;
                    }
                    'p' | 'P' => {
                        if self.next()? == '{' {
                            self.skip_to('}')?;
                        }
                        exact = false;
                        continue;
                    }
                    'Q' => {
                        while self.peek().is_some() && !self.eat("\\E") {
                            let c = u32::from(self.next()?);
                            ranges.push((c, c));
                        }
                        continue;
                    }
                    'E' => continue,
                    'b' => 8,
                    e => self.escaped_code(e)?,
                },
                c => u32::from(c),
            };
            let range_to = self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']');
            if range_to {
                self.at += 1;
                let hi = match self.next()? {
                    '\\' => {
                        let e = self.next()?;
                        self.escaped_code(e)?
                    }
                    '[' => return None,
                    c => u32::from(c),
                };
                ranges.push((lo, hi));
            } else {
                ranges.push((lo, lo));
            }
        }
        let beyond_ascii = ranges.iter().any(|&(_, hi)| hi >= 0x80);
        if !exact || (beyond_ascii && (self.caseless || !self.unicode)) {
            return Some(self.any(""));
        }
        let mut out = String::from(if negated { "[^" } else { "[" });
        for (lo, hi) in ranges {
            out.push_str(&format!(r"\x{{{lo:X}}}-\x{{{hi:X}}}"));
        }
        out.push(']');
        Some(out)
    }

    /// Any character, repeated as `repeat` says (`*`, `+`, `{1,2}`, or
    /// once). For candidate lines, a run never crosses a line end but may
    /// end with one: under `--crlf` a line ended by a bare `\n` keeps it
    /// when PCRE2 searches it (only `\r\n` is cut off), and a greedy
    /// `(?s:.*)` would run to the end of the buffer at every candidate.
    pub(super) fn any(&self, repeat: &str) -> String {
        match repeat {
            "*" if self.lines => r"[^\n]*\n?".into(),
            "+" if self.lines => r"(?s:.)[^\n]*\n?".into(),
            _ => format!("(?s:.{repeat})"),
        }
    }
}

/// One byte as the matcher's parser reads it without Unicode.
fn byte(b: u8) -> String {
    format!(r"(?-u:\x{b:02X})")
}
