//! `WHERE time …` reads only the blocks whose recorded range of line
//! times meets the condition's, with no option, and loses no row: on a
//! huge file's block index, an indexed `.gz` and a packed `.zst`, of an
//! in-order log with continuation runs crossing many blocks and of a log
//! with a preamble without times, lines written late (up to a minute,
//! many blocks back) and times written in four zones. Each count is
//! checked against the reference the test computed as it wrote the log
//! and against the same query with nothing pushed down; the blocks kept
//! are read from what the scan logs.

mod util;

use std::path::{Path, PathBuf};
use std::process::Command;

use util::Fixture;
use util::stamped::{self, BASE, Log};

/// A log of about `bytes` bytes: 40 lines without a time, then lines
/// whose times mostly go up but one in 50 is written up to a minute late,
/// each written in one of four zones, most followed by up to three
/// continuation lines and every 500th by a run of 200 crossing blocks.
fn messy(bytes: usize, seed: u64) -> Log {
    let mut log = Log::new(seed);
    for i in 0..40 {
        log.bare(&format!("preamble {i}: the service starts, no time yet"), None);
    }
    let (mut t, mut i) = (BASE, 0);
    while log.text.len() < bytes {
        t += log.below(400) as i64;
        let at = if log.below(50) == 0 { t - log.below(60_000) as i64 } else { t };
        let zone: i64 = [0, 330, -480, 60][log.below(4) as usize];
        let local = at + zone * 60_000;
        let z = match zone {
            0 => "Z".to_string(),
            _ => format!(
                "{}{:02}:{:02}",
                if zone < 0 { '-' } else { '+' },
                zone.abs() / 60,
                zone.abs() % 60
            ),
        };
        let tok = log.token();
        let stamp = format!("{}.{:03}{z}", stamped::iso(local, 'T'), local.rem_euclid(1000));
        log.stamped(&format!("{stamp} INFO request {i} {tok}"), at, Some("INFO"));
        let n = if i % 500 == 250 { 200 } else { log.below(4) };
        for k in 0..n {
            let tok = log.token();
            log.bare(&format!("    at com.example.Frame{k}.call(Frame.java:{k}) {tok}"), None);
        }
        i += 1;
    }
    log
}

/// `ms` as a literal SQL reads as a time.
fn at(ms: i64) -> String {
    format!("'{}.{:03}Z'", stamped::iso(ms, 'T'), ms.rem_euclid(1000))
}

/// `log` as a block-indexed file, an indexed `.gz` and a packed `.zst`
/// under `dir/`, all cut into blocks of 4 KiB.
fn three_kinds(fx: &Fixture, dir: &str, log: &Log) -> [PathBuf; 3] {
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let plain = fx.write(&format!("{dir}/huge.log"), &log.text);
    fx.tg(&["index", "-q", "--block-size", "4K", &s(&plain)]);
    let gz = fx.write(&format!("{dir}/text.log"), &log.text);
    util::run("gzip", &["-n", &s(&gz)]);
    let gz = gz.with_extension("log.gz");
    fx.tg(&["index", "-q", "--block-size", "4K", "--access-spacing", "64K", &s(&gz)]);
    let packed = fx.path(&format!("{dir}/packed.log.zst"));
    fx.pack(&plain, &packed);
    [plain, gz, packed]
}

/// The count of `lines('path') WHERE cond` with `extra` flags, and the
/// blocks the scan said can hold the condition's times: `(kept, of)`,
/// `None` when it said nothing of time ranges.
fn count(fx: &Fixture, path: &Path, cond: &str, extra: &[&str]) -> (u64, Option<(usize, usize)>) {
    let q = format!("SELECT count(*) AS n FROM lines('{}') WHERE {cond}", path.display());
    let out = Command::new(util::tg_sql())
        .args(["--format", "csv", "--partitions", "4"])
        .args(extra)
        .arg(&q)
        .env("TG_INDEX_DIR", fx.index_dir())
        .env("RUST_LOG", "trigrep_sql=info")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{q}: {stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let n = stdout.strip_prefix("n\n").and_then(|n| n.trim().parse().ok()).expect(&stdout);
    let said = stderr.lines().find_map(|l| l.split_once("time ranges: ")).map(|(_, rest)| {
        let w: Vec<&str> = rest.split_whitespace().collect();
        (w[0].parse().unwrap(), w[2].parse().unwrap())
    });
    (n, said)
}

/// The ranges asked of a log whose lines carry `times` (`None`: no time),
/// each with whether it is narrow (few blocks can hold it): one in the
/// middle, the time of a line written late, the time a long continuation
/// run carries, an open range from the middle on, and ranges before the
/// first time and after the last.
fn ranges(times: &[Option<i64>]) -> Vec<(String, i64, Option<i64>, bool)> {
    let known: Vec<i64> = times.iter().flatten().copied().collect();
    let (first, last) = (*known.iter().min().unwrap(), *known.iter().max().unwrap());
    let mid = known[known.len() / 2];
    let late = known.windows(2).find(|w| w[1] + 5000 < w[0]).map_or(mid, |w| w[1]);
    let run = (0..times.len() - 150).find(|&i| times[i..i + 150].iter().all(|t| *t == times[i]));
    let run = times[run.unwrap() + 75].unwrap();
    vec![
        ("middle".into(), mid, Some(mid + 2000), true),
        ("late line".into(), late, Some(late), false),
        ("continuation run".into(), run, Some(run), false),
        ("from the middle on".into(), mid, None, false),
        ("before the first".into(), first - 60_000, Some(first - 1), true),
        ("after the last".into(), last + 1, Some(last + 60_000), true),
    ]
}

/// Every range of [`ranges`] on each of `paths` (texts of a log whose
/// lines carry `times`): the count pruned equals the reference and the
/// count with nothing pushed down, and a narrow range keeps under a
/// quarter of the blocks (none outside the log's times).
fn check(fx: &Fixture, paths: &[PathBuf], times: &[Option<i64>]) {
    for (name, lo, hi, narrow) in ranges(times) {
        let cond = match hi {
            Some(hi) => format!("time BETWEEN {} AND {}", at(lo), at(hi)),
            None => format!("time >= {}", at(lo)),
        };
        let inside = |t: &&Option<i64>| t.is_some_and(|t| t >= lo && hi.is_none_or(|h| t <= h));
        let want = times.iter().filter(inside).count() as u64;
        for path in paths {
            let what = format!("{name} ({cond}) on {}", path.display());
            let (got, said) = count(fx, path, &cond, &[]);
            let (all, _) = count(fx, path, &cond, &["--no-pushdown"]);
            assert_eq!((got, all), (want, want), "{what}");
            let (kept, of) = said.unwrap_or_else(|| panic!("{what}: no time ranges used"));
            assert!(of > 100, "{what}: {of} blocks");
            if narrow {
                assert!(kept * 4 < of, "{what}: kept {kept} of {of} blocks");
            }
            if want == 0 {
                assert_eq!(kept, 0, "{what}");
            }
        }
    }
}

#[test]
fn issue_0035_time_conditions_read_only_blocks_whose_times_meet_them_in_order() {
    let fx = Fixture::new();
    let log = stamped::java_with_long_runs(1_200_000, 60_000, 11);
    let times: Vec<Option<i64>> = log.want.iter().map(|w| w.0).collect();
    check(&fx, &three_kinds(&fx, "up", &log), &times);
}

#[test]
fn issue_0035_time_conditions_lose_no_line_written_late_in_another_zone_or_continued() {
    let fx = Fixture::new();
    let log = messy(1_200_000, 12);
    let times: Vec<Option<i64>> = log.want.iter().map(|w| w.0).collect();
    assert!(times.windows(2).any(|w| w[1] < w[0]), "some lines are late");
    check(&fx, &three_kinds(&fx, "messy", &log), &times);
}

#[test]
fn issue_0035_a_grown_files_tail_is_read_and_an_old_index_falls_back() {
    let fx = Fixture::new();
    let log = messy(1_100_000, 13);
    let [plain, ..] = three_kinds(&fx, "grown", &log);
    // Lines appended after the build, at the log's middle times: the tail
    // has no recorded ranges and is read whole.
    let mut times: Vec<Option<i64>> = log.want.iter().map(|w| w.0).collect();
    let mid = times.iter().flatten().copied().collect::<Vec<_>>()[times.len() / 2];
    let mut more = Vec::new();
    for i in 0..50 {
        let t = mid + 10 * i;
        more.extend(
            format!("{}.{:03}Z INFO appended {i}\n", stamped::iso(t, 'T'), t % 1000).bytes(),
        );
        times.push(Some(t));
    }
    let mut f = std::fs::File::options().append(true).open(&plain).unwrap();
    std::io::Write::write_all(&mut f, &more).unwrap();
    drop(f);
    let cond = format!("time BETWEEN {} AND {}", at(mid), at(mid + 2000));
    let want = times.iter().filter(|t| t.is_some_and(|t| (mid..=mid + 2000).contains(&t))).count();
    let (got, said) = count(&fx, &plain, &cond, &[]);
    assert_eq!(got, want as u64, "{cond}");
    let (kept, of) = said.expect("time ranges used on a grown file");
    assert!(kept * 4 < of, "kept {kept} of {of}");
    // An index as an older tg wrote it has no ranges: nothing is skipped
    // by time, and every row is still there.
    assert!(util::forget_times(&fx) >= 2, "the block index and the .gz's");
    let (got, said) = count(&fx, &plain, &cond, &[]);
    assert_eq!((got, said), (want as u64, None), "{cond}");
}
