#!/usr/bin/env bash
# tessel on a GPU machine that has the CUDA toolkit, CMake and a compiler but
# maybe no network: configure and build with all cores (for sm_90a unless
# TESSEL_CUDA_ARCHITECTURES says otherwise), then test, verify or measure.
# Logs, CSV and JSON go to OUT_DIR (and, packed, to OUT_DIR/logs.tgz); the
# console gets a short summary.
#
#   scripts/gpu.sh build   OUT_DIR [DEPS]             configure and build only
#   scripts/gpu.sh check   OUT_DIR [DEPS]             tests, the example against the installed
#                                                     package, verify all,auto, bench every kernel
#                                                     at SIZES (default 1024,2048,4096)
#   scripts/gpu.sh tests   OUT_DIR [DEPS]             GPU tests (TESTS=REGEX: those matching),
#                                                     SASS check of the Hopper kernels, verify
#                                                     (VERIFY=KERNELS:DTYPES, default all,auto:all)
#   scripts/gpu.sh compare OUT_DIR [DEPS] OTHER       auto-dispatch of this build against the
#                                                     `tessel` binary OTHER, in alternation, at
#                                                     SIZES (default 4096,8192) for every precision
#   scripts/gpu.sh suite   OUT_DIR [DEPS]             auto-dispatch over the shape suites (SUITE,
#                                                     default all four) at DTYPES (default all),
#                                                     REPEAT runs a row: CSV, plot, summary table
#   scripts/gpu.sh fuzz    OUT_DIR [DEPS]             tessel fuzz for SECONDS_TO_FUZZ (default 500) on THREADS
#                                                     (default all cores), SEED (default 1)
#   scripts/gpu.sh tp      OUT_DIR [DEPS]             tensor-parallel tests and tessel bench --tp on
#                                                     every GPU of the machine (TP_SIZES, TP_DTYPE)
#   scripts/gpu.sh results OUT_DIR [DEPS]             FP32 ladder sweep and plot, auto-dispatch
#                                                     on the bar shapes before and after tuning,
#                                                     Nsight Compute metrics per step
#
# DEPS: where CLI11, fmt, nlohmann-json and GoogleTest are unpacked
# (scripts/fetch-deps.sh makes .deps/root/usr); omit when installed. BUILD_DIR: build-gpu.
set -uo pipefail
cmd=${1:?usage: scripts/gpu.sh build|check|tests|compare|suite|fuzz|tp|results OUT_DIR [DEPS] [OTHER]}
out=${2:?usage: scripts/gpu.sh $cmd OUT_DIR [DEPS]}
prefix=${3:-}
build=${BUILD_DIR:-build-gpu}
mkdir -p "$out"
out=$(cd "$out" && pwd)
status=0
step() { echo "== $*"; }
gpu_state() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
  --format=csv,noheader || true; }

step "GPU: $(gpu_state)"
cfg=(-S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSEL_CUDA_ARCHITECTURES="${TESSEL_CUDA_ARCHITECTURES:-90a}")
if [ -n "$prefix" ]; then
  prefix=$(cd "$prefix" && pwd)
  cfg+=(-DCMAKE_PREFIX_PATH="$prefix")
  export LD_LIBRARY_PATH="$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
command -v nvcc > /dev/null || export PATH=$PATH:/usr/local/cuda/bin
step "configure and build ($build)"
start=$SECONDS
if ! { cmake "${cfg[@]}" && cmake --build "$build" -j"$(nproc)"; } > "$out/build.log" 2>&1; then
  tail -40 "$out/build.log"
  exit 1
fi
echo "built in $((SECONDS - start)) s"
T=$build/tessel

run_tests() {
  (cd "$build" && ctest -j8 --output-on-failure ${TESTS:+-R "$TESTS"}) > "$out/tests.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|Total Test time" "$out/tests.log"
  echo "skipped: $(grep -cE '\(Skipped\)' "$out/tests.log")"
  grep -E "\(Failed\)|\(Timeout\)" "$out/tests.log" | head -20
}
run_verify() {
  local v=${VERIFY:-all,auto:all}
  "$T" verify --kernel "${v%%:*}" --dtype "${v#*:}" > "$out/verify.log" 2>&1 || status=1
  tail -1 "$out/verify.log"
}

case "$cmd" in
  build) ;;
  check)
    step "tests"; run_tests
    step "example against the installed package"
    { cmake --install "$build" --prefix "$build/install" &&
      cmake -S examples/basic -B "$build/example" -G Ninja -DCMAKE_PREFIX_PATH="$PWD/$build/install" &&
      cmake --build "$build/example"; } >> "$out/build.log" 2>&1 && "$build/example/tessel_example" | tail -1 || status=1
    step "info"; "$T" info
    step "verify"; run_verify
    step "bench"
    "$T" bench --kernel all --sizes "${SIZES:-1024,2048,4096}" --csv "$out/bench.csv" --json "$out/bench.json" \
      > "$out/bench.txt" 2>&1 || status=1
    cat "$out/bench.txt"
    ;;
  tests)
    step "SASS of the Hopper kernels"
    for o in "$build"/CMakeFiles/tessel_sm90.dir/src/kernels/hopper/*.o; do
      sass=$(cuobjdump -sass "$o")
      echo "$(basename "$o"): $(grep -c HGMMA <<< "$sass") HGMMA, $(grep -c HMMA <<< "$sass") HMMA," \
        "$(grep -cE 'LDL|STL' <<< "$sass") LDL/STL"
    done | tee "$out/sass.txt"
    step "tests"; run_tests
    step "verify"; run_verify
    ;;
  compare)
    other=${4:?usage: scripts/gpu.sh compare OUT_DIR [DEPS] OTHER_TESSEL_BINARY}
    step "auto-dispatch: this build against $other"
    # Rounds in alternation, so that both see the same clocks and power state.
    for round in 1 2; do
      for bin in "$T" "$other"; do
        tag=$([ "$bin" = "$T" ] && echo new || echo old)
        "$bin" bench --kernel auto --dtype f32,tf32,f16,bf16,bf16:f32 --sizes "${SIZES:-4096,8192}" \
          --repeat "${REPEAT:-20}" --csv "$out/compare_${tag}_$round.csv" > "$out/compare_${tag}_$round.txt" 2>&1 ||
          status=1
      done
    done
    python3 scripts/compare_bench.py "$out"/compare_new_*.csv -- "$out"/compare_old_*.csv | tee "$out/compare.md"
    ;;
  suite)
    step "auto-dispatch over the suites"
    "$T" bench --kernel auto --dtype "${DTYPES:-all}" --suite "${SUITE:-llm,squares,skinny,unaligned}" \
      --repeat "${REPEAT:-10}" --csv "$out/suite.csv" > "$out/suite.txt" 2>&1 || status=1
    sed -n '/^suite /,$p' "$out/suite.txt"
    python3 scripts/plot_suite.py "$out/suite.csv" "$out/suite.png" --title "auto-dispatch / cuBLAS, $(gpu_state | cut -d, -f1)" &&
      cat "$out/suite.md"
    ;;
  fuzz)
    step "fuzz"
    "$T" fuzz --seconds "${SECONDS_TO_FUZZ:-500}" --threads "${THREADS:-$(nproc)}" --seed "${SEED:-1}" \
      > "$out/fuzz.txt" 2> "$out/fuzz.log" || status=1
    head -60 "$out/fuzz.txt"
    ;;
  tp)
    gpus=$(nvidia-smi --list-gpus | wc -l)
    export NCCL_NVLS_ENABLE=0
    step "tensor-parallel tests on $gpus GPUs"
    TESTS=TensorParallel run_tests
    step "tessel bench --tp $gpus"
    "$T" bench --tp "$gpus" --dtype "${TP_DTYPE:-bf16}" ${TP_SIZES:+--sizes "$TP_SIZES"} --repeat "${REPEAT:-10}" \
      --csv "$out/tp.csv" > "$out/tp.txt" 2>&1 || status=1
    cat "$out/tp.txt"
    ;;
  results)
    ladder=naive,coalesced,smem,blocktile_1d,blocktile_2d,vectorized,warptile,pipelined_128x128,pipelined_128x256
    bar=1024:8192:1024,4096x4096x1024,8192x1024x8192,1024x8192x8192,127x4097x1000
    step "sweep"
    "$T" bench --kernel "$ladder" --sizes 256:8192:256 --repeat 10 --csv "$out/sweep.csv" > "$out/sweep.txt" 2>&1 ||
      status=1
    python3 scripts/plot_bench.py "$out/sweep.csv" "$out/sweep.png" \
      --title "tessel FP32 ladder vs cuBLAS, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" || status=1
    step "auto-dispatch on the bar shapes, built-in heuristics, then tuned"
    export TESSEL_TUNE_FILE=$out/gpu.tune
    "$T" bench --kernel auto --sizes "$bar" --repeat 20 --csv "$out/auto_heuristic.csv" > "$out/auto_heuristic.txt" 2>&1 ||
      status=1
    "$T" tune --sizes "$bar" --repeat 10 > "$out/tune.log" 2>&1 || status=1
    "$T" bench --kernel auto --sizes "$bar" --repeat 20 --csv "$out/auto_tuned.csv" > "$out/auto_tuned.txt" 2>&1 ||
      status=1
    tail -13 "$out/auto_tuned.txt"
    step "ncu, 4096^3 NN"
    for k in smem blocktile_1d blocktile_2d vectorized warptile pipelined_128x128 pipelined_128x256; do
      echo "--- $k"
      scripts/profile.sh "$build" "$k" 4096 2>&1 | grep -E '__' | awk '{print $1, $NF}'
    done > "$out/ncu.txt" 2>&1
    ;;
  *) echo "unknown command '$cmd': build, check, tests, compare, suite, fuzz, tp or results" >&2; exit 2 ;;
esac
step "GPU after: $(gpu_state)"
(cd "$out" && tar czf logs.tgz --exclude=logs.tgz ./*.log ./*.txt 2> /dev/null) || true
exit $status
