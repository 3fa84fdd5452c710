#!/usr/bin/env python3
# The first query's own cost of starting the background block-index build:
# the same hot query on the unindexed 8 GiB log with TG_AUTO_INDEX=0 and =1,
# alternating; the build lock is held by this script, so each spawned build
# finds it taken and exits at once (the parent never waits for it anyway).
import fcntl, os, statistics, subprocess, time, sys
tg = sys.argv[1] if len(sys.argv) > 1 else "target/release/tg"
log = os.path.expanduser("~/.cache/trigrep-corpora/logs/big8G.log")
base = "/tmp/noidx-spawn"
# The index directory tg would use (location::index_dir_for: FNV-1a of the path).
subprocess.run(["cat", log], stdout=subprocess.DEVNULL)
def index_dir():
    canon = os.path.realpath(log).encode()
    h = 0xcbf29ce484222325
    for b in canon:
        h ^= b; h = (h * 0x100000001b3) & 0xffffffffffffffff
    name = "".join(c for c in os.path.basename(os.path.realpath(log)) if c.isalnum() or c == "-")
    return os.path.join(base, "indexes", f"{name}-{h:016x}")
d = index_dir(); os.makedirs(d, exist_ok=True)
lock = open(os.path.join(d, ".building"), "a"); fcntl.flock(lock, fcntl.LOCK_EX)
times = {"0": [], "1": []}
for r in range(9):
    for v in (["0", "1"] if r % 2 == 0 else ["1", "0"]):
        env = dict(os.environ, TG_INDEX_DIR=base, TG_AUTO_INDEX=v)
        t = time.perf_counter()
        subprocess.run([tg, "-F", "XYZZY-NEEDLE-4242", log], env=env, stdout=subprocess.DEVNULL)
        times[v].append(time.perf_counter() - t)
for v in ("0", "1"):
    xs = times[v]
    print(f"TG_AUTO_INDEX={v}: median {statistics.median(xs)*1e3:.1f} ms (min {min(xs)*1e3:.1f}, max {max(xs)*1e3:.1f}) over {len(xs)} runs")
