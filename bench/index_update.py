#!/usr/bin/env python3
"""`tg index` after 2,000 files of the kernel tree changed, old and new.

Makes (once) a copy of the kernel tree per binary (`--base`/old/linux,
`--base`/new/linux; a real copy: renaming over a hard link would change
the shared inode's ctime, and so the corpus other benchmarks index),
then, for each binary: indexes it, rewrites --changes files (every Nth
file in path order gets a line appended; written to a new file renamed
over the old one), and
times the `tg index` that brings the index up to date (wall, user+sys
CPU). Also times a query's freshness pass over the changed tree
(`tg --stats -c`): the floor of finding what changed without a watcher.

    python3 bench/index_update.py --old /tmp/tg-old --new target/release/tg \\
        [--changes 2000] [--runs 3] [--rg RG] [--base ~/.cache/tg-update]
"""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from index_build import build, tree_files  # noqa: E402

CORPUS = os.path.expanduser("~/.cache/trigrep-corpora/linux")


def change(files, n, round_):
    """Appends a line to `n` files spread over `files`, each by rename."""
    step = max(1, len(files) // n)
    for p in files[::step][:n]:
        with open(p, "rb") as f:
            body = f.read()
        tmp = p + ".tg-update"
        with open(tmp, "wb") as f:
            f.write(body + f"changed in round {round_}\n".encode())
        os.rename(tmp, p)


QUERIES = [["-c", "changed in round"], ["-c", "spin_lock_irqsave"], ["-l", "-w", "EXPORT_SYMBOL_GPL"],
           ["-c", "-i", "mutex_lock_nested"]]


def compare(tg, idx, root, rg):
    """Whether the updated index answers QUERIES as rg does (sorted lines)."""
    for q in QUERIES:
        got = subprocess.run([tg, "--index-dir", idx, *q], cwd=root, capture_output=True).stdout
        want = subprocess.run([rg, *q], cwd=root, capture_output=True).stdout
        if sorted(got.splitlines()) != sorted(want.splitlines()):
            return f"DIFFER from rg on {q}"
    return f"equal to rg ({len(QUERIES)} queries)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--changes", type=int, default=2000)
    ap.add_argument("--base", default=os.path.expanduser("~/.cache/tg-update"))
    ap.add_argument("--work", default="/tmp/tg-bench-update")
    ap.add_argument("--runs", type=int, default=3, help="updates timed per binary")
    ap.add_argument("--rg", help="rg to compare each updated index's answers with")
    a = ap.parse_args()
    # A copy of the tree for each binary: each sees only its changes.
    roots, trees = {}, {}
    for label in ("old", "new"):
        roots[label] = os.path.join(a.base, label, "linux")
        if not os.path.isdir(roots[label]):
            os.makedirs(os.path.dirname(roots[label]), exist_ok=True)
            subprocess.run(["cp", "-a", CORPUS, roots[label]], check=True)
        trees[label] = sorted(tree_files(roots[label]))
    with open("/proc/loadavg") as f:
        print(f"load before: {f.read().strip()}")
    rows = []
    builds = {}
    for label, tg in (("old", a.old), ("new", a.new)):
        idx = os.path.join(a.work, label)
        builds[label] = build(tg, roots[label], idx, [])
    # Old and new alternate: each round changes other files for each.
    for run in range(a.runs):
        for label, tg in (("old", a.old), ("new", a.new)):
            idx, root = os.path.join(a.work, label), roots[label]
            change(trees[label][run:], a.changes, f"{label}-{run}")
            start = time.monotonic()
            q = subprocess.run([tg, "--index-dir", idx, "--stats", "-c", "changed in round"],
                               cwd=root, capture_output=True)
            query = time.monotonic() - start
            start = time.monotonic()
            before = os.times()
            subprocess.run([tg, "index", "-q", "--index-dir", idx, root], check=True)
            after = os.times()
            wall = time.monotonic() - start
            cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
            same = compare(tg, idx, root, a.rg) if a.rg else "not compared"
            first = builds[label]
            rows.append((label, first["wall"], first["user"] + first["sys"], wall, cpu, query))
            print(f"  {label} run {run}: after {a.changes} changes: query {query:.2f} s, "
                  f"update {wall:.2f} s wall, {cpu:.2f} s CPU; answers {same}", flush=True)
    with open("/proc/loadavg") as f:
        print(f"load after: {f.read().strip()}")
    print(f"\n| binary | first build wall s | CPU s | query after {a.changes} changes s "
          f"| update wall s | update CPU s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, fw, fc, uw, uc, q in rows:
        print(f"| {label} | {fw:.1f} | {fc:.1f} | {q:.2f} | {uw:.1f} | {uc:.1f} |")


if __name__ == "__main__":
    main()
