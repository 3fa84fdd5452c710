#!/usr/bin/env python3
# twocores.py -- how much faster can two cores search one cached file than
# one? The ceiling for `tg`'s parallel scan of a hot file, measured without
# tg: run rg on FILE alone, then again while a second rg searches a
# different cached file (OTHER) in a loop on the other core. Two independent
# processes share nothing but the machine (memory bandwidth, caches, the
# host), so
#
#   ceiling = 2 x (rg alone / rg with a neighbour)
#
# is the best speed-up any two-thread search of FILE can reach here. tg -j1
# and tg (all threads) are timed in the same rounds, alternating, so the
# report shows tg against that ceiling.
#
#   python3 bench/twocores.py --rg RG --tg TG --file ~/.cache/trigrep-corpora/logs/big8G.log \
#       --other ~/.cache/trigrep-corpora/logs/big1G.log --query '-F XYZZY-NEEDLE-4242' --runs 7
#
# Both files are read once first (cat) so that they are cached; the machine
# needs RAM for both. Stdlib only; uses benchlib.run_drained for timing.
import argparse
import json
import os
import shlex
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as B  # noqa: E402


class Neighbour:
    """A second rg searching OTHER in a loop until stopped."""

    def __init__(self, argv):
        self.argv = argv
        self.stop = threading.Event()
        self.rounds = 0
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self):
        while not self.stop.is_set():
            subprocess.run(self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.rounds += 1

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rg", required=True)
    ap.add_argument("--tg", required=True)
    ap.add_argument("--file", required=True, help="the big file searched")
    ap.add_argument("--other", required=True, help="a different file the neighbour searches")
    ap.add_argument("--query", default="-F XYZZY-NEEDLE-4242", help="rg arguments")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--out", help="write results JSON here")
    a = ap.parse_args(B.glue_dash_values(sys.argv[1:], ("--query",)))

    q = shlex.split(a.query)
    for f in (a.file, a.other):
        subprocess.run(["cat", f], stdout=subprocess.DEVNULL, check=True)
    rg = [a.rg] + q + [a.file]
    cases = {"rg alone": rg, "tg -j1": [a.tg, "-j1"] + q + [a.file], "tg": [a.tg] + q + [a.file]}
    first = {name: B.run_drained(argv, keep_output=True)["out"] for name, argv in cases.items()}
    if len(set(first.values())) != 1:
        sys.exit("outputs differ between rg and tg; not timing")
    walls = {name: [] for name in list(cases) + ["rg with a neighbour"]}
    for _ in range(a.runs):
        for name, argv in cases.items():
            walls[name].append(B.run_drained(argv)["wall"])
        with Neighbour([a.rg] + q + [a.other]):
            B.run_drained(rg)   # the neighbour is running from here on
            walls["rg with a neighbour"].append(B.run_drained(rg)["wall"])
    med = {k: B.summary(v) for k, v in walls.items()}
    alone = med["rg alone"]["median"]
    ceiling = 2 * alone / med["rg with a neighbour"]["median"]
    size = os.path.getsize(a.file)
    B.log("%s; %s, hot, %d runs each, medians (min-max):" % (
        B.host_info()["date"], os.path.basename(a.file), a.runs))
    for k, s in med.items():
        B.log("  %-20s %.3f s (%.3f-%.3f)  %5.1f GB/s  rg alone / this = %.2f" % (
            k, s["median"], s["min"], s["max"], size / s["median"] / 1e9, alone / s["median"]))
    B.log("  two-core ceiling: 2 x rg alone / rg with a neighbour = %.2f" % ceiling)
    # The ceiling moves with the host (which cores the two vCPUs get, what
    # else it runs): compare tg with it round by round.
    B.log("  per round: rg alone, rg with a neighbour, ceiling, rg alone / tg:")
    rounds = []
    for i in range(a.runs):
        r_alone, r_neigh, r_tg = (walls[k][i] for k in ("rg alone", "rg with a neighbour", "tg"))
        rounds.append({"ceiling": 2 * r_alone / r_neigh, "tg_speedup": r_alone / r_tg})
        B.log("    %2d  %.3f  %.3f  %.2f  %.2f" % (i + 1, r_alone, r_neigh, rounds[-1]["ceiling"],
                                                 rounds[-1]["tg_speedup"]))
    if a.out:
        with open(a.out, "w") as fh:
            json.dump({"command": B.cmdline(("--query",)), "host": B.host_info(),
                       "file_bytes": size, "walls": walls, "medians": med,
                       "ceiling": ceiling, "rounds": rounds}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
