#!/usr/bin/env bash
# The Hopper steps (11-13) on a GPU machine: build for sm_90a, count HGMMA
# in their SASS, run their GPU tests, verify them from the command line and
# time them against cuBLAS (f16 and bf16, C in the input type).
#   scripts/gpu-hopper.sh OUT_DIR [DEPS_PREFIX] [SIZES] [KERNELS]
# Writes OUT_DIR/hopper/ and OUT_DIR/hopper.tgz; prints a short summary.
set -uo pipefail
out=${1:?usage: scripts/gpu-hopper.sh OUT_DIR [DEPS_PREFIX] [SIZES] [KERNELS]}
prefix=${2:-}
sizes=${3:-1024,2048,3072,4096,5120,6144,7168,8192,4096x4096x1024}
kernels=${4:-wgmma_f16,wgmma_bf16,wgmma_ws_f16,wgmma_ws_bf16,wgmma_persistent_f16,wgmma_persistent_bf16,wgmma_cluster_f16,wgmma_cluster_bf16,wgmma_cluster_f16_128x128,wgmma_cluster_bf16_128x128,auto}
B=${BUILD_DIR:-build-gpu}
source scripts/gpu-build.sh "$B" "$prefix" || exit 1
R=$out/hopper
mkdir -p "$R"
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > "$R/gpu.txt" || true
for o in "$B"/CMakeFiles/tessel_sm90.dir/src/kernels/hopper/*.o; do
  echo "$(basename "$o"): $(cuobjdump -sass "$o" | grep -c HGMMA) HGMMA, $(cuobjdump -sass "$o" | grep -cE 'LDL|STL') LDL/STL"
done > "$R/sass.txt"
"$B/tests/tessel_gpu_tests" --gtest_filter='*wgmma*:Api.*' > "$R/tests.log" 2>&1 || status=1
"$B/tessel" verify --kernel "$kernels" --dtype f16,f16:f32,bf16,bf16:f32 > "$R/verify.log" 2>&1 || status=1
"$B/tessel" bench --kernel "$kernels" --dtype f16,bf16 --sizes "$sizes" --repeat 10 \
  --csv "$R/bench.csv" --json "$R/bench.json" > "$R/bench.txt" 2>&1 || status=1
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv >> "$R/gpu.txt" || true
(cd "$out" && tar czf hopper.tgz hopper)
cat "$R/sass.txt"
grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$R/tests.log" | tail -12
tail -1 "$R/verify.log"
grep -hE "4096x4096x4096|8192x8192x8192" "$R/bench.txt" | head -40
exit $status
