//! How severe a log line says it is: its [`Level`], read from a syslog
//! priority (`<11>`), a key (`level=warn`, `"level":"error"`, `lvl=`,
//! `severity=`), or a level word in capitals near the line's start
//! (`ERROR`, `[WARN]`, `W:`); where on the line it is written, to colour
//! it; and a regex of the spellings of a level ([`Level::pattern`]), whose
//! literals an index can look up.
//!
//! ```
//! use trigrep::logline::level::{detect, Level};
//! assert_eq!(detect(b"2026-01-03 10:00:00 ERROR disk full").map(|l| l.0), Some(Level::Error));
//! assert_eq!(detect(b"ts=1 level=warn msg=slow").map(|l| l.0), Some(Level::Warn));
//! assert_eq!(detect(b"<14>Jan  3 10:00:00 host app: hello").map(|l| l.0), Some(Level::Info));
//! assert_eq!(detect(b"a connection error, said in passing"), None);
//! ```

use std::ops::Range;

/// How far into a line a level word is looked for.
const HEAD: usize = 96;

/// How far into a line a `level=` key is looked for.
const KEYS: usize = 1024;

/// A log line's severity, most severe first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// ERROR, FATAL, CRITICAL, SEVERE, PANIC, ALERT, EMERG (syslog 0-3).
    Error,
    /// WARN, WARNING (syslog 4).
    Warn,
    /// INFO, NOTICE (syslog 5-6).
    Info,
    /// DEBUG (syslog 7).
    Debug,
    /// TRACE.
    Trace,
}

/// Every spelling of each level, in capitals.
const WORDS: [(Level, &[&str]); 5] = [
    (
        Level::Error,
        &["ERROR", "ERR", "FATAL", "CRITICAL", "CRIT", "SEVERE", "PANIC", "ALERT", "EMERG", "E"],
    ),
    (Level::Warn, &["WARN", "WARNING", "W"]),
    (Level::Info, &["INFO", "NOTICE", "I"]),
    (Level::Debug, &["DEBUG", "DBG", "D"]),
    (Level::Trace, &["TRACE", "FINEST", "T"]),
];

impl Level {
    /// Its name, as `tg` shows it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Error => "ERROR",
            Level::Warn => "WARN",
            Level::Info => "INFO",
            Level::Debug => "DEBUG",
            Level::Trace => "TRACE",
        }
    }

    /// A regex (rg's syntax) matching every line [`detect`] gives this
    /// level, and some others (a line holding the word later on): the
    /// spellings as literals, so that an index narrows the search to
    /// the blocks holding them.
    pub fn pattern(self) -> String {
        let words: Vec<&str> = WORDS.iter().find(|w| w.0 == self).map_or(&[][..], |w| w.1).to_vec();
        let long: Vec<&str> = words.iter().copied().filter(|w| w.len() > 1).collect();
        let mut alts = vec![format!("\\b({})\\b", long.join("|"))];
        if let Some(letter) = words.iter().find(|w| w.len() == 1) {
            alts.push(format!("\\b{letter}[:\\]]"));
        }
        let lower = long.join("|").to_lowercase();
        alts.push(format!("(?i:(level|lvl|severity)\"?\\s*[:=]\\s*\"?({lower}))"));
        if self <= Level::Debug {
            alts.push("^<\\d{1,3}>".into());
        }
        alts.join("|")
    }
}

/// The level `line` says it is, and where that is written on it; `None`
/// when it says none.
pub fn detect(line: &[u8]) -> Option<(Level, Range<usize>)> {
    if let Some(found) = priority(line) {
        return Some(found);
    }
    if let Some(found) = key(line) {
        return Some(found);
    }
    word(line)
}

/// A syslog priority `<N>` opening the line: its severity, `N mod 8`.
fn priority(line: &[u8]) -> Option<(Level, Range<usize>)> {
    let rest = line.strip_prefix(b"<")?;
    let n = rest.iter().take(3).take_while(|c| c.is_ascii_digit()).count();
    if n == 0 || rest.get(n) != Some(&b'>') {
        return None;
    }
    let pri: u32 = std::str::from_utf8(&rest[..n]).ok()?.parse().ok()?;
    let level = match pri % 8 {
        0..=3 => Level::Error,
        4 => Level::Warn,
        5 | 6 => Level::Info,
        _ => Level::Debug,
    };
    Some((level, 0..n + 2))
}

/// The level a `level=`, `"level":`, `lvl=` or `severity=` key gives.
fn key(line: &[u8]) -> Option<(Level, Range<usize>)> {
    let head = &line[..line.len().min(KEYS)];
    for name in [&b"level"[..], b"lvl", b"severity"] {
        for at in memchr::memmem::find_iter(head, name) {
            if at > 0 && head[at - 1].is_ascii_alphanumeric() {
                continue;
            }
            let mut i = at + name.len();
            i += usize::from(head.get(i) == Some(&b'"'));
            i += head[i.min(head.len())..].iter().take_while(|c| **c == b' ').count();
            if !matches!(head.get(i), Some(b':' | b'=')) {
                continue;
            }
            i += 1;
            i += head[i.min(head.len())..].iter().take_while(|c| matches!(c, b' ' | b'"')).count();
            let n =
                head[i.min(head.len())..].iter().take_while(|c| c.is_ascii_alphabetic()).count();
            if let Some(level) = spelled(&head[i..i + n], true) {
                return Some((level, i..i + n));
            }
        }
    }
    None
}

/// A level word in capitals near the line's start, standing alone
/// (`ERROR`, `[WARN]`, `<INFO>`); one letter only as `E:` or `[E]`.
fn word(line: &[u8]) -> Option<(Level, Range<usize>)> {
    let head = &line[..line.len().min(HEAD)];
    let mut i = 0;
    while i < head.len() {
        let joined = i > 0 && (head[i - 1].is_ascii_alphanumeric() || head[i - 1] == b'_');
        if !head[i].is_ascii_uppercase() || joined {
            i += 1;
            continue;
        }
        let n = head[i..].iter().take_while(|c| c.is_ascii_alphanumeric()).count();
        let after = head.get(i + n).copied();
        let alone = after.is_none_or(|c| !c.is_ascii_alphanumeric() && c != b'_' && c != b'.');
        let single_ok = matches!(after, Some(b':' | b']'));
        if alone
            && (n > 1 || single_ok)
            && let Some(level) = spelled(&head[i..i + n], false)
        {
            return Some((level, i..i + n));
        }
        i += n.max(1);
    }
    None
}

/// The level `word` spells (in any case when `any_case`, else in capitals).
fn spelled(word: &[u8], any_case: bool) -> Option<Level> {
    if word.is_empty() || (!any_case && word.iter().any(u8::is_ascii_lowercase)) {
        return None;
    }
    let upper = word.to_ascii_uppercase();
    let found = WORDS.iter().find(|(_, words)| words.iter().any(|w| w.as_bytes() == upper));
    found.map(|w| w.0).filter(|_| !any_case || word.len() > 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(line: &str) -> Option<Level> {
        detect(line.as_bytes()).map(|l| l.0)
    }

    #[test]
    fn words_keys_and_priorities() {
        assert_eq!(level("2026-01-03 10:00:00,001 ERROR [main] boom"), Some(Level::Error));
        assert_eq!(level("2026-01-03T10:00:00Z [WARN] slow"), Some(Level::Warn));
        assert_eq!(level("Jan  3 10:00:00 host app: FATAL: out of memory"), Some(Level::Error));
        assert_eq!(level("INFO:root:started"), Some(Level::Info));
        assert_eq!(level("10:00:00 DEBUG x"), Some(Level::Debug));
        assert_eq!(level("10:00:00 TRACE x"), Some(Level::Trace));
        assert_eq!(level("E: failed"), Some(Level::Error));
        assert_eq!(level("ts=1 level=warning msg=x"), Some(Level::Warn));
        assert_eq!(level("{\"ts\":1,\"level\":\"error\",\"msg\":\"x\"}"), Some(Level::Error));
        assert_eq!(level("{\"severity\": \"INFO\"}"), Some(Level::Info));
        assert_eq!(level("<11>Jan  3 10:00:00 host x"), Some(Level::Error));
        assert_eq!(level("<12>x"), Some(Level::Warn));
        assert_eq!(level("<15>x"), Some(Level::Debug));
        // Not levels: lower case words, parts of words, a letter alone.
        assert_eq!(level("a connection error happened"), None);
        assert_eq!(level("ERRORS: 0 and INFORMATION"), None);
        assert_eq!(level("A quick fox"), None);
        assert_eq!(level("mylevel=error"), None);
        assert_eq!(level(""), None);
        let line = b"x WARN y";
        assert_eq!(detect(line), Some((Level::Warn, 2..6)));
    }

    #[test]
    fn the_pattern_finds_every_line_detect_reads() {
        let lines = [
            "2026-01-03 ERROR boom",
            "x [CRITICAL] y",
            "level=fatal msg=x",
            "{\"level\": \"Error\"}",
            "<3>Jan  3 10:00:00 h x",
            "E: failed",
            "[E] failed",
        ];
        let re = regex::Regex::new(&Level::Error.pattern()).unwrap();
        for l in lines {
            assert_eq!(level(l), Some(Level::Error), "{l}");
            assert!(re.is_match(l), "{l} against {}", Level::Error.pattern());
        }
        assert!(!regex::Regex::new(&Level::Warn.pattern()).unwrap().is_match("INFO fine"));
    }
}
