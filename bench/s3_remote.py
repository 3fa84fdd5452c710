#!/usr/bin/env python3
"""What searching a packed log in an object store costs, against the user's
alternative (download the object, then `zstd -d | rg`).

Corpus: ~/.cache/trigrep-corpora/logs/big1G.log (bench/queries/log.txt's
selective queries). The log is packed and uploaded by `tg pack LOG -o
s3://bench/big1G.log.zst` (multipart upload) to a local S3 server (s3s-fs,
as the tests use), checked by downloading it and comparing its text with
the log. Then, behind a proxy that adds a fixed latency to every request
(0 and 20 ms), each query runs as

  tg --stats QUERY s3://bench/big1G.log.zst        (ranged reads)
  curl --aws-sigv4 ... -o OBJ && zstd -dc OBJ | rg QUERY   (download first)

and both outputs must equal `rg QUERY big1G.log` before anything counts.
Reported per query: requests and bytes fetched (counts: load does not
change them), wall time and CPU time (user+sys of tg; of curl, zstd and rg
for the alternative). The machine is shared: wall times are noisy, the
counts and the CPU times less so.

  bench/s3_remote.py --tg [OLD_TG] target/release/tg [--latency 0 20] [--runs 3] [--out bench/results/s3-remote]

With two tgs, each query runs with each (an old tg against a new one, in
the same run, on the same object and server), every output compared first.
With --runs N, every timing (the alternative's, each tg's cold and warm
reader: a fresh index directory each time) is the median of N runs,
interleaved (alternative, then each tg, N times over).
"""
import argparse
import hashlib
import json
import re
import os
import resource
import shlex
import shutil
import socket
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import time

KEY, SECRET = "tgtestkey", "tgtestsecret"
HOME = os.path.expanduser("~")
DEFAULT_LOG = os.path.join(HOME, ".cache/trigrep-corpora/logs/big1G.log")
DEFAULT_S3S = os.path.join(HOME, ".cache/trigrep-ci/s3s-fs-0.14.1/bin/s3s-fs")
DEFAULT_RG = os.path.join(HOME, ".cache/trigrep-ci/rg-15.2.0/bin/rg")
QUERIES = os.path.join(os.path.dirname(__file__), "queries/log.txt")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


class Proxy(socketserver.ThreadingTCPServer):
    """One request per connection, forwarded to the server after `latency`
    seconds; counts requests."""
    daemon_threads = True
    allow_reuse_address = True
    # A client with many requests in flight (tg over a prefix) connects
    # many times at once: a backlog of 5 (socketserver's) drops SYNs.
    request_queue_size = 256

    def __init__(self, upstream):
        super().__init__(("127.0.0.1", 0), Handler)
        self.upstream, self.latency, self.requests = upstream, 0.0, 0
        self.lock = threading.Lock()


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        conn, data = self.request, b""
        while b"\r\n\r\n" not in data:
            got = conn.recv(65536)
            if not got:
                return
            data += got
        head, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        while len(body) < length:
            got = conn.recv(65536)
            if not got:
                break
            body += got
        with self.server.lock:
            self.server.requests += 1
        time.sleep(self.server.latency)
        lines = [l for l in head.split(b"\r\n") if not l.lower().startswith(b"connection:")]
        up = socket.create_connection(("127.0.0.1", self.server.upstream))
        up.sendall(b"\r\n".join(lines) + b"\r\nConnection: close\r\n\r\n" + body)
        while True:
            got = up.recv(1 << 20)
            if not got:
                break
            conn.sendall(got)
        up.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed(cmd, env=None, stdin=None, shell=False):
    """Runs cmd; (stdout, stderr, wall seconds, children's user+sys seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    p = subprocess.run(cmd, env=env, stdin=stdin, shell=shell, capture_output=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{cmd}: exit {p.returncode}: {p.stderr.decode(errors='replace')[:2000]}")
    return p.stdout, p.stderr, wall, cpu


def stat(stderr, name):
    for line in stderr.decode(errors="replace").splitlines():
        line = line.strip()
        if line.startswith(name + ":"):
            return int(line.split(":", 1)[1].split()[0])
    return 0


def printed(out):
    """`out` without --stats' times and bytes searched (tg reads fewer)."""
    return re.sub(rb"(?m)^([\d.]+ seconds.*|\d+ bytes searched)\n", b"", out)


ONLY = None


def all_queries():
    """Every query of the query file, as (name, argument list)."""
    out = []
    with open(QUERIES) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, args = line.rstrip("\n").split("\t", 1)
            out.append((name, shlex.split(args)))
    return out


def queries():
    return [(n, q) for n, q in all_queries()
            if not n.startswith(("heavy_", "inverted_")) and not (ONLY and n not in ONLY)]


def start_server(s3s_fs, data):
    """s3s-fs over the directory `data` on a free port, and the latency
    proxy in front of it: (the server's process, the proxy, its URL)."""
    port = free_port()
    server = subprocess.Popen([s3s_fs, "--host", "127.0.0.1", "--port", str(port),
                               "--access-key", KEY, "--secret-key", SECRET, data],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proxy = Proxy(port)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    return server, proxy, f"http://127.0.0.1:{proxy.server_address[1]}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tg", required=True, nargs="+", help="one tg, or an old and a new one")
    ap.add_argument("--rg", default=DEFAULT_RG)
    ap.add_argument("--s3s-fs", default=DEFAULT_S3S)
    ap.add_argument("--log", default=DEFAULT_LOG)
    ap.add_argument("--latency", type=float, nargs="+", default=[0, 20])
    ap.add_argument("--only", nargs="+", help="these queries of log.txt only")
    ap.add_argument("--runs", type=int, default=1, help="timings: the median of this many")
    ap.add_argument("--object", help="a packed LOG made already (by any tg pack): uploaded "
                    "with one PUT instead of packed by `tg pack -o s3://...`")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results/s3-remote"))
    a = ap.parse_args()
    global ONLY
    ONLY = a.only
    data = tempfile.mkdtemp(prefix="tg-s3-bench-", dir="/var/tmp")
    os.makedirs(os.path.join(data, "bench"))
    server, proxy, proxy_url = start_server(a.s3s_fs, data)
    port = proxy.upstream
    index_dir = tempfile.mkdtemp(prefix="tg-s3-bench-idx-")
    base_env = dict(os.environ, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET,
                    AWS_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true",
                    TG_INDEX_DIR=index_dir, TG_AUTO_INDEX="0")
    direct = dict(base_env, AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}")
    via = dict(base_env, AWS_ENDPOINT_URL=proxy_url)
    url = "s3://bench/big1G.log.zst"
    obj = os.path.join(data, "download.zst")
    results = {"log": a.log, "tg": a.tg, "rows": [], "load_before": os.getloadavg()}
    try:
        time.sleep(0.5)
        if a.object:
            put = ["curl", "-sf", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user",
                   f"{KEY}:{SECRET}", "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD",
                   "-T", a.object, f"http://127.0.0.1:{port}/bench/big1G.log.zst"]
            _, err, wall, cpu = timed(put)
        else:
            _, err, wall, cpu = timed([a.tg[-1], "pack", a.log, "-o", url], env=direct)
        size = os.path.getsize(os.path.join(data, "bench/big1G.log.zst"))
        results["pack"] = {"wall": wall, "cpu": cpu, "object_bytes": size,
                           "by": "curl PUT of " + a.object if a.object else "tg pack -o"}
        log(f"packed and uploaded in {wall:.1f}s ({cpu:.1f}s CPU): {size} bytes")
        curl = ["curl", "-sf", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", f"{KEY}:{SECRET}",
                "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD",
                "-o", obj, f"{proxy_url}/bench/big1G.log.zst"]
        # The uploaded object holds the log: its text, byte for byte.
        timed(curl)
        text_hash = hashlib.sha256()
        with subprocess.Popen(["zstd", "-dc", obj], stdout=subprocess.PIPE) as z:
            for piece in iter(lambda: z.stdout.read(1 << 20), b""):
                text_hash.update(piece)
        with open(a.log, "rb") as f:
            want = hashlib.file_digest(f, "sha256").hexdigest()
        assert text_hash.hexdigest() == want, "the uploaded object's text is not the log's"
        log("the object's text is the log's")
        expected = {}
        for name, args in queries():
            out, _, _, _ = timed([a.rg, "--stats"] + args + [a.log])
            expected[name] = printed(out)
        for latency in a.latency:
            proxy.latency = latency / 1000
            for name, args in queries():
                rows = {}
                alt_walls, alt_cpus = [], []
                for run in range(a.runs):
                    os.unlink(obj) if os.path.exists(obj) else None
                    _, _, dl_wall, dl_cpu = timed(curl)
                    pipeline = f"zstd -dc {shlex.quote(obj)} | {shlex.quote(a.rg)} " + \
                        " ".join(shlex.quote(x) for x in args)
                    out, _, s_wall, s_cpu = timed(pipeline + " --stats", shell=True)
                    assert printed(out) == expected[name], f"zstd -d | rg {name} differs from rg"
                    alt_walls.append(dl_wall + s_wall)
                    alt_cpus.append(dl_cpu + s_cpu)
                    for which, tg in enumerate(a.tg):
                        # Cold: a reader that never saw the object (its index
                        # fetched, whole or by range); warm: the same reader
                        # again (what it kept of the index at hand).
                        fresh = tempfile.mkdtemp(prefix="tg-s3-bench-reader-")
                        reader = dict(via, TG_INDEX_DIR=fresh)
                        label = "new" if which == len(a.tg) - 1 and len(a.tg) > 1 else \
                            ("old" if len(a.tg) > 1 else "tg")
                        row = rows.setdefault(label, {"query": name, "latency_ms": latency,
                                                      "object_bytes": size, "tg": label})
                        for kind in ("cold", "warm"):
                            before = proxy.requests
                            out, err, wall, cpu = timed([tg, "--stats"] + args + [url], env=reader)
                            assert printed(out) == expected[name], \
                                f"tg {label} {name} ({kind}) differs from rg"
                            blocks = re.search(rb"blocks searched: (\d+) of (\d+)", err)
                            row.setdefault(f"{kind}_walls", []).append(wall)
                            row.setdefault(f"{kind}_cpus", []).append(cpu)
                            row.update({f"{kind}_requests": stat(err, "object store requests"),
                                        f"{kind}_proxied": proxy.requests - before,
                                        f"{kind}_fetched": stat(err, "bytes fetched"),
                                        "frames": blocks and [int(blocks[1]), int(blocks[2])]})
                        shutil.rmtree(fresh, ignore_errors=True)
                for label, row in rows.items():
                    for kind in ("cold", "warm"):
                        row[f"{kind}_wall"] = statistics.median(row[f"{kind}_walls"])
                        row[f"{kind}_cpu"] = statistics.median(row[f"{kind}_cpus"])
                    row.update(alt_wall=statistics.median(alt_walls),
                               alt_cpu=statistics.median(alt_cpus), runs=a.runs)
                    row["speedup_cold"] = row["alt_wall"] / row["cold_wall"]
                    row["speedup_warm"] = row["alt_wall"] / row["warm_wall"]
                    results["rows"].append(row)
                    log(f"{latency:>4} ms {name:20} {label:3} cold {row['cold_requests']:3} req "
                        f"{100 * row['cold_fetched'] / size:5.2f}% {row['cold_wall']:6.3f}s; warm "
                        f"{row['warm_requests']:3} req {100 * row['warm_fetched'] / size:5.2f}% "
                        f"{row['warm_wall']:6.3f}s; alt {row['alt_wall']:6.2f}s "
                        f"x{row['speedup_cold']:.1f} / x{row['speedup_warm']:.1f}")
    finally:
        proxy.shutdown()
        server.kill()
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(index_dir, ignore_errors=True)
    results["load_after"] = os.getloadavg()
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out + ".json", "w") as f:
        json.dump(results, f, indent=1)
    with open(a.out + ".md", "w") as f:
        f.write(f"object: {results['pack']['object_bytes']} bytes ({results['pack']['by']}, "
                f"{results['pack']['wall']:.1f} s wall, {results['pack']['cpu']:.1f} s CPU)\n\n")
        f.write("tg: " + " against ".join(results["tg"]) + "\n\n")
        f.write("Cold: a reader that never read the object (fetches its block index, whole or "
                "by range); warm: "
                "the same reader again (what it kept of the index, by ETag and size). The alternative: "
                "download the object (curl), then `zstd -dc | rg`. Wall times (median of "
                f"{a.runs}) on a shared machine; CPU = user+sys of the processes (median). Frames: those the block index "
                "chose, of all. Load average before / after: "
                f"{results['load_before'][0]:.1f} / {results['load_after'][0]:.1f}.\n\n")
        f.write("| latency | query | tg | frames | cold: requests | fetched | % | wall "
                "| warm: requests | fetched | % | wall | CPU | download + zstd -d \\| rg: wall "
                "| CPU | speed-up cold / warm |\n")
        f.write("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:"
                "|---:|\n")
        for r in results["rows"]:
            n = r["object_bytes"]
            frames = "%d / %d" % tuple(r["frames"]) if r["frames"] else "all"
            f.write(f"| {r['latency_ms']:g} ms | {r['query']} | {r['tg']} | {frames} "
                    f"| {r['cold_requests']} "
                    f"| {r['cold_fetched']:,} | {100 * r['cold_fetched'] / n:.2f} "
                    f"| {r['cold_wall']:.3f} s | {r['warm_requests']} | {r['warm_fetched']:,} "
                    f"| {100 * r['warm_fetched'] / n:.2f} | {r['warm_wall']:.3f} s "
                    f"| {r['warm_cpu']:.3f} s | {r['alt_wall']:.2f} s | {r['alt_cpu']:.2f} s "
                    f"| {r['speedup_cold']:.1f}x / {r['speedup_warm']:.1f}x |\n")
    log(f"wrote {a.out}.md and .json")


if __name__ == "__main__":
    main()
