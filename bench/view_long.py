#!/usr/bin/env python3
"""`tg view` moves over a line of a gigabyte in the middle of a file.

Each case runs `tg view --replay KEYS FILE` (src/view/replay.rs) and
takes the timed key's line: the time from the key to its screen drawn,
and (binaries that print it) the time until the UI thread was free for
the next key (the first screen drawn while a job still runs). A binary
that reads the line on its UI thread has one figure: both are the same.

  percent   `50%` lands in the long line: its start is found
  k         `k` from the line after the long one: back over it
  G         `G`: the last screen holds the long line
  right     `Right` on the long line while its end is looked for
            (binaries with `{right}` in --replay only)

Every case first waits for the line count (`{count}`), so the count does
not run during the timed key. Hot: the file is read once before.

    python3 bench/view_long.py --tg BEFORE --tg AFTER --runs 7 [--file F]

Without --file, /tmp/tg-view-long/mid1g.log is written: 100 short lines,
one line of 1 GiB, 30 short lines (the last screen holds the long line).
"""

import argparse
import os
import statistics
import subprocess

BEFORE, AFTER = 100, 30


def write_file(path, size):
    unit = b"abcdefghijklmnopqrstuvwxyz0123456789"
    chunk = unit * (1 << 15)
    with open(path, "wb") as f:
        for i in range(1, BEFORE + 1):
            f.write(b"before %d\n" % i)
        left = size
        while left > 0:
            n = min(left, len(chunk))
            f.write(chunk[:n])
            left -= n
        f.write(b"\n")
        for i in range(1, AFTER + 1):
            f.write(b"after %d\n" % i)


CASES = [
    ("percent", "{count}50%", "%"),
    ("k", "{count}%dGk" % (BEFORE + 2), "k"),
    ("G", "{count}G", "G"),
    ("right", "{count}%dG{right}" % (BEFORE + 1), "{right}"),
]


def replay(tg, keys, path, env):
    out = subprocess.run([tg, "view", "--replay", keys, path], env=env, capture_output=True,
                         text=True, timeout=600)
    if out.returncode != 0:
        return None
    steps = [line.split("\t") for line in out.stdout.splitlines() if line.count("\t") >= 2]
    return steps


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tg", action="append", required=True, help="a tg binary (repeat to compare)")
    ap.add_argument("--file", help="a file with a long line in the middle (default: written)")
    ap.add_argument("--size", type=int, default=1 << 30, help="the long line's length")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    path = args.file
    if not path:
        os.makedirs("/tmp/tg-view-long/idx", exist_ok=True)
        path = "/tmp/tg-view-long/mid1g.log"
        if not os.path.exists(path) or os.path.getsize(path) < args.size:
            write_file(path, args.size)
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
    env = dict(os.environ, TG_INDEX_DIR="/tmp/tg-view-long/idx", TG_AUTO_INDEX="0")
    print(f"load: {os.getloadavg()}")
    print("| case | binary | to the screen, ms (median, min-max) | UI thread busy, ms (median, min-max) |")
    print("|---|---|---|---|")
    for name, keys, label in CASES:
        for tg in args.tg:
            total, ui = [], []
            for _ in range(args.runs):
                steps = replay(tg, keys, path, env)
                step = next((s for s in reversed(steps or []) if s[0] == label), None)
                if step is None:
                    break
                total.append(float(step[1]))
                ui.append(float(step[3]) if len(step) > 3 else float(step[1]))
            if not total:
                print(f"| {name} | {tg} | (not supported) | |")
                continue
            fmt = lambda v: f"{statistics.median(v):.1f} ({min(v):.1f}-{max(v):.1f})"
            print(f"| {name} | {tg} | {fmt(total)} | {fmt(ui)} |")
    print(f"load: {os.getloadavg()}")


if __name__ == "__main__":
    main()
