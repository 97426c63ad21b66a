#!/usr/bin/env bash
# compute-sanitizer's memcheck, racecheck and synccheck over every registered
# kernel and auto-dispatch, all precisions and op pairs, on small shapes that
# are no multiple of any tile (the element-wise kernels) and one whole tile
# (the 16-byte ones).
#   scripts/sanitize.sh TESSEL_BINARY OUT_DIR [SECONDS_PER_TOOL]
set -uo pipefail
bin=${1:?usage: scripts/sanitize.sh TESSEL_BINARY OUT_DIR [SECONDS_PER_TOOL]}
out=${2:?usage: scripts/sanitize.sh TESSEL_BINARY OUT_DIR [SECONDS_PER_TOOL]}
limit=${3:-170}
mkdir -p "$out"
status=0
for tool in memcheck racecheck synccheck; do
  log="$out/sanitize-$tool.log"
  timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 3 --print-limit 20 \
    "$bin" verify --kernel all,auto --dtype all --sizes 67x45x33,128x256x64 --ops NN,TT > "$log" 2>&1
  rc=$?
  errors=$(grep -m1 -oE '(ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazards displayed \([0-9]+ errors, [0-9]+ warnings\))' "$log" ||
    echo "no summary")
  case $rc in
    0) echo "$tool: $errors; $(grep -E 'passed.*failed' "$log" | tail -1)" ;;
    124) echo "$tool: stopped after $limit s ($errors so far)"; status=1 ;;
    *) echo "$tool: exit $rc, $errors"; grep -m5 -E '=========.*(Invalid|Race|Barrier|error)' "$log"; status=1 ;;
  esac
done
exit $status
