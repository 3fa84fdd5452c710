#!/usr/bin/env python3
"""`tg sql` against lnav's SQL (Debian's lnav, headless) on lnav's
"count distinct hosts" task: how many hosts wrote a syslog log.

Both tools run as one process each, from start to exit, on the same log
in the same run, alternating; their answers are compared first. The
median of `--runs` runs is reported with the CPU time (user+sys) and the
peak private memory (RssAnon sampled every 10 ms), as bench/view_lnav.py
does.

lnav: `lnav -n -c ';SELECT count(DISTINCT log_hostname) FROM syslog_log' LOG`.
tg: `tg-sql "SELECT count(DISTINCT host) FROM lines(LOG)"` (the `host`
column, lnav's `log_hostname`), and the same through a regex,
`count(DISTINCT regexp_match(line, HOST)[1])`, HOST the syslog header's
host field.

    python3 bench/sql_lnav.py --tg-sql target/release/tg-sql \\
        --log ~/.cache/trigrep-corpora/logs/big1G.log --runs 3
"""

import argparse
import re
import statistics

from view_lnav import run

HOST = r"^[A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} (\S+) "


def answer(out):
    """The first number in a tool's output (its one-cell table)."""
    m = re.search(r"\b(\d+)\b", out)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tg-sql", required=True)
    ap.add_argument("--lnav", default="lnav")
    ap.add_argument("--log", required=True)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    tools = {
        "lnav": [a.lnav, "-n", "-c",
                 ";SELECT count(DISTINCT log_hostname) AS hosts FROM syslog_log", a.log],
        "tg sql": [a.tg_sql, f"SELECT count(DISTINCT host) AS hosts FROM lines('{a.log}')"],
        "tg sql, regexp_match": [
            a.tg_sql, f"SELECT count(DISTINCT regexp_match(line, '{HOST}')[1]) AS hosts "
                      f"FROM lines('{a.log}')"],
    }
    got = {name: [] for name in tools}
    answers = {}
    for _ in range(a.runs):
        for name, argv in tools.items():
            wall, cpu, peak, out = run(argv)
            got[name].append((wall, cpu, peak))
            answers.setdefault(name, answer(out))
    print(f"answers: {answers}")
    if len(set(answers.values())) != 1:
        raise SystemExit("the tools disagree")
    print("\n| tool | wall s (median) | cpu s (median) | peak RssAnon MiB (max) | runs |")
    print("|---|---:|---:|---:|---:|")
    for name, rows in got.items():
        wall = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[1] for r in rows)
        peak = max(r[2] for r in rows) / 1024
        print(f"| {name} | {wall:.3f} | {cpu:.3f} | {peak:.1f} | {len(rows)} |")


if __name__ == "__main__":
    main()
