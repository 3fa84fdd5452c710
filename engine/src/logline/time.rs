//! Timestamps in log lines: which [`Format`] a file's lines use, found by
//! sampling them ([`detect`]), and the time a line carries ([`parse`]),
//! in milliseconds since the Unix epoch. A time written without a zone is
//! read as UTC, so that the times of one file compare as written.
//!
//! | format | looks like | where in the line |
//! |---|---|---|
//! | [`Format::Iso`] | `2026-01-03T10:00:00.123+01:00`, `2026-01-03 10:00:00,123` | in its first 48 bytes |
//! | [`Format::Syslog`] | `Jan  3 10:00:00` (the year given) | at its start (after a `<PRI>`) |
//! | [`Format::Access`] | `[03/Jan/2026:10:00:00 +0000]` | in its first 256 bytes |
//! | [`Format::Json`] | `{"ts": 1767434400.5, …}` (`ts`, `time`, `timestamp`, `@timestamp`: epoch seconds or milliseconds, or an ISO string) | a JSON line |
//!
//! ```
//! use trigrep::logline::time::{detect, parse, Format};
//! let log = b"2026-01-03 10:00:00,250 INFO start\n  at a continuation\n";
//! let format = detect(log, 1_767_434_400_000).unwrap();
//! assert_eq!(format, Format::Iso);
//! assert_eq!(parse(format, b"2026-01-03 10:00:00,250 INFO"), Some(1_767_434_400_250));
//! assert_eq!(parse(format, b"  at a continuation"), None);
//! ```

/// How much of a text's start its format is detected from ([`detect`]),
/// by every reader of times (the viewer, `tg sql`), so that they agree.
pub const SAMPLE: usize = 64 << 10;

/// How much of a line's start is read for its time: every format puts it
/// within this many bytes (see the table above).
pub const LINE_HEAD: usize = 512;

/// Milliseconds in a minute, an hour, a day.
const MINUTE: i64 = 60_000;
const HOUR: i64 = 60 * MINUTE;
const DAY: i64 = 24 * HOUR;

/// How the lines of one file write their time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// ISO 8601 / RFC 3339, with or without `T`, zone and fraction (`.` or `,`).
    Iso,
    /// BSD syslog (`Jan  3 10:00:00`), which writes no year: this one's.
    Syslog {
        /// The year of the newest line (a later month is the year before).
        year: i32,
        /// The month (1-12) of the newest line: a later month is last year's.
        month: u32,
    },
    /// The common and combined access-log form (`[03/Jan/2026:10:00:00 +0000]`).
    Access,
    /// JSON lines with a `ts`, `time`, `timestamp` or `@timestamp` member.
    Json,
}

/// The format most of the lines of `sample` (a file's first bytes) are
/// written in, trying each on every line; `None` when no line has a time
/// any format reads. `modified` is when the file last changed (ms since
/// the epoch): a syslog line, which writes no year, is taken to be of
/// that year, or of the year before when its month is later (as lnav does).
pub fn detect(sample: &[u8], modified: i64) -> Option<Format> {
    let (y, month, _) = civil_from_days(modified.div_euclid(DAY));
    let syslog = Format::Syslog { year: y as i32, month };
    let formats = [Format::Json, Format::Iso, Format::Access, syslog];
    let mut hits = [0usize; 4];
    for line in sample.split(|&b| b == b'\n').take(1000) {
        for (i, &f) in formats.iter().enumerate() {
            hits[i] += usize::from(parse(f, line).is_some());
        }
    }
    let (best, &most) = hits.iter().enumerate().max_by_key(|&(i, n)| (*n, usize::MAX - i))?;
    (most > 0).then_some(formats[best])
}

/// The time `line` carries in `format`, in milliseconds since the epoch
/// (UTC); `None`: none (a continuation line, or another format).
pub fn parse(format: Format, line: &[u8]) -> Option<i64> {
    match format {
        Format::Iso => {
            let head = &line[..line.len().min(48)];
            (0..head.len().saturating_sub(9)).find_map(|i| {
                let starts = i == 0 || !head[i - 1].is_ascii_digit();
                if starts { iso(&line[i..]) } else { None }
            })
        }
        Format::Syslog { year, month } => syslog(line, year, month),
        Format::Access => {
            let head = &line[..line.len().min(256)];
            let open = memchr::memchr(b'[', head)?;
            access(&line[open + 1..])
        }
        Format::Json => json(line),
    }
}

/// Days since 1970-01-01 of a date of the proleptic Gregorian calendar.
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month, day) of a day since 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `ms` as `YYYY-MM-DD HH:MM:SS` (and `.mmm` when not whole seconds).
pub fn format(ms: i64) -> String {
    let (y, mo, d) = civil_from_days(ms.div_euclid(DAY));
    let t = ms.rem_euclid(DAY);
    let (h, mi, s, frac) = (t / HOUR, t % HOUR / MINUTE, t % MINUTE / 1000, t % 1000);
    let mut out = format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}");
    if frac != 0 {
        out.push_str(&format!(".{frac:03}"));
    }
    out
}

/// A time a user typed after `@`: `YYYY-MM-DD[ T]HH:MM[:SS[.fff]][zone]`,
/// `YYYY-MM-DD` (midnight), `HH:MM[:SS]` (on the day of `today`, a time
/// in it), or `-N` with a unit `s`, `m`, `h` or `d` (before `end`, the
/// last time of the text). An error says what was expected.
pub fn parse_query(spec: &str, today: Option<i64>, end: Option<i64>) -> Result<i64, String> {
    let spec = spec.trim();
    let expected = "expected YYYY-MM-DD HH:MM[:SS], HH:MM[:SS] or -N[smhd]";
    if let Some(rel) = spec.strip_prefix('-') {
        let end = end.ok_or("no timestamps found")?;
        let unit = match rel.chars().last() {
            Some('s') => 1000,
            Some('m') => MINUTE,
            Some('h') => HOUR,
            Some('d') => DAY,
            _ => return Err(expected.into()),
        };
        let n: i64 = rel[..rel.len() - 1].parse().map_err(|_| expected.to_string())?;
        return Ok(end.saturating_sub(n.saturating_mul(unit)));
    }
    let b = spec.as_bytes();
    if let Some(t) = iso(b).filter(|_| b.len() > 10) {
        return Ok(t);
    }
    if b.len() == 10
        && let Some(days) = date(b)
    {
        return Ok(days * DAY);
    }
    let day = today.ok_or("no timestamps found")?.div_euclid(DAY);
    match clock(b) {
        Some((t, n)) if n == b.len() => Ok(day * DAY + t),
        _ => Err(expected.into()),
    }
}

/// `n` ASCII digits at the start of `b`, as a number.
fn digits(b: &[u8], n: usize) -> Option<u32> {
    let d = b.get(..n)?;
    d.iter().all(u8::is_ascii_digit).then(|| d.iter().fold(0, |a, &c| a * 10 + u32::from(c - b'0')))
}

/// `YYYY-MM-DD` at the start of `b`: days since the epoch.
fn date(b: &[u8]) -> Option<i64> {
    let (y, m, d) = (digits(b, 4)?, digits(b.get(5..)?, 2)?, digits(b.get(8..)?, 2)?);
    (b[4] == b'-' && b[7] == b'-' && valid(m, d)).then(|| days_from_civil(i64::from(y), m, d))
}

/// Whether month `m` and day `d` can be a date.
fn valid(m: u32, d: u32) -> bool {
    (1..=12).contains(&m) && (1..=31).contains(&d)
}

/// `HH:MM[:SS[.fff]]` at the start of `b`: milliseconds into the day,
/// and the bytes read.
fn clock(b: &[u8]) -> Option<(i64, usize)> {
    let (h, m) = (digits(b, 2)?, digits(b.get(3..)?, 2)?);
    if b[2] != b':' || h > 23 || m > 59 {
        return None;
    }
    let mut t = i64::from(h) * HOUR + i64::from(m) * MINUTE;
    let mut n = 5;
    if b.get(5) == Some(&b':')
        && let Some(s) = digits(&b[6..], 2).filter(|&s| s <= 60)
    {
        t += i64::from(s) * 1000;
        n = 8;
        if matches!(b.get(8), Some(b'.' | b',')) {
            let frac = b[9..].iter().take_while(|c| c.is_ascii_digit()).count();
            let ms = b[9..9 + frac].iter().take(3).fold(0, |a, &c| a * 10 + i64::from(c - b'0'));
            t += ms * 10i64.pow(3 - frac.min(3) as u32);
            n = 9 + frac;
        }
    }
    Some((t, n))
}

/// A zone at the start of `b` (`Z`, `+hh:mm`, `+hhmm`, `+hh`, ` +hhmm`):
/// its offset east of UTC in milliseconds (0 when there is none).
fn zone(b: &[u8]) -> i64 {
    let b = b.strip_prefix(b" ").filter(|r| matches!(r.first(), Some(b'+' | b'-'))).unwrap_or(b);
    let sign = match b.first() {
        Some(b'Z' | b'z') | None => return 0,
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return 0,
    };
    let Some(h) = digits(&b[1..], 2).filter(|&h| h <= 23) else { return 0 };
    let rest = &b[3..];
    let m = digits(rest.strip_prefix(b":").unwrap_or(rest), 2).filter(|&m| m <= 59).unwrap_or(0);
    sign * (i64::from(h) * HOUR + i64::from(m) * MINUTE)
}

/// An ISO 8601 time at the start of `b`.
fn iso(b: &[u8]) -> Option<i64> {
    let days = date(b)?;
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) {
        return None;
    }
    let (t, n) = clock(&b[11..])?;
    Some(days * DAY + t - zone(&b[11 + n..]))
}

/// The month named by three letters at the start of `b` (1-12).
fn month(b: &[u8]) -> Option<u32> {
    const NAMES: [&[u8; 3]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    let name = b.get(..3)?;
    NAMES.iter().position(|n| n.eq_ignore_ascii_case(name)).map(|i| i as u32 + 1)
}

/// A syslog time (`Jan  3 10:00:00`) at the start of `line` (after a
/// `<PRI>`): in `year`, or the year before when its month is after `newest`.
fn syslog(line: &[u8], year: i32, newest: u32) -> Option<i64> {
    let (m, d, t, _) = syslog_fields(line)?;
    let y = i64::from(year) - i64::from(m > newest);
    Some(days_from_civil(y, m, d) * DAY + t)
}

/// Where the BSD syslog time at the start of `line` ends (the date not
/// made a day: the host reader needs only this).
pub(crate) fn syslog_end(line: &[u8]) -> Option<usize> {
    syslog_fields(line).map(|(.., end)| end)
}

/// The month, day, time of day (ms) and end in `line` of the BSD syslog
/// time at its start (after a `<PRI>`).
fn syslog_fields(line: &[u8]) -> Option<(u32, u32, i64, usize)> {
    let b = match line.strip_prefix(b"<") {
        Some(rest) => &rest[memchr::memchr(b'>', &rest[..rest.len().min(5)])? + 1..],
        None => line,
    };
    let skipped = line.len() - b.len();
    let m = month(b)?;
    let day = b.get(4..6)?;
    let d = match day {
        [b' ', d] if d.is_ascii_digit() => u32::from(d - b'0'),
        _ => digits(day, 2)?,
    };
    if b[3] != b' ' || b.get(6) != Some(&b' ') || !valid(m, d) {
        return None;
    }
    let (t, n) = clock(&b[7..])?;
    Some((m, d, t, skipped + 7 + n))
}

/// An access-log time (`03/Jan/2026:10:00:00 +0000`) at the start of `b`.
fn access(b: &[u8]) -> Option<i64> {
    let d = digits(b, 2)?;
    let m = month(b.get(3..)?)?;
    let y = digits(b.get(7..)?, 4)?;
    if b[2] != b'/' || b[6] != b'/' || b.get(11) != Some(&b':') || !valid(m, d) {
        return None;
    }
    let (t, n) = clock(&b[12..])?;
    Some(days_from_civil(i64::from(y), m, d) * DAY + t - zone(&b[12 + n..]))
}

/// The time of a JSON line: the first of its `ts`, `time`, `timestamp`
/// and `@timestamp` members that holds one (a number of seconds, or of
/// milliseconds when it is past the year 5138 in seconds; or an ISO string).
fn json(line: &[u8]) -> Option<i64> {
    let start = line.iter().position(|c| !c.is_ascii_whitespace())?;
    if line[start] != b'{' {
        return None;
    }
    let head = &line[..line.len().min(4096)];
    for key in [&b"\"ts\""[..], b"\"time\"", b"\"timestamp\"", b"\"@timestamp\""] {
        let Some(at) = memchr::memmem::find(head, key) else { continue };
        let rest = &head[at + key.len()..];
        let rest = rest.trim_ascii_start().strip_prefix(b":")?.trim_ascii_start();
        if let Some(s) = rest.strip_prefix(b"\"") {
            if let Some(t) = iso(s) {
                return Some(t);
            }
            continue;
        }
        let n = rest.iter().take_while(|c| c.is_ascii_digit() || **c == b'.').count();
        let Ok(v) = std::str::from_utf8(&rest[..n]).unwrap_or("").parse::<f64>() else { continue };
        return Some(if v >= 1e11 { v as i64 } else { (v * 1000.0).round() as i64 });
    }
    None
}

#[cfg(test)]
#[path = "time_tests.rs"]
mod tests;
