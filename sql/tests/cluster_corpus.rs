//! Every query that runs embedded runs on a Ballista cluster (a scheduler
//! and two executors on loopback) with the same rows: a corpus of string,
//! regex (`regexp_match(...)[1]` among them), array, date and time,
//! aggregate and window queries, joins of two `lines()` tables, one
//! source read twice (a common table expression by both sides of a
//! `UNION ALL`, a `UNION`, an `INTERSECT`, an `EXCEPT` or a join; a table
//! joined with itself; a subquery), and `ORDER BY ... LIMIT`, each run
//! both ways and compared (sorted, unless the query orders its rows).

mod util;

use util::Fixture;
use util::cluster::Cluster;

/// The JSON lines `query` prints with `extra`, sorted unless `ordered`;
/// its standard error when it fails.
fn rows(fx: &Fixture, query: &str, extra: &[&str], ordered: bool) -> Result<Vec<String>, String> {
    let mut args = vec!["--format", "json", "--partitions", "3"];
    args.extend_from_slice(extra);
    args.push(query);
    let out = fx.sql_output(&args);
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let mut lines: Vec<String> =
        String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect();
    if !ordered {
        lines.sort();
    }
    Ok(lines)
}

/// The corpus over the logs `a` and `b` and their directory `dir`:
/// (query, whether its rows come in an order it sets).
fn corpus(dir: &str, a: &str, b: &str) -> Vec<(String, bool)> {
    let t = format!("lines('{dir}')");
    let (ta, tb) = (format!("lines('{a}')"), format!("lines('{b}')"));
    let needle = "line LIKE '%zebracorn%'";
    let unordered = [
        // Strings.
        format!(
            "SELECT upper(substr(line, 12, 5)) AS lvl, length(line) AS len, \
             concat(path, ':', line_number) AS at, trim(replace(line, 'user=', 'u')) AS t, \
             left(line, 7) AS ym, lpad(CAST(line_number AS VARCHAR), 6, '0') AS n, \
             strpos(line, 'needle') AS p, reverse(split_part(line, ' ', 2)) AS r \
             FROM {t} WHERE {needle}"
        ),
        format!("SELECT split_part(line, ' ', 2) AS lvl, count(*) AS n FROM {t} GROUP BY lvl"),
        format!(
            "SELECT starts_with(line, '2024-02') AS feb, ends_with(line, 'ms\r') AS ms, \
             count(*) AS n FROM {t} GROUP BY feb, ms"
        ),
        // Regexes.
        format!(
            "SELECT regexp_match(line, 'user=(\\d+)')[1] AS user, count(*) AS n FROM {t} \
             WHERE line LIKE '%status=500%' GROUP BY user"
        ),
        format!(
            "SELECT regexp_match(line, 'db(\\d) after (\\d+)ms') AS m FROM {t} WHERE line ~ 'Timeout'"
        ),
        format!(
            "SELECT regexp_replace(line, '\\d', '#', 'g') AS masked FROM {t} WHERE line ~ 'needle'"
        ),
        format!("SELECT count(*) AS n FROM {t} WHERE regexp_like(line, 'status=(404|500)')"),
        format!(
            "SELECT regexp_count(line, 'e') AS c, line_number FROM {t} WHERE line ~* 'TIMEOUT'"
        ),
        format!(
            "SELECT count(*) AS n FROM {t} WHERE line ~ 'path=/api/v[0-3]$' AND line !~ 'INFO'"
        ),
        // Arrays.
        format!(
            "SELECT array_length(string_to_array(line, ' ')) AS words, count(*) AS n \
             FROM {t} GROUP BY words"
        ),
        format!(
            "SELECT make_array(line_number, byte_offset) AS a, \
             string_to_array(split_part(line, ' ', 3), '=') AS kv, \
             array_to_string(array_distinct(string_to_array(line, ' ')), '|') AS s, \
             cardinality(string_to_array(line, 'e')) AS c \
             FROM {t} WHERE {needle}"
        ),
        format!(
            "SELECT array_element(string_to_array(line, ' '), 2) AS level, \
             array_has(string_to_array(line, ' '), 'needle') AS has \
             FROM {t} WHERE {needle}"
        ),
        format!(
            "SELECT unnest(string_to_array(split_part(line, ' ', 3), '=')) AS part \
             FROM {t} WHERE line LIKE '%status=404%' AND line LIKE '%user=1_ %'"
        ),
        // Dates and times.
        format!(
            "SELECT to_timestamp(substr(line, 1, 10)) AS day, \
             date_part('day', to_timestamp(substr(line, 1, 10))) AS d, \
             date_trunc('month', to_timestamp(substr(line, 1, 10))) AS m, \
             to_char(to_timestamp(substr(line, 1, 10)), '%Y/%m/%d') AS c, \
             extract(month FROM to_date(substr(line, 1, 10))) AS mo \
             FROM {t} WHERE {needle}"
        ),
        format!(
            "SELECT date_trunc('day', modified) = date_trunc('day', modified) AS same, \
             modified > TIMESTAMP '2000-01-01T00:00:00' AS recent, count(*) AS n \
             FROM {t} GROUP BY same, recent"
        ),
        // Aggregates.
        format!(
            "SELECT split_part(line, ' ', 2) AS lvl, count(*) AS n, min(line_number) AS lo, \
             max(byte_offset) AS hi, sum(length(line)) AS s, avg(length(line)) AS a, \
             count(DISTINCT path) AS files, approx_distinct(line) AS d, \
             round(stddev(length(line)), 6) AS sd, median(line_number) AS med, \
             bool_or(line LIKE '%needle%') AS any_needle \
             FROM {t} GROUP BY lvl HAVING count(*) > 10"
        ),
        format!(
            "SELECT path, count(*) FILTER (WHERE line LIKE '%ERROR%') AS errors, \
             max(length(line)) AS widest FROM {t} GROUP BY path"
        ),
        format!("SELECT count(DISTINCT split_part(line, ' ', 3)) AS users FROM {t}"),
        // Window functions.
        format!(
            "SELECT path, line_number, \
             row_number() OVER (PARTITION BY path ORDER BY line_number) AS rn, \
             lag(line_number) OVER (PARTITION BY path ORDER BY line_number) AS prev, \
             sum(length(line)) OVER (PARTITION BY path ORDER BY line_number \
             ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s, \
             first_value(line_number) OVER (PARTITION BY path ORDER BY line_number) AS first \
             FROM {t} WHERE line LIKE '%status=404%'"
        ),
        format!(
            "SELECT path, line_number, rank() OVER (ORDER BY length(line) DESC) AS r, \
             ntile(4) OVER (PARTITION BY path ORDER BY line_number) AS q \
             FROM {t} WHERE {needle}"
        ),
        // Joins of two lines() tables, a subquery, a union.
        format!(
            "SELECT x.line_number, x.line, y.line AS other FROM {ta} x JOIN {tb} y \
             ON x.line_number = y.line_number WHERE x.line LIKE '%zebracorn%'"
        ),
        format!(
            "SELECT count(*) AS n FROM {ta} x JOIN {tb} y \
             ON regexp_match(x.line, 'user=(\\d+)')[1] = regexp_match(y.line, 'user=(\\d+)')[1] \
             WHERE x.line LIKE '%status=500%' AND y.line LIKE '%status=500%'"
        ),
        format!(
            "SELECT x.line_number FROM {ta} x LEFT JOIN {tb} y \
             ON x.line = y.line WHERE x.line LIKE '%Timeout%' AND y.line IS NULL"
        ),
        format!(
            "SELECT line_number FROM {ta} WHERE split_part(line, ' ', 3) IN \
             (SELECT split_part(line, ' ', 3) FROM {tb} WHERE {needle})"
        ),
        // One source read twice in one query: by both sides of a UNION
        // ALL (a grouped and an ungrouped aggregate, whose branch ends in
        // a collapse), of a UNION, an INTERSECT and an EXCEPT, by a join
        // with itself, and by a subquery.
        format!(
            "WITH hits AS (SELECT path, line FROM {t} WHERE {needle}) \
             SELECT path, count(*) AS n FROM hits GROUP BY path \
             UNION ALL SELECT 'total', count(*) FROM hits"
        ),
        format!(
            "SELECT path, count(*) AS n FROM {t} WHERE {needle} GROUP BY path \
             UNION ALL SELECT 'total', count(*) FROM {t} WHERE {needle}"
        ),
        format!(
            "WITH hits AS (SELECT path, line_number, line FROM {t} WHERE line LIKE '%status=500%') \
             SELECT x.path, x.line_number, y.line_number AS next FROM hits x JOIN hits y \
             ON x.path = y.path AND y.line_number BETWEEN x.line_number + 1 AND x.line_number + 3"
        ),
        format!(
            "WITH w AS (SELECT split_part(line, ' ', 2) AS level, line FROM {t}) \
             SELECT level FROM w WHERE line LIKE '%status=404%' \
             UNION SELECT level FROM w WHERE line LIKE '%Timeout%'"
        ),
        format!(
            "WITH u AS (SELECT regexp_match(line, 'user=(\\d+)')[1] AS user, line FROM {ta}) \
             SELECT user FROM u WHERE line LIKE '%status=500%' \
             INTERSECT SELECT user FROM u WHERE line LIKE '%status=404%'"
        ),
        format!(
            "WITH u AS (SELECT regexp_match(line, 'user=(\\d+)')[1] AS user, line FROM {tb}) \
             SELECT user FROM u WHERE line LIKE '%status=500%' \
             EXCEPT SELECT user FROM u WHERE line LIKE '%status=200%'"
        ),
        format!(
            "SELECT x.line_number, y.line_number AS again FROM {ta} x JOIN {ta} y \
             ON x.line = y.line AND x.line_number < y.line_number"
        ),
        format!(
            "SELECT path, count(*) AS n FROM {t} WHERE line LIKE '%status=500%' GROUP BY path \
             HAVING count(*) * 3 > (SELECT count(*) FROM {t} WHERE line LIKE '%status=500%')"
        ),
        format!(
            "SELECT n, count(*) AS users FROM (SELECT regexp_match(line, 'user=(\\d+)')[1] AS u, \
             count(*) AS n FROM {t} GROUP BY u) GROUP BY n HAVING n > \
             (SELECT avg(n) FROM (SELECT regexp_match(line, 'user=(\\d+)')[1] AS u, count(*) AS n \
             FROM {t} GROUP BY u))"
        ),
        format!(
            "SELECT DISTINCT CASE WHEN line LIKE '%ERROR%' THEN 'bad' \
             WHEN line = '' THEN 'empty' ELSE coalesce(nullif(split_part(line, ' ', 2), ''), '?') \
             END AS kind FROM {t}"
        ),
    ];
    let ordered = [
        format!(
            "SELECT path, line_number, line FROM {t} \
             ORDER BY length(line) DESC, path, line_number LIMIT 5"
        ),
        format!(
            "SELECT regexp_match(line, 'user=(\\d+)')[1] AS user, count(*) AS n FROM {t} \
             GROUP BY user ORDER BY n DESC, user LIMIT 10"
        ),
        format!(
            "SELECT line_number FROM {ta} WHERE line LIKE '%status=200%' \
             ORDER BY line_number DESC LIMIT 7 OFFSET 3"
        ),
    ];
    let unordered = unordered.into_iter().map(|q| (q, false));
    unordered.chain(ordered.into_iter().map(|q| (q, true))).collect()
}

#[test]
fn issue_0039_every_query_that_runs_embedded_runs_on_a_cluster_with_the_same_rows() {
    let fx = Fixture::new();
    let a = fx.write("logs/a.log", &util::log_text(3_000, 1));
    let b = fx.write("logs/b.log", &util::log_text(3_000, 2));
    let dir = fx.path("logs");
    let [dir, a, b] = [&dir, &a, &b].map(|p| p.display().to_string());
    let cluster = Cluster::start(&fx, &[]);
    let remote = cluster.address();
    let mut failures = Vec::new();
    let queries = corpus(&dir, &a, &b);
    for (query, ordered) in &queries {
        let embedded = match rows(&fx, query, &[], *ordered) {
            Ok(r) => r,
            Err(e) => panic!("embedded: {query}: {e}"),
        };
        assert!(!embedded.is_empty(), "no rows: {query}");
        match rows(&fx, query, &["--scheduler", &remote], *ordered) {
            Ok(distributed) if distributed == embedded => {}
            Ok(distributed) => failures.push(format!(
                "{query}\n  embedded ({} rows): {:?}\n  cluster ({} rows): {:?}",
                embedded.len(),
                &embedded[..embedded.len().min(3)],
                distributed.len(),
                &distributed[..distributed.len().min(3)]
            )),
            Err(e) => failures.push(format!("{query}\n  cluster failed: {}", e.trim())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} queries answer otherwise on the cluster:\n{}",
        failures.len(),
        queries.len(),
        failures.join("\n")
    );
}
