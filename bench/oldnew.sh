#!/usr/bin/env bash
# Two tg binaries side by side on every indexed path and the scan:
# bench/compare.py with OLD as `--rg`, so each ratio is old/new (> 1: the
# new binary is faster). Outputs are compared before anything is timed.
#
#   bench/oldnew.sh OLD NEW TAG    # results: bench/results/oldnew-SET-TAG.{md,json}
#
# Needs, under C (default ~/.cache/trigrep-corpora): go/ and linux/ with
# tree indexes (each answered by a running `tg serve` when one is up),
# logs/big1G.log with a block index, logs/big1G.log.gz with an index, and
# PACKED (default ~/.cache/trigrep-pack/big1G.log.zst), made by `tg pack`.
set -uo pipefail
OLD=$1 NEW=$2 TAG=$3
C=${C:-$HOME/.cache/trigrep-corpora}
PACKED=${PACKED:-$HOME/.cache/trigrep-pack/big1G.log.zst}
RUNS=${RUNS:-3}
cd "$(dirname "$0")/.."
failed=0
run() {
  local set=$1; shift
  python3 bench/compare.py --tg "$NEW" --rg "$OLD" --mode hot --runs "$RUNS" --warmup 1 \
    --out "bench/results/oldnew-$set-$TAG.json" --markdown "bench/results/oldnew-$set-$TAG.md" "$@" \
    || { echo "oldnew: $set failed" >&2; failed=1; }
}
run go-scan --corpus "$C/go" --queries bench/queries/go.txt --tg-args=--no-index --rg-args=--no-index
run go-index --cwd "$C/go" --corpus . --queries bench/queries/go.txt
run linux-index --cwd "$C/linux" --corpus . --queries bench/queries/linux.txt
run log-blocks --corpus "$C/logs/big1G.log" --queries bench/queries/log-blocks.txt
run gz-indexed --corpus "$C/logs/big1G.log.gz" --queries bench/queries/log.txt \
  --tg-args=-z --rg-args=-z
run packed --corpus "$PACKED" --queries bench/queries/log-blocks.txt
exit $failed
