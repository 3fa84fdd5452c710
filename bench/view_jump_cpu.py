#!/usr/bin/env python3
"""A line number typed at once (`69426744G`) in `tg view`, two binaries
alternated, in tmux: the round trip, and the viewer's UI thread's time on
a CPU and waiting for one during it (/proc schedstat). Made to show what
drawing once per batch of typed keys saves (BENCHMARKS.md, session 13).

    python3 bench/view_jump_cpu.py OLD_TG NEW_TG RUNS [LOG] [INDEX_DIR]
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import view  # noqa: E402


def main():
    old, new, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    log = sys.argv[4] if len(sys.argv) > 4 else os.path.expanduser("~/.cache/trigrep-corpora/logs/big8G.log")
    index = sys.argv[5] if len(sys.argv) > 5 else "/tmp/tg-view-bench-index"
    env = dict(os.environ, TG_AUTO_INDEX="0", NO_COLOR="1", TG_INDEX_DIR=index)
    res = {}
    for _ in range(runs):
        for name, tg in (("old", old), ("new", new)):
            t = view.Tmux({k: v for k, v in env.items() if os.environ.get(k) != v})
            try:
                t.send(f"{tg} view {log}", enter=True)
                t.wait("lines 1-39", 30)
                pid = t.foreground_pid()
                time.sleep(0.3)
                ui0 = view.schedstat(pid)
                rt = t.timed("69426744G", "lines 69426744-", 30)
                time.sleep(0.2)
                ui1 = view.schedstat(pid)
                res.setdefault(name, []).append((rt * 1000, ui1[0] - ui0[0], ui1[1] - ui0[1]))
                t.send("q")
            finally:
                t.close()
    for name, xs in res.items():
        for i, what in enumerate(("round trip", "UI on a CPU", "UI waiting")):
            v = [x[i] for x in xs]
            print(f"{name} {what}: median {statistics.median(v):.1f} ({min(v):.1f}–{max(v):.1f}) ms")


if __name__ == "__main__":
    main()
