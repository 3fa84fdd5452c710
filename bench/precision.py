#!/usr/bin/env python3
"""Candidate precision of tg's index per query, and what case folding costs.

For every query of a query file, in the indexed corpus (cwd):
  * matched  — files with a match (`rg -l`);
  * read     — files tg read (`tg --stats -l`: candidates + changed + new);
  * precision = read / matched (1.0 is perfect).
For case-sensitive fixed-string queries (`-F` without `-i`) it also counts
the files that hold every trigram of the literal with its case (`sensitive`)
and case-folded (`folded`), each as the intersection of `rg -l -F` (or
`rg -il -F`) per trigram: `folded / sensitive` is what the case-folded
index costs that query over a case-keeping one.

    python3 bench/precision.py --tg TG --rg RG --cwd CORPUS QUERIES.txt [--json OUT]
"""
import argparse
import json
import re
import shlex
import subprocess
import sys


def queries(path):
    for line in open(path):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        name, _, args = line.partition("\t")
        yield name, shlex.split(args)


def files(cmd, cwd):
    out = subprocess.run(cmd, cwd=cwd, capture_output=True).stdout
    return set(out.splitlines())


def trigrams(lit):
    b = lit.encode()
    return sorted({b[i:i + 3] for i in range(len(b) - 2)})


def holding_all(rg, cwd, tris, fold):
    have = None
    for t in tris:
        cmd = [rg, "-l", "-F", "--no-messages", "-e", t.decode("utf-8", "replace")]
        if fold:
            cmd.insert(1, "-i")
        got = files(cmd, cwd)
        have = got if have is None else have & got
        if not have:
            break
    return have or set()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tg", required=True)
    ap.add_argument("--rg", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--json")
    ap.add_argument("queries")
    a = ap.parse_args()
    rows = []
    for name, args in queries(a.queries):
        matched = len(files([a.rg, "-l", *args], a.cwd))
        err = subprocess.run([a.tg, "--stats", "-l", *args], cwd=a.cwd, capture_output=True).stderr.decode()
        m = re.search(r"walked files: (\d+) read as candidates, \d+ not read, (\d+) changed.*?, (\d+) not in", err)
        read = sum(int(x) for x in m.groups()) if m else None
        row = {"name": name, "args": args, "matched": matched, "read": read}
        lit = args[-1]
        if "-F" in args and "-i" not in args and len(lit) >= 3 and read is not None:
            tris = trigrams(lit)
            row["sensitive"] = len(holding_all(a.rg, a.cwd, tris, False))
            row["folded"] = len(holding_all(a.rg, a.cwd, tris, True))
        rows.append(row)
        print(json.dumps(row), file=sys.stderr)
    usable = [r for r in rows if r["read"] is not None and r["matched"]]
    tot_read = sum(r["read"] for r in usable)
    tot_match = sum(r["matched"] for r in usable)
    lits = [r for r in rows if "sensitive" in r and r["sensitive"]]
    print(f"queries: {len(rows)}; with a match and an index: {len(usable)}")
    print(f"files read {tot_read}, files with a match {tot_match}: precision (read/matched) {tot_read / max(tot_match, 1):.2f}")
    if usable:
        ratios = sorted(r["read"] / r["matched"] for r in usable)
        print(f"per query read/matched: median {ratios[len(ratios) // 2]:.2f}, worst {ratios[-1]:.2f}")
    if lits:
        f = sum(r["folded"] for r in lits)
        s = sum(r["sensitive"] for r in lits)
        worst = max(lits, key=lambda r: r["folded"] / r["sensitive"])
        print(f"case-sensitive -F queries: {len(lits)}; folded {f} vs case-kept {s} candidate files: x{f / s:.2f}; "
              f"worst {worst['name']} x{worst['folded'] / worst['sensitive']:.2f}")
    print("| query | matched | read | read/matched | folded | case-kept |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        ratio = f"{r['read'] / r['matched']:.2f}" if r["read"] is not None and r["matched"] else "–"
        print(f"| `{r['name']}` | {r['matched']} | {r['read']} | {ratio} | {r.get('folded', '')} | {r.get('sensitive', '')} |")
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
