#!/usr/bin/env python3
# binary_tail.py -- a corpus of huge files that start
# as text and turn binary past their first 64 KiB (like Rust .rlib archives
# and debug executables in a target/ directory). Walked, rg quits at the
# first NUL of each and reads only its text; tg must stop there too.
#   python3 bench/binary_tail.py DIR [--files 6] [--size-mb 100] [--text-mb 2]
# then, e.g. (tg -u --sort path, and parallel):
#   python3 bench/compare.py --tg target/release/tg --rg $RG --corpus DIR \
#     --queries bench/queries/binary-tail.txt --mode hot --runs 7
import argparse
import os
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=6)
    ap.add_argument("--size-mb", type=int, default=100)
    ap.add_argument("--text-mb", type=int, default=2)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    rnd = random.Random(23)
    # One MiB of binary (NUL bytes about one in 256), repeated.
    binary = rnd.randbytes(1 << 20)
    for f in range(a.files):
        path = os.path.join(a.dir, "lib%d.rlib" % f)
        text_len, size = a.text_mb << 20, a.size_mb << 20
        with open(path, "wb") as out:
            n, written = 0, 0
            while written < text_len:
                line = ("%d: symbol_%d port 80%02d fn main() error: timed out in crate_%d\n"
                        % (n, n * 7919 % 100000, n % 100, f)).encode()
                out.write(line)
                written += len(line)
                n += 1
            while written < size:
                chunk = binary[: min(len(binary), size - written)]
                out.write(chunk)
                written += len(chunk)
        print("%s: %d bytes, text to %d" % (path, size, written - (size - text_len)))


if __name__ == "__main__":
    main()
