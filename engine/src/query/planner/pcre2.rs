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
    /// The rewrite finds candidate lines (for the matcher's `Pcre2Matcher`) rather
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
}

mod atoms;

#[cfg(test)]
mod tests;
