#!/usr/bin/env python3
"""`tg view` against `less` on a big log: keypress to screen.

Two ways of timing, both reported:

* **replay** (tg only, precise): `tg view --replay KEYS FILE` runs the viewer
  without a terminal, draws every screen on ratatui's in-memory backend and
  prints, per key, the time from the key to the drawn screen and the
  process's RssAnon (src/view/replay.rs). `{count}` waits for the
  background line count, `{density}` for the density bar. Process start is
  not included; the wall time of the whole process is reported apart.
* **tmux** (tg and less alike): each tool runs in a 120x40 tmux window;
  the clock starts when `send-keys` returns and stops when `capture-pane`
  first shows the expected text (a snippet of the target line); polling
  costs 2-5 ms, so these figures are coarse but the same for both tools.
  Peak RssAnon is sampled from /proc/PID/status every 10 ms.

Cases (a block index built into a private index directory first, or an
empty index directory for "no index"):

  first screen           open the log
  jump                   line N (N = 73 % of the lines): `NG`
  search                 `/NEEDLE` then `n` (planted needles, 3 hits)
  filter                 `&NEEDLE`: the first filtered screen
  density                `/NEEDLE` then the bar complete (tg only)
  during a search        without an index, `j` and Ctrl-C while `/NEEDLE`
                         reads the file (tg tmux only)
  line count             without an index: the background count, GB/s

In tmux the keys follow the first screen at once: without an index, `NG`
then waits for the count (the replay jumps after `{count}`).

less needs to count lines for `NG` with line numbers (`less -N`), and
reads the whole file for a search or `&` (`--no-less`: less's first screen
only). `head -n 39` in the same tmux window is the floor of a first screen
there: the shell starting a small program that prints the lines.

A prompt's text (`/NEEDLE`, `&NEEDLE`) is typed untimed; the clock starts
at Enter once the prompt row shows all of it.

    python3 bench/view.py --tg target/release/tg --runs 5 \\
        --log ~/.cache/trigrep-corpora/logs/big8G.log --markdown view.md

Cold runs (`--cold`, root): the page cache dropped before the viewer
starts and again before every timed case (replay: at `{wait}` steps; tmux:
before each key, once a prompt's text is typed), each drop checked with
fincore on the log (< 1 % resident). The viewer's own mappings (its block
index) stay: a drop frees only pages no process maps.
"""

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

NEEDLE = "FATAL: checksum mismatch on volume vol-7f3a9c"


def holders(path):
    """The processes holding `path` open: ["pid command", ...]."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
            mapped = path in open(f"/proc/{pid}/maps").read()
            if mapped or any(os.path.realpath(f"/proc/{pid}/fd/{fd}") == path for fd in fds):
                out.append(f"{pid} {open(f'/proc/{pid}/cmdline').read().replace(chr(0), ' ')[:80]}")
        except OSError:
            pass
    return out


def rss_anon_kib(pid):
    """RssAnon of `pid` in KiB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def snippet(line):
    """A piece of `line` that any viewer shows as is: before its first tab
    or control byte, at most 40 characters, at least 8."""
    text = ""
    for c in line:
        if c == "\t" or ord(c) < 0x20 or ord(c) >= 0x7F:
            break
        text += c
    text = text[:40].rstrip()
    return text if len(text) >= 8 else None


class Tmux:
    """A tmux server of our own with one 120x40 window running `bash`."""

    sessions = 0

    def __init__(self, env):
        Tmux.sessions += 1
        self.sock = f"tg-view-bench-{os.getpid()}-{Tmux.sessions}"
        self.run("new-session", "-d", "-s", "b", "-x", "120", "-y", "40",
                 *sum((["-e", f"{k}={v}"] for k, v in env.items()), []),
                 "bash --norc --noprofile")
        self.run("set-option", "-g", "status", "off")
        self.send("PS1='$ '; clear", enter=True)
        time.sleep(0.3)

    def run(self, *args):
        return subprocess.run(["tmux", "-L", self.sock, *args], check=True,
                              capture_output=True, text=True).stdout

    def send(self, keys, enter=False):
        self.run("send-keys", "-t", "b", "-l", keys)
        if enter:
            self.run("send-keys", "-t", "b", "Enter")

    captures = 0

    def screen(self):
        """The pane's text; `.captured` is how long the last capture took."""
        self.captures += 1
        t0 = time.perf_counter()
        out = self.run("capture-pane", "-t", "b", "-p")
        self.captured = time.perf_counter() - t0
        return out

    def wait(self, text, timeout, prompt=False):
        """Seconds until the screen shows `text` (`prompt`: its last
        non-blank row ends with `text`, as a prompt being typed; None:
        timed out)."""
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < timeout:
            screen = self.screen()
            rows = [r.rstrip() for r in screen.splitlines() if r.strip()]
            if (rows and rows[-1].endswith(text)) if prompt else text in screen:
                return time.perf_counter() - t0
            # Fine polling at first; then every 50 ms, so that a capture
            # a few ms costs does not take the CPU from a long operation.
            time.sleep(0.002 if time.perf_counter() - t0 < 0.3 else 0.05)
        return None

    def timed(self, keys, text, timeout, enter=False):
        """Sends `keys` and times until `text` shows; `.sent` is how long
        the tmux client sending the keys took."""
        t0 = time.perf_counter()
        self.send(keys, enter)
        self.sent = time.perf_counter() - t0
        waited = self.wait(text, timeout)
        return None if waited is None else time.perf_counter() - t0

    def foreground_pid(self):
        shell = self.run("display-message", "-p", "-t", "b", "#{pane_pid}").strip()
        for _ in range(200):
            out = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True).stdout.split()
            if out:
                return int(out[0])
            time.sleep(0.005)
        return None

    def close(self):
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], capture_output=True)


class Peak:
    """Samples the RssAnon of a process every 10 ms; `.kib` is the peak."""

    def __init__(self, pid):
        self.pid, self.kib, self.stop = pid, 0, False
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.stop:
            self.kib = max(self.kib, rss_anon_kib(self.pid))
            time.sleep(0.01)

    def end(self):
        self.stop = True
        self.thread.join()
        return self.kib


def replay(tg, log, keys, env, timeout=600, at_wait=None):
    """Runs `tg view --replay KEYS LOG`: per step (label, ms, RssAnon KiB),
    wall s. At each `{wait}` step the viewer waits for a line on stdin:
    `at_wait()` runs first (a cache drop)."""
    t0 = time.perf_counter()
    p = subprocess.Popen([tg, "view", "--replay", keys, log], env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    timer = threading.Timer(timeout, p.kill)
    timer.daemon = True
    timer.start()
    out = []
    for line in p.stdout:
        if line.rstrip("\n") == "{wait}":
            if at_wait:
                at_wait()
            p.stdin.write("\n")
            p.stdin.flush()
            continue
        out.append(line)
    err = p.stderr.read()
    p.wait()
    timer.cancel()
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"tg view --replay failed: {err}")
    steps = []
    for line in out:
        parts = line.rstrip("\n").split("\t")
        if len(parts) >= 3:  # key, ms, RssAnon KiB[, ms until the UI thread was free]
            steps.append((parts[0], float(parts[1]), int(parts[2])))
    return steps, wall, "".join(out)


def step_ms(steps, label, nth=0):
    """The time of the `nth` step named `label`."""
    found = [s[1] for s in steps if s[0] == label]
    return found[nth] if len(found) > nth else None


def after_ms(steps, label, nth=0):
    """The time of the step after the `nth` step named `label` (a key
    typed after a prompt's Enter: the prompt's own letters share its name)."""
    at = [i for i, s in enumerate(steps) if s[0] == label]
    return steps[at[nth] + 1][1] if len(at) > nth and at[nth] + 1 < len(steps) else None


def schedstat(pid, tid=None):
    """(ms on a CPU, ms waiting for one) of thread `tid` of `pid` (the main
    thread by default), from /proc's schedstat; (0, 0) when it is gone."""
    try:
        with open(f"/proc/{pid}/task/{tid or pid}/schedstat") as f:
            on, waiting, _ = f.read().split()
        return int(on) / 1e6, int(waiting) / 1e6
    except (OSError, ValueError):
        return 0.0, 0.0


def tmux_session(argv, env, ops, timeout, before_op=None, trace=None):
    """Runs `argv` in tmux and times `ops` [(name, typed untimed, keys,
    Enter, text awaited)]: {name: seconds}, peak RssAnon KiB.
    `before_op()` runs before each op after the first (untimed: a cache
    drop), once its prompt text is typed. `trace`, a list, gets per op
    after the first: (name, round trip ms, the viewer's UI thread's ms on
    a CPU and waiting for one, the tmux server's the same, captures, ms
    the `send-keys` client took, ms the last `capture-pane` took)."""
    t = Tmux({k: v for k, v in env.items() if os.environ.get(k) != v})
    try:
        times = {}
        server = int(t.run("display-message", "-p", "#{pid}").strip())
        t0 = time.perf_counter()
        t.send(" ".join(shlex.quote(a) for a in argv), enter=True)
        first = ops[0]
        waited = t.wait(first[4], timeout)
        times[first[0]] = None if waited is None else time.perf_counter() - t0
        # The process is looked for once its first screen is timed: the
        # pgrep calls would take the CPU its start needs (they did, until
        # 2026-12-01 19:10: every earlier first-screen figure includes them).
        pid = t.foreground_pid() if len(ops) > 1 else None
        peak = Peak(pid) if pid else None
        for name, typed, keys, enter, text in ops[1:]:
            if typed:
                # A prompt's text is typed untimed; the clock starts at
                # Enter, once the prompt row shows all of it (the text
                # itself may already be on screen, in a matching line: then
                # the clock would start while the keys are still handled).
                t.send(typed)
                t.wait(typed[1:], timeout, prompt=True)
            if before_op:
                before_op()
            ui0, srv0, caps0 = schedstat(pid) if pid else (0, 0), schedstat(server), t.captures
            times[name] = t.timed(keys, text, timeout, enter)
            if trace is not None and pid and times[name] is not None:
                ui1, srv1 = schedstat(pid), schedstat(server)
                trace.append((name, times[name] * 1000, ui1[0] - ui0[0], ui1[1] - ui0[1],
                              srv1[0] - srv0[0], srv1[1] - srv0[1], t.captures - caps0,
                              t.sent * 1000, t.captured * 1000))
        kib = peak.end() if peak else 0
        t.send("q")
        return times, kib
    finally:
        t.close()


def fmt_ms(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "—"
    med = statistics.median(xs)
    spread = f" ({min(xs):.1f}–{max(xs):.1f})" if len(xs) > 1 else ""
    return f"{med:.1f}{spread}"


def during_search(tg, log, env, timeout):
    """Without an index, while a search for a pattern found nowhere
    (`NEEDLE` + "x") reads the whole file off the UI thread: ms from `j`
    to line 2 at the top, and from Ctrl-C to "search stopped"."""
    t = Tmux({k: v for k, v in env.items() if os.environ.get(k) != v})
    try:
        t.send(" ".join(shlex.quote(a) for a in [tg, "view", log]), enter=True)
        if t.wait("(no index)", timeout) is None:
            return None, None
        t.send(f"/{NEEDLE}x")
        t.wait(f"{NEEDLE}x", timeout, prompt=True)
        t.send("", enter=True)
        # A search that ends before its progress shows (a small file): nothing to time.
        if t.wait("searching… ", min(timeout, 10)) is None:
            return None, None
        t0 = time.perf_counter()
        t.send("j")
        j = None
        while time.perf_counter() - t0 < timeout:
            if t.screen().startswith("   2 "):
                j = time.perf_counter() - t0
                break
            time.sleep(0.002)
        time.sleep(0.2)
        t0 = time.perf_counter()
        t.run("send-keys", "-t", "b", "C-c")
        waited = t.wait("search stopped", timeout)
        stop = None if waited is None else time.perf_counter() - t0
        t.send("q")
        return j, stop
    finally:
        t.close()


def first_screens(a, tg, log, env, first_line, prepare):
    """First screens only, in tmux, every program once per run in turn
    (the machine's load then weighs on all alike): this tg and another
    (`--first-screens OLD_TG`) with and without an index, `less -N`, and
    `head -n 39` (the floor: the shell starting a small program)."""
    text = snippet(first_line)
    cases = [("tg", [tg, "view", log], "indexed"), ("tg", [tg, "view", log], "no index"),
             ("old tg", [os.path.abspath(a.first_screens), "view", log], "indexed"),
             ("old tg", [os.path.abspath(a.first_screens), "view", log], "no index"),
             ("less -N", ["less", "-N", log], "no index"), ("head -n 39", ["head", "-n", "39", log], "no index")]
    times = {}
    for r in range(a.runs):
        for name, argv, state in cases:
            prepare()
            got, _ = tmux_session(argv, env[state], [("first screen", "", "", False, text)], a.timeout)
            ms = got["first screen"]
            times.setdefault((name, state), []).append(None if ms is None else ms * 1000)
        benchlib.log(f"first screens run {r + 1} done")
    md = [f"First screen in tmux (send-keys to capture-pane), {os.path.basename(log)}, "
          f"{'cold' if a.cold else 'hot'}, ms: median (min–max) of {a.runs} runs, interleaved", "",
          "| program | block index | no index |", "|---|---|---|"]
    for name in dict.fromkeys(c[0] for c in cases):
        cells = [fmt_ms(times[(name, s)]) if (name, s) in times else "" for s in ("indexed", "no index")]
        md.append(f"| {name} | " + " | ".join(cells) + " |")
    md += ["", f"Command: `{benchlib.cmdline()}`", f"Host: {benchlib.host_info()}"]
    print("\n".join(md))
    if a.markdown:
        open(a.markdown, "w").write("\n".join(md) + "\n")
    if a.out:
        json.dump({"log": log, "first_screens": {f"{k[0]} ({k[1]})": v for k, v in times.items()}},
                  open(a.out, "w"), indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    corpora = os.path.expanduser("~/.cache/trigrep-corpora/logs")
    default_log = next((os.path.join(corpora, f) for f in ("big8G.log", "big1G.log")
                        if os.path.exists(os.path.join(corpora, f))), None)
    ap.add_argument("--tg", default="target/release/tg")
    ap.add_argument("--log", default=default_log)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--less-runs", type=int, default=1)
    ap.add_argument("--cold", action="store_true", help="drop caches before every run (root)")
    ap.add_argument("--index-dir", default="/tmp/tg-view-bench-index")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--no-less", action="store_true", help="less: the first screen only")
    ap.add_argument("--less-ops", type=int, default=6,
                    help="less: only the first K cases (first screen, jump, g, /needle, n, &needle)")
    ap.add_argument("--no-tmux", action="store_true", help="replay only")
    ap.add_argument("--first-screens", metavar="OLD_TG",
                    help="only first screens in tmux, interleaved run by run: tg, OLD_TG, less, head")
    ap.add_argument("--out")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    tg, log = os.path.abspath(a.tg), os.path.abspath(a.log)
    size = os.path.getsize(log)
    stats_path = log + ".stats.json"
    lines = json.load(open(stats_path))["lines"] if os.path.exists(stats_path) else None
    if lines is None:
        lines = int(subprocess.run(["wc", "-l", log], capture_output=True, text=True).stdout.split()[0])
    n = lines * 73 // 100
    line_n = subprocess.run(["sed", "-n", f"{n}p;{n}q", log], capture_output=True, text=True,
                            errors="replace").stdout.rstrip("\n")
    hits = subprocess.run(["grep", "-n", "-F", NEEDLE, log], capture_output=True, text=True,
                          errors="replace").stdout.splitlines()
    first_line = open(log, errors="replace").readline(1 << 16).rstrip("\n")
    benchlib.log(f"{log}: {size} bytes, {lines} lines, line {n}, {len(hits)} hits of {NEEDLE!r}")

    empty = "/tmp/tg-view-bench-noindex"
    shutil.rmtree(empty, ignore_errors=True)
    os.makedirs(empty)
    os.makedirs(a.index_dir, exist_ok=True)
    have = subprocess.run([tg, "index", "--status", "--index-dir", a.index_dir, log],
                          capture_output=True).returncode == 0
    if not have:
        t0 = time.perf_counter()
        subprocess.run([tg, "index", "-q", "--index-dir", a.index_dir, log], check=True)
        benchlib.log(f"block index built in {time.perf_counter() - t0:.1f} s")
    base_env = dict(os.environ, TG_AUTO_INDEX="0", NO_COLOR="1")
    env = {"indexed": dict(base_env, TG_INDEX_DIR=a.index_dir),
           "no index": dict(base_env, TG_INDEX_DIR=empty)}

    def prepare():
        if not a.cold:
            return
        for attempt in range(5):
            benchlib.drop_caches()
            time.sleep(0.5 + attempt)
            resident = benchlib.resident_bytes([log])
            if resident is not None and resident <= size / 100:
                return
            benchlib.log(f"cache drop {attempt + 1}: {resident} bytes of the log still resident; "
                         f"open by: {holders(log)}")
        # Recorded and said under the table, not fatal: a long run is not
        # lost to one reader elsewhere on a shared machine.
        failed_drops.append(resident)

    rows = {}
    loads = []
    traces = []
    failed_drops = []

    def add(case, tool, value):
        rows.setdefault(case, {}).setdefault(tool, []).append(value)

    if a.first_screens:
        first_screens(a, tg, log, env, first_line, prepare)
        return

    # Replay: tg's own key-to-screen times. Cold: the page cache dropped
    # (and the drop checked) before the viewer starts and before each case.
    # Cold: the density bar a search starts reads in the background (the
    # whole file without an index): waited for before the cache is dropped.
    w, d = ("{wait}", "{density}") if a.cold else ("", "")
    needle_keys = f"/{NEEDLE}\n"
    for r in range(a.runs):
        for state in ("indexed", "no index"):
            prepare()
            # The same keys as in tmux: from line N to the top, search, n, filter.
            if state == "indexed":
                keys = (f"{w}{n}G{w}g{w}{needle_keys}{d}{w}n{w}&{NEEDLE}\n&\n"
                        f"{w}{needle_keys}{{density}}")
            else:
                keys = f"jjj{{count}}{w}{n}G{w}g{w}{needle_keys}{d}{w}n{w}&{NEEDLE}\n"
            steps, wall, _ = replay(tg, log, keys, env[state], a.timeout, at_wait=prepare)
            add(f"first screen ({state})", "tg replay", step_ms(steps, "open"))
            add(f"jump to line {n} ({state})", "tg replay", step_ms(steps, "G"))
            add(f"/needle ({state})", "tg replay", step_ms(steps, "\\n", 0))
            add(f"n to the next match ({state})", "tg replay", after_ms(steps, "\\n", 0))
            add(f"&needle first screen ({state})", "tg replay", step_ms(steps, "\\n", 1))
            add(f"peak RssAnon MiB ({state})", "tg replay", max(s[2] for s in steps) / 1024)
            if state == "indexed":
                density = step_ms(steps, "\\n", 3) + step_ms(steps, "{density}", -1)
                add("density bar complete (indexed)", "tg replay", density)
            else:
                count = step_ms(steps, "{count}")
                add("j while counting (no index)", "tg replay", max(step_ms(steps, "j", i) for i in range(3)))
                add("line count, ms (no index)", "tg replay", count)
                add("line count, GB/s (no index)", "tg replay", size / 1e9 / (count / 1000))
            benchlib.log(f"replay {state} run {r + 1}: wall {wall:.2f} s, load {os.getloadavg()[0]:.1f}")
            loads.append(os.getloadavg()[0])

    # tmux: tg and less, the same keys, the same waits.
    s_first, s_n = snippet(first_line), snippet(line_n)
    s_hits = [snippet(h.split(":", 1)[1]) for h in hits]
    if a.no_tmux:
        pass
    elif s_first and s_n and len(s_hits) >= 2 and all(s_hits):
        # (tool, argv, state, only the first screen)
        tools = [("tg tmux", [tg, "view", log], "indexed", False),
                 ("tg tmux", [tg, "view", log], "no index", False)]
        if shutil.which("less"):
            tools.append(("less tmux", ["less", "-N", log], "no index", a.no_less))
        # The floor of a first screen in tmux: the shell starting a small
        # program that prints the same lines and exits.
        tools.append(("head tmux", ["head", "-n", "39", log], "no index", True))
        for tool, argv, state, first_only in tools:
            runs = a.less_runs if tool.startswith("less") and not first_only else a.runs
            for r in range(runs):
                ops = [("first screen", "", "", False, s_first),
                       (f"jump to line {n}", "", f"{n}G", False, s_n),
                       ("g to the first line", "", "g", False, s_first),
                       ("/needle", f"/{NEEDLE}", "", True, s_hits[0]),
                       ("n to the next match", "", "n", False, s_hits[1]),
                       ("&needle first screen", f"&{NEEDLE}", "", True, s_hits[-1])]
                if first_only:
                    ops = ops[:1]
                elif tool.startswith("less"):
                    ops = ops[:a.less_ops]
                prepare()
                trace = []
                times, kib = tmux_session(argv, env[state], ops, a.timeout,
                                          before_op=prepare if a.cold else None, trace=trace)
                traces.extend((tool, state, *x) for x in trace)
                loads.append(os.getloadavg()[0])
                for name, secs in times.items():
                    add(f"{name} ({state})", tool, None if secs is None else secs * 1000)
                if not first_only:
                    add(f"peak RssAnon MiB ({state})", tool, kib / 1024)
                benchlib.log(f"{tool} {state} run {r + 1}: " + ", ".join(
                    f"{k} {'timeout' if v is None else f'{v * 1000:.0f} ms'}" for k, v in times.items()))
        for r in range(a.runs):
            prepare()
            j, stop = during_search(tg, log, env["no index"], a.timeout)
            add("j during a search (no index)", "tg tmux", None if j is None else j * 1000)
            add("Ctrl-C stops a search (no index)", "tg tmux", None if stop is None else stop * 1000)
    else:
        benchlib.log("no usable snippets of the target lines: tmux timings skipped")

    tool_names = ["tg replay", "tg tmux", "less tmux", "head tmux"]
    head = f"`tg view` vs `less`, {os.path.basename(log)} ({size / 2**30:.1f} GiB, {lines} lines), " \
           f"{'cold' if a.cold else 'hot'}, ms unless said (median (min–max) of {a.runs} runs; less: {a.less_runs})"
    md = [head, "", "| case | " + " | ".join(tool_names) + " |", "|---|" + "---|" * len(tool_names)]
    for case, by_tool in rows.items():
        cells = []
        for tool in tool_names:
            xs = by_tool.get(tool)
            cells.append("" if xs is None else fmt_ms(xs))
        md.append(f"| {case} | " + " | ".join(cells) + " |")
    if traces:
        # Where the slowest tmux round trips went: the viewer's UI thread
        # on a CPU or waiting for one, the tmux server the same.
        md += ["", "Slowest tmux round trips (ms): the viewer's UI thread on a CPU / waiting "
               "for one, the tmux server on a CPU / waiting, captures polled, the `send-keys` "
               "client's time, the last `capture-pane`'s", "",
               "| tool | case | round trip | UI on CPU | UI waiting | tmux on CPU | tmux waiting "
               "| captures | send-keys | last capture |",
               "|---|---|---|---|---|---|---|---|---|---|"]
        for tool, state, name, ms, ui_on, ui_wait, srv_on, srv_wait, caps, sent, cap in \
                sorted(traces, key=lambda x: -x[3])[:12]:
            md.append(f"| {tool} | {name} ({state}) | {ms:.1f} | {ui_on:.1f} | {ui_wait:.1f} | "
                      f"{srv_on:.1f} | {srv_wait:.1f} | {caps} | {sent:.1f} | {cap:.1f} |")
    if a.cold:
        md += ["", f"Cache drops that left more than 1 % of the log resident (after 5 tries; "
               f"the case then ran partly warm): {len(failed_drops)}"
               + (f", resident bytes {failed_drops}" if failed_drops else "")]
    if loads:
        md += ["", f"Load average (1 min) during the runs: {min(loads):.1f}–{max(loads):.1f} "
               f"on {os.cpu_count()} cores (the machine is shared)"]
    md += ["", f"Command: `{benchlib.cmdline()}`", f"Host: {benchlib.host_info()}"]
    print("\n".join(md))
    if a.markdown:
        open(a.markdown, "w").write("\n".join(md) + "\n")
    if a.out:
        json.dump({"log": log, "size": size, "lines": lines, "rows": rows, "loads": loads,
                   "traces": traces},
                  open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
