#!/usr/bin/env bash
# The Hopper steps (11-15, and step 10's TMA-fed variant) on a GPU machine, in two parts that each fit a
# 10-minute device call:
#   scripts/gpu-hopper.sh OUT_DIR [DEPS_PREFIX] tests   SASS check (HGMMA / HMMA count, no local memory),
#                                                       every GPU test (ctest; TESTS=REGEX: those matching),
#                                                       CLI verify of every kernel (VERIFY=KERNELS:DTYPES: those)
#   scripts/gpu-hopper.sh OUT_DIR [DEPS_PREFIX] bench   f16, bf16 and tf32 (DTYPES="bf16 tf32": those) benchmark
#                                                       of steps 10-15 and auto-dispatch against cuBLAS, FP32-output
#                                                       rows, op pairs, beta = 1, plots
# Writes OUT_DIR/hopper/ and OUT_DIR/hopper-PART.tgz; prints a short summary.
set -uo pipefail
out=${1:?usage: scripts/gpu-hopper.sh OUT_DIR [DEPS_PREFIX] tests|bench}
prefix=${2:-}
part=${3:-tests}
B=${BUILD_DIR:-build-gpu}
source scripts/gpu-build.sh "$B" "$prefix" || exit 1
R=$out/hopper
mkdir -p "$R"
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv > "$R/gpu-$part.txt" || true
"$B/tessel" info > "$R/info.txt"
if [ "$part" = tests ]; then
  for o in "$B"/CMakeFiles/tessel_sm90.dir/src/kernels/hopper/*.o; do
    sass=$(cuobjdump -sass "$o")
    echo "$(basename "$o"): $(grep -c HGMMA <<< "$sass") HGMMA, $(grep -c HMMA <<< "$sass") HMMA, $(grep -cE 'LDL|STL' <<< "$sass") LDL/STL"
  done > "$R/sass.txt"
  (cd "$B" && ctest -j8 --output-on-failure ${TESTS:+-R "$TESTS"}) > "$R/tests.log" 2>&1 || status=1
  verify=${VERIFY:-all,auto:f16,f16:f32,bf16,bf16:f32,tf32}
  "$B/tessel" verify --kernel "${verify%%:*}" --dtype "${verify#*:}" > "$R/verify.log" 2>&1 || status=1
  cat "$R/sass.txt"
  grep -E "tests passed|tests failed" "$R/tests.log"
  grep -E "\(Failed\)|\(Timeout\)" "$R/tests.log" | head -20
  tail -1 "$R/verify.log"
else
  sizes=1024,2048,3072,4096,5120,6144,7168,8192,4096x4096x1024
  for d in ${DTYPES:-f16 bf16 tf32}; do
    k=mma_$d,wgmma_cluster_$d,wgmma_cluster_${d}_128x192,wgmma_cluster_${d}_128x128,wgmma_cluster_${d}_64x128,auto
    [ "$d" = tf32 ] || k=mma_tma_$d,wgmma_$d,wgmma_ws_$d,wgmma_persistent_$d,wgmma_streamk_$d,$k
    "$B/tessel" bench --kernel "$k" --dtype "$d" --sizes "$sizes" --repeat 10 \
      --csv "$R/bench_$d.csv" --json "$R/bench_$d.json" > "$R/bench_$d.txt" 2>&1 || status=1
    python3 scripts/plot_bench.py "$R/bench_$d.csv" "$R/$d.png" \
      --title "tessel $d Hopper kernels vs cuBLAS ($(head -1 "$R/info.txt" | sed 's/.*: //; s/ (.*//'))" || status=1
  done
  [ -n "${DTYPES:-}" ] || "$B/tessel" bench --kernel auto --dtype f16:f32,bf16:f32 --sizes 4096,8192 --repeat 10 \
    --csv "$R/bench_f32out.csv" --json "$R/bench_f32out.json" > "$R/bench_f32out.txt" 2>&1 || status=1
  if [ -z "${DTYPES:-}" ]; then
    # auto-dispatch on the other op pairs, and with beta = 1 (C read back)
    "$B/tessel" bench --kernel auto --dtype bf16,tf32 --ops NN,NT,TN,TT --sizes 4096,8192 --repeat 10 \
      --csv "$R/bench_ops.csv" --json "$R/bench_ops.json" > "$R/bench_ops.txt" 2>&1 || status=1
    "$B/tessel" bench --kernel auto --dtype f16,bf16 --sizes 4096,8192 --beta 1 --repeat 10 \
      --csv "$R/bench_beta1.csv" --json "$R/bench_beta1.json" > "$R/bench_beta1.txt" 2>&1 || status=1
  fi
  grep -h "auto" "$R"/bench_*.txt
fi
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv >> "$R/gpu-$part.txt" || true
(cd "$out" && tar czf "hopper-$part.tgz" hopper)
exit $status
