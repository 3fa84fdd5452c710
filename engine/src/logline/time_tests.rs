use super::*;

/// Milliseconds of a UTC date and time.
fn at(y: i64, mo: u32, d: u32, h: i64, mi: i64, s: i64, ms: i64) -> i64 {
    days_from_civil(y, mo, d) * DAY + h * HOUR + mi * MINUTE + s * 1000 + ms
}

#[test]
fn the_calendar_round_trips() {
    assert_eq!(days_from_civil(1970, 1, 1), 0);
    assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    for days in (-800_000..800_000).step_by(997) {
        let (y, m, d) = civil_from_days(days);
        assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
    }
    assert_eq!(format(at(2026, 1, 3, 10, 0, 0, 0)), "2026-01-03 10:00:00");
    assert_eq!(format(at(2024, 2, 29, 23, 59, 59, 7)), "2024-02-29 23:59:59.007");
}

#[test]
fn iso_with_and_without_zone_and_fraction() {
    let t = at(2026, 1, 3, 10, 0, 0, 0);
    let iso = |s: &str| parse(Format::Iso, s.as_bytes());
    assert_eq!(iso("2026-01-03T10:00:00Z x"), Some(t));
    assert_eq!(iso("2026-01-03 10:00:00 INFO"), Some(t));
    assert_eq!(iso("2026-01-03T10:00:00.250+01:00"), Some(t + 250 - HOUR));
    assert_eq!(iso("2026-01-03T10:00:00.123456-0530"), Some(t + 123 + 5 * HOUR + 30 * MINUTE));
    assert_eq!(iso("2026-01-03 10:00:00,007 WARN"), Some(t + 7));
    assert_eq!(iso("[2026-01-03 10:00] x"), Some(t));
    assert_eq!(iso("I1203 app 2026-01-03T10:00:00Z"), Some(t), "within the first 48 bytes");
    assert_eq!(iso("  at com.example.Main(Main.java:3)"), None);
    assert_eq!(iso("12026-01-03T10:00:00Z"), None, "not inside a longer number");
    assert_eq!(iso("2026-13-03T10:00:00Z"), None);
    assert_eq!(iso("2026-01-03T25:00:00Z"), None);
}

#[test]
fn syslog_takes_its_year_from_the_file() {
    let modified = at(2026, 2, 10, 0, 0, 0, 0);
    let f = Format::Syslog { year: 2026, month: 2 };
    assert_eq!(detect(b"Jan  3 10:00:00 host app[1]: x\n", modified), Some(f));
    assert_eq!(parse(f, b"Jan  3 10:00:00 host app: x"), Some(at(2026, 1, 3, 10, 0, 0, 0)));
    assert_eq!(parse(f, b"Dec 31 23:59:59 host x"), Some(at(2025, 12, 31, 23, 59, 59, 0)));
    assert_eq!(parse(f, b"<13>Feb 10 08:00:01 host x"), Some(at(2026, 2, 10, 8, 0, 1, 0)));
    assert_eq!(parse(f, b"Jan 3 10:00:00 one space"), None);
    assert_eq!(parse(f, b"January"), None);
}

#[test]
fn access_log_times() {
    let f = Format::Access;
    let line = b"10.0.0.1 - - [03/Jan/2026:10:00:00 +0100] \"GET / HTTP/1.1\" 200 5";
    assert_eq!(parse(f, line), Some(at(2026, 1, 3, 9, 0, 0, 0)));
    assert_eq!(detect(line, 0), Some(f));
    assert_eq!(parse(f, b"[03/Foo/2026:10:00:00 +0000]"), None);
}

#[test]
fn json_epochs_and_strings() {
    let f = Format::Json;
    let t = at(2026, 1, 3, 10, 0, 0, 0);
    let s = t / 1000;
    assert_eq!(parse(f, format!("{{\"ts\": {s}, \"msg\": \"x\"}}").as_bytes()), Some(t));
    assert_eq!(parse(f, format!("{{\"time\":{}}}", t + 5).as_bytes()), Some(t + 5));
    assert_eq!(parse(f, format!("{{\"timestamp\":{s}.25}}").as_bytes()), Some(t + 250));
    assert_eq!(parse(f, b"{\"@timestamp\":\"2026-01-03T10:00:00Z\"}"), Some(t));
    assert_eq!(parse(f, b"{\"msg\":\"no time\"}"), None);
    assert_eq!(parse(f, b"ts=1"), None);
    let lines = format!("{{\"ts\":{s},\"level\":\"info\"}}\n{{\"ts\":{s}}}\n");
    assert_eq!(detect(lines.as_bytes(), 0), Some(f));
}

#[test]
fn detection_takes_the_format_of_most_lines() {
    let log = b"2026-01-03 10:00:00,001 ERROR boom\njava.lang.Error\n\tat x\n2026-01-03 10:00:01,000 INFO ok\n";
    assert_eq!(detect(log, 0), Some(Format::Iso));
    assert_eq!(detect(b"no times\nhere at all\n", 0), None);
    assert_eq!(detect(b"", 0), None);
}

#[test]
fn queries_absolute_clock_and_relative() {
    let t = at(2026, 1, 3, 10, 0, 0, 0);
    let end = Some(t + DAY);
    assert_eq!(parse_query("2026-01-03 10:00", None, None), Ok(t));
    assert_eq!(parse_query("2026-01-03T10:00:30", None, None), Ok(t + 30_000));
    assert_eq!(parse_query("2026-01-03", None, None), Ok(t - 10 * HOUR));
    assert_eq!(parse_query("12:30", Some(t + 5), None), Ok(t + 2 * HOUR + 30 * MINUTE));
    assert_eq!(parse_query("-5m", None, end), Ok(t + DAY - 5 * MINUTE));
    assert_eq!(parse_query("-2h", None, end), Ok(t + DAY - 2 * HOUR));
    assert!(parse_query("-5x", None, end).is_err());
    assert!(parse_query("soon", Some(t), end).is_err());
    assert_eq!(parse_query("10:00", None, None), Err("no timestamps found".into()));
}
