#!/usr/bin/env python3
# checkqueries.py -- sanity check of a query file against a corpus: runs rg
# once per query (output drained, counted) and checks that queries named
# nohit_* find nothing and all others find something. Measures nothing.
#   python3 bench/checkqueries.py --rg $RG --corpus ~/.cache/trigrep-corpora/go bench/queries/go.txt
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402
from compare import parse_queries  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rg", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("queries")
    a = ap.parse_args()
    bad = 0
    for q in parse_queries(a.queries):
        r = B.run_drained([a.rg, "--count-matches"] + [x for x in q["args"] if x not in ("-c", "--count")]
                          + [a.corpus], timeout=300)
        # with --count-matches output is "path:N" per file (or "N" for one file)
        n = sum(int(l.rsplit(b":", 1)[-1]) for l in subprocess_lines(r)) if r["rc"] == 0 else 0
        want_none = q["name"].startswith("nohit_")
        ok = (r["rc"] == 1 and n == 0) if want_none else (r["rc"] == 0 and n > 0)
        bad += not ok
        print("%-4s %-28s rc=%d matches=%-9d %.2fs  %s" % ("ok" if ok else "BAD", q["name"], r["rc"], n,
                                                       r["wall"], " ".join(q["args"])))
        if r["rc"] == 2:
            print("     " + r["err"].strip())
    print("%d bad" % bad)
    return 1 if bad else 0


def subprocess_lines(r):
    return [l for l in r["out"].split(b"\n") if l]


if __name__ == "__main__":
    # run_drained must keep output for counting
    _orig = B.run_drained
    B.run_drained = lambda *a, **k: _orig(*a, keep_output=True, **k)
    sys.exit(main())
