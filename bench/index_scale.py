#!/usr/bin/env python3
"""`tg index` memory and time as a tree grows to 500,000 files.

Makes (once) trees of N copies of the kernel and Go trees under different
roots (`tN/cK/linux`, `tN/cK/go`), hard links of the corpora (the index
sees every path as a file of its own; the page cache holds one copy, so the
builds are hot), then indexes each with `--index-memory` (default 256M)
by each binary given (`--tg NAME=PATH`, repeated: old and new alternate on
each tree) and prints files, bytes, wall, user+sys CPU, cores busy, peak
RssAnon (sampled every 10 ms) and the index's size, with the CPU time per
GB to show how the cost grows with the bytes. Six copies are about 520,000
files and 8.6 GB. `--small-memory 64M` builds the largest tree once more
with that budget; `--check RG` runs a few queries on the largest tree
through its index (`--stats` shows the index answered) and with rg, and
requires the same output (lines sorted: both walk in parallel).

    python3 bench/index_scale.py --tg old=/tmp/tg-old --tg new=target/release/tg \\
        --copies 1,2,4,6 [--base ~/.cache/tg-scale] [--index-memory 256M] \\
        [--small-memory 64M] [--check $TG_TEST_RG] [--json out.json]
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from index_build import build, read_all, tree_bytes  # noqa: E402

CORPORA = os.path.expanduser("~/.cache/trigrep-corpora")

# Queries for --check: literal, regex, -w, -i, counts and file lists, over
# both corpora's files.
QUERIES = [
    ["-n", r"EXPORT_SYMBOL_GPL\(usb_"],
    ["-l", "func TestMarshal"],
    ["-c", "-i", "spinlock_t"],
    ["-w", "-n", "ENOSPC"],
    ["-l", r"\bkvm_mmu_[a-z]+_page\b"],
]


def make_tree(base, copies):
    """`base/tN`, N copies of the corpora as hard links; returns its path."""
    root = os.path.join(base, f"t{copies}")
    for c in range(1, copies + 1):
        for corpus in ("linux", "go"):
            dest = os.path.join(root, f"c{c}", corpus)
            if not os.path.isdir(dest):
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                subprocess.run(["cp", "-al", os.path.join(CORPORA, corpus), dest], check=True)
    return root


def run_sorted(cmd, env=None):
    """Runs `cmd`; returns (exit code, sorted stdout lines, stderr, seconds)."""
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, env=env)
    return p.returncode, sorted(p.stdout.splitlines()), p.stderr, time.monotonic() - start


def check(tg, rg, root, index_dir):
    """Each query through the index and with rg: same output; returns failures."""
    failures = 0
    env = {**os.environ, "TG_INDEX_DIR": index_dir}
    for q in QUERIES:
        code, out, _, secs = run_sorted([tg, *q, root], env)
        rcode, rout, _, rsecs = run_sorted([rg, *q, root])
        _, _, stats, _ = run_sorted([tg, "--stats", *q, root], env)
        # The line `--stats` gives an index that answered: its candidates.
        used = [part.strip() for line in stats.decode(errors="replace").splitlines()
                if line.startswith("tg: index:") for part in line.split(";")
                if "candidate documents" in part]
        same = code == rcode and out == rout
        failures += not same
        print(f"  check {' '.join(q)}: {'same' if same else 'DIFFERENT'} ({len(out)} lines; "
              f"tg {secs:.2f} s, rg {rsecs:.2f} s) [{used[0] if used else 'no index used'}]",
              flush=True)
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tg", action="append", required=True, help="NAME=PATH, or PATH")
    ap.add_argument("--copies", default="1,2,4,6")
    ap.add_argument("--base", default=os.path.expanduser("~/.cache/tg-scale"))
    ap.add_argument("--index-memory", default="256M")
    ap.add_argument("--small-memory", help="also build the largest tree with this budget")
    ap.add_argument("--check", metavar="RG", help="compare queries on the largest tree with rg")
    ap.add_argument("--work", default="/tmp/tg-bench-scale")
    ap.add_argument("--json")
    a = ap.parse_args()
    tgs = [t.split("=", 1) if "=" in t else ["tg", t] for t in a.tg]
    with open("/proc/loadavg") as f:
        print(f"load before: {f.read().strip()}")
    read_all(CORPORA)
    copies = [int(x) for x in a.copies.split(",")]
    runs = [(n, a.index_memory) for n in copies]
    if a.small_memory:
        runs.append((max(copies), a.small_memory))
    rows, failures = [], 0
    for n, budget in runs:
        root = make_tree(a.base, n)
        files = sum(len(fs) for _, _, fs in os.walk(root))
        size = tree_bytes(root)
        for label, tg in tgs:
            index_dir = os.path.join(a.work, f"t{n}-{label}")
            r = build(tg, root, index_dir, ["--index-memory", budget, "--stats"])
            r.update(binary=label, copies=n, budget=budget, files=files, tree_bytes=size)
            rows.append(r)
            print(f"  {label} {n} copies, --index-memory {budget}: {files} files, "
                  f"{size / 1e9:.2f} GB: {r['wall']:.1f} s wall, "
                  f"{r['user'] + r['sys']:.1f} s CPU, {r['rss_anon_mib']:.0f} MiB, "
                  f"index {r['index_bytes'] / 1e6:.0f} MB\n{r['stderr']}", flush=True)
            if a.check and n == max(copies) and budget == a.index_memory:
                failures += check(tg, a.check, root, index_dir)
            subprocess.run(["rm", "-rf", index_dir])
    with open("/proc/loadavg") as f:
        print(f"load after: {f.read().strip()}")
    print("\n| binary | copies | files | GB | --index-memory | wall s | user+sys s | CPU s per GB "
          "| cores busy | peak RssAnon MiB | index MB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        cpu = r["user"] + r["sys"]
        gb = r["tree_bytes"] / 1e9
        print(f"| {r['binary']} | {r['copies']} | {r['files']} | {gb:.2f} | {r['budget']} "
              f"| {r['wall']:.1f} | {cpu:.1f} | {cpu / gb:.1f} | {r['cores']:.2f} "
              f"| {r['rss_anon_mib']:.0f} | {r['index_bytes'] / 1e6:.0f} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    if failures:
        raise SystemExit(f"{failures} queries differ from rg")


if __name__ == "__main__":
    main()
