#!/bin/bash
# Huge-file timings for BENCHMARKS.md ("Huge files"): tg vs rg on one log,
# hot (file in page cache) and cold (caches dropped before each run),
# medians of $REPS runs. Outputs are compared before timing.
# Usage: bench/huge/run.sh LOG [REPS]
set -u
LOG=$1; REPS=${2:-3}
RG=${TG_TEST_RG:-/root/.cache/trigrep-ci/rg-15.2.0/bin/rg}
TG=${TG:-$(dirname "$0")/../../target/release/tg}
queries=(
  "-F -c XYZZY-NEEDLE-4242"
  "-c FATAL:.checksum.mismatch.on.volume.vol-[0-9a-f]+"
  "-c \bEXPORT_SYMBOL\w*"
  "-c -i error"
  "-c -v ^.+\*"
)
t() { local s=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $s" | bc; }
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; }
warm() { cat "$LOG" > /dev/null; }
for q in "${queries[@]}"; do
  a=$($RG $q "$LOG"); b=$($TG $q "$LOG")
  [ "$a" = "$b" ] || { echo "MISMATCH $q: rg=$a tg=$b"; continue; }
  for mode in hot cold; do
    for tool in "rg" "rg --no-mmap" "tg" "tg --io mmap" "tg --io read"; do
      ts=()
      for r in $(seq $REPS); do
        if [ $mode = cold ]; then drop; else warm; fi
        case $tool in rg*) cmd="$RG ${tool#rg}";; tg*) cmd="$TG ${tool#tg}";; esac
        ts+=($(t $cmd $q "$LOG"))
      done
      echo "$mode | $q | $tool | $(med "${ts[@]}") | ${ts[*]}"
    done
  done
done
