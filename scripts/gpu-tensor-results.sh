#!/usr/bin/env bash
# The tensor-core results (steps 09 and 10) on a GPU machine: build for
# sm_90a, mma.sync ceiling, benchmark of every tensor-core kernel and
# auto-dispatch at f16, bf16 and tf32 (plus 16-bit inputs with FP32 C),
# one plot per precision, and verification of every tensor-core kernel.
#   scripts/gpu-tensor-results.sh OUT_DIR [DEPS_PREFIX]
# Writes OUT_DIR/results/ and OUT_DIR/results.tgz; prints the 4096^3 and 8192^3 rows.
set -uo pipefail
out=${1:?usage: scripts/gpu-tensor-results.sh OUT_DIR [DEPS_PREFIX]}
prefix=${2:-}
B=${BUILD_DIR:-build-gpu}
source scripts/gpu-build.sh "$B" "$prefix" || exit 1
R=$out/results
mkdir -p "$R"
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > "$R/gpu.txt" || true
"$B/tessel" info > "$R/info.txt"
{ "$B/tessel_mma_peak" 1 && "$B/tessel_mma_peak" 0.5 8; } > "$R/peak.txt" || status=1
sizes=1024,2048,3072,4096,6144,8192,4096x4096x1024
"$B/tessel" bench --kernel all,auto --dtype f16,bf16,tf32 --sizes "$sizes" --repeat 10 \
  --csv "$R/bench.csv" --json "$R/bench.json" > "$R/bench.txt" 2>&1 || status=1
"$B/tessel" bench --kernel mma_f16,mma_bf16,auto --dtype f16:f32,bf16:f32 --sizes 4096,8192 --repeat 10 \
  --csv "$R/bench_f32out.csv" --json "$R/bench_f32out.json" > "$R/bench_f32out.txt" 2>&1 || status=1
for d in f16 bf16 tf32; do
  awk -F, -v d="$d" 'NR == 1 || $2 == d' "$R/bench.csv" > "$R/bench_$d.csv"
  python3 scripts/plot_bench.py "$R/bench_$d.csv" "$R/$d.png" \
    --title "tessel $d tensor-core kernels vs cuBLAS ($(head -1 "$R/info.txt" | sed 's/.*: //'))" || status=1
done
"$B/tessel" verify --kernel all,auto --dtype tf32,f16,f16:f32,bf16,bf16:f32 > "$R/verify.log" 2>&1 || status=1
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv >> "$R/gpu.txt" || true
(cd "$out" && tar czf results.tgz results)
cat "$R/peak.txt"
tail -1 "$R/verify.log"
grep -hE "4096x4096x4096|8192x8192x8192" "$R/bench.txt" "$R/bench_f32out.txt"
exit $status
