//! Generated logs in every timestamp format `tg view` reads, each with
//! the reference the test computes as it writes them: every line's time
//! (its own, or the one it carries from the last line before it with
//! one, as lnav gives it) and level. Nothing here asks the code under
//! test: times are made from dates by this file's own calendar.

/// 2026-01-03 10:00:00 UTC, in ms since the epoch.
pub const BASE: i64 = 1_767_434_400_000;

/// What a line should read as: its time in ms and its level.
pub type Want = (Option<i64>, Option<&'static str>);

/// A log being written, with what each line should read as.
#[derive(Default)]
pub struct Log {
    /// Its text.
    pub text: Vec<u8>,
    /// One per line.
    pub want: Vec<Want>,
    /// The time a line without one carries.
    carried: Option<i64>,
    rng: u64,
}

impl Log {
    /// An empty log, its random numbers from `seed`.
    pub fn new(seed: u64) -> Log {
        Log { rng: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1, ..Log::default() }
    }

    /// A random number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng % n
    }

    /// A token a condition can pick lines by (`~k3~`): a seventh of lines.
    pub fn token(&mut self) -> String {
        format!("~k{}~", self.below(7))
    }

    /// A line writing its own time `t` and `level`.
    pub fn stamped(&mut self, line: &str, t: i64, level: Option<&'static str>) {
        self.carried = Some(t);
        self.push(line, (Some(t), level));
    }

    /// A line without a time of its own (a continuation), and `level`.
    pub fn bare(&mut self, line: &str, level: Option<&'static str>) {
        self.push(line, (self.carried, level));
    }

    fn push(&mut self, line: &str, want: Want) {
        self.text.extend_from_slice(line.as_bytes());
        self.text.push(b'\n');
        self.want.push(want);
    }
}

/// Days since 1970-01-01 of a date (the proleptic Gregorian calendar).
pub fn days(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
}

/// The date and time of `ms`: (year, month, day, hour, minute, second, ms).
pub fn civil(ms: i64) -> [i64; 7] {
    let (day, rest) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // The year first, by trying: the test's dates are few.
    let mut y = 1970 + day / 366;
    while days(y + 1, 1, 1) <= day {
        y += 1;
    }
    let mut m = 1;
    while m < 12 && days(y, m + 1, 1) <= day {
        m += 1;
    }
    let d = day - days(y, m, 1) + 1;
    [y, m, d, rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000]
}

/// `ms` as `YYYY-MM-DD{sep}HH:MM:SS`.
pub fn iso(ms: i64, sep: char) -> String {
    let [y, mo, d, h, mi, s, _] = civil(ms);
    format!("{y:04}-{mo:02}-{d:02}{sep}{h:02}:{mi:02}:{s:02}")
}

/// Month names as syslog and access logs write them.
const MONTHS: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// The levels as the logs below write them, and what they read as.
const LEVELS: [(&str, &str); 7] = [
    ("INFO", "INFO"),
    ("WARN", "WARN"),
    ("ERROR", "ERROR"),
    ("DEBUG", "DEBUG"),
    ("TRACE", "TRACE"),
    ("WARNING", "WARN"),
    ("FATAL", "ERROR"),
];

/// A log of `lines` lines of one of the formats of [`LOGS`].
pub fn generate(name: &str, lines: usize, seed: u64) -> Log {
    let mut log = Log::new(seed);
    let mut t = BASE;
    for i in 0..lines {
        let step = log.below(3000) as i64;
        t += step;
        let (word, level) = LEVELS[log.below(LEVELS.len() as u64) as usize];
        let tok = log.token();
        let frac = t.rem_euclid(1000);
        match name {
            // ISO 8601 with `T`, a fraction and a zone of each kind.
            "iso_zone" => {
                let (zone, east) = [("Z", 0), ("+01:00", 60), ("-0530", -330), ("+02", 120)]
                    [log.below(4) as usize];
                let local = t + east * 60_000;
                let stamp = format!("{}.{:03}{zone}", iso(local, 'T'), local.rem_euclid(1000));
                log.stamped(&format!("{stamp} {word} service=api {tok} done"), t, Some(level));
            }
            // No zone, no fraction, the level in brackets.
            "iso_plain" => {
                t -= frac;
                log.stamped(
                    &format!("{} [{word}] user {i} {tok} logged in", iso(t, ' ')),
                    t,
                    Some(level),
                );
            }
            // `,mmm` and Java stack traces under some lines.
            "java" => {
                let line =
                    format!("{},{frac:03} {word} [main] c.e.Service - call {tok}", iso(t, ' '));
                log.stamped(&line, t, Some(level));
                for k in 0..log.below(6) {
                    let tok = log.token();
                    let cont = match k {
                        0 => format!("java.lang.IllegalStateException: bad state {tok}"),
                        _ => format!("\tat com.example.Foo.bar{k}(Foo.java:{}) {tok}", 10 + k),
                    };
                    log.bare(&cont, None);
                }
            }
            // RFC 3339 with microseconds (read to the millisecond) and keys.
            "rfc3339_micro" => {
                let micro = log.below(1000);
                let key = level.to_lowercase();
                let line =
                    format!("{}.{frac:03}{micro:03}Z level={key} msg=\"x {tok}\"", iso(t, 'T'));
                log.stamped(&line, t, Some(level));
            }
            // BSD syslog over a new year: the year comes from the file's
            // modification time (see [`SYSLOG_MODIFIED`]).
            "syslog" => {
                // About six minutes a line, whole seconds: five days.
                let t = days(2025, 12, 30) * 86_400_000 + (t - BASE) * 240 / 1000 * 1000;
                let [_, mo, d, h, mi, s, _] = civil(t);
                let stamp = format!("{} {d:>2} {h:02}:{mi:02}:{s:02}", MONTHS[mo as usize - 1]);
                if i % 5 == 0 {
                    log.stamped(
                        &format!("<11>{stamp} host app[12]: failed {tok}"),
                        t,
                        Some("ERROR"),
                    );
                } else {
                    log.stamped(&format!("{stamp} host app[12]: {word} {tok}"), t, Some(level));
                }
            }
            // Common log format with a zone: no levels.
            "access" => {
                let t = t - frac;
                let local = t + 3_600_000;
                let [y, mo, d, h, mi, s, _] = civil(local);
                let m = MONTHS[mo as usize - 1];
                let stamp = format!("[{d:02}/{m}/{y}:{h:02}:{mi:02}:{s:02} +0100]");
                let line =
                    format!("10.0.0.{} - - {stamp} \"GET /api/{tok} HTTP/1.1\" 200 {i}", i % 250);
                log.stamped(&line, t, None);
            }
            // JSON lines: seconds with a fraction in `ts`, a wrapped message now and then.
            "json_s" => {
                let key = level.to_lowercase();
                let line = format!(
                    "{{\"ts\": {}.{frac:03}, \"level\": \"{key}\", \"msg\": \"{tok}\"}}",
                    t / 1000
                );
                log.stamped(&line, t, Some(level));
                if log.below(4) == 0 {
                    let tok = log.token();
                    log.bare(&format!("  continued {tok}"), None);
                }
            }
            // JSON lines: milliseconds in `time`.
            "json_ms" => {
                let key = level.to_lowercase();
                log.stamped(
                    &format!("{{\"time\": {t}, \"lvl\": \"{key}\", \"msg\": \"{tok}\"}}"),
                    t,
                    Some(level),
                );
            }
            // JSON lines: whole seconds in `timestamp` or `@timestamp`.
            "json_at" => {
                let t = t - frac;
                let key = ["timestamp", "@timestamp"][i % 2];
                let line = format!(
                    "{{\"{key}\": {}, \"severity\": \"{word}\", \"m\": \"{tok}\"}}",
                    t / 1000
                );
                log.stamped(&line, t, Some(level));
            }
            // Times that go back now and then (a clock set back, a replay).
            "backwards" => {
                if log.below(50) == 0 {
                    t -= 3_600_000;
                }
                let line =
                    format!("{}.{:03}Z {word} step {i} {tok}", iso(t, 'T'), t.rem_euclid(1000));
                log.stamped(&line, t, Some(level));
            }
            // Several threads: now and then a line written 15 ms late.
            "late" => {
                let own = if log.below(8) == 0 { t - 15 } else { t };
                let line = format!(
                    "{}.{:03}Z {word} thread-{} {tok}",
                    iso(own, 'T'),
                    own.rem_euclid(1000),
                    i % 4
                );
                log.stamped(&line, own, Some(level));
            }
            // No times at all: every time null, levels still read.
            "no_times" => log.bare(&format!("{word}: item {i} {tok}"), Some(level)),
            _ => panic!("no log format {name}"),
        }
    }
    log
}

/// The formats [`generate`] writes, one log each.
pub const LOGS: [&str; 12] = [
    "iso_zone",
    "iso_plain",
    "java",
    "rfc3339_micro",
    "syslog",
    "access",
    "json_s",
    "json_ms",
    "json_at",
    "backwards",
    "late",
    "no_times",
];

/// When the syslog log was last written: 2026-02-10, so that its
/// December lines are of 2025 and its January lines of 2026.
pub fn syslog_modified() -> std::time::SystemTime {
    let ms = days(2026, 2, 10) * 86_400_000;
    std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms as u64)
}

/// A log over `bytes` bytes or so whose lines are of a Java service, with
/// a few continuation runs longer than `run` bytes (one crossing many
/// blocks): what a block-indexed text's parts must look back across.
pub fn java_with_long_runs(bytes: usize, run: usize, seed: u64) -> Log {
    let mut log = Log::new(seed);
    let mut t = BASE;
    let mut i = 0;
    while log.text.len() < bytes {
        t += log.below(500) as i64;
        let (word, level) = LEVELS[log.below(LEVELS.len() as u64) as usize];
        let tok = log.token();
        let line =
            format!("{},{:03} {word} [w{}] job {i} {tok}", iso(t, ' '), t.rem_euclid(1000), i % 8);
        log.stamped(&line, t, Some(level));
        let long = i % 4000 == 1999;
        let mut written = 0;
        let mut k = 0;
        while (long && written < run) || (!long && k < log.below(4)) {
            let tok = log.token();
            let cont = format!("\tat com.example.Deep.frame{k}(Deep.java:{k}) {tok}");
            written += cont.len() + 1;
            log.bare(&cont, None);
            k += 1;
        }
        i += 1;
    }
    log
}

/// A log of exactly `blocks` blocks of 4 KiB (64 lines of 64 bytes each),
/// its times 2 ms apart and going up, but for the fourth line of every
/// block, written 15 ms late: its time (odd, unlike any other line's) is
/// before that of the block's first line.
pub fn late_in_every_block(blocks: usize) -> Log {
    let mut log = Log::new(7);
    for i in 0..blocks * 64 {
        let t = if i % 64 == 3 { BASE + 2 * (i as i64 - 1) - 15 } else { BASE + 2 * i as i64 };
        let head = format!("{}.{:03}Z INFO line {i:06}", iso(t, 'T'), t.rem_euclid(1000));
        let line = format!("{head:<63}");
        assert_eq!(line.len(), 63);
        log.stamped(&line, t, Some("INFO"));
    }
    log
}
