#!/usr/bin/env python3
# compare.py -- side-by-side wall-clock benchmark of `tg` against `rg`.
#
# What it measures: for every query of a query file, the wall time of the
# real (unsorted, parallel) search with its whole output read from a pipe,
# hot (page cache warm, after warm-up runs) and/or cold (caches dropped before
# every run and the drop verified), tg and rg alternated run by run. Reports
# median and min-max per tool, the ratio rg/tg (>1 = tg faster) for hot, cold
# and hot+cold, and totals. Before timing a query it runs both tools once with
# `--sort path` (trees), concurrently, and compares their stdout streams byte
# for byte (in constant memory); a query whose
# outputs differ is reported as a mismatch and not timed.
#
# Corpus: any directory or file; the project's are those of
# /work/shared/bench/corpora.sh (~/.cache/trigrep-corpora: go/, linux/,
# logs/big1G.log), with the query files in bench/queries/.
#
#   python3 bench/compare.py --tg target/release/tg --rg $RG \
#       --corpus ~/.cache/trigrep-corpora/go --queries bench/queries/go.txt \
#       --mode both --runs 5 --disk-bw bench/rawbw.json \
#       --out results.json --markdown table.md
#
# Cold mode needs root (writes /proc/sys/vm/drop_caches). Python 3.11 stdlib.
import argparse
import json
import os
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402

TOOLS = ("tg", "rg")


def parse_queries(path):
    """`name<TAB>shell-quoted args`, '#' comments and blank lines ignored."""
    qs = []
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if "\t" in line:
                name, rest = line.split("\t", 1)
            else:
                parts = line.split(None, 1)
                if len(parts) != 2:
                    sys.exit("%s:%d: expected NAME<TAB>ARGS" % (path, lineno))
                name, rest = parts
            try:
                argv = shlex.split(rest)
            except ValueError as e:
                sys.exit("%s:%d: %s" % (path, lineno, e))
            qs.append({"name": name.strip(), "args": argv, "line": lineno})
    names = [q["name"] for q in qs]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit("%s: duplicate query names: %s" % (path, ", ".join(sorted(dup))))
    return qs


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tg", required=True, help="path to tg")
    ap.add_argument("--rg", required=True, help="path to rg (pinned 15.2.0)")
    ap.add_argument("--corpus", required=True, help="directory or file searched")
    ap.add_argument("--queries", required=True, help="query file")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per tool and mode")
    ap.add_argument("--warmup", type=int, default=1, help="hot warm-up runs per tool")
    ap.add_argument("--mode", choices=("hot", "cold", "both"), default="hot")
    ap.add_argument("--out", help="write results JSON here")
    ap.add_argument("--markdown", help="write the Markdown table here")
    ap.add_argument("--cwd", help="run the tools (and --setup) in this directory")
    ap.add_argument("--tg-args", default="", help="extra flags for tg, e.g. '--io read'")
    ap.add_argument("--rg-args", default="", help="extra flags for rg, e.g. '--no-mmap'")
    ap.add_argument("--tg-corpus", help="tg searches this path instead of --corpus (e.g. a "
                    "packed copy made by 'tg pack'); added to the cold-drop probes, and tg is "
                    "then not held to the disk-bandwidth scan check")
    ap.add_argument("--setup", help="shell command run once first, e.g. 'tg index DIR'")
    ap.add_argument("--disk-bw", help="raw cold disk bandwidth: bytes/s (1.3e9, 1300M) "
                    "or a rawbw.py JSON; cold runs faster than this are rejected")
    ap.add_argument("--bw-slack", type=float, default=1.10,
                    help="reject a cold run above disk-bw x this (default 1.10)")
    ap.add_argument("--scan-check", choices=("auto", "both", "rg", "none"), default="auto",
                    help="which tools read the whole corpus, so that corpus bytes / time "
                    "is a valid throughput for the bandwidth check; auto = rg only when "
                    "--setup is given (tg uses an index), else both")
    ap.add_argument("--cold-retries", type=int, default=2,
                    help="re-drop and re-run a cold run whose drop failed, this many times")
    ap.add_argument("--mem", action="store_true",
                    help="run timed commands under /usr/bin/time -f %%M and add peak RSS "
                    "columns (includes mapped file pages; not private memory)")
    ap.add_argument("--only", help="comma-separated query names to run")
    ap.add_argument("--json-blank", action="store_true",
                    help="--json runs: compare outputs with every elapsed time and the "
                    "summary's searches/bytes_searched blanked (read whole: selective "
                    "queries only)")
    ap.add_argument("--timeout", type=float, default=600, help="per run, seconds")
    ap.add_argument("--keep-page-reporting", action="store_true",
                    help="cold modes: leave a VM's free page reporting on (cold runs then "
                    "vary with host faults; see benchlib.hold_guest_memory)")
    a = ap.parse_args(B.glue_dash_values(sys.argv[1:], ("--tg-args", "--rg-args", "--setup")))

    if a.mode in ("cold", "both") and os.geteuid() != 0:
        sys.exit("cold mode needs root (drop_caches)")
    queries = parse_queries(a.queries)
    if a.only:
        want = set(a.only.split(","))
        queries = [q for q in queries if q["name"] in want]
    tools = {"tg": (a.tg, shlex.split(a.tg_args)), "rg": (a.rg, shlex.split(a.rg_args))}
    cwd = a.cwd

    res = {"command": B.cmdline(), "host": B.host_info(), "corpus": a.corpus,
           "tg_corpus": a.tg_corpus,
           "queries_file": a.queries, "mode": a.mode, "runs": a.runs,
           "warmup": a.warmup, "cwd": cwd,
           "tools": {t: {"path": p, "extra_args": x, "version": B.tool_version(p)}
                     for t, (p, x) in tools.items()}}
    if a.mode in ("cold", "both") and not a.keep_page_reporting:
        res["guest_memory"] = B.hold_guest_memory()

    if a.setup:
        B.log("setup: %s" % a.setup)
        t0 = time.perf_counter()
        rc = subprocess.run(a.setup, shell=True, cwd=cwd).returncode
        res["setup"] = {"command": a.setup, "wall": time.perf_counter() - t0, "rc": rc}
        if rc != 0:
            sys.exit("setup failed with exit code %d" % rc)

    files = B.corpus_files(a.corpus, rg=a.rg, cwd=cwd)
    corpus_bytes = sum(s for _, s in files)
    corpus_path = a.corpus if cwd is None or os.path.isabs(a.corpus) else os.path.join(cwd, a.corpus)
    is_tree = os.path.isdir(corpus_path)
    res.update(corpus_files=len(files), corpus_bytes=corpus_bytes, corpus_is_tree=is_tree)
    B.log("corpus: %s, %d files, %s" % (a.corpus, len(files), B.fmt_bytes(corpus_bytes)))

    cold = a.mode in ("cold", "both")
    hot = a.mode in ("hot", "both")
    disk_bw = None
    if cold:
        disk_bw = B.load_disk_bw(a.disk_bw)
        if disk_bw is None:
            B.log("warning: no --disk-bw; cold runs are verified by fincore/meminfo only")
        tg_files = [(a.tg_corpus, os.path.getsize(a.tg_corpus))] if a.tg_corpus else []
        probes, probe_bytes = B.probe_files(files + tg_files)
        scan = {"auto": ("rg",) if a.setup or a.tg_corpus else TOOLS, "both": TOOLS,
                "rg": ("rg",), "none": ()}[a.scan_check]
        res.update(disk_bw=disk_bw, bw_slack=a.bw_slack, scan_checked=list(scan),
                   probe_files=len(probes), probe_bytes=probe_bytes)

    def argv(tool, q, sort):
        path, extra = tools[tool]
        corpus = a.tg_corpus if tool == "tg" and a.tg_corpus else a.corpus
        return [path] + extra + (["--sort", "path"] if sort else []) + q["args"] + [corpus]

    def slim(r):
        return {k: v for k, v in r.items() if k not in ("out", "err")} | \
            ({"err": r["err"][:500]} if r["err"] else {})

    rows = []
    for qi, q in enumerate(queries):
        row = {"name": q["name"], "args": q["args"]}
        rows.append(row)
        B.log("[%d/%d] %s: %s" % (qi + 1, len(queries), q["name"], shlex.join(q["args"])))
        # ---- output equality check
        same = B.compare_outputs_blanked if a.json_blank else B.compare_outputs
        chk = same(argv("tg", q, is_tree), argv("rg", q, is_tree), cwd=cwd, timeout=a.timeout)
        row["check"] = {"tg": chk["a"], "rg": chk["b"]}
        if not chk["equal"]:
            row["mismatch"] = {
                "first_diff_line": chk["first_diff_line"], "tg": chk["a_line"],
                "rg": chk["b_line"], "tg_lines": chk["a"]["lines"],
                "rg_lines": chk["b"]["lines"], "tg_rc": chk["a"]["rc"],
                "rg_rc": chk["b"]["rc"]}
            B.log("  MISMATCH at line %d: tg %r vs rg %r (lines %d vs %d, rc %d vs %d)" % (
                chk["first_diff_line"], chk["a_line"][:120], chk["b_line"][:120],
                chk["a"]["lines"], chk["b"]["lines"], chk["a"]["rc"], chk["b"]["rc"]))
            continue
        if chk["b"]["rc"] == 2:
            row["error"] = chk["b"]["err"][:500]
            B.log("  both tools failed (rc 2): %s" % row["error"].strip())
            continue
        row["out_bytes"] = chk["b"]["out_bytes"]
        row["out_lines"] = chk["b"]["lines"]
        # ---- timing: alternate tools, swapping the order every round (ABBA)
        for mode in (("hot",) if hot else ()) + (("cold",) if cold else ()):
            runs = {t: [] for t in TOOLS}
            failed = {t: [] for t in TOOLS}
            if mode == "hot":
                for w in range(a.warmup):
                    for t in (TOOLS if w % 2 == 0 else TOOLS[::-1]):
                        B.run_drained(argv(t, q, False), cwd=cwd, timeout=a.timeout)
            for i in range(a.runs):
                for t in (TOOLS if i % 2 == 0 else TOOLS[::-1]):
                    for attempt in range(1 + (a.cold_retries if mode == "cold" else 0)):
                        drop = None
                        if mode == "cold":
                            drop = B.drop_and_verify(probes, probe_bytes)
                            if not drop["ok"]:
                                failed[t].append({"attempt": attempt, "drop": drop,
                                                  "why": "page cache still holds corpus"})
                                continue
                        r = B.run_drained(argv(t, q, False), cwd=cwd, timeout=a.timeout,
                                          mem=a.mem)
                        r = slim(r)
                        if r["out_bytes"] != row["out_bytes"]:
                            r["warning"] = "output size differs from check run"
                        if mode == "cold":
                            r["drop"] = drop
                            thr = corpus_bytes / r["wall"] if r["wall"] > 0 else 0
                            r["corpus_Bps"] = thr
                            if disk_bw and t in scan and thr > disk_bw * a.bw_slack:
                                r["why"] = ("%.0f MB/s > disk %.0f MB/s: drop failed"
                                            % (thr / 1e6, disk_bw / 1e6))
                                failed[t].append(r)
                                B.log("  %s cold run rejected: %s" % (t, r["why"]))
                                continue
                        runs[t].append(r)
                        break
            st = {t: B.summary([r["wall"] for r in runs[t]]) for t in TOOLS}
            row[mode] = {"runs": runs, "failed_drops": failed, "stats": st,
                         "rss_kib": {t: B.summary([r["maxrss_kib"] for r in runs[t]
                                                   if r["maxrss_kib"] is not None])
                                     for t in TOOLS},
                         "ratio": B.ratio(st["rg"] and st["rg"]["median"],
                                          st["tg"] and st["tg"]["median"])}
            B.log("  %-4s tg %s  rg %s  rg/tg %s%s" % (
                mode, B.fmt_s(st["tg"] and st["tg"]["median"]),
                B.fmt_s(st["rg"] and st["rg"]["median"]), B.fmt_ratio(row[mode]["ratio"]),
                "  (failed drops: %d)" % sum(map(len, failed.values()))
                if any(failed.values()) else ""))
        if hot and cold:
            s = {}
            for t in TOOLS:
                h, c = row["hot"]["stats"][t], row["cold"]["stats"][t]
                s[t] = h["median"] + c["median"] if h and c else None
            row["sum"] = {"median": s, "ratio": B.ratio(s["rg"], s["tg"])}

    # ---- totals: sum of medians over the rows timed for both tools
    totals = {}
    for mode in ("hot", "cold", "sum"):
        tot = {t: 0.0 for t in TOOLS}
        n = 0
        for row in rows:
            m = row.get(mode)
            if not m:
                continue
            med = m["median"] if mode == "sum" else {
                t: m["stats"][t] and m["stats"][t]["median"] for t in TOOLS}
            if med["tg"] is None or med["rg"] is None:
                continue
            n += 1
            for t in TOOLS:
                tot[t] += med[t]
        if n:
            totals[mode] = {"tg": tot["tg"], "rg": tot["rg"], "queries": n,
                            "ratio": B.ratio(tot["rg"], tot["tg"])}
    res["rows"] = rows
    res["totals"] = totals
    res["mismatches"] = [r["name"] for r in rows if "mismatch" in r]

    md = markdown(res, a, hot, cold)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(md)
    print(md)
    return 1 if res["mismatches"] else 0


def markdown(res, a, hot, cold):
    L = []
    L.append("<!-- generated by bench/compare.py -->")
    L.append("```")
    L.append(res["command"])
    L.append("```")
    h = res["host"]
    L.append("")
    L.append("%s; %d CPUs (%s), %s RAM, Linux %s. tg: `%s`%s; rg: `%s`%s. "
             "Corpus `%s`: %d files, %s. %d timed runs per tool%s; "
             "times are medians in seconds (min–max); **rg/tg > 1 means tg is faster**." % (
                 h["date"], h["cpus"], h["cpu"], B.fmt_bytes(h["mem_total"]), h["kernel"],
                 res["tools"]["tg"]["version"],
                 (" " + shlex.join(res["tools"]["tg"]["extra_args"])) if res["tools"]["tg"]["extra_args"] else "",
                 res["tools"]["rg"]["version"],
                 (" " + shlex.join(res["tools"]["rg"]["extra_args"])) if res["tools"]["rg"]["extra_args"] else "",
                 res["corpus"], res["corpus_files"], B.fmt_bytes(res["corpus_bytes"]), a.runs,
                 (", %d warm-up" % a.warmup) if hot else ""))
    if cold:
        L.append("")
        L.append("Cold: `sync; echo 3 > /proc/sys/vm/drop_caches` before every run, drop "
                 "verified with %s on %d probe files%s." % (
                     "fincore" if B.shutil.which("fincore") else "/proc/meminfo",
                     res["probe_files"],
                     (" and by rejecting runs of %s faster than %.0f MB/s × %.2f" % (
                         "/".join(res["scan_checked"]), res["disk_bw"] / 1e6, res["bw_slack"]))
                     if res.get("disk_bw") else ""))
    if res.get("setup"):
        L.append("")
        L.append("Setup `%s`: %.2f s." % (res["setup"]["command"], res["setup"]["wall"]))
    L.append("")

    def cell(st):
        if not st:
            return "–"
        return "%s (%s–%s)" % (B.fmt_s(st["median"]), B.fmt_s(st["min"]), B.fmt_s(st["max"]))

    head = ["query"]
    modes = (["hot"] if hot else []) + (["cold"] if cold else [])
    for m in modes:
        head += ["tg %s" % m, "rg %s" % m, "rg/tg %s" % m]
    if hot and cold:
        head += ["rg/tg hot+cold"]
    if a.mem:
        head += ["tg RSS", "rg RSS"]
    head += ["output"]
    L.append("| " + " | ".join(head) + " |")
    L.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    for row in res["rows"]:
        name = "`%s`" % row["name"]
        if "mismatch" in row:
            mm = row["mismatch"]
            L.append("| %s | **MISMATCH** at line %d: tg `%s` vs rg `%s` (lines %d vs %d, rc %d vs %d) |" % (
                name, mm["first_diff_line"], mm["tg"][:80].replace("|", "\\|").replace("`", "'"),
                mm["rg"][:80].replace("|", "\\|").replace("`", "'"),
                mm["tg_lines"], mm["rg_lines"], mm["tg_rc"], mm["rg_rc"]))
            continue
        if "error" in row:
            L.append("| %s | error (both rc 2): %s |" % (name, row["error"].strip()[:100]))
            continue
        c = [name]
        for m in modes:
            st = row[m]["stats"]
            nf = sum(map(len, row[m]["failed_drops"].values()))
            c += [cell(st["tg"]), cell(st["rg"]),
                  B.fmt_ratio(row[m]["ratio"]) + (" (%d failed drops)" % nf if nf else "")]
        if hot and cold:
            c += [B.fmt_ratio(row["sum"]["ratio"])]
        if a.mem:
            m0 = modes[0]
            for t in TOOLS:
                r = row[m0]["rss_kib"][t]
                c += [B.fmt_bytes(r["median"] * 1024) if r else "–"]
        c += ["%s lines" % format(row["out_lines"], ",")]
        L.append("| " + " | ".join(c) + " |")
    tot = res["totals"]
    if tot:
        c = ["**total** (sum of medians)"]
        for m in modes:
            t = tot.get(m)
            c += ([B.fmt_s(t["tg"]), B.fmt_s(t["rg"]), "**%s**" % B.fmt_ratio(t["ratio"])]
                  if t else ["–"] * 3)
        if hot and cold:
            c += ["**%s**" % B.fmt_ratio(tot["sum"]["ratio"]) if "sum" in tot else "–"]
        if a.mem:
            c += ["", ""]
        c += [""]
        L.append("| " + " | ".join(c) + " |")
    if res["mismatches"]:
        L.append("")
        L.append("Mismatches (not timed): %s." % ", ".join("`%s`" % n for n in res["mismatches"]))
    if a.mem:
        L.append("")
        L.append("RSS = median peak resident set from `/usr/bin/time -f %M` (timed runs "
                 "ran under it), including mapped file pages; not private memory.")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    sys.exit(main())
