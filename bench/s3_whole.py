#!/usr/bin/env python3
"""Where fetching a packed object whole ahead of its search beats fetching
its ends ahead and then its frames (engine/src/remote/mod.rs, WHOLE_AHEAD).

For each text size asked (--sizes: the objects' mean size is reported),
--objects pieces of the log are packed (`tg pack`) and
put under one prefix of a local S3 server (s3s-fs), behind the latency
proxy of bench/s3_remote.py. Each query then runs over the prefix with
every object fetched whole ahead (TG_BENCH_WHOLE_AHEAD=2^40) and with
none (=0: the ends ahead, then the frames), at each latency; the output
(sorted lines) must equal rg's over the local pieces first. Reported:
requests (counted by the proxy), bytes fetched (tg's --stats), wall time
(median of --runs) and CPU.

  bench/s3_whole.py --tg target/release/tg [--sizes 32K 128K 512K 2M 8M 32M] \\
      [--objects 32] [--latency 0 20] [--runs 3] [--out bench/results/s3-whole]
"""
import argparse
import json
import re
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from s3_remote import (DEFAULT_LOG, DEFAULT_RG, DEFAULT_S3S, KEY, SECRET,  # noqa: E402
                       all_queries, log, start_server, stat, timed)
from s3_objects import curl, sorted_lines  # noqa: E402

MODES = {"whole": str(1 << 40), "ends+frames": "0"}


def size_of(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tg", required=True)
    ap.add_argument("--rg", default=DEFAULT_RG)
    ap.add_argument("--s3s-fs", default=DEFAULT_S3S)
    ap.add_argument("--log", default=DEFAULT_LOG)
    ap.add_argument("--sizes", nargs="+", default=["32K", "128K", "512K", "2M", "8M", "32M"])
    ap.add_argument("--objects", type=int, default=32)
    ap.add_argument("--latency", type=float, nargs="+", default=[0, 20])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", nargs="+", default=["needle_three", "nohit_literal"])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results/s3-whole"))
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="tg-s3-whole-", dir="/var/tmp")
    data = os.path.join(work, "data")
    os.makedirs(os.path.join(data, "bench"))
    server, proxy, proxy_url = start_server(a.s3s_fs, data)
    port = proxy.upstream
    env = dict(os.environ, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET,
               AWS_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true",
               AWS_ENDPOINT_URL=proxy_url, TG_AUTO_INDEX="0")
    queries = [(n, q) for n, q in all_queries() if n in a.only]
    results = {"log": a.log, "tg": a.tg, "objects": a.objects, "rows": []}
    try:
        time.sleep(0.5)
        with open(a.log, "rb") as f:
            for size in a.sizes:
                pieces = os.path.join(work, "pieces-" + size)
                os.makedirs(pieces)
                sizes = []
                for i in range(a.objects):
                    text = f.read(size_of(size)) + f.readline()
                    name = os.path.join(pieces, f"app-{i:03}.log")
                    with open(name, "wb") as o:
                        o.write(text)
                    subprocess.run([a.tg, "pack", "-q", name], check=True)
                    subprocess.run(curl(f"http://127.0.0.1:{port}", [
                        "-T", name + ".zst",
                        f"http://127.0.0.1:{port}/bench/{size}/app-{i:03}.log.zst"]), check=True)
                    sizes.append(os.path.getsize(name + ".zst"))
                    os.unlink(name + ".zst")
                mean = sum(sizes) / len(sizes)
                log(f"{size}: {a.objects} objects of {mean / 1024:.0f} KiB on average")
                url = f"s3://bench/{size}/"
                for qname, args in queries:
                    want, _, _, _ = timed([a.rg, "--sort", "path"] + args + [pieces])
                    want = re.sub(rb"(?m)^" + re.escape((pieces + "/").encode()) + rb"(app-\d+\.log)",
                                  url.encode() + rb"\1.zst", want)
                    want = sorted_lines(want)
                    for latency in a.latency:
                        proxy.latency = latency / 1000
                        for mode, knob in MODES.items():
                            walls, cpus = [], []
                            for _ in range(a.runs):
                                idx = tempfile.mkdtemp(prefix="tg-s3-whole-idx-")
                                before = proxy.requests
                                got, err, wall, cpu = timed(
                                    [a.tg, "--stats"] + args + [url],
                                    env=dict(env, TG_INDEX_DIR=idx, TG_BENCH_WHOLE_AHEAD=knob))
                                requests = proxy.requests - before
                                shutil.rmtree(idx, ignore_errors=True)
                                got = [l for l in sorted_lines(got) if l.startswith(url.encode())]
                                assert got == want, f"{size} {qname} {mode}: differs from rg"
                                walls.append(wall)
                                cpus.append(cpu)
                            row = {"size": size, "mean_object": mean, "query": qname,
                                   "latency_ms": latency, "mode": mode, "requests": requests,
                                   "fetched": stat(err, "bytes fetched"),
                                   "total": sum(sizes),
                                   "wall": statistics.median(walls),
                                   "cpu": statistics.median(cpus)}
                            results["rows"].append(row)
                            log(f"{size:>5} {latency:>4} ms {qname:14} {mode:12} "
                                f"{requests:4} req {row['fetched']:>10} B {row['wall']:.3f}s")
                shutil.rmtree(pieces, ignore_errors=True)
    finally:
        proxy.shutdown()
        server.kill()
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out + ".json", "w") as f:
        json.dump(results, f, indent=1)
    with open(a.out + ".md", "w") as f:
        f.write(f"{a.objects} packed objects a size under one prefix (`{a.log}` cut at line "
                f"ends, `tg pack` each); fetched whole ahead of their search, or their ends "
                f"ahead and then their frames. Wall: median of {a.runs}; CPU = user+sys. "
                f"Requests counted by the proxy.\n\n")
        f.write("| text a piece (object: mean size) | latency | query | fetched ahead | requests | fetched "
                "| wall | CPU |\n|---|---:|---|---|---:|---:|---:|---:|\n")
        for r in results["rows"]:
            f.write(f"| {r['size']} ({r['mean_object'] / 1024:.0f} KiB) | {r['latency_ms']:g} ms "
                    f"| {r['query']} | {r['mode']} | {r['requests']} | {r['fetched']:,} "
                    f"| {r['wall']:.3f} s | {r['cpu']:.2f} s |\n")
    log(f"wrote {a.out}.md and .json")


if __name__ == "__main__":
    main()
