#!/usr/bin/env python3
"""`tg view` against lnav (Debian's, headless) on lnav's viewing tasks.

Each task runs as one process per tool, from start to exit, on the same
log in the same run, alternating tools; the median of `--runs` runs is
reported, with the peak private memory (RssAnon sampled from
/proc/PID/status every 10 ms) and the process's CPU time (user+sys).

  goto      open and go to a line near the end (90 % of the lines)
  search    open and search for a string that first occurs near the end
  time      open and go to the first line at or after a time near the end
  level     open and go to the first error line
  filter    open and show only the lines holding a string found near the end
  histogram open, search for that string and show the lines per time bucket
  merge     open three files (--merge) as one timeline: the first screen

lnav: `lnav -n -c CMD LOG` (`:goto N`, `/STRING`, `:goto TIME`,
`:next-mark error`, `:filter-in STRING`, `/STRING` then
`:switch-to-view histogram`, `:goto 0` on the three files); lnav
indexes the whole file before any command.
tg: `tg view --replay KEYS LOG` (`NG`, `/STRING`, `@TIME`, `e`,
`&STRING`, `/STRING` then `H`, nothing on the three files), the log
given a block index first (`tg index LOG`, untimed; say so), screens
drawn on an in-memory terminal; the status line is checked to show the
line asked for.

    python3 bench/view_lnav.py --tg target/release/tg \\
        --log ~/.cache/trigrep-corpora/logs/big1G.log --runs 3
"""

import argparse
import os
import statistics
import subprocess
import threading
import time

from rssanon import rss_anon_kib


def run(argv, env=None, timeout=900, keep=1 << 20):
    """Runs argv: (wall s, cpu s, peak RssAnon KiB, the last `keep` bytes
    of its stdout: lnav -n prints the view from the mark to the end, GBs
    on the 8 GiB log)."""
    start = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL, env=env)
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_anon_kib(p.pid))
            time.sleep(0.01)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    out = b""
    while chunk := p.stdout.read(1 << 20):
        out = (out + chunk)[-keep:]
    p.wait(timeout=timeout)
    wall = time.monotonic() - start
    done.set()
    t.join()
    ru = resource_children()
    return wall, ru, peak[0], out.decode(errors="replace")


_last = [0.0]


def resource_children():
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = r.ru_utime + r.ru_stime
    cpu = total - _last[0]
    _last[0] = total
    return cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tg", required=True)
    ap.add_argument("--lnav", default="lnav")
    ap.add_argument("--log", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tasks", default="goto,search,time,level")
    ap.add_argument("--tools", default="lnav,tg", help="lnav, tg or both")
    ap.add_argument("--lines", type=int, help="lines in the log (else counted)")
    ap.add_argument("--needle", help="a string first found near the end")
    ap.add_argument("--at", help="a time near the end, as YYYY-MM-DD HH:MM:SS")
    ap.add_argument("--merge", nargs=3, metavar="FILE",
                    help="three files to merge by time (each given its index first)")
    args = ap.parse_args()
    log = args.log
    lines = args.lines or int(subprocess.check_output(["wc", "-l", log]).split()[0])
    line = lines * 9 // 10
    env = dict(os.environ)
    tools = args.tools.split(",")
    resource_children()
    if "tg" in tools:
        subprocess.run([args.tg, "index", "-q", log], check=True, env=env)
        for f in args.merge or []:
            if not f.endswith(".zst"):
                subprocess.run([args.tg, "index", "-q", f], check=True, env=env)
    resource_children()
    tasks = {
        "goto": ([f":goto {line}"], f"{line}G", f"lines {line}-"),
        "search": ([f"/{args.needle}"], f"/{args.needle}\n", args.needle),
        "time": ([f":goto {args.at}"], f"@{args.at}\n", "@" + (args.at or "")),
        "level": ([":next-mark error"], "e", "lines "),
        "filter": ([f":filter-in {args.needle}"], f"&{args.needle}\n", f"&{args.needle}"),
        "histogram": ([f"/{args.needle}", ":switch-to-view histogram"], f"/{args.needle}\nH",
                      f"histogram of /{args.needle}"),
        "merge": ([":goto 0"], "", "(merged by time)"),
    }
    print("| task | tool | wall s (median) | cpu s (median) | peak RssAnon MiB (max) | runs |")
    print("|---|---|---:|---:|---:|---:|")
    for name in args.tasks.split(","):
        lnav_cmds, keys, expect = tasks[name]
        files = args.merge if name == "merge" else [log]
        results = {"lnav": [], "tg": []}
        for _ in range(args.runs):
            argv = [args.lnav, "-n"]
            for c in lnav_cmds:
                argv += ["-c", c]
            if "lnav" in tools:
                results["lnav"].append(run(argv + files, env))
            if "tg" not in tools:
                continue
            r = run([args.tg, "view", "--size", "300x40", "--replay", keys] + files, env)
            status = [l for l in r[3].splitlines() if l.strip()][-1:]
            if not status or expect not in status[-1]:
                raise SystemExit(f"tg {name}: the status line does not show {expect!r}: {status}")
            results["tg"].append(r)
        for tool in tools:
            rs = results[tool]
            wall = statistics.median(r[0] for r in rs)
            cpu = statistics.median(r[1] for r in rs)
            peak = max(r[2] for r in rs) / 1024
            print(f"| {name} | {tool} | {wall:.3f} | {cpu:.3f} | {peak:.1f} | {len(rs)} |", flush=True)


if __name__ == "__main__":
    main()
