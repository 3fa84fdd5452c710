#!/usr/bin/env python3
"""SQL over logs and trees: `tg sql` against DataFusion's own scan.

Measures, hot (files cached), median and min-max of --runs runs:

* on a packed log (`tg pack` of logs/big1G.log): a needle `count(*)` and a
  high-volume `GROUP BY` over matching lines, through trigrep's indexes
  (`tg-sql`), through the same provider reading every line
  (`tg-sql --no-pushdown`), DataFusion (PyPI) reading the log text as a
  one-column CSV, DuckDB (PyPI) reading it the same way, `tg -c` on the
  packed file and `rg -c` on the text;
* on the kernel tree with a tree index: a needle `count(*)` and a
  `GROUP BY path` over matching lines, `tg-sql` vs `--no-pushdown`,
  `tg -c` and `rg -c` (summed);
* with --cluster: the same `tg-sql` queries on a Ballista scheduler and two
  executors on loopback, and the scheduler's overhead (`SELECT 1`);
* with --runtime: the same queries through `tg sql` answered by a warm
  server (`tg sql serve`) listening in that runtime directory.

Every answer is checked before any time counts: counts against `rg -c`,
`tg -c` and DuckDB, groups against DuckDB (log) or `rg -c` per file (tree).
tg-sql, tg and rg are timed as processes (startup included); DataFusion
and DuckDB inside this process (their import and table registration not).
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time

NEEDLE = "XYZZY-NEEDLE-4242"
LOG_GROUP_LIKE = "%struct%"
TREE_NEEDLE = "rcu_read_lock_bh_held"
TREE_GROUP_LIKE = "%EXPORT_SYMBOL_GPL%"


def like_literal(s):
    """`s` with LIKE's `_` wildcard escaped (its `%` wildcards kept)."""
    return s.replace("_", "\\_")


def timed(fn, runs):
    """Runs fn once to warm up and check, then `runs` times; (answer, times)."""
    answer = fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return answer, times


def fmt(times):
    return f"{statistics.median(times):.3f} s ({min(times):.3f}-{max(times):.3f})"


def run(cmd, env=None):
    out = subprocess.run(cmd, capture_output=True, env=env)
    if out.returncode not in (0, 1):
        sys.exit(f"{cmd}: exit {out.returncode}: {out.stderr.decode(errors='replace')}")
    return out.stdout


class Tools:
    def __init__(self, a):
        self.a = a
        self.env = dict(os.environ, TG_INDEX_DIR=a.index_dir)

    def sql(self, query, *flags):
        def go():
            out = run([self.a.tg_sql, "--format", "json", *flags, query], self.env)
            rows = [json.loads(line) for line in out.decode().splitlines()]
            return sorted(rows, key=lambda d: json.dumps(d, sort_keys=True))

        return go

    def served(self, query, *flags):
        """`tg sql` answered by the warm server (`tg sql serve`) on --runtime."""
        env = dict(self.env, XDG_RUNTIME_DIR=self.a.runtime)

        def go():
            out = run([self.a.tg, "sql", "--format", "json", *flags, query], env)
            rows = [json.loads(line) for line in out.decode().splitlines()]
            return sorted(rows, key=lambda d: json.dumps(d, sort_keys=True))

        return go

    def count_c(self, tool, pattern, *paths):
        def go():
            out = run([tool, "-c", "-F", "--no-config", "-H", pattern, *paths], self.env)
            return sum(int(l.rsplit(b":", 1)[1]) for l in out.splitlines() if l)

        return go


def csv_ddl(path):
    # One column: a delimiter and a quote that no line holds.
    return (
        f"CREATE EXTERNAL TABLE t (line VARCHAR) STORED AS CSV LOCATION '{path}' "
        "OPTIONS ('format.delimiter' '\x01', 'format.quote' '\x02', 'format.has_header' 'false')"
    )


def engines(text):
    import datafusion
    import duckdb

    ctx = datafusion.SessionContext()
    ctx.sql(csv_ddl(text)).collect()
    duck = duckdb.connect()
    duck.execute(
        f"CREATE VIEW t AS SELECT line FROM read_csv('{text}', columns={{'line': 'VARCHAR'}}, "
        "delim='\x01', quote='', escape='', header=false, auto_detect=false)"
    )

    def df(q):
        return lambda: sorted(tuple(r.values()) for r in ctx.sql(q).to_pylist())

    def dk(q):
        return lambda: sorted(duck.execute(q).fetchall())

    return df, dk


def rows(answer):
    return sorted(tuple(r.values()) for r in answer)


def report(title, results):
    print(f"\n### {title}\n")
    print("| query | engine | answer | time (median, min-max) |")
    print("| --- | --- | --- | --- |")
    for q, engine, answer, times in results:
        print(f"| {q} | {engine} | {answer} | {fmt(times)} |")


def check(what, answers):
    first = answers[0][1]
    for name, ans in answers[1:]:
        if ans != first:
            sys.exit(f"{what}: {answers[0][0]} says {first!r:.200}, {name} says {ans!r:.200}")


def bench_log(a, t, results):
    packed, text = a.packed, a.log_text
    table = f"lines('{packed}')"
    needle_q = f"SELECT count(*) AS n FROM {table} WHERE line LIKE '%{NEEDLE}%'"
    group_q = (
        f"SELECT substr(line, 1, 6) AS day, count(*) AS n FROM {table} "
        f"WHERE line LIKE '{LOG_GROUP_LIKE}' GROUP BY day ORDER BY day"
    )
    df, dk = engines(text)
    plain_needle = f"SELECT count(*) AS n FROM t WHERE line LIKE '%{NEEDLE}%'"
    plain_group = group_q.replace(table, "t")
    runs = [
        ("needle", "tg-sql", t.sql(needle_q), lambda r: r[0]["n"]),
        ("needle", "tg sql, served", t.served(needle_q), lambda r: r[0]["n"]),
        ("needle", "tg-sql --no-pushdown", t.sql(needle_q, "--no-pushdown"), lambda r: r[0]["n"]),
        ("needle", "DataFusion CSV scan", df(plain_needle), lambda r: r[0][0]),
        ("needle", "DuckDB CSV scan", dk(plain_needle), lambda r: r[0][0]),
        ("needle", "tg -c (packed)", t.count_c(a.tg, NEEDLE, packed), lambda r: r),
        ("needle", "rg -c (text)", t.count_c(a.rg, NEEDLE, text), lambda r: r),
        ("group", "tg-sql", t.sql(group_q), rows),
        ("group", "tg sql, served", t.served(group_q), rows),
        ("group", "tg-sql --no-pushdown", t.sql(group_q, "--no-pushdown"), rows),
        ("group", "DataFusion CSV scan", df(plain_group), lambda r: r),
        ("group", "DuckDB CSV scan", dk(plain_group), lambda r: r),
    ]
    if a.cluster:
        runs += [
            ("needle", "tg-sql, 2 executors", t.sql(needle_q, "--scheduler", a.cluster), lambda r: r[0]["n"]),
            ("group", "tg-sql, 2 executors", t.sql(group_q, "--scheduler", a.cluster), rows),
        ]
    timed_runs(a, runs, results, "log")


def timed_runs(a, runs, results, what):
    answers = {}
    for q, engine, fn, norm in runs:
        # A query of milliseconds gets more runs, for a steady median.
        t = time.perf_counter()
        fn()
        quick = time.perf_counter() - t < 0.5
        answer, times = timed(fn, a.needle_runs if quick else a.runs)
        answers.setdefault(q, []).append((engine, norm(answer)))
        shown = norm(answer) if q == "needle" else f"{len(norm(answer))} groups"
        results.append((f"{what} {q}", engine, shown, times))
    for q, ans in answers.items():
        check(f"{what} {q}", ans)


def bench_tree(a, t, results):
    table = f"lines('{a.tree}')"
    # `_` is LIKE's one-character wildcard: escaped, each is the literal
    # rg -F and tg -c look for.
    needle_q = f"SELECT count(*) AS n FROM {table} WHERE line LIKE '%{like_literal(TREE_NEEDLE)}%'"
    group_q = (
        f"SELECT path, count(*) AS n FROM {table} WHERE line LIKE '{like_literal(TREE_GROUP_LIKE)}' "
        "GROUP BY path ORDER BY path"
    )
    pattern = TREE_GROUP_LIKE.strip("%")

    def rg_groups():
        out = run([a.rg, "-c", "-F", "--no-config", "-H", pattern, a.tree])
        return sorted(
            (l.rsplit(b":", 1)[0].decode(), int(l.rsplit(b":", 1)[1])) for l in out.splitlines() if l
        )

    runs = [
        ("needle", "tg-sql", t.sql(needle_q), lambda r: r[0]["n"]),
        ("needle", "tg sql, served", t.served(needle_q), lambda r: r[0]["n"]),
        ("needle", "tg-sql --no-pushdown", t.sql(needle_q, "--no-pushdown"), lambda r: r[0]["n"]),
        ("needle", "tg -c", t.count_c(a.tg, TREE_NEEDLE, a.tree), lambda r: r),
        ("needle", "rg -c", t.count_c(a.rg, TREE_NEEDLE, a.tree), lambda r: r),
        ("group", "tg-sql", t.sql(group_q), rows),
        ("group", "tg sql, served", t.served(group_q), rows),
        ("group", "tg-sql --no-pushdown", t.sql(group_q, "--no-pushdown"), rows),
        ("group", "rg -c", rg_groups, lambda r: r),
    ]
    if a.cluster:
        runs += [
            ("needle", "tg-sql, 2 executors", t.sql(needle_q, "--scheduler", a.cluster), lambda r: r[0]["n"]),
            ("group", "tg-sql, 2 executors", t.sql(group_q, "--scheduler", a.cluster), rows),
        ]
    timed_runs(a, runs, results, "tree")


def overhead(a, t, results):
    _, embedded = timed(t.sql("SELECT 1 AS one"), a.runs)
    _, remote = timed(t.sql("SELECT 1 AS one", "--scheduler", a.cluster), a.runs)
    results.append(("SELECT 1", "embedded", 1, embedded))
    results.append(("SELECT 1", "scheduler + 2 executors", 1, remote))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tg-sql", required=True)
    p.add_argument("--tg", required=True)
    p.add_argument("--rg", default="/root/.cache/trigrep-ci/rg-15.2.0/bin/rg")
    p.add_argument("--index-dir", required=True, help="TG_INDEX_DIR of the indexes")
    p.add_argument("--packed", help="the packed log (tg pack)")
    p.add_argument("--log-text", help="the log's text")
    p.add_argument("--tree", help="a tree with a tree index")
    p.add_argument("--cluster", help="HOST:PORT of a running scheduler with 2 executors")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--needle-runs", type=int, default=21, help="runs of a query under 0.5 s")
    p.add_argument("--runtime", help="XDG_RUNTIME_DIR of a running `tg sql serve`")
    a = p.parse_args()
    t = Tools(a)
    results = []
    start = os.getloadavg()[0]
    if a.packed:
        bench_log(a, t, results)
    if a.tree:
        bench_tree(a, t, results)
    if a.cluster:
        overhead(a, t, results)
    end = os.getloadavg()[0]
    report(f"tg sql, hot, {a.runs} runs (shared machine, load {start:.1f} to {end:.1f})", results)


if __name__ == "__main__":
    main()
