#!/usr/bin/env bash
# Everything the committed results are made of, in one go on the GPU machine:
# tests, verify, the ladder benchmark, the size sweep and its plot, auto-dispatch
# on the bar shapes before and after `tessel tune`, and ncu metrics per step.
#   scripts/gpu-results.sh OUT_DIR [DEPS_PREFIX]
# Writes OUT_DIR/results.tgz (and the plot beside it).
set -uo pipefail
out=${1:?usage: scripts/gpu-results.sh OUT_DIR [DEPS_PREFIX]}
prefix=${2:-}
r=$out/results
mkdir -p "$r"
build=${BUILD_DIR:-build-gpu}
ladder=naive,coalesced,smem,blocktile_1d,blocktile_2d,vectorized,warptile,pipelined,pipelined_128x256
bar=1024:8192:1024,4096x4096x1024,8192x1024x8192,1024x8192x8192,127x4097x1000

scripts/gpu-check.sh "$r" "$prefix" 1024,2048,4096,8192 > "$r/console.log" 2>&1
status=$?
source scripts/gpu-build.sh "$build" "$prefix" > /dev/null
grep -A3 "== tests" "$r/console.log"; grep -A1 "== verify" "$r/console.log"

echo "== sweep"
"$build/tessel" bench --kernel "$ladder" --sizes 256:8192:256 --repeat 10 --csv "$r/sweep.csv" --json "$r/sweep.json" > "$r/sweep.txt" 2>&1 || status=1
python3 scripts/plot_bench.py "$r/sweep.csv" "$out/sweep.png" \
  --title "tessel FP32 ladder vs cuBLAS, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" && cp "$out/sweep.png" "$r/"

echo "== auto-dispatch on the bar shapes, built-in heuristics, then tuned"
export TESSEL_TUNE_FILE=$r/gpu.tune
"$build/tessel" bench --kernel auto --sizes "$bar" --repeat 20 --csv "$r/auto_heuristic.csv" --json "$r/auto_heuristic.json" > "$r/auto_heuristic.txt" 2>&1 || status=1
"$build/tessel" tune --sizes "$bar" --repeat 10 > "$r/tune.log" 2>&1 || status=1
"$build/tessel" bench --kernel auto --sizes "$bar" --repeat 20 --csv "$r/auto_tuned.csv" --json "$r/auto_tuned.json" > "$r/auto_tuned.txt" 2>&1 || status=1
tail -13 "$r/auto_tuned.txt"

echo "== ncu, 4096^3 NN"
for k in smem blocktile_1d blocktile_2d vectorized warptile pipelined pipelined_128x256; do
  echo "--- $k"
  PATH=$PATH:/usr/local/cuda/bin scripts/profile.sh "$build" "$k" 4096 2>&1 | grep -E '__' | awk '{print $1, $NF}'
done > "$r/ncu.txt" 2>&1
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$r/console.log" 2>&1
tail -12 "$r/bench.txt"
tar czf "$out/results.tgz" -C "$out" results && rm -rf "$r"
exit $status
