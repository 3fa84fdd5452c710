#!/usr/bin/env python3
"""tg against any S3-compatible store: the same answers as rg on the local
copy. What the tests check against s3s-fs, for a store they do not start
(Garage, MinIO, Ceph, AWS itself): a generated tree of logs (plain, gzip,
one packed by `tg pack -o s3://…`) is uploaded under a fresh prefix of
BUCKET, and each query runs on a named object, a prefix (with and without
its slash), a glob and the packed object, with `-n`, `-c` and `-z`
(`--sort path`); then an object is indexed (`tg index s3://…`), replaced,
and searched again (a replaced object is never answered from its old
index). Every output must equal rg's, names mapped. The prefix is deleted
at the end.

  AWS_ENDPOINT_URL=http://127.0.0.1:3900 AWS_REGION=garage \\
  AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… \\
  bench/remote_diff.py --tg target/release/tg --bucket logs

Uploads use curl's SigV4 signing (path-style, as tg addresses a custom
endpoint).
"""
import argparse
import gzip
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import uuid

HOME = os.path.expanduser("~")
DEFAULT_RG = os.path.join(HOME, ".cache/trigrep-ci/rg-15.2.0/bin/rg")
QUERIES = [
    ["-e", "ERROR request 1234\\d "],
    ["-F", "host-3 WARN"],
    ["request 19999\\d"],
    ["nothing-here"],
    ["-i", "error request 77"],
    ["-w", "XYZZY-RARE-\\d+"],
]


def log_text(seed, lines):
    rng = random.Random(seed)
    out = []
    for i in range(lines):
        level = rng.choice(["INFO", "INFO", "INFO", "WARN", "ERROR"])
        out.append(f"2026-12-0{1 + i % 5} {i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d} "
                   f"host-{i % 7} {level} request {i} done in {rng.randint(1, 999)} ms")
        if i % 50_000 == 4_321:
            out.append(f"XYZZY-RARE-{i}")
    return ("\n".join(out) + "\n").encode()


def put(path, url):
    env = os.environ
    subprocess.run(["curl", "-sfS", "--aws-sigv4", f"aws:amz:{env.get('AWS_REGION', 'us-east-1')}:s3",
                    "--user", f"{env['AWS_ACCESS_KEY_ID']}:{env['AWS_SECRET_ACCESS_KEY']}",
                    "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD", "-T", path, url], check=True)


def delete(url):
    env = os.environ
    subprocess.run(["curl", "-sfS", "-X", "DELETE", "--aws-sigv4",
                    f"aws:amz:{env.get('AWS_REGION', 'us-east-1')}:s3",
                    "--user", f"{env['AWS_ACCESS_KEY_ID']}:{env['AWS_SECRET_ACCESS_KEY']}",
                    "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD", url], check=False)


def clean(out, remote, local):
    """`out` with the remote names read as local ones and --json's counts blanked."""
    out = out.replace(remote.encode(), local.encode())
    out = re.sub(rb'"(bytes_printed|bytes_searched)":\d+', b'"\\1":N', out)
    return re.sub(rb'"(elapsed|elapsed_total)":\{[^}]*\}', b'"\\1":T', out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tg", required=True)
    ap.add_argument("--rg", default=DEFAULT_RG)
    ap.add_argument("--bucket", required=True)
    a = ap.parse_args()
    endpoint = os.environ["AWS_ENDPOINT_URL"].rstrip("/")
    prefix = f"tg-diff-{uuid.uuid4().hex[:8]}"
    work = tempfile.mkdtemp(prefix="tg-remote-diff-")
    env = dict(os.environ, TG_INDEX_DIR=os.path.join(work, ".idx"))
    local = os.path.join(work, "t")
    os.makedirs(os.path.join(local, "d/sub"))
    files = {"app.log": log_text(1, 200_000), "d/sub/a.log": log_text(2, 60_000),
             "d/b.log": log_text(3, 30_000)}
    for rel, text in files.items():
        with open(os.path.join(local, rel), "wb") as f:
            f.write(text)
    with gzip.open(os.path.join(local, "d/sub/c.log.gz"), "wb") as f:
        f.write(log_text(4, 40_000))
    uploaded = list(files) + ["d/sub/c.log.gz"]
    base = f"s3://{a.bucket}/{prefix}"
    try:
        for rel in uploaded:
            put(os.path.join(local, rel), f"{endpoint}/{a.bucket}/{prefix}/{rel}")
        subprocess.run([a.tg, "pack", "-q", os.path.join(local, "app.log"), "-o",
                        f"{base}/app.log.zst"], env=env, check=True)
        cases, failures = 0, []

        def compare(args, remote, local_paths, name_from, name_to):
            nonlocal cases
            t = subprocess.run([a.tg] + args + remote, env=env, capture_output=True, cwd=local)
            r = subprocess.run([a.rg] + args + local_paths, capture_output=True, cwd=local)
            cases += 1
            if clean(t.stdout, name_from, name_to) != clean(r.stdout, "", "") \
                    or t.returncode != r.returncode:
                failures.append(f"tg {args} {remote}: exit {t.returncode} vs {r.returncode}; "
                                f"{t.stderr.decode(errors='replace')[:300]}")

        shapes = [
            ([f"{base}/app.log"], ["app.log"], f"{base}/", ""),
            ([f"{base}/app.log.zst"], ["app.log"], f"{base}/app.log.zst", "app.log"),
            ([f"{base}/d/"], ["d/"], f"{base}/", ""),
            ([f"{base}/d"], ["d"], f"{base}/", ""),
            ([f"{base}/d/sub/*.log*"], ["d/sub/a.log", "d/sub/c.log.gz"], f"{base}/", ""),
        ]
        for q in QUERIES + [["--json", "request 5555\\d "]]:
            for remote, paths, name_from, name_to in shapes:
                for extra in (["-n"], ["-c"], ["-z", "-n"]):
                    # A walk's order is the directory's: sorted, as rg's.
                    compare(["--sort", "path"] + extra + q, remote, paths, name_from, name_to)
        # An index object, then the object replaced: never answered from it.
        subprocess.run([a.tg, "index", "-q", f"{base}/app.log"], env=env, check=True)
        compare(["-n", "XYZZY-RARE"], [f"{base}/app.log"], ["app.log"], f"{base}/", "")
        with open(os.path.join(local, "app.log"), "ab") as f:
            f.write(b"XYZZY-RARE-replaced\n")
        put(os.path.join(local, "app.log"), f"{endpoint}/{a.bucket}/{prefix}/app.log")
        compare(["-n", "XYZZY-RARE"], [f"{base}/app.log"], ["app.log"], f"{base}/", "")
        print(f"{endpoint}: {cases} cases, {len(failures)} differ from rg")
        for f in failures:
            print("  " + f)
        return 1 if failures else 0
    finally:
        for rel in uploaded + ["app.log.zst", "app.log.tgidx"]:
            delete(f"{endpoint}/{a.bucket}/{prefix}/{rel}")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
