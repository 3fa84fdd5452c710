#!/usr/bin/env python3
"""The floor of a block index, per query: the share of a log's blocks that
hold a match (each matching line's byte offset, from `rg -b`, divided by the
block size). A query reads at least those blocks, so at rg's own speed per
byte it is at most 1/share times faster than rg's scan of the whole log.

    python3 bench/blockfloor.py --rg RG --queries bench/queries/log-blocks.txt LOG

Prints a Markdown table for 64, 32 and 16 KiB blocks. High-volume and
inverted queries (names starting heavy_ or inverted_) are skipped; -c is
dropped so that rg prints the lines.
"""
import argparse
import os
import shlex
import subprocess

SIZES_KIB = (64, 32, 16)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rg", default="rg")
    ap.add_argument("--queries", default="bench/queries/log-blocks.txt")
    ap.add_argument("log")
    a = ap.parse_args()
    size = os.path.getsize(a.log)
    head = ["query", "lines"]
    for k in SIZES_KIB:
        head += [f"{k} KiB blocks with a match", "share", "1/share"]
    print("| " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(head) - 1))
    for line in open(a.queries):
        if line.startswith("#") or not line.strip():
            continue
        name, args = line.rstrip("\n").split("\t")
        if name.startswith(("heavy", "inverted")):
            continue
        argv = [x for x in shlex.split(args) if x != "-c"]
        cmd = [a.rg, "-b", "--no-line-number", "--no-filename", *argv, a.log]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE)
        lines, blocks = 0, {k: set() for k in SIZES_KIB}
        for out in p.stdout:
            offset = int(out.split(b":", 1)[0])
            lines += 1
            for k in SIZES_KIB:
                blocks[k].add(offset // (k * 1024))
        p.wait()
        row = [f"`{name}`", f"{lines:,}"]
        for k in SIZES_KIB:
            share = len(blocks[k]) / (size // (k * 1024) + 1)
            row += [f"{len(blocks[k]):,}", f"{share * 100:.2f} %", f"{1 / share:.0f}" if share else "–"]
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
