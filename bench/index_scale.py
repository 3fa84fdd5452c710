#!/usr/bin/env python3
"""`tg index` memory and time as a tree grows to 500,000 files.

Makes (once) trees of N copies of the kernel and Go trees under different
roots (`tN/cK/linux`, `tN/cK/go`), hard links of the corpora (the index
sees every path as a file of its own; the page cache holds one copy, so the
builds are hot), then indexes each with `--index-memory` (default 256M) and
prints files, bytes, wall, user+sys CPU, cores busy, peak RssAnon (sampled
every 10 ms) and the index's size, with the CPU time per GB to show how the
cost grows with the bytes. Six copies are 520,530 files and 8.6 GB.

    python3 bench/index_scale.py --tg target/release/tg --copies 1,2,4,6 \\
        [--base ~/.cache/tg-scale] [--index-memory 256M] [--json out.json]
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from index_build import build, read_all, tree_bytes  # noqa: E402

CORPORA = os.path.expanduser("~/.cache/trigrep-corpora")


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tg", required=True)
    ap.add_argument("--copies", default="1,2,4,6")
    ap.add_argument("--base", default=os.path.expanduser("~/.cache/tg-scale"))
    ap.add_argument("--index-memory", default="256M")
    ap.add_argument("--work", default="/tmp/tg-bench-scale")
    ap.add_argument("--json")
    a = ap.parse_args()
    with open("/proc/loadavg") as f:
        print(f"load before: {f.read().strip()}")
    read_all(CORPORA)
    rows = []
    for n in (int(x) for x in a.copies.split(",")):
        root = make_tree(a.base, n)
        files = sum(len(fs) for _, _, fs in os.walk(root))
        size = tree_bytes(root)
        r = build(a.tg, root, os.path.join(a.work, f"t{n}"),
                  ["--index-memory", a.index_memory, "--stats"])
        r.update(copies=n, files=files, tree_bytes=size)
        rows.append(r)
        print(f"  {n} copies: {files} files, {size / 1e9:.2f} GB: {r['wall']:.1f} s wall, "
              f"{r['user'] + r['sys']:.1f} s CPU, {r['rss_anon_mib']:.0f} MiB, "
              f"index {r['index_bytes'] / 1e6:.0f} MB\n{r['stderr']}", flush=True)
        subprocess.run(["rm", "-rf", os.path.join(a.work, f"t{n}")])
    with open("/proc/loadavg") as f:
        print(f"load after: {f.read().strip()}")
    print(f"\n| copies | files | GB | wall s | user+sys s | CPU s per GB | cores busy "
          f"| peak RssAnon MiB (budget {a.index_memory}) | index MB |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        cpu = r["user"] + r["sys"]
        gb = r["tree_bytes"] / 1e9
        print(f"| {r['copies']} | {r['files']} | {gb:.2f} | {r['wall']:.1f} | {cpu:.1f} "
              f"| {cpu / gb:.1f} | {r['cores']:.2f} | {r['rss_anon_mib']:.0f} "
              f"| {r['index_bytes'] / 1e6:.0f} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
