#!/usr/bin/env python3
# rawbw.py -- the machine's raw read limits, as the ceiling any search tool
# can reach, measured on one big file (normally the generated log,
# ~/.cache/trigrep-corpora/logs/big1G.log from /work/shared/bench/corpora.sh).
#
# Measures (bytes/s, best of --reps):
#   cold disk   after `sync; echo 3 > drop_caches` (verified with fincore):
#               dd bs=16M; dd bs=16M iflag=direct; K parallel pread() readers
#               on disjoint ranges (K = --parallel). "disk_cold_best_Bps" is the
#               best of them: the figure compare.py --disk-bw uses to reject
#               cold runs that beat the disk (a failed drop).
#   page cache  the file cached: dd bs=64K and bs=1M (read() into a buffer,
#               one thread), pread() with one thread per CPU, and mmap reading
#               every 8-byte word (membw.c) or touching one byte per page.
#   memory      membw.c summing a 1 GiB heap buffer (one thread), and
#               `dd if=/dev/zero of=/dev/null bs=1M` as a (copy-free) proxy.
# On a VM the "disk" may include the host's cache: that is still the fastest
# a cold run can be here, which is what the drop check needs.
#
#   sudo python3 bench/rawbw.py ~/.cache/trigrep-corpora/logs/big1G.log --json bench/rawbw.json
# Needs root for the cold part (else --skip-cold); cc for membw.c.
import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MiB = 1 << 20


def build_c(name):
    """Compile bench/NAME.c with cc -O2 into a cache dir; return the binary."""
    src = os.path.join(HERE, name + ".c")
    outdir = os.path.join(tempfile.gettempdir(), "tgbench-bin")
    os.makedirs(outdir, exist_ok=True)
    exe = os.path.join(outdir, "%s-%d" % (name, int(os.path.getmtime(src))))
    if not os.path.exists(exe):
        subprocess.run(["cc", "-O2", "-o", exe, src], check=True)
    return exe


def timed(argv):
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def dd(path, bs, nbytes, direct=False):
    """Time dd reading NBYTES (rounded down to whole BS blocks) of PATH."""
    count = max(1, nbytes // bs)
    argv = ["dd", "if=" + path, "of=/dev/null", "bs=%d" % bs, "count=%d" % count]
    if direct:
        argv.append("iflag=direct")
    return count * bs / timed(argv)


def preaders(path, nbytes, k, bs=16 * MiB):
    """K threads, each pread()ing its own contiguous 1/K of the first NBYTES."""
    seg = nbytes // k
    fd = os.open(path, os.O_RDONLY)
    done = [0] * k

    def work(i):
        buf = bytearray(bs)
        off, end = i * seg, (i + 1) * seg
        while off < end:
            n = os.preadv(fd, [memoryview(buf)[:min(bs, end - off)]], off)
            if n <= 0:
                break
            off += n
            done[i] += n
    ts = [threading.Thread(target=work, args=(i,)) for i in range(k)]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    dt = time.perf_counter() - t0
    os.close(fd)
    return sum(done) / dt


def best_of(reps, fn, before=None):
    vals = []
    for _ in range(reps):
        if before:
            if not before():
                continue
        vals.append(fn())
    return max(vals) if vals else None, vals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file", help="a big file, e.g. logs/big1G.log")
    ap.add_argument("--limit", default=None,
                    help="read at most this many bytes per measurement (e.g. 512M)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--parallel", default="2,4,8", help="reader counts for cold pread")
    ap.add_argument("--skip-cold", action="store_true")
    ap.add_argument("--skip-mem", action="store_true")
    ap.add_argument("--json", help="write results here (compare.py --disk-bw reads it)")
    a = ap.parse_args()

    size = os.path.getsize(a.file)
    n = size
    if a.limit:
        lim = a.limit.upper()
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(lim[-1:], 1)
        n = min(size, int(float(lim.rstrip("KMG")) * mult))
    res = {"command": B.cmdline(), "host": B.host_info(), "file": a.file,
           "file_bytes": size, "bytes_per_measurement": n, "reps": a.reps,
           "results": {}}
    R = res["results"]

    def put(key, desc, val, vals):
        R[key] = {"what": desc, "Bps": val, "all": vals}
        B.log("  %-28s %8s MB/s   %s" % (key, "%.0f" % (val / 1e6) if val else "–", desc))

    if not a.skip_cold:
        if os.geteuid() != 0:
            sys.exit("cold measurements need root (or pass --skip-cold)")
        res["guest_memory"] = B.hold_guest_memory()   # as the cold runs of compare/crossover
        B.log("cold disk (caches dropped before each read, %s per read):" % B.fmt_bytes(n))

        def drop():
            v = B.drop_and_verify([a.file], size)
            if not v["ok"]:
                B.log("    drop failed (%s resident), skipping this rep" % B.fmt_bytes(v["resident"]))
            return v["ok"]
        v, vs = best_of(a.reps, lambda: dd(a.file, 16 * MiB, n), drop)
        put("cold_dd_16M", "dd bs=16M", v, vs)
        v, vs = best_of(a.reps, lambda: dd(a.file, 16 * MiB, n, direct=True), drop)
        put("cold_dd_16M_direct", "dd bs=16M iflag=direct (O_DIRECT, no page cache)", v, vs)
        for k in [int(x) for x in a.parallel.split(",") if x]:
            v, vs = best_of(a.reps, lambda k=k: preaders(a.file, n, k), drop)
            put("cold_pread_x%d" % k, "%d threads pread() 16 MiB blocks, disjoint ranges" % k, v, vs)
        cold = [r["Bps"] for k, r in R.items() if k.startswith("cold_") and r["Bps"]]
        res["disk_cold_best_Bps"] = max(cold) if cold else None

    B.log("page cache (file cached):")
    mi = B.meminfo()
    if n > mi.get("MemAvailable", 0) * 0.8:
        B.log("  file too big to cache reliably; use --limit")
    else:
        dd(a.file, 1 * MiB, n)  # load it
        dd(a.file, 1 * MiB, n)
        res["hot_resident_bytes"] = B.resident_bytes([a.file])
        v, vs = best_of(a.reps, lambda: dd(a.file, 64 << 10, n))
        put("hot_read_64K", "dd bs=64K (read() into a 64 KiB buffer, 1 thread)", v, vs)
        v, vs = best_of(a.reps, lambda: dd(a.file, 1 * MiB, n))
        put("hot_read_1M", "dd bs=1M (read() into a 1 MiB buffer, 1 thread)", v, vs)
        k = os.cpu_count() or 1
        v, vs = best_of(a.reps, lambda: preaders(a.file, n, k, bs=1 * MiB))
        put("hot_pread_x%d" % k, "%d threads pread() 1 MiB blocks" % k, v, vs)
        if n == size:  # membw mmaps the whole file
            exe = build_c("membw")

            def mm(*extra):
                out = subprocess.run([exe, "mmap", a.file] + list(extra),
                                     capture_output=True, text=True, check=True).stdout
                return float(out.split()[2])
            v, vs = best_of(a.reps, mm)
            put("hot_mmap_read", "mmap + MADV_SEQUENTIAL, read every word (membw.c)", v, vs)
            v, vs = best_of(a.reps, lambda: mm("touch"))
            put("hot_mmap_touch", "mmap, touch 1 byte per 4 KiB page (fault cost)", v, vs)
        else:
            B.log("  (mmap measurements skipped: they read the whole file; drop --limit)")
    res["page_cache_best_1thread_Bps"] = max(
        [R[k]["Bps"] for k in ("hot_read_64K", "hot_read_1M", "hot_mmap_read") if k in R and R[k]["Bps"]],
        default=None)

    if not a.skip_mem:
        B.log("memory:")
        exe = build_c("membw")

        def memrd():
            out = subprocess.run([exe, "mem", "1024", "5"], capture_output=True,
                                 text=True, check=True).stdout
            return float(out.split()[2])
        v, vs = best_of(1, memrd)
        put("mem_read_1thread", "membw.c: sum a 1 GiB buffer, best of 5 passes", v, vs)
        v, vs = best_of(a.reps, lambda: dd("/dev/zero", 1 * MiB, 4096 * MiB))
        put("mem_dd_zero_proxy", "dd if=/dev/zero of=/dev/null bs=1M count=4096 "
            "(proxy: kernel zero-fill into a cached buffer, no DRAM reads)", v, vs)
        res["mem_read_1thread_Bps"] = R["mem_read_1thread"]["Bps"]

    # table
    print("| measurement | MB/s (best) | all reps | what |")
    print("|---|---:|---|---|")
    for k, r in R.items():
        print("| `%s` | %s | %s | %s |" % (k, "%.0f" % (r["Bps"] / 1e6) if r["Bps"] else "–",
                                         ", ".join("%.0f" % (x / 1e6) for x in r["all"]), r["what"]))
    for k in ("disk_cold_best_Bps", "page_cache_best_1thread_Bps", "mem_read_1thread_Bps"):
        if res.get(k):
            print("\n%s = %.0f MB/s" % (k, res[k] / 1e6), end="")
    print()
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
