//! PCRE2 patterns made plannable: [`superset`] rewrites a PCRE2 pattern
//! into a regex `regex-syntax` parses, matching every span the PCRE2
//! pattern matches (and maybe more), so the planner's guarantee carries
//! over: a text holding a PCRE2 match holds a match of the rewrite, whose
//! trigrams the plan asks for.
//!
//! What PCRE2 has and the default engine has not is widened to what
//! surely holds. A positive look-ahead that ends an alternative of the
//! whole pattern (`foo(?=bar)`), or a positive look-behind that starts one
//! (`(?<=ba)rfoo`), is read as part of it: the text holds it there (not
//! under `-w` or `-x`, whose assertions must sit at the match's own
//! edges). Any other look-around, and `\K`, `\G`, `\B`, `\Z`, `\A`, `\z` (zero
//! width: what they test is not required) become the empty string; a
//! backreference or subroutine call (`\1`, `\k<n>`, `(?P=n)`, `(?1)`,
//! `(?&n)`, `(?R)`) any string; `\h`, `\v`, `\N`, `\p{..}` and a class
//! holding a class escape or a POSIX class, any character; `\R` one or two,
//! `\X` one or more; atomic groups, possessive quantifiers and named or
//! branch-reset groups, plain groups. Literals are escaped for
//! `regex-syntax` (`\Q..\E`, `\e`, `\cX`, octal and `\x` escapes become
//! their characters). Case folding may differ between the engines outside
//! ASCII, so a non-ASCII literal is any character wherever case may be
//! ignored (`-i`, `-S`, or after an inline `i`).
//!
//! `None` when the pattern holds what cannot be widened safely: a
//! conditional, a callout, a backtracking verb (`(*ACCEPT)` ends a match
//! early), the `x`, `xx` or `^` option, or something this reader does not
//! know; the search then reads every file.

use crate::options::{Boundary, Case, MatchOptions};

/// Zero width, tests nothing.
const EMPTY: &str = "(?:)";

/// The patterns of `m` (PCRE2's) rewritten (`-F` strings escaped first:
/// the engines may fold case apart outside ASCII), for a plan or, with
/// `lines`, for finding candidate lines; `None` when one cannot be.
pub fn supersets(m: &MatchOptions, lines: bool) -> Option<Vec<String>> {
    let how = Reading {
        unicode: m.unicode,
        caseless: m.case != Case::Sensitive,
        wrapped: m.boundary != Boundary::None,
        lines,
        crlf: m.crlf,
    };
    let rewrite = |p: &String| {
        if m.fixed_strings { superset(&regex_syntax::escape(p), how) } else { superset(p, how) }
    };
    m.patterns.iter().map(rewrite).collect()
}

/// How a PCRE2 pattern is matched, as far as its rewrite cares.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reading {
    /// PCRE2's UTF mode (off with `--no-unicode`).
    pub unicode: bool,
    /// Case may be ignored (`-i`, `-S`).
    pub caseless: bool,
    /// The pattern is wrapped in assertions at the match's edges (`-w`,
    /// `-x`).
    pub wrapped: bool,
    /// The rewrite finds candidate lines (see [`crate::matcher`]) rather
    /// than a plan: every PCRE2 match lies within a line, and so do the
    /// rewrite's unbounded wildcards; word boundaries are left out.
    pub lines: bool,
    /// `--crlf`: for candidate lines, `^` and `$` are left out too (PCRE2
    /// searches a line ended by a bare `\n` with it, and `[^a]$` matches
    /// that `\n` at the end of what it searches, not before a line end).
    pub crlf: bool,
}

/// `pattern`, a PCRE2 regex read as `how` says, as a `regex-syntax` regex
/// whose matches the text around every PCRE2 match holds (see the module
/// docs).
pub fn superset(pattern: &str, how: Reading) -> Option<String> {
    let mut r = Reader {
        chars: pattern.chars().collect(),
        at: 0,
        unicode: how.unicode,
        caseless: how.caseless,
        top: !how.wrapped,
        depth: 0,
        lines: how.lines,
        anchors: !(how.lines && how.crlf),
    };
    let out = r.sequence()?;
    // A `)` with no group open ends the sequence early: PCRE2 rejects it.
    (r.at == r.chars.len()).then_some(out)
}

/// A cursor over a pattern's characters.
struct Reader {
    chars: Vec<char>,
    at: usize,
    unicode: bool,
    caseless: bool,
    /// Look-arounds at the edges of top-level alternatives may be read in.
    top: bool,
    /// How many groups the cursor is in.
    depth: usize,
    /// See [`Reading::lines`].
    lines: bool,
    /// `^` and `$` are kept (see [`Reading::crlf`]).
    anchors: bool,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.at + k).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    /// Whether the text at the cursor starts with `s` (consumed if so).
    fn eat(&mut self, s: &str) -> bool {
        let n = s.chars().count();
        let here: String = self.chars[self.at..].iter().take(n).collect();
        if here == s {
            self.at += n;
            true
        } else {
            false
        }
    }

    /// Reads up to the `)` closing the current group (not consumed) or the
    /// end of the pattern.
    fn sequence(&mut self) -> Option<String> {
        let mut out = String::new();
        let mut alternative_start = true;
        while let Some(c) = self.peek() {
            let top = self.top && self.depth == 0;
            match c {
                ')' => break,
                '(' if top && alternative_start && self.eat("(?<=") => {
                    out.push_str(&self.body("(?:")?);
                }
                '(' if top && self.eat("(?=") => {
                    let inner = self.body("(?:")?;
                    let ends = matches!(self.peek(), None | Some('|'));
                    out.push_str(if ends { &inner } else { EMPTY });
                }
                '(' => {
                    self.at += 1;
                    out.push_str(&self.group()?);
                }
                '[' => {
                    self.at += 1;
                    out.push_str(&self.class()?);
                }
                '\\' => {
                    self.at += 1;
                    out.push_str(&self.escape()?);
                }
                '*' | '+' | '?' => {
                    self.at += 1;
                    out.push(c);
                    self.quantifier_suffix();
                }
                '{' => match self.counted() {
                    Some(q) => {
                        out.push_str(&q);
                        self.quantifier_suffix();
                    }
                    None => {
                        self.at += 1;
                        out.push_str(r"\{");
                    }
                },
                '|' => {
                    self.at += 1;
                    out.push(c);
                    alternative_start = true;
                    continue;
                }
                '^' | '$' if !self.anchors => self.at += 1,
                '^' | '$' | '.' => {
                    self.at += 1;
                    out.push(c);
                }
                _ => {
                    self.at += 1;
                    out.push_str(&self.literal(c));
                }
            }
            alternative_start = false;
        }
        Some(out)
    }

    /// After a quantifier: a lazy `?` is kept, a possessive `+` dropped
    /// (possessive matches are a subset of greedy ones).
    fn quantifier_suffix(&mut self) {
        if self.peek() == Some('+') {
            self.at += 1;
        }
    }

    /// `{n}`, `{n,}`, `{n,m}` or `{,m}` (spaces allowed around the
    /// numbers) at the cursor, consumed and written `regex-syntax`'s way;
    /// `None` (nothing consumed): a literal `{`.
    fn counted(&mut self) -> Option<String> {
        let rest: String = self.chars[self.at..].iter().take_while(|&&c| c != '}').collect();
        if self.at + rest.chars().count() >= self.chars.len() {
            return None;
        }
        let inner = rest.strip_prefix('{')?;
        let number = |s: &str| -> Option<Option<u32>> {
            let s = s.trim_matches(|c| c == ' ' || c == '\t');
            if s.is_empty() {
                Some(None)
            } else if s.chars().all(|c| c.is_ascii_digit()) {
                s.parse().ok().map(Some)
            } else {
                None
            }
        };
        let (min, max) = match inner.split_once(',') {
            None => {
                let n = number(inner)??;
                (n, Some(n))
            }
            Some((a, b)) => {
                let (a, b) = (number(a)?, number(b)?);
                if a.is_none() && b.is_none() {
                    return None;
                }
                (a.unwrap_or(0), b)
            }
        };
        self.at += rest.chars().count() + 1;
        Some(match max {
            Some(m) => format!("{{{min},{m}}}"),
            None => format!("{{{min},}}"),
        })
    }

    /// A group, after its `(`, through its `)`.
    fn group(&mut self) -> Option<String> {
        if self.peek() == Some('*') {
            // Verbs and the alphabetic assertions: not read.
            return None;
        }
        if self.peek() != Some('?') {
            return self.body("(?:");
        }
        self.at += 1;
        if self.eat("#") {
            while self.next()? != ')' {}
            return Some(String::new());
        }
        for open in [":", "|", ">"] {
            if self.eat(open) {
                return self.body("(?:");
            }
        }
        for look in ["=", "!", "*", "<=", "<!", "<*"] {
            if self.eat(look) {
                self.body("(?:")?;
                return Some(EMPTY.into());
            }
        }
        if self.eat("P<") || self.eat("<") || self.eat("'") {
            self.name()?;
            return self.body("(?:");
        }
        if self.eat("P=") || self.eat("P>") || self.eat("&") || self.eat("R") {
            while self.next()? != ')' {}
            return Some(self.any("*"));
        }
        if matches!(self.peek(), Some('0'..='9' | '+' | '-'))
            && self.peek_at(1).is_some_and(|c| c.is_ascii_digit())
            || self.peek().is_some_and(|c| c.is_ascii_digit())
        {
            while self.next()? != ')' {}
            return Some(self.any("*"));
        }
        self.flags()
    }

    /// A group name up to its closing `>` or `'`.
    fn name(&mut self) -> Option<()> {
        loop {
            match self.next()? {
                '>' | '\'' => return Some(()),
                c if c.is_alphanumeric() || c == '_' => {}
                _ => return None,
            }
        }
    }

    /// The rest of a group after its opening, through its `)`, written
    /// after `open`.
    fn body(&mut self, open: &str) -> Option<String> {
        self.depth += 1;
        let inner = self.sequence();
        self.depth -= 1;
        let inner = inner?;
        (self.next()? == ')').then(|| format!("{open}{inner})"))
    }

    /// An option setting, `(?imsU-imsU)` or `(?imsU-imsU:...)`, after its
    /// `(?`: `n` and `J` dropped, anything else not read.
    fn flags(&mut self) -> Option<String> {
        let mut kept = String::new();
        loop {
            match self.next()? {
                c @ ('i' | 'm' | 's' | 'U' | '-') => {
                    self.caseless |= c == 'i';
                    kept.push(c);
                }
                'n' | 'J' => {}
                ')' => {
                    return Some(if kept.is_empty() {
                        String::new()
                    } else {
                        format!("(?{kept})")
                    });
                }
                ':' => return self.body(&format!("(?{kept}:")),
                _ => return None,
            }
        }
    }

    /// An escape, after its `\`.
    fn escape(&mut self) -> Option<String> {
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
    fn skip_to(&mut self, close: char) -> Option<()> {
        while self.next()? != close {}
        Some(())
    }

    /// The character an escape `\c...` (after the `\`) stands for: a
    /// control, octal or hex escape or a punctuation character; `None` for
    /// an escape this reader does not know.
    fn escaped_code(&mut self, c: char) -> Option<u32> {
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
    fn until(&mut self, close: char) -> Option<String> {
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
    fn literal(&self, c: char) -> String {
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
    fn code_literal(&self, code: u32) -> String {
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
    fn class(&mut self) -> Option<String> {
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
}

impl Reader {
    /// Any character, repeated as `repeat` says (`*`, `+`, `{1,2}`, or
    /// once). For candidate lines, a run never crosses a line end but may
    /// end with one: under `--crlf` a line ended by a bare `\n` keeps it
    /// when PCRE2 searches it (only `\r\n` is cut off), and a greedy
    /// `(?s:.*)` would run to the end of the buffer at every candidate.
    fn any(&self, repeat: &str) -> String {
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

#[cfg(test)]
mod tests;
