#!/usr/bin/env python3
"""What a search of many objects under one prefix costs, against the user's
alternative (download them all, then `rg -z` over the copies).

A log (default: the 1 GiB log of bench/README.md's corpora) is cut at line
ends into --objects pieces, each packed by `tg pack` (`app-NNN.log.zst`),
and put in a bucket of a local S3 server (s3s-fs) under `logs/`. Behind
the latency proxy of bench/s3_remote.py (0 and 20 ms a request), each
query runs as

  tg --stats QUERY s3://bench/logs/                      (each binary given)
  curl --parallel -o DIR/... (every object) && rg -z QUERY DIR

Before anything is timed, each tg's output with `--sort path` must equal
`rg -z --sort path` on the copies (names mapped); the timed runs (no
--sort: parallel, in any order) must print the same lines, sorted.
Reported per query, binary and latency: requests (counted by the proxy),
bytes fetched (tg's --stats), wall time (median of --runs) and CPU.

  bench/s3_objects.py --tg OLD_TG NEW_TG [--log LOG] [--objects 100] \\
      [--latency 0 20] [--runs 3] [--out bench/results/s3-objects]

With --plain-indexed the pieces are put as they are (`app-NNN.log`), each
with its index object beside it (`tg index s3://bench/logs/app-NNN.log`,
--block-size, by the last tg), and searched through those.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from s3_remote import (DEFAULT_LOG, DEFAULT_RG, DEFAULT_S3S, KEY, SECRET,  # noqa: E402
                       all_queries, log, start_server, stat, timed)

DEFAULT_QUERIES = ["needle_three", "sshd_failed", "ts_minute_regex", "nohit_literal"]


def queries(only):
    return [(n, q) for n, q in all_queries() if n in only]


def cut(path, n, out_dir):
    """`path` cut at line ends into `n` files of about equal size."""
    size = os.path.getsize(path)
    names = []
    with open(path, "rb") as f:
        for i in range(n):
            want = size * (i + 1) // n - f.tell()
            piece = f.read(want)
            if i < n - 1:
                piece += f.readline()
            name = os.path.join(out_dir, f"app-{i:03}.log")
            with open(name, "wb") as o:
                o.write(piece)
            names.append(name)
    return names


def curl(proxy_url, extra):
    return ["curl", "-sf", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", f"{KEY}:{SECRET}",
            "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"] + extra


def sorted_lines(out):
    return sorted(re.sub(rb"(?m)^([\d.]+ seconds.*|\d+ bytes searched)\n", b"", out).splitlines())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tg", required=True, nargs="+")
    ap.add_argument("--rg", default=DEFAULT_RG)
    ap.add_argument("--s3s-fs", default=DEFAULT_S3S)
    ap.add_argument("--log", default=DEFAULT_LOG)
    ap.add_argument("--objects", type=int, default=100)
    ap.add_argument("--latency", type=float, nargs="+", default=[0, 20])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", nargs="+", default=DEFAULT_QUERIES)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results/s3-objects"))
    ap.add_argument("--plain-indexed", action="store_true",
                    help="plain objects, each with an index object beside it")
    ap.add_argument("--block-size", default="64K", help="tg index's --block-size (--plain-indexed)")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="tg-s3-objects-", dir="/var/tmp")
    data, pieces, copies = (os.path.join(work, d) for d in ("data", "pieces", "copies"))
    for d in (os.path.join(data, "bench"), pieces):
        os.makedirs(d)
    server, proxy, proxy_url = start_server(a.s3s_fs, data)
    port = proxy.upstream
    env = dict(os.environ, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET,
               AWS_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true",
               AWS_ENDPOINT_URL=proxy_url, TG_AUTO_INDEX="0")
    url = "s3://bench/logs/"
    results = {"log": a.log, "tg": a.tg, "objects": a.objects, "rows": []}
    try:
        time.sleep(0.5)
        total = 0
        for name in cut(a.log, a.objects, pieces):
            up = name
            if not a.plain_indexed:
                subprocess.run([a.tg[-1], "pack", "-q", name], check=True)
                up = name + ".zst"
            key = "logs/" + os.path.basename(up)
            subprocess.run(curl(f"http://127.0.0.1:{port}", ["-T", up,
                           f"http://127.0.0.1:{port}/bench/{key}"]), check=True)
            total += os.path.getsize(up)
            if a.plain_indexed:
                idx = tempfile.mkdtemp(prefix="tg-s3-objects-idx-")
                subprocess.run([a.tg[-1], "index", "-q", "--block-size", a.block_size,
                                "s3://bench/" + key], check=True,
                               env=dict(env, TG_INDEX_DIR=idx, AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}"))
                shutil.rmtree(idx, ignore_errors=True)
                os.truncate(name, 0)
            else:
                os.unlink(name)
        results["object_bytes"] = total
        log(f"{a.objects} packed objects, {total} bytes")
        names = sorted(os.path.basename(p) for p in os.listdir(pieces))
        fetch = curl(proxy_url, ["--parallel", "--parallel-max", "32", "--create-dirs"])
        for n in names:
            fetch += ["-o", os.path.join(copies, n), f"{proxy_url}/bench/logs/{n}"]

        def download():
            shutil.rmtree(copies, ignore_errors=True)
            return timed(fetch)

        download()
        to_local = lambda out: out.replace(url.encode(), (copies + "/").encode())
        for name, args in queries(a.only):
            want, _, _, _ = timed([a.rg, "-z", "--sort", "path"] + args + [copies])
            for tg in a.tg:
                idx = tempfile.mkdtemp(prefix="tg-s3-objects-idx-")
                got, err, _, _ = timed([tg, "--sort", "path"] + args + [url],
                                       env=dict(env, TG_INDEX_DIR=idx))
                shutil.rmtree(idx, ignore_errors=True)
                assert to_local(got) == want, f"{tg} {name}: differs from rg -z --sort path"
            for latency in a.latency:
                proxy.latency = latency / 1000
                for tg in a.tg:
                    walls, cpus = [], []
                    for _ in range(a.runs):
                        idx = tempfile.mkdtemp(prefix="tg-s3-objects-idx-")
                        before = proxy.requests
                        got, err, wall, cpu = timed([tg] + args + [url],
                                                    env=dict(env, TG_INDEX_DIR=idx))
                        shutil.rmtree(idx, ignore_errors=True)
                        requests = proxy.requests - before
                        assert sorted_lines(to_local(got)) == sorted_lines(want), \
                            f"{tg} {name}: differs from rg -z"
                        walls.append(wall)
                        cpus.append(cpu)
                    # Bytes fetched: tg's --stats (an untimed run more).
                    idx = tempfile.mkdtemp(prefix="tg-s3-objects-idx-")
                    _, err, _, _ = timed([tg, "--stats"] + args + [url],
                                         env=dict(env, TG_INDEX_DIR=idx))
                    shutil.rmtree(idx, ignore_errors=True)
                    row = {"query": name, "latency_ms": latency, "tg": tg,
                           "requests": requests, "fetched": stat(err, "bytes fetched"),
                           "wall": statistics.median(walls), "cpu": statistics.median(cpus)}
                    results["rows"].append(row)
                    log(f"{latency:>4} ms {name:18} {tg}: {requests} req "
                        f"{100 * row['fetched'] / total:5.1f}% {row['wall']:.3f}s "
                        f"(cpu {row['cpu']:.2f}s)")
                walls, cpus = [], []
                for _ in range(a.runs):
                    _, _, dl_wall, dl_cpu = download()
                    got, _, s_wall, s_cpu = timed([a.rg, "-z"] + args + [copies])
                    assert sorted_lines(got) == sorted_lines(want), f"rg -z {name}"
                    walls.append(dl_wall + s_wall)
                    cpus.append(dl_cpu + s_cpu)
                row = {"query": name, "latency_ms": latency, "tg": "download + rg -z",
                       "requests": len(names), "fetched": total,
                       "wall": statistics.median(walls), "cpu": statistics.median(cpus)}
                results["rows"].append(row)
                log(f"{latency:>4} ms {name:18} download + rg -z: {row['wall']:.3f}s "
                    f"(cpu {row['cpu']:.2f}s)")
    finally:
        proxy.shutdown()
        server.kill()
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out + ".json", "w") as f:
        json.dump(results, f, indent=1)
    with open(a.out + ".md", "w") as f:
        what = (f"plain objects, each with an index object beside it (`tg index --block-size "
                f"{a.block_size}`)") if a.plain_indexed else "packed objects"
        f.write(f"{a.objects} {what} under one prefix, {results['object_bytes']:,} "
                f"bytes in all (`{a.log}` cut at line ends, `tg pack` each). Wall: median of "
                f"{a.runs}; CPU = user+sys of the processes. Requests counted by the proxy.\n\n")
        f.write("| latency | query | reader | requests | fetched | % | wall | CPU |\n")
        f.write("|---:|---|---|---:|---:|---:|---:|---:|\n")
        for r in results["rows"]:
            f.write(f"| {r['latency_ms']:g} ms | {r['query']} | {r['tg']} | {r['requests']} "
                    f"| {r['fetched']:,} | {100 * r['fetched'] / results['object_bytes']:.1f} "
                    f"| {r['wall']:.3f} s | {r['cpu']:.2f} s |\n")
    log(f"wrote {a.out}.md and .json")


if __name__ == "__main__":
    main()
