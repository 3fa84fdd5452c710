#!/usr/bin/env python3
"""`tg view`'s search, filter and histogram (`H`) on one log, two tg
binaries side by side (main's and a branch's), alternating, median of
`--runs`; each task one `tg view --replay KEYS LOG` process measured as
bench/view_lnav.py measures it (wall, user+sys CPU, peak RssAnon). The
log's block index must exist (`tg index LOG`, untimed, not run here).

    python3 bench/view_histogram.py --old OLD_TG --new NEW_TG \\
        --log ~/.cache/trigrep-corpora/logs/big8G.log --runs 3
"""

import argparse
import os
import statistics

from view_lnav import resource_children, run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--needles", default="303450.344237,XYZZY-NEEDLE-4242")
    args = ap.parse_args()
    bins = {"main": args.old, "new": args.new}
    needles = args.needles.split(",")
    tasks = []
    for n in needles:
        tasks += [(f"search {n}", f"/{n}\n", n), (f"filter {n}", f"&{n}\n", f"&{n}"),
                  (f"histogram {n}", f"/{n}\nH", f"histogram of /{n}")]
    # A backward search from the end reads little: `H` then reads every candidate.
    n = needles[0]
    tasks.append((f"G ?back then H {n}", f"G?{n}\nH", f"histogram of /{n}"))
    resource_children()
    print("| task | tg | wall s (median) | cpu s (median) | peak RssAnon MiB | runs |")
    print("|---|---|---:|---:|---:|---:|")
    for name, keys, expect in tasks:
        res = {b: [] for b in bins}
        for _ in range(args.runs):
            for b, path in bins.items():
                r = run([path, "view", "--size", "300x40", "--replay", keys, args.log],
                        dict(os.environ))
                status = [line for line in r[3].splitlines() if line.strip()][-1:]
                if not status or expect not in status[-1]:
                    raise SystemExit(f"{b} {name}: the status line does not show {expect!r}")
                res[b].append(r)
        for b, rs in res.items():
            wall = statistics.median(r[0] for r in rs)
            cpu = statistics.median(r[1] for r in rs)
            peak = max(r[2] for r in rs) / 1024
            print(f"| {name} | {b} | {wall:.3f} | {cpu:.3f} | {peak:.1f} | {len(rs)} |", flush=True)


if __name__ == "__main__":
    main()
