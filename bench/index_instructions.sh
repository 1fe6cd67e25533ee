#!/bin/bash
# Instructions of a structural index (`ragraf index --no-vectors`), counted by callgrind over
# every process (parent and forked parser workers): a count that does not move with the load
# of a shared machine, for comparing two trees. Run by hand (slow: ~50x a normal index).
#
#   bench/index_instructions.sh PYTHON CORPUS_DIR [LABEL]
#
# PYTHON is a tree's venv python (compile its bytecode first when PYTHONDONTWRITEBYTECODE is
# set: `python -m compileall -q ragraf`); the per-file time budget is off, since under
# valgrind a file would pass it and fail. Prints "LABEL instructions failed-files".
set -euo pipefail
PY=$1; SRC=$2; LABEL=${3:-run}
work=$(mktemp -d); out=$(mktemp -d)
cp -r "$SRC" "$work/corpus"
"$PY" -m ragraf init "$work/corpus" >/dev/null 2>&1
sed -i 's/^  file_time_budget_s: [0-9.]* /  file_time_budget_s: 0 /' "$work/corpus/.ragraf/config/project.yaml"
valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$out/cg.%p" \
  "$PY" -m ragraf -C "$work/corpus" index --no-vectors --json >/dev/null 2>"$out/stderr"
total=0
for f in "$out"/cg.*; do
  n=$(grep -m1 '^summary:' "$f" | awk '{print $2}'); total=$((total + ${n:-0}))
done
failed=$("$PY" -m ragraf -C "$work/corpus" query index_status --json 2>/dev/null \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["coverage"].get("files.failed"))' || echo "?")
echo "$LABEL $total $failed"
rm -rf "$work" "$out"
