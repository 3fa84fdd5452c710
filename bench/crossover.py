#!/usr/bin/env python3
# crossover.py -- "mmap vs read": where does mapping a big file stop paying?
#
# What it measures: cold throughput (file bytes / wall time, output drained
# through a pipe) of `tg --io mmap`, `tg --io read`, `tg --io auto`, `rg`
# (default: mmap for a single file) and `rg --no-mmap`, on a light query (a
# rare literal, -F) and a heavy one (inverted, -v '^ +\*': most lines printed),
# as the file grows from 1/8 of the available RAM to more than it. The file
# stays the same; available RAM is shrunk instead by pinning memory with
# bench/pinmem.c (mlock; root), so that file size / MemAvailable = each
# requested fraction. Caches are dropped (and the drop verified) before every
# run. Writes a Markdown table, JSON and a hand-written SVG plot of throughput
# vs (file size / available RAM), and a verdict per cell: ok when `auto` ran
# the strategy whose median was better (read from its `--stats`; timing auto
# against the strategy it runs only measures the machine's spread), or when
# its median is within 5 % of the better one's.
#
# Corpus: the generated logs of /work/shared/bench/corpora.sh
# (~/.cache/trigrep-corpora/logs/big1G.log, big8G.log). Several --file may be
# given: each cell uses the largest file whose fraction is reachable while
# leaving at least --min-avail of RAM available (so the least memory is
# pinned). With 24 GiB RAM, big1G.log covers 1/8 and 1/4, big8G.log 1/2 to 2.
#
#   sudo python3 bench/crossover.py --tg target/release/tg --rg $RG \
#       --file ~/.cache/trigrep-corpora/logs/big1G.log \
#       --file ~/.cache/trigrep-corpora/logs/big8G.log \
#       --fractions 0.125,0.25,0.5,0.75,1,1.25,1.5 --runs 3 \
#       --out crossover.json --markdown crossover.md --svg crossover.svg
#
# The machine is shared: pinning takes RAM from everyone (up to RAM minus
# --min-avail, default 4 GiB, which is never undercut; cells that would need
# it are skipped). A full run (7 fractions x 2 queries x 5 strategies x 3 runs,
# cold, the heavy query printing ~all of the file) takes the better part of
# an hour on big8G.log: run it when nobody else needs the machine.
import argparse
import atexit
import hashlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402
from rawbw import build_c  # noqa: E402

GiB = 1 << 30
PIN = {"proc": None}


def unpin():
    p = PIN["proc"]
    if p and p.poll() is None:
        p.kill()   # our own child, by its pid
        p.wait()
    PIN["proc"] = None


def pin(nbytes):
    """Start pinmem holding NBYTES; return once it is all locked."""
    unpin()
    if nbytes < 64 << 20:
        return 0
    exe = build_c("pinmem")
    p = subprocess.Popen([exe, str(int(nbytes))], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    PIN["proc"] = p
    line = p.stdout.readline()
    if not line.startswith("pinned"):
        err = p.stderr.read()
        unpin()
        raise RuntimeError("pinmem failed: %s %s" % (line, err))
    time.sleep(1.0)   # let reclaim settle
    return nbytes


def auto_choice(cmd, path):
    """Which strategy `tg --io auto` (CMD) takes for PATH now: 'tg-mmap' or
    'tg-read', from `--stats` of a search that stops at the first line
    (`-q ''`); None if CMD is not a tg that says so. Timing auto against the
    strategy it runs compares one command with itself: when auto runs the
    better strategy, the verdict is "ok" whatever that same-command spread."""
    if not cmd:
        return None
    r = subprocess.run(cmd + ["--stats", "-q", "-e", "", path], capture_output=True, text=True)
    m = re.search(r"strategy chunked (mmap|read)", r.stderr)
    return "tg-" + m.group(1) if m else None


def sha_run(argv):
    """Run once (hot) and return (sha256 of stdout, bytes, rc)."""
    h = hashlib.sha256()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    n = 0
    for chunk in iter(lambda: p.stdout.read(1 << 20), b""):
        h.update(chunk)
        n += len(chunk)
    return h.hexdigest(), n, p.wait()


def strategies(a):
    if a.strategy:
        out = []
        for s in a.strategy:
            label, cmd = s.split("=", 1)
            out.append((label, shlex.split(cmd)))
        return out
    return [("tg-mmap", [a.tg, "--io", "mmap"]), ("tg-read", [a.tg, "--io", "read"]),
            ("tg-auto", [a.tg, "--io", "auto"]), ("rg", [a.rg]),
            ("rg-no-mmap", [a.rg, "--no-mmap"])]


COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#7f7f7f", "#ff7f0e", "#9467bd", "#8c564b"]
DASH = {"rg": "6,4", "rg-no-mmap": "2,3"}


def svg_plot(res, labels, path):
    """Two panels (one per query): MB/s vs file/available RAM (log2 x axis)."""
    import math
    qnames = [q["name"] for q in res["queries"]]
    W, H, PW, PH, ML, MT, MB_ = 980, 420, 400, 280, 70, 50, 60
    cells = res["cells"]
    fr = [c["fraction_actual"] for c in cells if c.get("fraction_actual")]
    if not fr:
        return
    xmin, xmax = math.log2(min(fr)) - 0.25, math.log2(max(fr)) + 0.25
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="12">' % (W, H),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="22" font-size="15" font-weight="bold">Cold throughput vs file size '
         '/ available RAM (%s)</text>' % (ML, ", ".join(os.path.basename(f) for f in res["files_used"]))]
    for qi, qn in enumerate(qnames):
        x0, y0 = ML + qi * (PW + 90), MT
        ys = [v for c in cells for lab in labels
              for v in [c["stats"].get(qn, {}).get(lab, {}).get("median_Bps")] if v]
        ymax = max(ys) * 1.1 if ys else 1
        X = lambda f: x0 + (math.log2(f) - xmin) / (xmax - xmin) * PW  # noqa: E731
        Y = lambda v: y0 + PH - v / ymax * PH  # noqa: E731
        o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>'
                 % (x0, y0, PW, PH))
        o.append('<text x="%d" y="%d" font-weight="bold">%s: %s</text>' % (
            x0, y0 - 8, qn, _esc(shlex.join(res["queries"][qi]["args"]))))
        # y grid
        step = _nice(ymax / 5)
        v = 0.0
        while v <= ymax:
            o.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (x0, x0 + PW, Y(v), Y(v)))
            o.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>' % (x0 - 4, Y(v) + 4, v / 1e6))
            v += step
        o.append('<text transform="translate(%d,%d) rotate(-90)" text-anchor="middle">MB/s</text>'
                 % (x0 - 48, y0 + PH // 2))
        # x ticks at powers of two and the requested fractions
        for f in sorted({c["fraction"] for c in cells} | {1.0}):
            if xmin <= math.log2(f) <= xmax:
                o.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#ddd"/>' % (X(f), X(f), y0, y0 + PH))
                o.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>' % (X(f), y0 + PH + 16, f))
        if xmin <= 0 <= xmax:
            o.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#000" stroke-dasharray="3,3"/>'
                     % (X(1), X(1), y0, y0 + PH))
            o.append('<text x="%.1f" y="%d" font-size="10">file = RAM</text>' % (X(1) + 3, y0 + 12))
        o.append('<text x="%d" y="%d" text-anchor="middle">file size / available RAM (log scale)</text>'
                 % (x0 + PW // 2, y0 + PH + 36))
        for li, lab in enumerate(labels):
            pts = [(c["fraction_actual"], c["stats"][qn][lab]["median_Bps"]) for c in cells
                   if c.get("fraction_actual") and c["stats"].get(qn, {}).get(lab, {}).get("median_Bps")]
            pts.sort()
            col = COLORS[li % len(COLORS)]
            if len(pts) > 1:
                o.append('<polyline fill="none" stroke="%s" stroke-width="2" %s points="%s"/>' % (
                    col, ('stroke-dasharray="%s"' % DASH[lab]) if lab in DASH else "",
                    " ".join("%.1f,%.1f" % (X(f), Y(v)) for f, v in pts)))
            for f, v in pts:
                o.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s %.3g: %.0f MB/s</title></circle>'
                         % (X(f), Y(v), col, lab, f, v / 1e6))
    # legend
    lx, ly = ML, H - 18
    for li, lab in enumerate(labels):
        col = COLORS[li % len(COLORS)]
        o.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2" %s/>' % (
            lx, lx + 24, ly - 4, ly - 4, col, ('stroke-dasharray="%s"' % DASH[lab]) if lab in DASH else ""))
        o.append('<text x="%d" y="%d">%s</text>' % (lx + 28, ly, _esc(lab)))
        lx += 40 + 8 * len(lab)
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def _esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _nice(x):
    import math
    if x <= 0:
        return 1
    e = 10 ** math.floor(math.log10(x))
    for m in (1, 2, 5, 10):
        if m * e >= x:
            return m * e
    return 10 * e


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tg", default="tg")
    ap.add_argument("--rg", default="rg")
    ap.add_argument("--file", action="append", required=True,
                    help="big file(s) to search; repeat for several sizes")
    ap.add_argument("--fractions", default="0.125,0.25,0.5,0.75,1,1.25,1.5",
                    help="file size / available RAM, one cell each")
    ap.add_argument("--light", default="-F XYZZY-NEEDLE-4242", help="light query (args)")
    ap.add_argument("--heavy", default=r"-v '^ +\*'", help="heavy query (args)")
    ap.add_argument("--queries", default="light,heavy", help="which of light,heavy to run")
    ap.add_argument("--strategy", action="append",
                    help="LABEL=COMMAND (repeatable) to replace the default five, e.g. "
                    "'tg-read=/path/tg --io read'; tg-mmap/tg-read/tg-auto get the verdict")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--min-avail", type=float, default=4.0,
                    help="never leave less than this many GiB available (shared machine)")
    ap.add_argument("--disk-bw", help="bytes/s or rawbw.py JSON: reject runs faster than the disk")
    ap.add_argument("--bw-slack", type=float, default=1.10)
    ap.add_argument("--tolerance", type=float, default=0.05, help="auto vs best, default 5%%")
    ap.add_argument("--no-check", action="store_true", help="skip the output equality pass")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--out")
    ap.add_argument("--markdown")
    ap.add_argument("--svg")
    ap.add_argument("--keep-page-reporting", action="store_true",
                    help="leave a VM's free page reporting on (cold runs then vary with "
                    "host faults; see benchlib.hold_guest_memory)")
    a = ap.parse_args(B.glue_dash_values(sys.argv[1:], ("--light", "--heavy")))

    if os.geteuid() != 0:
        sys.exit("crossover.py needs root (mlock, drop_caches)")
    atexit.register(unpin)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: sys.exit(130))

    strats = strategies(a)
    labels = [s[0] for s in strats]
    qdefs = {"light": shlex.split(a.light), "heavy": shlex.split(a.heavy)}
    queries = [{"name": n, "args": qdefs[n]} for n in a.queries.split(",")]
    files = sorted(((os.path.getsize(f), f) for f in a.file))
    disk_bw = B.load_disk_bw(a.disk_bw)
    res = {"command": B.cmdline(("--light", "--heavy")), "host": B.host_info(),
           "strategies": {l: c for l, c in strats}, "queries": queries,
           "runs": a.runs, "min_avail": a.min_avail, "disk_bw": disk_bw,
           "files": {f: s for s, f in files}, "cells": [], "checks": {}}
    if not a.keep_page_reporting:
        res["guest_memory"] = B.hold_guest_memory()

    # ---- outputs must agree across strategies (one hot run each, per file)
    if not a.no_check:
        for s, f in files:
            for q in queries:
                sums = {}
                for lab, cmd in strats:
                    sums[lab] = sha_run(cmd + q["args"] + [f])
                ok = len({v[0] for v in sums.values()}) == 1 and \
                    len({v[2] for v in sums.values()}) == 1
                res["checks"]["%s %s" % (os.path.basename(f), q["name"])] = {
                    "ok": ok, "runs": {l: {"sha256": v[0], "bytes": v[1], "rc": v[2]}
                                       for l, v in sums.items()}}
                B.log("check %s %s: %s" % (os.path.basename(f), q["name"],
                                           "same output" if ok else "MISMATCH %r" % sums))
                if not ok:
                    sys.exit("outputs differ between strategies; not timing")

    # ---- cells
    drop_caches_ok = B.drop_and_verify
    for frac in [float(x) for x in a.fractions.split(",")]:
        unpin()
        B.drop_caches()
        time.sleep(0.5)
        avail_now = B.meminfo()["MemAvailable"]
        choice = None
        for s, f in reversed(files):   # largest file that fits = least memory pinned
            target = s / frac
            if target >= a.min_avail * GiB and target <= avail_now - (256 << 20):
                choice = (s, f, target)
                break
        cell = {"fraction": frac, "avail_before_pin": avail_now, "stats": {}}
        res["cells"].append(cell)
        if not choice:
            cell["skipped"] = ("no file gives %.3g of available RAM with >= %.1f GiB left "
                               "available (have %s available)" % (frac, a.min_avail, B.fmt_bytes(avail_now)))
            B.log("fraction %.3g: skipped: %s" % (frac, cell["skipped"]))
            continue
        s, f, target = choice
        pinned = pin(avail_now - target)
        avail = B.meminfo()["MemAvailable"]
        for _ in range(3):   # MemAvailable moves while pinning: correct towards the target
            if abs(avail - target) <= 0.02 * target:
                break
            pinned = pin(max(0, pinned + avail - target))
            avail = B.meminfo()["MemAvailable"]
        cell.update(file=f, file_bytes=s, pinned=pinned, avail=avail,
                    fraction_actual=s / avail)
        B.log("fraction %.3g: %s (%s), pinned %s, available %s -> actual %.3f" % (
            frac, os.path.basename(f), B.fmt_bytes(s), B.fmt_bytes(pinned),
            B.fmt_bytes(avail), s / avail))
        cell["auto_chose"] = auto_choice(dict(strats).get("tg-auto"), f)
        for q in queries:
            runs = {l: [] for l in labels}
            fails = {l: 0 for l in labels}
            for i in range(a.runs):
                order = strats[i % len(strats):] + strats[:i % len(strats)]  # rotate
                for lab, cmd in order:
                    for attempt in range(3):
                        d = drop_caches_ok([f], s)
                        if not d["ok"]:
                            fails[lab] += 1
                            continue
                        r = B.run_drained(cmd + q["args"] + [f], timeout=a.timeout)
                        thr = s / r["wall"]
                        if disk_bw and thr > disk_bw * a.bw_slack:
                            fails[lab] += 1
                            B.log("  %s rejected: %.0f MB/s beats the disk" % (lab, thr / 1e6))
                            continue
                        runs[lab].append({"wall": r["wall"], "Bps": thr, "rc": r["rc"],
                                          "out_bytes": r["out_bytes"], "majflt": r["majflt"],
                                          "read_bytes": r["read_bytes"], "resident_before": d["resident"]})
                        break
            st = {}
            for lab in labels:
                w = B.summary([r["wall"] for r in runs[lab]])
                st[lab] = {"wall": w, "median_Bps": (s / w["median"]) if w else None,
                           "failed_drops": fails[lab],
                           "majflt": B.summary([r["majflt"] for r in runs[lab]])}
            if all(k in st for k in ("tg-mmap", "tg-read", "tg-auto")) and \
                    all(st[k]["wall"] for k in ("tg-mmap", "tg-read", "tg-auto")):
                best = min(st["tg-mmap"]["wall"]["median"], st["tg-read"]["wall"]["median"])
                auto = st["tg-auto"]["wall"]["median"]
                better = "tg-mmap" if st["tg-mmap"]["wall"]["median"] <= best else "tg-read"
                st["_verdict"] = {"best": better, "auto_over_best": auto / best - 1,
                                  "auto_chose": cell["auto_chose"],
                                  "ok": cell["auto_chose"] == better or auto <= best * (1 + a.tolerance)}
            cell["stats"][q["name"]] = st
            B.log("  %-5s %s%s" % (q["name"], "  ".join(
                "%s %s MB/s" % (l, "%.0f" % (st[l]["median_Bps"] / 1e6) if st[l]["median_Bps"] else "–")
                for l in labels), ("  verdict: auto %+.1f%% vs %s" % (
                    100 * st["_verdict"]["auto_over_best"], st["_verdict"]["best"]))
                if "_verdict" in st else ""))
        unpin()
    res["files_used"] = sorted({c["file"] for c in res["cells"] if c.get("file")})

    # ---- verdict
    verdicts = [(c["fraction"], qn, st["_verdict"]) for c in res["cells"]
                for qn, st in c["stats"].items() if "_verdict" in st]
    bad = [v for v in verdicts if not v[2]["ok"]]
    if not verdicts:
        res["verdict"] = "no verdict: tg-mmap, tg-read and tg-auto were not all measured"
    elif bad:
        res["verdict"] = "FAIL: auto ran the slower strategy and was more than %g%% behind the better of mmap/read in %d of %d cells: %s" % (
            100 * a.tolerance, len(bad), len(verdicts),
            ", ".join("%s@%.3g (%+.1f%% vs %s)" % (q, f, 100 * v["auto_over_best"], v["best"]) for f, q, v in bad))
    else:
        res["verdict"] = "PASS: in all %d cells auto ran the better of mmap/read or was within %g%% of it" % (
            len(verdicts), 100 * a.tolerance)

    md = markdown(res, labels)
    if a.out:
        with open(a.out, "w") as fh:
            json.dump(res, fh, indent=1)
    if a.markdown:
        with open(a.markdown, "w") as fh:
            fh.write(md)
    if a.svg:
        svg_plot(res, labels, a.svg)
    print(md)
    B.log(res["verdict"])
    return 0 if res["verdict"].startswith("PASS") else 1


def verdict_cell(vd):
    """The verdict column: ok/FAIL, auto's median against the better one's,
    and which strategy auto ran."""
    chose = vd.get("auto_chose")
    how = (" (auto ran %s, %s)" % (chose, "the better one" if chose == vd["best"] else "the other one")
           if chose else "")
    return "%s %+.1f%% vs %s%s" % ("ok" if vd["ok"] else "**FAIL**", 100 * vd["auto_over_best"],
                                   vd["best"], how)


def markdown(res, labels):
    L = ["<!-- generated by bench/crossover.py -->", "```", res["command"], "```", ""]
    h = res["host"]
    L.append("%s; %d CPUs, %s RAM, Linux %s. Cold (caches dropped and verified before "
             "each run); median MB/s of file bytes / wall time over %d runs; available RAM "
             "shrunk by mlock-ed memory." % (h["date"], h["cpus"], B.fmt_bytes(h["mem_total"]),
                                             h["kernel"], res["runs"]))
    gm = res.get("guest_memory")
    if gm and gm.get("free_page_reporting") != "absent":
        L.append("VM free page reporting: %s%s." % (
            gm["free_page_reporting"], ", all free memory touched first" if "touched_bytes" in gm else ""))
    L.append("Cells: median MB/s (min–max wall seconds).")
    L.append("")
    L.append("| query | file / avail RAM | file | available | " + " | ".join(labels) +
             " | auto vs best |")
    L.append("|---|---:|---|---:|" + "---:|" * len(labels) + "---|")
    for q in res["queries"]:
        for c in res["cells"]:
            if c.get("skipped"):
                L.append("| %s | %g | skipped | | %s |" % (q["name"], c["fraction"], c["skipped"]))
                continue
            st = c["stats"][q["name"]]
            row = ["`%s`" % shlex.join(q["args"]), "%.3f (asked %g)" % (c["fraction_actual"], c["fraction"]),
                   os.path.basename(c["file"]), B.fmt_bytes(c["avail"])]
            for lab in labels:
                v, w = st[lab]["median_Bps"], st[lab]["wall"]
                row.append(("%.0f (%.2f–%.2f)" % (v / 1e6, w["min"], w["max"])) if v else "–")
            vd = st.get("_verdict")
            row.append(verdict_cell(vd) if vd else "–")
            L.append("| " + " | ".join(row) + " |")
    L.append("")
    L.append("**Verdict:** " + res["verdict"])
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    sys.exit(main())
