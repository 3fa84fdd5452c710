#!/usr/bin/env bash
# tg with its output relayed through one more process and pipe: what a
# server that verified and streamed printed bytes would cost a client on
# top of the search itself (the client copying socket -> stdout). Used in
# compare.py's --rg slot to measure that hop (BENCHMARKS.md, "tg serve").
set -o pipefail
"${TG_BIN:?set TG_BIN to tg}" "$@" | cat
