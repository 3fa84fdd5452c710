#!/usr/bin/env python3
"""The server under wine: `tg.exe serve` watches its tree
through ReadDirectoryChangesW (the notify crate), and a change made after
it started is seen by the very next query, answered through the server
without a sweep of the tree.

Run by .ci/wine (after wine_diff.py, or alone: `.ci/wine serve`). Makes a
small tree with a `.git` directory (the server's sync cookies go there) and
ignore rules, indexes it, starts `tg.exe serve` in it, then changes the tree
from Linux (wine's ReadDirectoryChangesW is its own, built on inotify) and
after each change at once compares a query of tg.exe with rg.exe, checks
that `--stats` says the server told the query what to read, and that the
server's status shows what a watcher does and a sweep would not: every
directory watched, nothing pending at the start, and events applied after
each change (a server without a watcher watches nothing, applies no
events and has every directory pending for good: every query stats the
tree).

usage: wine_serve.py BIN_DIR WORK_DIR
Prints one line per mismatch and a closing `N passed, N failed`.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import wine_diff as w

FILES = {
    ".git/HEAD": "ref: refs/heads/main\n",
    ".gitignore": "*.log\nbuild/\n",
    "a.txt": "alpha needle\nplain\n",
    "b.txt": "beta\nno match here\n",
    "src/lib.rs": "fn needle() {}\n",
    "src/deep/mod.rs": "// needle deep\n",
    "src/deep/other.rs": "// nothing\n",
    "docs/guide.md": "Needle in docs\nneedle three\n",
    "app.log": "needle in an ignored log\n",
    "build/out.txt": "needle in an ignored directory\n",
}


def write(tree, rel, text):
    path = os.path.join(tree, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def status(tree):
    """`tg.exe status` as {field: first number}."""
    out = w.run("tg.exe", ["status"], tree)[0].decode(errors="replace")
    fields = {}
    for line in out.splitlines():
        m = re.match(r"(\w[\w ]*):\s+(?:pid )?(\d+)", line)
        if m:
            fields[m.group(1)] = int(m.group(2))
    return fields, out


def expect(name, ok, detail):
    if ok:
        w.passed += 1
    else:
        w.failed.append(name)
        print(f"MISMATCH {name}: {detail}")


def check(tree, tag, dirs, events_before):
    """Compares queries with rg.exe right after a change; the server
    answered them, watches `dirs` directories and applied events since
    `events_before` (None: at the start, with nothing pending). Returns
    the events applied so far."""
    for name, args in (("n", ["-n", "needle"]), ("l", ["-l", "-i", "needle"]),
                       ("c", ["-c", "needle"]), ("files", ["--files"])):
        w.compare(f"serve/{tag}/{name}", ["--sort", "path"] + args, tree)
    err = w.run("tg.exe", ["--stats", "-l", "needle"], tree)[2].decode(errors="replace")
    expect(f"serve/{tag}/told", "told by the server" in err, f"--stats: {err[-400:]!r}")
    st, text = status(tree)
    pending, watching, events = (st.get(k, -1) for k in ("pending", "watching", "events"))
    # Without a watcher: nothing watched, no events, every directory pending.
    if events_before is None:
        ok = watching >= dirs and pending == 0
    else:
        ok = watching >= dirs and events > events_before and pending > 0
    expect(f"serve/{tag}/watched", ok, f"status:\n{text}")
    print(f"serve/{tag}: watching {watching}, pending {pending}, events {events}")
    return events


def main():
    tree = os.path.join(w.WORK, "served")
    if os.path.exists(tree):
        shutil.rmtree(tree)
    for rel, text in FILES.items():
        write(tree, rel, text)
    built = w.run("tg.exe", ["index", "-q", "."], tree)
    expect("serve/index", built[1] == 0, f"exit {built[1]}: {built[2][:400]!r}")
    log = tempfile.TemporaryFile()
    server = subprocess.Popen([w.WINE, os.path.join(w.BIN, "tg.exe"), "serve", "."], cwd=tree,
                              env=w.ENV, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    started = time.time()
    try:
        while "server" not in status(tree)[0]:
            if server.poll() is not None or time.time() - started > 120:
                log.seek(0)
                expect("serve/start", False, f"no server: {log.read()[-600:]!r}")
                return 1
            time.sleep(0.5)
        print(f"serve: answering after {time.time() - started:.1f} s")
        # The root, src, src/deep, docs (build/ is ignored, .git never walked).
        events = check(tree, "start", 4, None)
        with open(os.path.join(tree, "a.txt"), "a") as f:
            f.write("needle appended after the server started\n")
        events = check(tree, "appended", 4, events)
        write(tree, "b.txt", "now a needle\n")
        write(tree, "new.txt", "a new needle\n")
        os.remove(os.path.join(tree, "src/deep/other.rs"))
        os.rename(os.path.join(tree, "docs/guide.md"), os.path.join(tree, "docs/renamed.md"))
        write(tree, "new.log", "needle, ignored\n")
        events = check(tree, "files", 4, events)
        write(tree, "newdir/inner/x.txt", "needle in a new directory\n")
        events = check(tree, "new_dir", 6, events)
        write(tree, "newdir/inner/x.txt", "rewritten needle\n")
        write(tree, "newdir/inner/y.txt", "another needle\n")
        check(tree, "new_dir_writes", 6, events)
        # The cookies went into .git and left nothing behind.
        left = [n for n in os.listdir(os.path.join(tree, ".git")) if n.startswith(".tg-cookie")]
        expect("serve/cookies_removed", not left, f"left in .git: {left}")
    finally:
        stop = w.run("tg.exe", ["stop"], tree)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        print(f"serve: tg stop exit {stop[1]}, server exit {server.returncode}")
    print(f"{w.passed} passed, {len(w.failed)} failed")
    return 1 if w.failed else 0


if __name__ == "__main__":
    sys.exit(main())
