#!/usr/bin/env python3
"""From which size a log's block index pays back its build: the 1 GiB log
cut (at line ends) to 16 MiB .. 1 GiB, each indexed (`tg index FILE`) and
queried with and without its index, hot and cold.

    python3 bench/auto_index_threshold.py --tg target/release/tg [--log LOG]

Per size: the build's wall time and CPU (user+system of the process), a
selective query's wall time and CPU without the index (a scan on both
cores) and through it, hot (file and index in the page cache) and cold
(the file's and the index's pages dropped with POSIX_FADV_DONTNEED, this
file only: the rest of the machine keeps its cache). Payback: build CPU
over the CPU a query saves (hot), build wall over the wall a query saves
(cold). CPU times are what load distorts least; a shared machine's wall
times are noisy, so each is the median of several runs.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time

SIZES = [16 << 20, 64 << 20, 256 << 20, 1 << 30]
QUERIES = [["-F", "XYZZY-NEEDLE-4242"], ["-F", "FATAL: checksum mismatch on volume vol-7f3a9c"],
           ["-F", "watchdog: BUG: soft lockup"]]


def run(cmd, env):
    """Wall seconds and user+system CPU seconds of `cmd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def evict(path):
    """Drops `path`'s clean pages from the page cache."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def warm(path):
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)


def cut(log, size, out):
    """The first `size` bytes of `log`, up to the last line end, into `out`."""
    with open(log, "rb") as src, open(out, "wb") as dst:
        data = src.read(size)
        dst.write(data[: data.rfind(b"\n") + 1])
        dst.flush()
        os.fsync(dst.fileno())  # clean pages: POSIX_FADV_DONTNEED drops only those


def queries(tg, path, env, cold, index_files, runs):
    """Median wall and CPU of the queries (summed) over `runs` runs."""
    walls, cpus = [], []
    for _ in range(runs):
        wall = cpu = 0.0
        for q in QUERIES:
            if cold:
                for f in [path] + index_files:
                    evict(f)
            w, c = run([tg, *q, path], env)
            wall, cpu = wall + w, cpu + c
        walls.append(wall / len(QUERIES))
        cpus.append(cpu / len(QUERIES))
    return statistics.median(walls), statistics.median(cpus)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tg", default="target/release/tg")
    ap.add_argument("--log", default=os.path.expanduser("~/.cache/trigrep-corpora/logs/big1G.log"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir", default=None, help="where the cut logs go (default: a temp dir)")
    a = ap.parse_args()
    work = a.dir or tempfile.mkdtemp(prefix="tg-threshold-")
    print("| size | build wall | build CPU | index | hot scan wall / CPU | hot indexed wall / CPU "
          "| cold scan wall | cold indexed wall | payback hot (CPU) | payback cold (wall) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for size in SIZES:
        path = os.path.join(work, f"cut{size >> 20}M.log")
        cut(a.log, size, path)
        none = os.path.join(work, "none")
        idx = os.path.join(work, f"idx{size >> 20}")
        shutil.rmtree(idx, ignore_errors=True)
        base = dict(os.environ, TG_AUTO_INDEX="0")
        scan_env = dict(base, TG_INDEX_DIR=none)
        idx_env = dict(base, TG_INDEX_DIR=idx)
        warm(path)
        bw, bc = run([a.tg, "index", "-q", path], idx_env)
        index_files = [os.path.join(d, f) for d, _, fs in os.walk(idx) for f in fs if f == "index.tg"]
        isize = sum(os.path.getsize(f) for f in index_files)
        warm(path)
        hs = queries(a.tg, path, scan_env, False, [], a.runs)
        hi = queries(a.tg, path, idx_env, False, [], a.runs)
        cs = queries(a.tg, path, scan_env, True, [], max(1, a.runs // 2))
        ci = queries(a.tg, path, idx_env, True, index_files, max(1, a.runs // 2))
        hot_pay = bc / max(hs[1] - hi[1], 1e-9)
        cold_pay = bw / max(cs[0] - ci[0], 1e-9)
        print(f"| {size >> 20} MiB | {bw:.2f} s | {bc:.2f} s | {isize / size * 100:.1f} % "
              f"| {hs[0] * 1e3:.0f} / {hs[1] * 1e3:.0f} ms | {hi[0] * 1e3:.1f} / {hi[1] * 1e3:.1f} ms "
              f"| {cs[0] * 1e3:.0f} ms | {ci[0] * 1e3:.1f} ms | {hot_pay:.1f} | {cold_pay:.1f} |",
              flush=True)
        os.remove(path)
        shutil.rmtree(idx, ignore_errors=True)
    if not a.dir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
