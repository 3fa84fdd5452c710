#!/usr/bin/env python3
"""The floor of an indexed query set: what reading only the files that hold
a match costs, per query, against what tg (through its index or server) and
rg (the whole tree) took.

For each query of a query file (compare.py's format), lists the files rg
finds a match in (`rg -l`), then times rg and tg searching exactly those
files, given on the command line (no walk, no index: `--no-index
--no-server`). The faster of the two is the query's floor: a perfect index
(candidate precision 1.0, zero lookup cost) still starts a process, opens
and reads every file with a match, searches and prints it. The sum of the
floors over the set bounds the set's best total; rg's total over it bounds
the best ratio any index reaches on this machine.

    python3 bench/floor.py --tg T --rg RG --cwd TREE --queries Q.txt \\
        [--compare RESULT.json] [--runs 3] [--out floor.json]

`--compare` takes a compare.py result of the same query set and prints its
tg and rg medians beside the floor. Linux only; stdlib only.
"""

import argparse
import json
import shlex
import statistics
import subprocess
import time


def load_queries(path):
    """(name, args) pairs of a compare.py query file."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            name, args = line.split("\t", 1)
            out.append((name, shlex.split(args)))
    return out


def timed(cmd, cwd, runs):
    """Median wall seconds of `runs` runs of `cmd` (stdout discarded), after a warm-up."""
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def medians(result_path):
    """{query: (tg median, rg median)} of a compare.py result's hot runs."""
    with open(result_path) as f:
        d = json.load(f)
    out = {}
    for row in d.get("rows", []):
        runs = row.get("hot", {}).get("runs", {})
        if "tg" in runs and "rg" in runs:
            out[row["name"]] = tuple(statistics.median(r["wall"] for r in runs[t])
                                     for t in ("tg", "rg"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tg", required=True)
    ap.add_argument("--rg", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--compare")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args()
    seen = medians(a.compare) if a.compare else {}
    rows = []
    for name, args in load_queries(a.queries):
        listed = subprocess.run([a.rg, "-l", *args], cwd=a.cwd, capture_output=True)
        files = sorted(listed.stdout.decode("utf-8", "surrogateescape").splitlines())
        if not files:
            # Nothing to read: the floor is a process answering nothing.
            files = ["/dev/null"]
        plain = ["--no-index", "--no-server"]
        tg = timed([a.tg, *plain, *args, "--", *files], a.cwd, a.runs)
        rg = timed([a.rg, *args, "--", *files], a.cwd, a.runs)
        row = {"name": name, "files": len(files), "floor_tg": tg, "floor_rg": rg,
               "floor": min(tg, rg)}
        if name in seen:
            row["tg"], row["rg"] = seen[name]
        rows.append(row)
        print(f"{name:32} {len(files):6} files  floor tg {tg:.4f} rg {rg:.4f}"
              + (f"  | tg {row['tg']:.4f} rg {row['rg']:.4f}" if "tg" in row else ""),
              flush=True)
    floor = sum(r["floor"] for r in rows)
    print(f"sum of floors {floor:.3f} s over {len(rows)} queries")
    if all("rg" in r for r in rows) and rows:
        rg_total = sum(r["rg"] for r in rows)
        tg_total = sum(r["tg"] for r in rows)
        print(f"rg total {rg_total:.3f} s, tg total {tg_total:.3f} s ({rg_total / tg_total:.2f}x); "
              f"best possible at the floor {rg_total / floor:.2f}x")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"queries": a.queries, "cwd": a.cwd, "runs": a.runs, "rows": rows}, f,
                      indent=1)


if __name__ == "__main__":
    main()
