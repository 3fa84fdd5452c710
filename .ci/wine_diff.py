#!/usr/bin/env python3
"""The differential core under wine: tg.exe against rg.exe.

Run by .ci/wine, which builds both for x86_64-pc-windows-gnu. Makes a
corpus (this repository's sources and docs plus files that exercise
encodings and binary detection, an 80 MiB log searched in chunks and a
gzipped log), then runs each case with tg.exe and rg.exe under wine64 and
compares standard output and exit code byte for byte:

  scan    a pattern x flag matrix over the tree (walked, --sort path)
  index   the same matrix after `tg index` (tg answers from its index)
  huge    the big log, searched in chunks (--io auto, read, mmap) and
          after `tg index big.log` (a block index)
  gz      -z on a .gz log: against the native Linux rg, since rg.exe runs
          an external `gzip.exe`, which wine does not have

usage: wine_diff.py BIN_DIR WORK_DIR [NATIVE_RG]
Prints one line per mismatch and a closing `N passed, N failed`.
"""

import gzip
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

BIN, WORK = sys.argv[1], sys.argv[2]
NATIVE_RG = sys.argv[3] if len(sys.argv) > 3 else None
WINE = os.environ.get("WINE", "/usr/lib/wine/wine64")
ENV = dict(os.environ, WINEDEBUG="-all")
# tg's index goes where Windows keeps it (%LOCALAPPDATA%), not to a Unix
# XDG directory wine would pass through.
ENV.pop("XDG_CACHE_HOME", None)

PATTERNS = [
    ("lit", "fn main"),
    ("generic", "Result<"),
    ("ci", "(?i)error"),
    ("word", r"\bself\b"),
    ("class", r"[a-z]+_[a-z]+\(\)"),
    ("anchor", r"^use std"),
    ("unicode", "ΔΈΛΤΑ|café"),
    ("nomatch", "zzqqxx"),
    ("invalid", "a("),
]

FLAGS = [
    ("plain", []),
    ("n", ["-n"]),
    ("i", ["-i"]),
    ("w", ["-w"]),
    ("c", ["-c"]),
    ("l", ["-l"]),
    ("v_c", ["-v", "-c"]),
    ("o_n", ["-o", "-n"]),
    ("C2_n", ["-C", "2", "-n"]),
    ("vimgrep", ["--vimgrep"]),
    ("F", ["-F"]),
    ("heading", ["--heading", "-n"]),
    ("null", ["-0", "-n"]),
    ("sep", ["--path-separator", "/", "-n"]),
    ("glob", ["-g", "*.md", "-n"]),
    ("hidden", ["--hidden", "-n"]),
]

passed, failed = 0, []


def run(exe, args, cwd):
    """stdout, exit code and stderr of `exe args` under wine, in `cwd`.
    Through files, not pipes: wine's own processes inherit the pipes and
    would hold them open until the wine server exits."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        code = subprocess.run([WINE, os.path.join(BIN, exe)] + args, cwd=cwd, env=ENV,
                              stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                              timeout=600).returncode
        out.seek(0)
        err.seek(0)
        return out.read(), code, err.read()


def native(args, cwd):
    p = subprocess.run([NATIVE_RG] + args, cwd=cwd, capture_output=True, timeout=600)
    return p.stdout, p.returncode, p.stderr


def compare(name, args, cwd, against=None, tg_only=()):
    """Runs one case with tg.exe (with `tg_only` flags too) and the
    reference; records the verdict."""
    global passed
    tg = run("tg.exe", list(tg_only) + args, cwd)
    ref = against(args, cwd) if against else run("rg.exe", args, cwd)
    if tg[:2] == ref[:2]:
        passed += 1
        return
    failed.append(name)
    print(f"MISMATCH {name}: tg {args}: exit {tg[1]} vs {ref[1]}, "
          f"{len(tg[0])} vs {len(ref[0])} bytes")
    for label, out in (("tg", tg), ("ref", ref)):
        print(f"  {label} stdout: {out[0][:300]!r}")
        print(f"  {label} stderr: {out[2][:300]!r}")


def make_corpus():
    """The tree, the big log and the gzipped log, made afresh."""
    if os.path.exists(WORK):
        shutil.rmtree(WORK)
    tree = os.path.join(WORK, "tree")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for part in ("src", "docs"):
        shutil.copytree(os.path.join(repo, part), os.path.join(tree, part))
    special = {
        "crlf.txt": b"fn main() {\r\n    let self_x = 1;\r\n}\r\n",
        "bin.dat": b"fn main\n" + b"x" * 100 + b"\x00after fn main\n",
        "utf16.txt": "\ufefffn main in UTF-16\nerror here\n".encode("utf-16-le"),
        "unicode.txt": "café ΔΈΛΤΑ self\nno match\n".encode(),
        ".hidden.rs": b"fn main() {} // hidden\n",
        "ignored.rs": b"fn main() {} // ignored by .ignore\n",
        ".ignore": b"ignored.rs\n",
    }
    for name, data in special.items():
        with open(os.path.join(tree, name), "wb") as f:
            f.write(data)
    rnd = random.Random(26)
    lines = []
    for i in range(1_150_000):
        pid = rnd.randrange(100, 999)
        user = rnd.choice(["root", "alice", "bob", "deploy", "svc_backup"])
        what = rnd.choice(["Accepted publickey", "Failed password", "Connection closed",
                           "Invalid user", "session opened"])
        lines.append(f"2026-12-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d} "
                     f"host sshd[{pid}]: {what} for {user} from 10.0.{i % 256}.{pid % 256} "
                     f"port {rnd.randrange(1024, 65535)}\n")
    big = "".join(lines).encode()
    logs = os.path.join(WORK, "logs")
    os.makedirs(logs)
    with open(os.path.join(logs, "big.log"), "wb") as f:
        f.write(big)
    with gzip.open(os.path.join(logs, "small.log.gz"), "wb") as f:
        f.write(big[: 4 << 20])
    return tree, logs


def main():
    tree, logs = make_corpus()
    started = time.time()
    for pname, pat in PATTERNS:
        for fname, flags in FLAGS:
            compare(f"scan/{pname}/{fname}", ["--sort", "path"] + flags + ["--", pat], tree)
    compare("scan/files", ["--sort", "path", "--files"], tree)
    compare("scan/files_sep", ["--sort", "path", "--files", "--path-separator", "/"], tree)
    compare("scan/explicit_path", ["--sort", "path", "-n", "fn main", "src\\main.rs", "crlf.txt"], tree)
    compare("scan/binary_explicit", ["-n", "fn main", "bin.dat"], tree)
    scan_s = time.time() - started

    built = run("tg.exe", ["index", "-q", "."], tree)
    if built[1] != 0:
        failed.append("index/build")
        print(f"MISMATCH index/build: exit {built[1]}: {built[2][:500]!r}")
    stats = run("tg.exe", ["--stats", "-c", "fn main"], tree)[0]
    if b"index" not in stats:
        failed.append("index/used")
        print(f"MISMATCH index/used: --stats shows no index: {stats[-600:]!r}")
    for pname, pat in PATTERNS:
        for fname, flags in FLAGS:
            compare(f"index/{pname}/{fname}", ["--sort", "path"] + flags + ["--", pat], tree)
    # A file changed after the build is still seen (the index is never trusted for it).
    with open(os.path.join(tree, "src", "lib.rs"), "ab") as f:
        f.write(b"\nfn main_added_after_the_index() {}\n")
    compare("index/changed_file", ["--sort", "path", "-n", "fn main"], tree)
    index_s = time.time() - started - scan_s

    big_cases = [
        ("n", ["-n", r"sshd\[12\d\]: Invalid user svc_backup from 10\.0\.1"]),
        ("c", ["-c", "Accepted publickey for root"]),
        ("v_c", ["-v", "-c", "session opened"]),
        ("i_o", ["-i", "-o", "-n", "INVALID USER [a-z]+ from 10.0.1.1[0-9]"]),
        ("nomatch", ["-n", "zzqqxx"]),
    ]
    for io in ("auto", "read", "mmap"):
        for name, args in big_cases:
            compare(f"huge/{io}/{name}", args + ["big.log"], logs, tg_only=["--io", io])
    built = run("tg.exe", ["index", "-q", "big.log"], logs)
    if built[1] != 0:
        failed.append("huge/index")
        print(f"MISMATCH huge/index: exit {built[1]}: {built[2][:500]!r}")
    for name, args in big_cases:
        compare(f"huge/indexed/{name}", args + ["big.log"], logs)
    huge_s = time.time() - started - scan_s - index_s

    if NATIVE_RG:
        for name, args in big_cases[:3]:
            compare(f"gz/{name}", ["-z"] + args + ["small.log.gz"], logs, against=native)
    rg_z = run("rg.exe", ["-z", "-c", "Accepted", "small.log.gz"], logs)
    print(f"note: rg.exe -z under wine: exit {rg_z[1]}, stdout {rg_z[0][:60]!r}, "
          f"stderr {rg_z[2][:160]!r}")

    print(f"times: scan {scan_s:.0f} s, index {index_s:.0f} s, huge {huge_s:.0f} s, "
          f"all {time.time() - started:.0f} s")
    print(f"{passed} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
