#!/usr/bin/env python3
"""A first reader of more needles in the 1 GiB log packed in a bucket: an
old tg on the log packed by it against a new tg on the log packed by it
(each object uploaded by one curl PUT to s3s-fs, behind the latency
proxy of `s3_remote.py`, 20 ms a request by default). Every output is
compared with `rg` on the log first; the figure is the median wall time
of the whole process (a fresh index directory each run).

  bench/s3_needles.py --old OLD_TG OLD_PACKED --new NEW_TG NEW_PACKED [--runs 3] [--latency 20]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

import s3_remote

NEEDLES = [
    ["-F", "MX6QDL_PAD_EIM_A24__SRC_BOOT_CFG2"],
    ["-F", "omap3xxx_l4_core_hwmod"],
    ["-F", "dma_addr_t pbuf_dma"],
    ["-F", "CCR_DST_AMODE_POSTINC"],
    ["-F", "KVM_SET_CP"],
    ["-F", "audit token leaked"],
    ["-i", "xyzzy-needle"],
    ["vol-7f3a9c|XYZZY-NEEDLE-4242"],
    ["-F", "drm_gem_object_lookup"],
    ["-F", "sysfs_emit(buf"],
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", nargs=2, required=True, metavar=("TG", "PACKED"))
    ap.add_argument("--new", nargs=2, required=True, metavar=("TG", "PACKED"))
    ap.add_argument("--rg", default=s3_remote.DEFAULT_RG)
    ap.add_argument("--s3s-fs", default=s3_remote.DEFAULT_S3S)
    ap.add_argument("--log", default=s3_remote.DEFAULT_LOG)
    ap.add_argument("--latency", type=float, default=20)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    data = tempfile.mkdtemp(prefix="tg-s3-needles-", dir="/var/tmp")
    server, proxy, url = s3_remote.start_server(a.s3s_fs, data)
    try:
        time.sleep(0.5)
        tools = []
        for name, (tg, packed) in [("old", a.old), ("new", a.new)]:
            os.makedirs(os.path.join(data, name))
            subprocess.run(["curl", "-sf", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user",
                            f"{s3_remote.KEY}:{s3_remote.SECRET}", "-H",
                            "x-amz-content-sha256: UNSIGNED-PAYLOAD", "-T", packed,
                            f"http://127.0.0.1:{proxy.upstream}/{name}/log.zst"], check=True)
            tools.append((name, tg, f"s3://{name}/log.zst"))
        proxy.latency = a.latency / 1000
        env = dict(os.environ, AWS_ACCESS_KEY_ID=s3_remote.KEY,
                   AWS_SECRET_ACCESS_KEY=s3_remote.SECRET, AWS_REGION="us-east-1",
                   AWS_EC2_METADATA_DISABLED="true", AWS_ENDPOINT_URL=url, TG_AUTO_INDEX="0")
        print(f"{a.latency:g} ms a request, median of {a.runs}; old {a.old}, new {a.new}\n")
        print("| query | lines (rg) | old | new |\n|---|---:|---:|---:|")
        for q in NEEDLES:
            want = subprocess.run([a.rg, *q, a.log], capture_output=True)
            cells = []
            for name, tg, obj in tools:
                times = []
                for _ in range(a.runs):
                    base = tempfile.mkdtemp()
                    start = time.monotonic()
                    got = subprocess.run([tg, *q, obj], capture_output=True,
                                         env=dict(env, TG_INDEX_DIR=base))
                    times.append(time.monotonic() - start)
                    shutil.rmtree(base)
                    if (got.stdout, got.returncode) != (want.stdout, want.returncode):
                        raise SystemExit(f"{name} {q}: differs from rg: {got.stderr[:500]}")
                cells.append(f"{statistics.median(times):.3f} s")
            lines = want.stdout.count(b"\n")
            print(f"| `{' '.join(q)}` | {lines} | {cells[0]} | {cells[1]} |", flush=True)
    finally:
        server.kill()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
