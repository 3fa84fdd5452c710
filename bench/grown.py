#!/usr/bin/env python3
"""What the trust rule costs on a log that is appended to while it is
searched.

A copy of LOG is indexed (`tg index`, a private index directory), then the
same queries are timed, tg and rg alternated, in three phases:

  fresh    the log as indexed: nothing to verify;
  grown    the log appended to once (the indexed bytes are digested by
           every query: the rule's cost), nothing written meanwhile;
  growing  a writer appends RATE bytes a second, in ten writes a second,
           while the queries run.

Each query is a `-c` count of a needle that the appended lines never
hold, so tg's and rg's counts must agree whatever was appended; a
difference is reported and the script exits 1. The background rebuild
that a grown log triggers (at idle priority) runs as it would for a user
unless --no-rebuild (TG_AUTO_INDEX=0).

  python3 bench/grown.py --tg target/release/tg --rg RG --log BIG.log
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402

QUERIES = [
    ["-c", "-F", "XYZZY-NEEDLE-4242"],
    ["-c", "-F", "FATAL: checksum mismatch on volume vol-7f3a9c"],
    ["-c", "Out of memory: Killed process \\d+ \\(java\\)"],
]


def appender(path, rate, stop, written):
    """Appends `rate` bytes a second to `path` in ten writes a second."""
    line = b"Feb 30 12:00:00 appender: a line that matches no query of this benchmark\n"
    piece = line * max(1, rate // 10 // len(line))
    with open(path, "ab", buffering=0) as f:
        next_at = time.monotonic()
        while not stop.is_set():
            f.write(piece)
            written[0] += len(piece)
            next_at += 0.1
            time.sleep(max(0.0, next_at - time.monotonic()))


def timed(argv, env):
    r = bl.run_drained(argv, keep_output=True, env=env)
    return r["wall"], r["out"], r["rc"]


def phase(name, args, log_path, env, runs):
    rows = []
    for q in QUERIES:
        tg_t, rg_t, bad = [], [], 0
        for i in range(runs):
            order = [("tg", args.tg), ("rg", args.rg)]
            if i % 2:
                order.reverse()
            outs = {}
            for tool, binary in order:
                t, out, rc = timed([binary] + q + [log_path], env)
                (tg_t if tool == "tg" else rg_t).append(t)
                outs[tool] = (out, rc)
            if outs["tg"] != outs["rg"]:
                bad += 1
                bl.log("MISMATCH %s %s: tg %r rg %r" % (name, q, outs["tg"], outs["rg"]))
        rows.append({"phase": name, "query": " ".join(q), "tg": bl.summary(tg_t),
                     "rg": bl.summary(rg_t), "mismatches": bad})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tg", required=True)
    ap.add_argument("--rg", required=True)
    ap.add_argument("--log", required=True, help="the log to copy and index")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rate", type=int, default=1 << 20, help="bytes appended a second")
    ap.add_argument("--no-rebuild", action="store_true",
                    help="TG_AUTO_INDEX=0: no background rebuild of the grown log")
    ap.add_argument("--json", help="write the rows here too")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="tg-grown-")
    try:
        log_path = os.path.join(work, "app.log")
        shutil.copyfile(args.log, log_path)
        env = dict(os.environ, TG_INDEX_DIR=os.path.join(work, "idx"))
        if args.no_rebuild:
            env["TG_AUTO_INDEX"] = "0"
        subprocess.run([args.tg, "index", "-q", log_path], env=env, check=True)
        time.sleep(0.1)
        rows = phase("fresh", args, log_path, env, args.runs)
        with open(log_path, "ab") as f:
            f.write(b"Feb 30 11:59:59 appender: the first appended line\n")
        time.sleep(0.1)
        rows += phase("grown", args, log_path, env, args.runs)
        stop, written = threading.Event(), [0]
        writer = threading.Thread(target=appender, args=(log_path, args.rate, stop, written))
        writer.start()
        started = time.monotonic()
        try:
            rows += phase("growing", args, log_path, env, args.runs)
        finally:
            stop.set()
            writer.join()
        secs = time.monotonic() - started
        bl.log("appended %d bytes in %.1f s (%.2f MB/s) during the growing phase"
               % (written[0], secs, written[0] / secs / 1e6))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print("host: %s" % json.dumps(bl.host_info()))
    print("| phase | query | tg median (min-max) | rg median (min-max) | rg/tg |")
    print("|---|---|---:|---:|---:|")
    for r in rows:
        tg, rg = r["tg"], r["rg"]
        print("| %s | `%s` | %s (%s-%s) | %s (%s-%s) | %s |" % (
            r["phase"], r["query"], bl.fmt_s(tg["median"]), bl.fmt_s(tg["min"]),
            bl.fmt_s(tg["max"]), bl.fmt_s(rg["median"]), bl.fmt_s(rg["min"]),
            bl.fmt_s(rg["max"]), bl.fmt_ratio(bl.ratio(rg["median"], tg["median"]))))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if any(r["mismatches"] for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
