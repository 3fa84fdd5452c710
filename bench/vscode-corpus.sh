#!/usr/bin/env bash
# vscode-corpus.sh -- the kernel tree as a VS Code user has it.
#
#   bash bench/vscode-corpus.sh [C]     (C: the corpora, ~/.cache/trigrep-corpora)
#
# The kernel corpus is Debian's linux-source tree: its top .gitignore ends
# with `/*` and `!/debian/` (Debian packaging), so with VS Code's
# `--no-require-git` rg and tg search nothing there. This makes
# $C/linux-vscode: the same tree hard-linked (`cp -al`, no disk), whose
# .gitignore (a new file, not a link to the original) leaves those lines
# out. Idempotent: an existing copy is only checked.
set -euo pipefail
C=${1:-${C:-$HOME/.cache/trigrep-corpora}}
SRC=$C/linux DST=$C/linux-vscode
[ -d "$DST" ] || { cp -al "$SRC" "$DST.tmp" && mv "$DST.tmp" "$DST"; }
# Everything from the Debian packaging comment block on (`#`, the comment,
# `#`, `/*`, `!/debian/`) goes; the rest is the kernel's own .gitignore.
awk '/^# Debian packaging:/ { cut = NR - 1 } { line[NR] = $0 }
     END { n = cut ? cut - 1 : NR; for (i = 1; i <= n; i++) print line[i] }' \
  "$SRC/.gitignore" > "$DST/.gitignore.new"
# Replaces the hard link; left alone when already right (a rewrite changes
# its ctime, and an index of the copy would no longer stand in for a walk).
if [ "$(stat -c %h "$DST/.gitignore")" = 1 ] && cmp -s "$DST/.gitignore.new" "$DST/.gitignore"; then
  rm "$DST/.gitignore.new"
else
  mv "$DST/.gitignore.new" "$DST/.gitignore"
fi
if grep -qx '/\*' "$DST/.gitignore" || [ "$(stat -c %h "$DST/.gitignore")" != 1 ]; then
  echo "vscode-corpus.sh: $DST/.gitignore still has Debian's rules or is a link" >&2
  exit 1
fi
echo "$DST: $(wc -l < "$DST/.gitignore") .gitignore lines (of $(wc -l < "$SRC/.gitignore"))"
