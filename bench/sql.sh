#!/usr/bin/env bash
# Makes the SQL benchmark's figures:
# builds tg and tg-sql in the sql-bench profile (release without debug
# info), packs the log with `tg pack` and indexes the kernel tree (each once,
# in $W), starts a warm SQL server (tg sql serve), a Ballista scheduler and
# two executors (2 slots each) on loopback, and runs bench/sql.py on the
# packed log and the kernel tree: embedded, served and on the cluster.
# Stops them all on exit.
#
#   bench/sql.sh [LOG] [RUNS]     # LOG: a file of $C/logs (big8G.log), RUNS: 3
#
# TG_SQL_BENCH_BIN=DIR takes tg and tg-sql from DIR instead (no build).
set -euo pipefail
cd "$(dirname "$0")/.."

C=${TG_CORPORA:-$HOME/.cache/trigrep-corpora}
W=${TG_SQL_BENCH:-$HOME/.cache/trigrep-sql-bench}
LOG=${1:-big8G.log}
RUNS=${2:-3}
B=${TG_SQL_BENCH_BIN:-$PWD/target/sql-bench}
PORT=50150
mkdir -p "$W/work1" "$W/work2"
export TG_INDEX_DIR="$W/idx"

[ -n "${TG_SQL_BENCH_BIN:-}" ] ||
  nice -n 10 cargo build --profile sql-bench -j 2 -p trigrep -p trigrep-sql --bins
[ -s "$W/$LOG.zst" ] || "$B/tg" pack -q "$C/logs/$LOG" -o "$W/$LOG.zst"
# Brings the tree index up to date (a fresh one reads nothing).
"$B/tg" index -q "$C/linux"

pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait' EXIT
# A warm SQL server (tg sql serve) in a runtime directory of its own.
mkdir -p -m 700 "$W/runtime"
XDG_RUNTIME_DIR="$W/runtime" "$B/tg-sql" serve 2>"$W/serve.log" &
pids+=($!)
"$B/tg-sql" scheduler --bind "127.0.0.1:$PORT" 2>"$W/scheduler.log" &
pids+=($!)
for e in 1 2; do
  "$B/tg-sql" executor --scheduler "127.0.0.1:$PORT" --bind "127.0.0.1:$((PORT + 2 * e - 1))" \
    --slots 2 --work-dir "$W/work$e" 2>"$W/executor$e.log" &
  pids+=($!)
done
for p in $PORT $((PORT + 1)) $((PORT + 3)); do
  for _ in $(seq 300); do
    (echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue 2
    sleep 0.2
  done
  echo "bench/sql.sh: nothing listens on port $p after 60 s (see $W/*.log)" >&2
  exit 2
done

for _ in $(seq 300); do
  [ -S "$W/runtime/trigrep/sql.sock" ] && break
  sleep 0.2
done

echo "start $(date -u +%FT%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 bench/sql.py --tg-sql "$B/tg-sql" --tg "$B/tg" --index-dir "$TG_INDEX_DIR" \
  --packed "$W/$LOG.zst" --log-text "$C/logs/$LOG" --tree "$C/linux" \
  --cluster "127.0.0.1:$PORT" --runtime "$W/runtime" --runs "$RUNS"
echo "end $(date -u +%FT%T) load: $(cut -d' ' -f1-3 /proc/loadavg)"
# What the executors read of each text (their logs: "reading N of M blocks").
grep -h " reading " "$W/executor1.log" "$W/executor2.log" | cut -c1-160 || true
