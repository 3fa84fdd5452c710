#!/usr/bin/env bash
# editors.sh -- each editor's exact rg flags (docs/COMPAT.md,
# "Editors and their command lines") on the kernel's selective queries,
# tg against rg through bench/compare.py (outputs compared first), with a
# warm `tg serve` on the tree; and VS Code's quick-open `--files`.
#
#   bash bench/editors.sh TG RG OUTDIR [compare.py flags...]
#
# TREE (default linux) names the corpus under $C. VS Code's clients need
# TREE=linux-vscode: the kernel corpus's Debian .gitignore leaves every file
# out of a --no-require-git walk; bench/vscode-corpus.sh makes the copy a
# kernel user has (CLIENTS=vscode runs only that client). The server must
# already run: (cd $C/$TREE && $TG index . && $TG serve --daemon .)
set -euo pipefail
TG=$1 RG=$2 OUT=$3
shift 3
C=${C:-$HOME/.cache/trigrep-corpora}
TREE=${TREE:-linux}
HERE=$(cd "$(dirname "$0")" && pwd)
if [ "$TREE" = linux-vscode ]; then bash "$HERE/vscode-corpus.sh" "$C"; fi
VSCODE_EXCLUDES="-g !**/.git -g !**/.svn -g !**/.hg -g !**/.DS_Store -g !**/Thumbs.db -g !**/node_modules -g !**/bower_components -g !**/*.code-search"
declare -A FLAGS=(
  [telescope]="--color=never --no-heading --with-filename --line-number --column --smart-case"
  [fzf]="--column --line-number --no-heading --color=always --smart-case"
  [consult]="--null --line-buffered --color=never --max-columns=1000 --path-separator / --smart-case --no-heading --with-filename --line-number --search-zip"
  [deadgrep]="--color=ansi --line-number --no-heading --no-column --with-filename --smart-case --hidden --glob=!/.git"
  [vscode]="--hidden --no-require-git --ignore-case $VSCODE_EXCLUDES --no-ignore-parent --follow --crlf --no-config --no-ignore-global --json"
)
mkdir -p "$OUT"
for client in ${CLIENTS:-telescope fzf consult deadgrep vscode}; do
  extra=()
  [ "$client" = vscode ] && extra=(--json-blank)
  python3 "$HERE/compare.py" --tg "$TG" --rg "$RG" --cwd "$C/$TREE" --corpus . \
    --queries "$HERE/queries/linux.txt" --mode hot --runs 3 \
    --tg-args "${FLAGS[$client]}" --rg-args "${FLAGS[$client]}" "${extra[@]}" \
    --out "$OUT/editors-$TREE-$client.json" --markdown "$OUT/editors-$TREE-$client.md" "$@" || true
done
# VS Code quick open: one `--files` query (the query file's format: a name, the arguments).
printf 'files\t--files --hidden --case-sensitive --no-require-git %s --no-ignore-parent --follow --no-config --no-ignore-global\n' \
  "$VSCODE_EXCLUDES" > "$OUT/vscode-files.txt"
python3 "$HERE/compare.py" --tg "$TG" --rg "$RG" --cwd "$C/$TREE" --corpus . \
  --queries "$OUT/vscode-files.txt" --mode hot --runs 10 \
  --out "$OUT/editors-$TREE-vscode-files.json" --markdown "$OUT/editors-$TREE-vscode-files.md" "$@" || true
