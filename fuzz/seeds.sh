#!/usr/bin/env bash
# Makes the seed corpora (never checked in): small real inputs of each
# parser, written by tg itself. TG=/path/to/tg uses that binary instead of
# building one.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd .. && pwd)
mkdir -p corpus/block_times corpus/block_source corpus/index_reader corpus/pack_container corpus/gz_record corpus/integrity corpus/logline
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TG_INDEX_DIR="$work/idx"
tg=${TG:-}
if [ -z "$tg" ]; then
  ( cd "$root" && cargo build --quiet --release )
  tg="$root/target/release/tg"
fi
mkdir -p "$work/tree/sub"
printf 'hello world\nfoo bar\n' > "$work/tree/a.txt"
printf 'fn main() {}\n' > "$work/tree/sub/b.rs"
for i in $(seq 1 3000); do echo "Jan  1 00:00:$((i % 60)) host kernel: line $i"; done > "$work/app.log"
TG_INDEX_DIR="$work/idx" "$tg" index -q "$work/tree"
TG_INDEX_DIR="$work/idx" "$tg" index -q --block-size 4K "$work/app.log"
"$tg" pack -q -f --frame-size 4K "$work/app.log" -o corpus/pack_container/seed-4k
printf 'one line\n' > "$work/one.log"
"$tg" pack -q -f "$work/one.log" -o corpus/pack_container/seed-one
# Another tool's seekable file: three zstd frames cut mid-line, a seek table.
python3 - "$work/app.log" <<'PY'
import struct, subprocess, sys
text = open(sys.argv[1], 'rb').read()[:5000]
frames, entries = [], b''
for i in range(0, len(text), 1700):
    part = text[i:i + 1700]
    f = subprocess.run(['zstd', '-q', '-c', '-3', '--no-check'], input=part, capture_output=True).stdout
    frames.append(f)
    entries += struct.pack('<III', len(f), len(part), 0)
table = struct.pack('<II', 0x184D2A5E, len(entries) + 9) + entries + struct.pack('<IBI', len(frames), 0x80, 0x8F92EAB1)
open('corpus/pack_container/seed-foreign', 'wb').write(b''.join(frames) + table)
PY
# Varied text, so that gzip's deflate blocks are short and points many.
for i in $(seq 1 4000); do echo "$RANDOM host $((i * 7919 % 10007)) line $i $RANDOM"; done |
  gzip -6 > "$work/app.log.gz"
TG_INDEX_DIR="$work/idx" "$tg" index -q --block-size 4K --access-spacing 4K "$work/app.log.gz"
n=0
for f in "$work"/idx/indexes/*/index.tg; do
  n=$((n + 1))
  cp "$f" "corpus/index_reader/seed$n"
done
# The same indexes as sections (index_reader's `SECT` input, framed with
# correct checksums by the target): [name length][name][length u32][bytes].
python3 - "$work"/idx/indexes/*/index.tg <<'PY'
import struct, sys
for i, p in enumerate(sys.argv[1:]):
    b = open(p, 'rb').read()
    toc_offset, toc_len = struct.unpack_from('<QQ', b, len(b) - 52)
    n = struct.unpack_from('<I', b, toc_offset)[0]
    out = b'SECT'
    for k in range(n):
        at = toc_offset + 8 + 40 * k
        name = b[at:at + 16].rstrip(b'\0')
        off, ln = struct.unpack_from('<QQ', b, at + 16)
        out += bytes([len(name)]) + name + struct.pack('<I', ln) + b[off:off + ln]
    open(f"corpus/index_reader/sections{i}", "wb").write(out)
PY
# The packed files' integrity records, as tg pack keeps them.
for f in "$work"/idx/indexes/*/integrity; do cp "$f" "corpus/integrity/seed-$(basename "$(dirname "$f")")"; done
# The block index's `source` section: the 88 bytes after the "TGBLKSRC" magic's start
# (80 in version 1).
python3 - "$work"/idx/indexes/*/index.tg <<'PY'
import sys
for i, p in enumerate(sys.argv[1:]):
    b = open(p, 'rb').read()
    at = b.find(b"TGBLKSRC")
    if at >= 0:
        open(f"corpus/block_source/seed{i}", "wb").write(b[at:at + 88])
        open(f"corpus/block_source/seed{i}-v1", "wb").write(b[at:at + 8] + (1).to_bytes(4, "little") + b[at + 12:at + 80])
    # The `times` section: 32 bytes of head, 16 a block.
    at = b.find(b"TGTIMES\0")
    if at >= 0:
        n = int.from_bytes(b[at + 24:at + 32], "little")
        open(f"corpus/block_times/seed{i}", "wb").write(b[at:at + 32 + 16 * n])
    # A .gz index's record: header, point table, windows (lengths in the table).
    at = b.find(b"TGGZSRC\0")
    if at >= 0:
        n = int.from_bytes(b[at + 80:at + 88], "little")
        table = b[at + 104:at + 104 + 32 * n]
        windows = sum(int.from_bytes(table[k + 28:k + 32], "little") for k in range(0, len(table), 32))
        open(f"corpus/gz_record/seed{i}", "wb").write(b[at:at + 104 + 32 * n + windows])
PY
# Log lines of each timestamp format and level spelling.
head -n 50 "$work/app.log" > corpus/logline/seed-syslog
printf '2026-01-03 10:00:00,250 ERROR boom\n\tat x\n2026-01-03T10:00:01.5+01:00 [WARN] slow\n' > corpus/logline/seed-iso
printf '10.0.0.1 - - [03/Jan/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 5\n' > corpus/logline/seed-access
printf '{"ts":1767434400.5,"level":"info"}\n{"@timestamp":"2026-01-03T10:00:00Z"}\n<11>x\n' > corpus/logline/seed-json
# tg serve's protocol: a hello, a sync request, a path list, JSON lines.
mkdir -p corpus/serve_protocol
python3 - <<'PY'
import json, struct
def frame(kind, body):
    return struct.pack('<I', len(body) + 1) + bytes([kind]) + body
def path(kind, p):
    return bytes([kind]) + struct.pack('<I', len(p)) + p
hello = frame(1, json.dumps({"protocol": 1}).encode())
sync = frame(2, json.dumps({"op": "sync"}).encode())
paths = frame(4, path(0, b"src/a.rs") + path(1, b"gone") + path(0, b"\xff\xfe"))
open("corpus/serve_protocol/frames", "wb").write(hello + sync + paths)
# A `candidates` request (query: and(trigram "abc", or(followed "bcd" + 'e', all))),
# its search paths, and an answer's path kinds.
cands = frame(2, json.dumps({"op": "candidates", "binary_whole": False, "misses": False}).encode())
query = frame(5, b"\x04\x02\x00\x00\x00" + b"\x02abc" + b"\x05\x02\x00\x00\x00" + b"\x03bcde" + b"\x00")
scopes = frame(4, path(0, b"") + path(0, b"src"))
answer = frame(4, path(2, b"a.rs") + path(3, b"b.rs") + path(4, b"d") + path(5, b"d/x") + path(6, b"d/y"))
open("corpus/serve_protocol/candidates", "wb").write(b"\xff" + hello + cands + query + scopes + answer)
open("corpus/serve_protocol/lines", "wb").write(b'{"protocol":1,"token":"ab"}\n{"op":"status"}\n')
open("corpus/serve_protocol/record", "wb").write(b'pid=4242\nsocket=/run/user/0/trigrep/idx.sock\nlisten=127.0.0.1:7070\n')
PY
# The planner: a flags byte, a byte of more flags, patterns (one a line),
# NUL, a haystack (see fuzz_targets/planner.rs).
mkdir -p corpus/planner
python3 - <<'PY'
seeds = [
    (0, 0, "foo.*bar", "a FOO then bar"),
    (1, 0, "(?:abc|Kab)+x?", "xKABKabx"),
    (2, 1, "hello\nworld", "hello world"),
    (4, 0, "a.b\nc+d", "x a.b y"),
    (8 | 16, 0, "foo.bar(baz)?", "foo\nbar"),
    (32, 2, "[a-c]{2,4}[^x]\\w", "abcz1"),
    (64, 0, "end$", "the end\r\n"),
    (128, 4, "ab\\x00?cd", "xxabcd\0yy"),
    (1, 0, "\u017fk\u212a", "SKK"),
    (0, 0, "(?i)stra\u00dfe|caf\u00e9", "STRASSE CAF\u00c9"),
]
for i, (flags, more, pat, hay) in enumerate(seeds):
    data = bytes([flags, more]) + pat.encode() + b"\0" + hay.encode()
    open(f"corpus/planner/seed{i}", "wb").write(data)
PY
# The config file: flags, values on their own lines, comments, blanks.
mkdir -p corpus/config_file
printf '# defaults\n--smart-case\n  --max-columns=150\n\n-g\n!*.min.js\n--type-add\nweb:*.{html,css}\r\n-j3\n' > corpus/config_file/rc1
printf -- '--colors=path:fg:magenta\n--context=2\n--sort\npath\n-e\nfoo\n--hyperlink-format=default\n' > corpus/config_file/rc2
printf -- '-U\n--multiline-dotall\n--pre-glob\n*.gz\n-z\n--no-config\n-M 10\n--index-dir\n/tmp/x\n--chunk-size=1M\n' > corpus/config_file/rc3
echo "seeds: $(ls corpus/index_reader | wc -l) index files (whole and as sections), $(ls corpus/block_source | wc -l) source records, $(ls corpus/pack_container | wc -l) pack containers, $(ls corpus/gz_record | wc -l) gz records"
