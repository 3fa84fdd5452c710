#!/usr/bin/env python3
"""Generates a large source-like tree for index builds: many small files.

Writes --files files (default 520,000, about the six kernel + Go copies of
bench/index_scale.py) under DEST in directories of --per-dir files, with
paths about as long as a kernel tree's (55-65 bytes below DEST) and sizes
drawn from a log-normal distribution (median 2 KB, mean about 3.3 KB,
at most 1 MiB): slices, cut at line ends, of a 64 MiB text of Zipf-drawn
identifiers (50,000 random ones of letters, digits and `_`) and
punctuation, so each file has a realistic number of
distinct trigrams. Deterministic (--seed). Stdlib only.

    python3 bench/gen_tree.py /var/tmp/tg-big --files 520000
"""

import argparse
import math
import os
import random


def corpus(rng, size):
    """`size` bytes of source-like lines of Zipf-drawn words."""
    chars = "abcdefghijklmnopqrstuvwxyz0123456789_"
    words = []
    for _ in range(50000):
        w = "".join(rng.choice(chars) for _ in range(rng.randint(2, 10)))
        if rng.random() < 0.05:
            w = w.upper()
        words.append(w)
    weights = [1 / (i + 1) for i in range(len(words))]
    cum = []
    acc = 0.0
    for wt in weights:
        acc += wt
        cum.append(acc)
    punct = [" = ", "(", ");", " {", "}", ", ", " + ", "->", ".", " * ", " != ", " == ", "[", "]",
             " < ", " > ", " & ", " | ", ": ", "::", "#", "'", '"', " % ", "!", "?", " ^ ", "~", "@"]
    out, n = [], 0
    while n < size:
        toks = rng.choices(words, cum_weights=cum, k=rng.randint(3, 12))
        line = "\t" * rng.randint(0, 3)
        line += "".join(t + rng.choice(punct) for t in toks)
        if rng.random() < 0.1:
            line += " /* %d */" % rng.randint(0, 99999)
        line += "\n"
        out.append(line)
        n += len(line)
    return "".join(out).encode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dest")
    ap.add_argument("--files", type=int, default=520_000)
    ap.add_argument("--per-dir", type=int, default=400)
    ap.add_argument("--seed", type=int, default=38)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    text = corpus(rng, 64 << 20)
    total = 0
    for i in range(a.files):
        d = i // a.per_dir
        rel = os.path.join(f"group{d // 50:03d}", f"subsystem_{d % 50:02d}_drivers",
                           f"component_{i:07d}_implementation.c")
        size = min(int(math.exp(rng.gauss(math.log(2000), 1.0))), 1 << 20)
        at = rng.randrange(0, len(text) - size - 1)
        at = text.find(b"\n", at) + 1
        body = text[at:at + size]
        path = os.path.join(a.dest, rel)
        if i % a.per_dir == 0:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(body)
        total += len(body)
    print(f"{a.files} files, {total} bytes under {a.dest}")


if __name__ == "__main__":
    main()
