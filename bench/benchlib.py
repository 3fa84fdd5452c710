# Shared helpers for trigrep's benchmark scripts (compare.py, crossover.py,
# rawbw.py). Measures nothing by itself: it runs a command with its stdout
# drained through a pipe, drops and verifies the page cache, and computes
# summary statistics. Python 3.11, stdlib only. Linux only (/proc, wait4).
import atexit
import fcntl
import json
import re
import mmap
import os
import platform
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import time

PIPE_SZ = 1 << 20          # ask the kernel for 1 MiB pipes (fewer wakeups)
READ_CHUNK = 1 << 20


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- running ---

def _proc_io(pid):
    """Return /proc/PID/io as a dict (works on an unreaped zombie), or {}."""
    try:
        with open("/proc/%d/io" % pid) as f:
            return {k: int(v) for k, v in
                    (ln.split(":") for ln in f.read().splitlines() if ln)}
    except (OSError, ValueError):
        return {}


TIME_BIN = "/usr/bin/time"


def run_drained(argv, cwd=None, keep_output=False, timeout=None, env=None, mem=False):
    """Run argv with stdout on a pipe that is read to the end (never /dev/null,
    so no tool can shortcut on a null device) and stderr on a temp file.

    The wall clock runs from just before the fork to the moment the child has
    exited AND its output has been fully read. The child is waited for with
    WNOWAIT first so that its /proc/PID/io (bytes read from storage) can be
    read before it is reaped with wait4(), which also gives the child's exact
    rusage (maxrss, faults, CPU) -- the same numbers GNU time prints.

    Peak RSS: the wait4() ru_maxrss of a child started from this (big) Python
    process is polluted -- exec() keeps the pre-exec mm's high-water mark, i.e.
    Python's own RSS. So with MEM the command runs under `/usr/bin/time -f %M`
    (a tiny C parent; its floor is ~2 MiB) and maxrss_kib is what time prints.
    It includes mapped file pages: label it RSS, not private memory.

    Returns a dict: wall, rc, out_bytes, out (if keep_output), err (first 4 KiB),
    maxrss_kib (MEM only), majflt, minflt, utime, stime, read_bytes, rchar.
    """
    import tempfile
    errf = tempfile.TemporaryFile()
    memf = None
    if mem:
        if not os.path.exists(TIME_BIN):
            raise SystemExit("--mem needs GNU time at %s" % TIME_BIN)
        memf = tempfile.NamedTemporaryFile(prefix="tgbench-mem-", delete=False)
        memf.close()
        argv = [TIME_BIN, "-f", "%M", "-o", memf.name] + list(argv)
    buf = bytearray(READ_CHUNK)
    chunks = [] if keep_output else None
    nbytes = 0
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=errf, env=env)
    fd = p.stdout.fileno()
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SZ)
    except OSError:
        pass
    killed = []
    timer = None
    if timeout:
        import threading
        timer = threading.Timer(timeout, lambda: (killed.append(1), p.kill()))
        timer.start()
    while True:
        n = os.readv(fd, [buf])
        if n == 0:
            break
        nbytes += n
        if keep_output:
            chunks.append(bytes(buf[:n]))
    # Wait for exit without reaping, read its I/O accounting, then reap.
    try:
        os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    except ChildProcessError:
        pass
    t1 = time.perf_counter()
    if timer:
        timer.cancel()
    io = _proc_io(p.pid)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    p.stdout.close()
    errf.seek(0)
    err = errf.read(4096)
    errf.close()
    maxrss = None
    if memf:
        try:
            with open(memf.name) as f:
                maxrss = int(f.read().split()[-1])
        except (OSError, ValueError, IndexError):
            pass
        os.unlink(memf.name)
    r = {"wall": t1 - t0, "rc": p.returncode, "out_bytes": nbytes,
         "err": err.decode("utf-8", "replace"),
         "maxrss_kib": maxrss, "majflt": ru.ru_majflt,
         "minflt": ru.ru_minflt, "utime": ru.ru_utime, "stime": ru.ru_stime,
         "read_bytes": io.get("read_bytes"), "rchar": io.get("rchar"),
         "timed_out": bool(killed)}
    if keep_output:
        r["out"] = b"".join(chunks)
    return r


def glue_dash_values(argv, opts):
    """Let `--tg-args "--io read"` through argparse (which would take a value
    starting with '-' for an option) by rewriting it to `--tg-args=--io read`."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] in opts and i + 1 < len(argv):
            out.append(argv[i] + "=" + argv[i + 1])
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def tool_version(path):
    try:
        out = subprocess.run([path, "--version"], capture_output=True,
                             timeout=20).stdout.decode("utf-8", "replace")
        return out.splitlines()[0] if out else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


# ------------------------------------------------------------ page cache ---

def meminfo():
    d = {}
    with open("/proc/meminfo") as f:
        for ln in f:
            k, v = ln.split(":", 1)
            d[k] = int(v.split()[0]) * 1024
    return d


def drop_caches():
    """sync, then drop page cache + dentries/inodes. Needs root."""
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


PAGE_REPORTING_ORDER = "/sys/module/page_reporting/parameters/page_reporting_order"
_REPORTING_SAVED = {}


def hold_guest_memory(keep_free_mib=512):
    """Make cold runs on a VM repeatable. A guest whose balloon reports free
    pages to the host (virtio free page reporting) gives every page it frees
    (drop_caches, an unpinned cell) back to the host; the first touch of such
    a page later costs a host fault, charged to whoever touches it: the same
    cold 1 GiB search took 0.39-0.95 s with 0.05-1.6 s of user time (mmap) or
    0.6-0.8 s of system time (read) here. This turns reporting off until
    `release_guest_memory` (registered with atexit) and touches all free
    memory once, so every page the page cache gets is already backed.
    Needs root; does nothing where the knob does not exist. Returns what was
    done, for the results file."""
    if not os.path.exists(PAGE_REPORTING_ORDER):
        return {"free_page_reporting": "absent"}
    with open(PAGE_REPORTING_ORDER) as f:
        old = f.read().strip()
    with open(PAGE_REPORTING_ORDER, "w") as f:
        f.write("11\n")   # above MAX_PAGE_ORDER (10): no block is ever reported
    if not _REPORTING_SAVED:
        _REPORTING_SAVED["order"] = old
        atexit.register(release_guest_memory)
    drop_caches()
    touch = max(0, meminfo()["MemFree"] - (keep_free_mib << 20))
    t0 = time.time()
    if touch:
        m = mmap.mmap(-1, touch, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        m.madvise(23)     # MADV_POPULATE_WRITE: fault every page in, in the kernel
        m.close()
    log("guest memory held: free page reporting off (order %s -> 11), %s touched in %.1f s"
        % (old, fmt_bytes(touch), time.time() - t0))
    return {"free_page_reporting": "off during the run (order %s -> 11)" % old,
            "touched_bytes": touch}


def release_guest_memory():
    """Restore the free page reporting order saved by `hold_guest_memory`."""
    old = _REPORTING_SAVED.pop("order", None)
    if old is not None:
        with open(PAGE_REPORTING_ORDER, "w") as f:
            f.write(old + "\n")


def resident_bytes(paths):
    """Bytes of PATHS resident in the page cache, via util-linux fincore.
    Returns None if fincore is not installed."""
    if not shutil.which("fincore") or not paths:
        return None
    total = 0
    for i in range(0, len(paths), 256):
        out = subprocess.run(["fincore", "--bytes", "--noheadings", "--raw",
                              "-o", "RES"] + list(paths[i:i + 256]),
                             capture_output=True, text=True).stdout
        total += sum(int(x) for x in out.split() if x.isdigit())
    return total


def probe_files(files_sizes, k=64, seed=1):
    """Pick files to probe for residency: the k largest plus k random ones."""
    by_size = sorted(files_sizes, key=lambda fs: -fs[1])
    pick = [f for f, _ in by_size[:k]]
    rest = [f for f, _ in by_size[k:]]
    rnd = random.Random(seed)
    pick += rnd.sample(rest, min(k, len(rest)))
    return pick, sum(os.path.getsize(f) for f in pick)


def drop_and_verify(probes, probe_bytes, settle=0.5, max_resident=0.01):
    """Drop caches, sleep SETTLE s, then check that at most MAX_RESIDENT of the
    probe files' bytes are still cached (fincore), or, without fincore, that
    /proc/meminfo Cached fell. Returns a dict with ok + evidence."""
    before = meminfo().get("Cached", 0)
    drop_caches()
    time.sleep(settle)
    after = meminfo().get("Cached", 0)
    res = resident_bytes(probes)
    if res is not None:
        ok = res <= max(max_resident * probe_bytes, 64 * 1024)
        how = "fincore"
    else:
        # Cached must have fallen below the probe size or by most of it.
        ok = after < before and (before - after) >= 0.5 * min(before, probe_bytes)
        how = "meminfo"
    return {"ok": ok, "how": how, "resident": res, "probe_bytes": probe_bytes,
            "cached_before": before, "cached_after": after}


# ---------------------------------------------------------------- corpus ---

def corpus_files(corpus, rg=None, rg_args=(), cwd=None):
    """(path, size) of the files a default search of CORPUS reads. For a tree
    this is `rg --files` (same ignore rules as the search), else os.walk."""
    path = corpus if cwd is None or os.path.isabs(corpus) else os.path.join(cwd, corpus)
    if os.path.isfile(path):
        return [(path, os.path.getsize(path))]
    files = []
    if rg:
        try:
            out = subprocess.run([rg, "--files", "--null"] + list(rg_args) + [corpus],
                                 capture_output=True, cwd=cwd, timeout=300).stdout
            for f in out.split(b"\0"):
                if f:
                    fp = os.fsdecode(f)
                    fp = fp if os.path.isabs(fp) or cwd is None else os.path.join(cwd, fp)
                    try:
                        files.append((fp, os.path.getsize(fp)))
                    except OSError:
                        pass
        except (OSError, subprocess.SubprocessError):
            files = []
    if not files:
        for dp, dn, fn in os.walk(path):
            for n in fn:
                fp = os.path.join(dp, n)
                if os.path.isfile(fp) and not os.path.islink(fp):
                    files.append((fp, os.path.getsize(fp)))
    return files


# ----------------------------------------------------------------- stats ---

def summary(xs):
    if not xs:
        return None
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs),
            "n": len(xs)}


def ratio(a, b):
    """a / b, or None."""
    if a is None or b is None or b == 0:
        return None
    return a / b


def host_info():
    mi = meminfo()
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("model name"):
                    cpu = ln.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"kernel": platform.release(), "cpus": os.cpu_count(), "cpu": cpu,
            "mem_total": mi.get("MemTotal"), "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %z")}


def cmdline(glue=("--tg-args", "--rg-args", "--setup")):
    """The exact command line, re-runnable when pasted (values that start
    with '-' are written as --opt=VALUE)."""
    return "python3 " + shlex.join(sys.argv[:1] + glue_dash_values(sys.argv[1:], glue))


def fmt_s(x):
    if x is None:
        return "–"
    return "%.3f" % x if x < 10 else "%.2f" % x


def fmt_ratio(x):
    return "–" if x is None else "%.2f" % x


def fmt_bytes(n):
    if n is None:
        return "–"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return ("%d %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1024


def parse_bw(s):
    """'1.3e9', '1300M', '1.3G' (decimal units, bytes/s) -> float."""
    s = s.strip()
    mult = {"K": 1e3, "M": 1e6, "G": 1e9}.get(s[-1:].upper())
    return float(s[:-1]) * mult if mult else float(s)


def load_disk_bw(arg):
    """--disk-bw accepts a number (bytes/s) or a rawbw.py JSON file."""
    if arg is None:
        return None
    if os.path.isfile(arg):
        with open(arg) as f:
            return float(json.load(f)["disk_cold_best_Bps"])
    return parse_bw(arg)


# --------------------------------------------------------- output check ---

def _first_diff_index(a, b):
    n = min(len(a), len(b))
    step = 4096
    i = 0
    while i < n and a[i:i + step] == b[i:i + step]:
        i += step
    while i < n and a[i] == b[i]:
        i += 1
    return i


JSON_BLANKS = (
    (re.compile(rb'"(elapsed|elapsed_total)":\{[^{}]*\}'), rb'"\1":{}'),
    (re.compile(rb'"(searches|bytes_searched)":[0-9]+(?=.*"type":"summary")'), rb'"\1":0'),
)


def blank_json_stats(out):
    """`--json` output with what legitimately differs between runs and
    between a scan and an index blanked: every `elapsed` object, and the
    summary's `searches` and `bytes_searched` (an index reads fewer files;
    docs/COMPAT.md)."""
    for pat, rep in JSON_BLANKS:
        out = pat.sub(rep, out)
    return out


def compare_outputs_blanked(argv_a, argv_b, cwd=None, timeout=None):
    """Like compare_outputs, for `--json` runs: both outputs read whole,
    then compared with blank_json_stats applied (selective queries only:
    memory grows with the output)."""
    rs = [subprocess.run(av, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                         timeout=timeout) for av in (argv_a, argv_b)]
    outs = [blank_json_stats(r.stdout) for r in rs]
    side = [{"rc": r.returncode, "out_bytes": len(r.stdout), "lines": r.stdout.count(b"\n"),
             "err": r.stderr[:500].decode("utf-8", "replace")} for r in rs]
    res = {"equal": outs[0] == outs[1] and rs[0].returncode == rs[1].returncode,
           "a": side[0], "b": side[1]}
    if outs[0] != outs[1]:
        k = _first_diff_index(outs[0], outs[1])
        ls = outs[0].rfind(b"\n", 0, k) + 1
        line = lambda o: (o[ls:].split(b"\n", 1)[0][:300] if ls < len(o) else b"<EOF>")
        res.update(first_diff_line=outs[0].count(b"\n", 0, ls) + 1,
                   a_line=line(outs[0]), b_line=line(outs[1]))
    elif not res["equal"]:
        res.update(first_diff_line=0, a_line=b"", b_line=b"")
    return res


def compare_outputs(argv_a, argv_b, cwd=None, timeout=None):
    """Run two commands at once and compare their stdout streams byte for
    byte in O(chunk) memory (outputs may be many GB). Returns a dict with
    equal, rc/bytes/lines/err per side ("a", "b") and, if they differ,
    first_diff_line (1-based) and the two differing lines (first 300 bytes;
    "<EOF>" when one output ended)."""
    import tempfile
    import threading
    errs = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
    ps = [subprocess.Popen(av, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=e) for av, e in zip((argv_a, argv_b), errs)]
    timers = []
    if timeout:
        for p in ps:
            t = threading.Timer(timeout, p.kill)
            t.start()
            timers.append(t)
    fds = [p.stdout.fileno() for p in ps]
    bufs = [b"", b""]
    eof = [False, False]
    total = [0, 0]
    lines = [0, 0]
    done_lines = 0
    diff = None

    def find_diff(at_eof):
        k = _first_diff_index(bufs[0], bufs[1])
        ls = bufs[0].rfind(b"\n", 0, k) + 1
        out = []
        for b, e in zip(bufs, at_eof):
            if ls >= len(b) and e:
                out.append(b"<EOF>")
            else:
                nl = b.find(b"\n", ls)
                out.append(b[ls:nl if nl >= 0 else len(b)][:300])
        return {"first_diff_line": done_lines + bufs[0].count(b"\n", 0, ls) + 1,
                "a_line": out[0], "b_line": out[1]}

    while not (eof[0] and eof[1]):
        if eof[0]:
            i = 1
        elif eof[1]:
            i = 0
        else:
            i = 0 if len(bufs[0]) <= len(bufs[1]) else 1
        chunk = os.read(fds[i], READ_CHUNK)
        if not chunk:
            eof[i] = True
        else:
            total[i] += len(chunk)
            lines[i] += chunk.count(b"\n")
            if diff is not None:
                continue
            bufs[i] += chunk
        if diff is not None:
            continue
        n = min(len(bufs[0]), len(bufs[1]))
        if bufs[0][:n] != bufs[1][:n]:
            diff = find_diff(eof)
            bufs = [b"", b""]
            continue
        if eof[0] and eof[1]:
            break
        cut = bufs[0].rfind(b"\n", 0, n) + 1
        if cut:
            done_lines += bufs[0].count(b"\n", 0, cut)
            bufs = [bufs[0][cut:], bufs[1][cut:]]
    if diff is None and bufs[0] != bufs[1]:
        diff = find_diff((True, True))
    rcs = [p.wait() for p in ps]
    for t in timers:
        t.cancel()
    for p in ps:
        p.stdout.close()
    err = []
    for e in errs:
        e.seek(0)
        err.append(e.read(4096).decode("utf-8", "replace"))
        e.close()
    r = {"equal": diff is None and rcs[0] == rcs[1],
         "a": {"rc": rcs[0], "out_bytes": total[0], "lines": lines[0], "err": err[0][:500]},
         "b": {"rc": rcs[1], "out_bytes": total[1], "lines": lines[1], "err": err[1][:500]}}
    if diff:
        r.update(first_diff_line=diff["first_diff_line"],
                 a_line=diff["a_line"].decode("utf-8", "replace"),
                 b_line=diff["b_line"].decode("utf-8", "replace"))
    elif rcs[0] != rcs[1]:
        r.update(first_diff_line=0, a_line="(same output)", b_line="(same output)")
    return r
