#!/usr/bin/env python3
"""`tg index` after 2,000 files of the kernel tree changed, old and new.

Makes (once) a copy of the kernel tree as hard links (`--base`/linux),
then, for each binary: indexes it, rewrites --changes files (every Nth
file in path order gets a line appended; written to a new file renamed
over the old one, so the corpus the links share is never changed), and
times the `tg index` that brings the index up to date (wall, user+sys
CPU). Also times a query's freshness pass over the changed tree
(`tg --stats -c`): the floor of finding what changed without a watcher.

    python3 bench/index_update.py --old /tmp/tg-old --new target/release/tg \\
        [--changes 2000] [--base ~/.cache/tg-update]
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--changes", type=int, default=2000)
    ap.add_argument("--base", default=os.path.expanduser("~/.cache/tg-update"))
    ap.add_argument("--work", default="/tmp/tg-bench-update")
    a = ap.parse_args()
    root = os.path.join(a.base, "linux")
    if not os.path.isdir(root):
        os.makedirs(a.base, exist_ok=True)
        subprocess.run(["cp", "-al", CORPUS, root], check=True)
    files = sorted(tree_files(root))
    with open("/proc/loadavg") as f:
        print(f"load before: {f.read().strip()}")
    rows = []
    for round_, (label, tg) in enumerate((("old", a.old), ("new", a.new))):
        idx = os.path.join(a.work, label)
        first = build(tg, root, idx, [])
        change(files, a.changes, round_)
        start = time.monotonic()
        q = subprocess.run([tg, "--index-dir", idx, "--stats", "-c", "changed in round"],
                           cwd=root, capture_output=True)
        query = time.monotonic() - start
        # Not `build`: it starts from an empty index directory.
        start = time.monotonic()
        before = os.times()
        subprocess.run([tg, "index", "-q", "--index-dir", idx, root], check=True)
        after = os.times()
        wall = time.monotonic() - start
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        line = [ln for ln in q.stderr.decode(errors="replace").splitlines() if "changed since" in ln]
        rows.append((label, first["wall"], first["user"] + first["sys"], wall, cpu, query))
        print(f"  {label}: first build {first['wall']:.1f} s; after {a.changes} changes: "
              f"query {query:.2f} s ({line[0][-160:] if line else 'no index line'}), "
              f"update {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
    with open("/proc/loadavg") as f:
        print(f"load after: {f.read().strip()}")
    print(f"\n| binary | first build wall s | CPU s | query after {a.changes} changes s "
          f"| update wall s | update CPU s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, fw, fc, uw, uc, q in rows:
        print(f"| {label} | {fw:.1f} | {fc:.1f} | {q:.2f} | {uw:.1f} | {uc:.1f} |")


if __name__ == "__main__":
    main()
