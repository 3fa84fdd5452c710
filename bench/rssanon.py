#!/usr/bin/env python3
"""Peak private memory (RssAnon) of a command and of its child processes.

Samples /proc/PID/status of the command (and of every descendant, summed:
`rg -z` runs `gzip -d` as a child) every --interval seconds while it runs,
its stdout drained into a pipe, and prints the peak RssAnon in MiB and the
wall time. Linux only; stdlib only.

    python3 bench/rssanon.py --runs 3 -- tg -z -F XYZZY big1G.log.gz
"""

import argparse
import os
import subprocess
import threading
import time


def rss_anon_kib(pid):
    """RssAnon of `pid` in KiB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def descendants(pid):
    """`pid` and every process below it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return out


def measure(cmd, interval):
    """Runs `cmd` once; returns (peak RssAnon MiB, wall seconds)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    drain = threading.Thread(target=lambda: [None for _ in iter(lambda: proc.stdout.read(1 << 20), b"")])
    drain.start()
    peak = 0
    while proc.poll() is None:
        peak = max(peak, sum(rss_anon_kib(p) for p in descendants(proc.pid)))
        time.sleep(interval)
    drain.join()
    return peak / 1024, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--interval", type=float, default=0.005)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    results = sorted(measure(cmd, a.interval) for _ in range(a.runs))
    peaks = [r[0] for r in results]
    walls = sorted(r[1] for r in results)
    print(f"RssAnon peak MiB: median {peaks[len(peaks) // 2]:.1f} (min {peaks[0]:.1f}, max "
          f"{peaks[-1]:.1f}); wall s: median {walls[len(walls) // 2]:.3f}  {' '.join(cmd)}")


if __name__ == "__main__":
    os.environ.setdefault("LC_ALL", "C")
    main()
