#!/usr/bin/env python3
"""`tg index` of whole trees, two binaries side by side in one run.

For each tree and each binary (OLD and NEW alternate, run by run), builds
the tree's index into a fresh index directory and prints wall time, user
and system CPU time (the child's rusage), the cores kept busy on average
(CPU time over wall), peak private memory (RssAnon of the process,
sampled; bench/rssanon.py) and the index's size as a share of the tree's
bytes (regular files outside `.git`, apparent size). Medians of --runs.
Hot by default (the tree is read once before timing); with --cold the page
cache is dropped before every build (root), and the drop verified by
timing a re-read of the tree's first 256 MiB; each cold round also times
reading every file of the tree after a drop, 16 at once (the disk's
floor the issue compares a cold build with), and the summary gives each
build over its own round's read too (the disk's speed drifts).

    python3 bench/index_build.py --old /tmp/tg-old --new target/release/tg \\
        --tree linux=$HOME/.cache/trigrep-corpora/linux --runs 3 [--cold] \\
        [--arg=--index-memory --arg=256M] [--json out.json]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from rssanon import rss_anon_kib  # noqa: E402


def tree_files(root):
    """Regular files of `root` outside `.git`, as paths."""
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != ".git"]
        for f in files:
            p = os.path.join(d, f)
            if os.path.isfile(p) and not os.path.islink(p):
                yield p


def tree_bytes(root):
    return sum(os.path.getsize(p) for p in tree_files(root))


def read_all(root, limit=None):
    """Reads the tree's files (until `limit` bytes); returns (bytes, seconds)."""
    start, n = time.monotonic(), 0
    for p in tree_files(root):
        with open(p, "rb") as f:
            while chunk := f.read(1 << 20):
                n += len(chunk)
        if limit and n >= limit:
            break
    return n, time.monotonic() - start


def read_parallel(root, readers=16):
    """Reads every file of the tree outside `.git` with `readers` `cat`s
    at once (`find | xargs -P`: the disk's best with many requests in
    flight); returns (bytes, seconds)."""
    start = time.monotonic()
    find = subprocess.Popen(["find", root, "-path", "*/.git", "-prune", "-o", "-type", "f",
                             "-print0"], stdout=subprocess.PIPE)
    subprocess.run(["xargs", "-0", f"-P{readers}", "-n", "64", "cat"], stdin=find.stdout,
                   stdout=subprocess.DEVNULL, check=True)
    find.wait()
    return tree_bytes(root), time.monotonic() - start


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def dir_bytes(d):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)


def build(tg, root, index_dir, extra, interval=0.01):
    """One `tg index`; returns a dict of its figures."""
    shutil.rmtree(index_dir, ignore_errors=True)
    os.makedirs(index_dir)
    cmd = [tg, "index", "--index-dir", index_dir, *extra, root]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = []
    drain = threading.Thread(target=lambda: err.append(proc.stderr.read()))
    drain.start()
    peak = 0
    rusage = None
    while True:
        peak = max(peak, rss_anon_kib(proc.pid))
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            rusage = ru
            break
        time.sleep(interval)
    wall = time.monotonic() - start
    drain.join()
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {err[0].decode(errors='replace')}")
    cpu = rusage.ru_utime + rusage.ru_stime
    return {
        "wall": wall,
        "user": rusage.ru_utime,
        "sys": rusage.ru_stime,
        "cores": cpu / wall,
        "rss_anon_mib": peak / 1024,
        "index_bytes": dir_bytes(index_dir),
        "stderr": err[0].decode(errors="replace"),
    }


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--tree", action="append", required=True, help="NAME=DIR")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--arg", action="append", default=[], help="extra tg index argument")
    ap.add_argument("--new-arg", action="append", default=[], help="extra argument, NEW only")
    ap.add_argument("--work", default="/tmp/tg-bench-index")
    ap.add_argument("--json")
    a = ap.parse_args()
    rows = []
    with open("/proc/loadavg") as f:
        print(f"load before: {f.read().strip()}")
    for spec in a.tree:
        name, root = spec.split("=", 1)
        size = tree_bytes(root)
        if not a.cold:
            read_all(root)
        for run in range(a.runs):
            for label, tg in (("old", a.old), ("new", a.new)):
                if a.cold and label == "old":
                    drop_caches()
                    n, secs = read_parallel(root)
                    rows.append({"tree": name, "binary": "read", "wall": secs})
                    print(f"  {name}: every file read cold, 16 at once: {secs:.2f} s "
                          f"({n / secs / 2**20:.0f} MiB/s)", flush=True)
                if a.cold:
                    drop_caches()
                    n, secs = read_all(root, 256 << 20)
                    drop_caches()
                    print(f"  cold check: re-read {n / 2**20:.0f} MiB at {n / secs / 2**20:.0f} MiB/s")
                extra = a.arg + (a.new_arg if label == "new" else [])
                r = build(tg, root, os.path.join(a.work, f"{name}-{label}"), extra)
                r.update(tree=name, binary=label, run=run, tree_bytes=size)
                rows.append(r)
                print(f"  {name} {label} run {run}: {r['wall']:.2f} s wall, "
                      f"{r['user']:.2f}+{r['sys']:.2f} s CPU, {r['cores']:.2f} cores, "
                      f"{r['rss_anon_mib']:.0f} MiB, index {r['index_bytes'] / size:.1%}", flush=True)
    with open("/proc/loadavg") as f:
        print(f"load after: {f.read().strip()}")
    mode = "cold" if a.cold else "hot"
    print(f"\n| tree | binary | {mode} wall s | user+sys s | cores busy | peak RssAnon MiB "
          f"| index MB | index / tree |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for spec in a.tree:
        name = spec.split("=", 1)[0]
        for label in ("old", "new"):
            rs = [r for r in rows if r["tree"] == name and r["binary"] == label]
            size = rs[0]["tree_bytes"]
            print(f"| {name} ({size / 1e9:.2f} GB) | {label} | {median(r['wall'] for r in rs):.2f} "
                  f"| {median(r['user'] + r['sys'] for r in rs):.2f} "
                  f"| {median(r['cores'] for r in rs):.2f} "
                  f"| {median(r['rss_anon_mib'] for r in rs):.0f} "
                  f"| {median(r['index_bytes'] for r in rs) / 1e6:.0f} "
                  f"| {median(r['index_bytes'] for r in rs) / size:.1%} |")
        reads = [r["wall"] for r in rows if r["tree"] == name and r["binary"] == "read"]
        if reads:
            print(f"| {name} | every file read, 16 at once | {median(reads):.2f} | | | | | |")
            # The disk's speed drifts between rounds: each build over the
            # read of its own round, just before it.
            for label in ("old", "new"):
                rs = [r for r in rows if r["tree"] == name and r["binary"] == label]
                ratios = [r["wall"] / reads[r["run"]] for r in rs]
                print(f"| {name} | {label}, each build over its round's read | "
                      f"{median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) | | | | | |")
    last = [r for r in rows if r["binary"] == "new"]
    if last and "time:" in last[-1]["stderr"]:
        print("\nnew, last run's --stats:\n" + last[-1]["stderr"].strip())
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
