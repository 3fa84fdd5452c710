#!/usr/bin/env python3
"""tg serve: write -> visible latency, private memory at rest and under many
concurrent clients, and per-set latency percentiles from compare.py runs.

    python3 bench/serve.py --tg TG --corpus TREE [--writes 50] [--bursts 5]
                           [--clients 50] [--seconds 30] [--query ARGS]
    python3 bench/serve.py --percentiles RUN.json [RUN.json ...]

The first form needs a server already running for TREE (`tg serve --daemon
TREE`). It writes probe files into TREE (a directory `tg-serve-bench/`,
removed at the end) and checks every answer: a query that misses a write
counts as not visible.
"""
import argparse
import json
import os
import random
import re
import shlex
import shutil
import statistics
import subprocess
import threading
import time


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def server_pid(tg, tree):
    out = subprocess.run([tg, "status"], cwd=tree, capture_output=True, text=True).stdout
    m = re.search(r"server:\s+pid (\d+)", out)
    if not m:
        raise SystemExit(f"no server runs for {tree}: start one with tg serve --daemon {tree}")
    return int(m.group(1))


def rss_anon(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) * 1024
    return 0


def timed(cmd, cwd):
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, capture_output=True)
    return time.perf_counter() - t0, out


def writes(tg, tree, n):
    d = os.path.join(tree, "tg-serve-bench")
    os.makedirs(d, exist_ok=True)
    lat, seen = [], 0
    for i in range(n):
        token = f"tgprobe{i}x{random.randrange(1 << 40):x}"
        with open(os.path.join(d, f"probe{i % 7}.txt"), "w") as f:
            f.write(f"a line\n{token} written\n")
        t, out = timed([tg, "-l", "-F", token], tree)
        lat.append(t)
        seen += b"probe" in out.stdout
    return lat, seen


def bursts(tg, tree, n, files=1000):
    d = os.path.join(tree, "tg-serve-bench", "burst")
    os.makedirs(d, exist_ok=True)
    lat, complete = [], 0
    for r in range(n):
        token = f"tgburst{r}x{random.randrange(1 << 40):x}"
        for i in range(files):
            with open(os.path.join(d, f"f{i:04}.txt"), "w") as f:
                f.write(f"{token} {i}\n")
        t, out = timed([tg, "-c", "-F", token], tree)
        lat.append(t)
        total = sum(int(l.rsplit(b":", 1)[1]) for l in out.stdout.splitlines() if b":" in l)
        complete += total == files
    return lat, complete


def load(tg, tree, pid, clients, seconds, query):
    stop = time.monotonic() + seconds
    lat, peak, errors = [], [0], [0]
    lock = threading.Lock()

    def client():
        while time.monotonic() < stop:
            t, out = timed([tg, *query], tree)
            with lock:
                lat.append(t)
                errors[0] += out.returncode not in (0, 1)

    def sampler():
        while time.monotonic() < stop:
            peak[0] = max(peak[0], rss_anon(pid))
            time.sleep(0.05)

    threads = [threading.Thread(target=client) for _ in range(clients)] + [threading.Thread(target=sampler)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return lat, peak[0], errors[0]


def percentiles(paths):
    for p in paths:
        d = json.load(open(p))
        walls = {"tg": [], "rg": []}
        for row in d["rows"]:
            for tool in walls:
                walls[tool] += [r["wall"] for r in row.get("hot", {}).get("runs", {}).get(tool, [])]
        for tool, w in walls.items():
            if w:
                print(f"{os.path.basename(p)} {tool}: {len(w)} runs, p50 {pct(w, 50) * 1e3:.1f} ms, "
                      f"p99 {pct(w, 99) * 1e3:.1f} ms")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tg")
    ap.add_argument("--corpus")
    ap.add_argument("--writes", type=int, default=50)
    ap.add_argument("--bursts", type=int, default=5)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--query", default="-l -F 'EXPORT_SYMBOL_GPL(kvm_'")
    ap.add_argument("--percentiles", nargs="*")
    a = ap.parse_args()
    if a.percentiles:
        return percentiles(a.percentiles)
    tree = os.path.abspath(a.corpus)
    pid = server_pid(a.tg, tree)
    print(f"server pid {pid}: private memory at rest {rss_anon(pid) / 2**20:.1f} MiB")
    try:
        lat, seen = writes(a.tg, tree, a.writes)
        print(f"single writes: {seen}/{len(lat)} visible to the next query; query after a write "
              f"p50 {pct(lat, 50) * 1e3:.1f} ms, p99 {pct(lat, 99) * 1e3:.1f} ms")
        lat, complete = bursts(a.tg, tree, a.bursts)
        print(f"1,000-file bursts: {complete}/{len(lat)} complete in the next query; that query "
              f"p50 {pct(lat, 50) * 1e3:.1f} ms, p99 {pct(lat, 99) * 1e3:.1f} ms")
    finally:
        shutil.rmtree(os.path.join(tree, "tg-serve-bench"), ignore_errors=True)
    lat, peak, errors = load(a.tg, tree, pid, a.clients, a.seconds, shlex.split(a.query))
    print(f"{a.clients} concurrent clients for {a.seconds:.0f} s: {len(lat)} queries, {errors} errors, "
          f"p50 {pct(lat, 50) * 1e3:.1f} ms, p99 {pct(lat, 99) * 1e3:.1f} ms; "
          f"server private memory peak {peak / 2**20:.1f} MiB (at rest now {rss_anon(pid) / 2**20:.1f} MiB)")
    print(f"mean query {statistics.mean(lat) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
